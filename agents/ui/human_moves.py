"""The moves a human makes against an agent, in the terminal (``agents.ui.terminal``) and the
game window (``agents.ui.session``) alike: the squares a queen and then its arrow may go to, why a
move typed is not legal, and a move taken back with the agent's reply.

>>> from amazons_env import Board, parse_square, square_name
>>> board = Board(6)
>>> [square_name(s, 6) for s in queen_targets(board, parse_square("b1", 6))]
['a1', 'c1', 'd1', 'b2', 'c2', 'b3', 'd3', 'b4', 'e4', 'b5']
>>> why_illegal(board, Move.parse("b1-b6/b5", 6))
'the queen on b1 cannot reach b6: the path is blocked or not on a queen line'
"""

from __future__ import annotations

import numpy as np

from amazons_env import Board, Color, Move, square_name

__all__ = ["queen_targets", "arrow_targets", "why_illegal", "take_back"]


def queen_targets(board: Board, square: int) -> list[int]:
    """The squares the queen on ``square`` can move to in a legal move of the side to move
    (empty if there is no such queen or it is boxed in), in square order."""
    rows = board.legal_moves_array()
    return np.unique(rows[rows[:, 0] == square, 1]).tolist()


def arrow_targets(board: Board, from_square: int, to_square: int) -> list[int]:
    """The squares the queen moving ``from_square``-``to_square`` can then shoot to."""
    rows = board.legal_moves_array()
    chosen = (rows[:, 0] == from_square) & (rows[:, 1] == to_square)
    return np.unique(rows[chosen, 2]).tolist()


def why_illegal(board: Board, move: Move) -> str:
    """A short reason why ``move`` is not legal on ``board`` (which must be of its size)."""
    n, side = board.size, board.turn.name.lower()
    frm, to = square_name(move.from_square, n), square_name(move.to_square, n)
    if board.is_game_over():
        return f"the game is over ({side} has no move)"
    if board.piece_at(move.from_square) != ("Q" if board.turn == Color.WHITE else "q"):
        return f"there is no {side} queen on {frm}"
    if move.to_square not in queen_targets(board, move.from_square):
        return f"the queen on {frm} cannot reach {to}: the path is blocked or not on a queen line"
    return f"from {to} the arrow cannot reach {square_name(move.arrow, n)}: the path is blocked or not on a queen line"


def take_back(board: Board, human: Color) -> list[Move]:
    """Take back ``human``'s last move and the moves after it (the agent's reply), so it is the
    human's turn again; return them, oldest first (none if the human has not moved).

    >>> board = Board(6)
    >>> for move in ("b1-b4/b5", "b6-d6/d5"): board.push(move)
    >>> take_back(board, Color.WHITE), board.ply
    ([Move.parse('b1-b4/b5', size=6), Move.parse('b6-d6/d5', size=6)], 0)
    """
    first = (int(board.turn) - board.ply) % 2  # the colour that made the first move
    human_plies = [i for i in range(board.ply) if (first + i) % 2 == human]
    if not human_plies:
        return []
    taken = [board.pop() for _ in range(board.ply - human_plies[-1])]
    return taken[::-1]
