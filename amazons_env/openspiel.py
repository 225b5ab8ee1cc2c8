"""OpenSpiel interop: its ``amazons`` actions and states to our ``Board``/``Move``, and back.

OpenSpiel (``pip install open_spiel``, module ``pyspiel``) plays a move as **three actions**: the
queen's cell, its destination cell, the arrow's cell, each ``cell = row * N + col`` with row 0 the
**top** rank (rank N) and col 0 file a. Its game ``amazons`` has one parameter, ``board_size``
(6, 8 or 10; default 10), the same start layouts as ours, White (its ``X``, player 0) moving
first. It cannot set up a position, so a state is made by replaying actions from the start.
``pyspiel`` is imported only by the functions that need a game or a state.

>>> move = Move.parse("d1-d7/g7")
>>> move_to_actions(move)
(93, 33, 36)
>>> actions_to_moves([93, 33, 36], 10) == [move]
True
>>> board_from_actions([93, 33, 36], 10).text()
'3q2q3/10/10/q2Q2*2q/10/10/Q8Q/10/10/6Q3 b'
"""

from __future__ import annotations

import operator
from typing import Any, Iterable

from amazons_env.board import Board
from amazons_env.errors import InvalidMoveError, InvalidPositionError
from amazons_env.move import Move
from amazons_env.squares import check_size

__all__ = [
    "SIZES",
    "square_to_cell",
    "cell_to_square",
    "move_to_actions",
    "actions_to_moves",
    "board_from_actions",
    "board_from_state",
    "load_game",
    "state_from_board",
    "legal_moves_of_state",
]

#: the board sizes OpenSpiel's ``amazons`` supports
SIZES = (6, 8, 10)


def square_to_cell(square: int, size: int) -> int:
    """OpenSpiel's cell of our square (row 0 is our top rank)."""
    rank, file = divmod(square, size)
    return (size - 1 - rank) * size + file


def cell_to_square(cell: int, size: int) -> int:
    """Our square of OpenSpiel's cell (the same map: it is its own inverse)."""
    return square_to_cell(cell, size)


def move_to_actions(move: Move) -> tuple[int, int, int]:
    """The three OpenSpiel actions of ``move``: queen cell, destination cell, arrow cell."""
    n = move.size
    return (square_to_cell(move.from_square, n), square_to_cell(move.to_square, n), square_to_cell(move.arrow, n))


def actions_to_moves(actions: Iterable[int], size: int) -> list[Move]:
    """The moves of an OpenSpiel action sequence of whole turns (its length a multiple of 3).
    Raises ``InvalidMoveError`` naming a bad action (not a cell of the board) or a cut-off turn;
    legality is not checked here (``board_from_actions`` does)."""
    check_size(size)
    cells = []
    for i, action in enumerate(actions):
        try:
            cell = operator.index(action)
        except TypeError:
            raise InvalidMoveError(f"OpenSpiel action {i}: {action!r} is not an integer") from None
        if isinstance(action, bool) or not 0 <= cell < size * size:
            raise InvalidMoveError(f"OpenSpiel action {i}: {action!r} is not a cell of a {size}x{size} board")
        cells.append(cell)
    if len(cells) % 3:
        raise InvalidMoveError(
            f"{len(cells)} OpenSpiel actions end in the middle of a turn (after "
            f"{'the queen' if len(cells) % 3 == 1 else 'its destination'}): a move is 3 actions"
        )
    squares = [cell_to_square(c, size) for c in cells]
    return [Move(squares[i], squares[i + 1], squares[i + 2], size) for i in range(0, len(squares), 3)]


def board_from_actions(actions: Iterable[int], size: int = 10) -> Board:
    """The position after an OpenSpiel action sequence from the start, every move checked legal
    (``IllegalMoveError`` names the first that is not); the moves are on the board's stack."""
    board = Board(size)
    for move in actions_to_moves(actions, size):
        board.push(move)
    return board


def board_from_state(state: Any) -> Board:
    """The ``Board`` of an OpenSpiel amazons state (replaying its history). A state in the middle
    of a turn (1 or 2 of the turn's 3 actions played) is refused with ``InvalidPositionError``: its
    board is ``board_from_actions(history[:len(history) // 3 * 3], size)`` with the rest pending."""
    size = int(state.get_game().get_parameters().get("board_size", 10))
    history = list(state.history())
    if len(history) % 3:
        raise InvalidPositionError(
            f"the OpenSpiel state is {len(history) % 3} action(s) into a turn; a Board holds whole turns only"
        )
    return board_from_actions(history, size)


def load_game(size: int = 10) -> Any:
    """OpenSpiel's ``amazons`` game of ``size`` (``InvalidPositionError`` for a size it lacks,
    ``ImportError`` saying what to install if ``pyspiel`` is missing)."""
    check_size(size)
    if size not in SIZES:
        raise InvalidPositionError(f"OpenSpiel's amazons has board sizes {SIZES}, not {size}")
    try:
        import pyspiel
    except ImportError as error:
        raise ImportError(f"OpenSpiel interop needs pyspiel: pip install open_spiel ({error})") from None
    return pyspiel.load_game("amazons", {"board_size": size})


def state_from_board(board: Board, game: Any = None) -> Any:
    """An OpenSpiel state of ``board``'s position, replayed from the start through its move stack.
    The board must have been set up at the start position of its size (OpenSpiel cannot set up
    another), else ``InvalidPositionError``. ``game``: an already loaded game of that size."""
    start = board.copy()
    while start.ply:
        start.pop()
    if start != Board(board.size):
        raise InvalidPositionError(
            f"OpenSpiel cannot set up a position: {board.text()!r} was not reached "
            "from the start position by its move stack"
        )
    if game is None:
        game = load_game(board.size)
    elif int(game.get_parameters().get("board_size", 10)) != board.size:
        raise InvalidPositionError(
            f"the OpenSpiel game is {game.get_parameters()}, the board {board.size}x{board.size}"
        )
    state = game.new_initial_state()
    for move in board.move_stack:
        for action in move_to_actions(move):
            state.apply_action(action)
    return state


def legal_moves_of_state(state: Any) -> list[Move]:
    """OpenSpiel's legal moves at a turn boundary as our ``Move``s, enumerated through its three
    action phases (slow: for cross-checks)."""
    size = int(state.get_game().get_parameters().get("board_size", 10))
    if len(state.history()) % 3:
        raise InvalidPositionError("the OpenSpiel state is in the middle of a turn")
    if state.is_terminal():
        return []
    moves = []
    for a in state.legal_actions():
        after_queen = state.child(a)
        for b in after_queen.legal_actions():
            frm, to = cell_to_square(a, size), cell_to_square(b, size)
            moves += [Move(frm, to, cell_to_square(c, size), size) for c in after_queen.child(b).legal_actions()]
    return moves
