"""The board-level game loop: one game played to its end, for the arena and for self-play alike.

``play_out(board, players)`` asks ``players[colour](board)`` for each move of the side to move and
plays it until the game is over; it returns the winner (0 White, 1 Black). What differs between
its users comes in through hooks, not through copies of the loop:

* ``decided(board)``: asked before each move; a colour ends the game there with that winner
  (self-play stops once ``endgame_winner`` counts the filling phase exactly: the rest would be
  filling moves that teach nothing);
* ``on_move(side, move, seconds)``: told each move (and how long its player thought) before it is
  played (the arena's clocks and node counts; a player's own records);
* ``check``: a move that is not legal is refused with ``IllegalMoveError`` naming the player (an
  agent of any author); ``check=False`` trusts the players (self-play's own searches).

>>> from amazons_env import Board
>>> def first(board):
...     return board.legal_moves()[0]
>>> board = Board(5)
>>> winner = play_out(board, (first, first))
>>> board.is_game_over(), winner == int(board.winner)
(True, True)
"""

from __future__ import annotations

import time
from typing import Callable, Optional, Sequence

from amazons_env import Board, Move
from amazons_env.errors import IllegalMoveError

__all__ = ["Player", "play_out", "endgame_winner", "ENDGAME_BUDGET"]

#: a player: the move to play in a position (its side to move has a move)
Player = Callable[[Board], Move]
#: the endgame analysis's node budget per position in self-play (``endgame_winner``)
ENDGAME_BUDGET = 20_000


def play_out(
    board: Board,
    players: Sequence[Player],
    decided: Optional[Callable[[Board], Optional[int]]] = None,
    on_move: Optional[Callable[[int, Move, float], None]] = None,
    check: bool = True,
) -> int:
    """Play ``board`` to its end, ``players[0]`` for White and ``players[1]`` for Black; the
    winner. See the module docstring for ``decided``, ``on_move`` and ``check``."""
    while not board.is_game_over():
        if decided is not None:
            winner = decided(board)
            if winner is not None:
                return winner
        side = int(board.turn)
        start = time.perf_counter()
        move = players[side](board)
        spent = time.perf_counter() - start
        if check and not board.is_legal(move):
            who = getattr(players[side], "__self__", players[side])  # a bound select_move: its agent
            raise IllegalMoveError(f"agent {who!r} chose illegal move {move} in {board.text()!r}")
        if on_move is not None:
            on_move(side, move, spent)
        if check:
            board.push(move)  # also takes a move as text
        else:
            board.push_unchecked(move)
    winner = board.winner
    assert winner is not None  # played to the end
    return int(winner)


def endgame_winner(board: Board, budget: int = ENDGAME_BUDGET) -> Optional[int]:
    """The winner of ``board`` once the amazons are separated and ``agents.search.endgame`` counts
    the filling phase exactly within ``budget`` nodes; ``None`` while the game is open.

    >>> endgame_winner(Board(6)) is None
    True
    """
    from agents.search.endgame import analyse  # its kernel compiles (or loads) on import: only when needed

    outcome = analyse(board, budget).outcome()
    if not outcome:
        return None
    return int(board.turn) if outcome > 0 else 1 - int(board.turn)
