"""Queen lines, the one walk every search kernel makes: an amazon moves, and shoots its arrow,
along one of the 8 directions from its square up to the first square that is not empty (an
amazon, an arrow, or the padding around the board). ``ray_end`` finds that square, so a kernel
walks a line as ``for to in range(square + step, ray_end(cells, square, step), step)``.

It is compiled into each kernel that calls it (``inline="always"``): the walk costs what the
hand-written ``while`` loop it replaces cost. The loop body may change ``cells`` on the line
(shoot an arrow there, move an amazon there) as long as it restores them before the next square,
which every search does: the end is found before the walk, the squares are those of the line
as it was.

>>> from amazons_env import Board, core
>>> board = Board(6)
>>> queens = board.queens[0, :board.queen_counts[0]]
>>> lines = [range(q + step, ray_end(board.cells, q, step), step) for q in queens for step in board.dirs]
>>> sum(map(len, lines)) == core.count_queen_moves(board.cells, board.queens, board.queen_counts, 0, board.dirs)
True
"""

from __future__ import annotations

from numba import njit

from amazons_env import core

__all__ = ["ray_end"]


@njit(cache=True, inline="always")
def ray_end(cells, square, step):
    """The first square after ``square`` along ``step`` that is not empty."""
    s = square + step
    while cells[s] == core.EMPTY:
        s += step
    return s
