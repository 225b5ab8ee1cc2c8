"""Perft: count the leaves of the full move tree to a given depth (the standard rules test).

From the 10x10 start: 2176, 4,307,152 and 8,350,439,170 leaves at depths 1, 2 and 3.
The last level is bulk-counted with ``core.count_moves`` (no moves made at depth 1; along each
line through a queen the arrows that stay on the line are counted in closed form).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from numba import njit

from .core import ARROW, EMPTY, count_moves

if TYPE_CHECKING:
    from .board import Board

__all__ = ["perft", "perft_kernel"]


@njit(cache=True)
def perft_kernel(cells, queens, nq, side, dirs, depth):
    """Leaf count of the move tree of depth ``depth`` below the position (arrays restored on return)."""
    if depth == 0:
        return 1
    if depth == 1:
        return count_moves(cells, queens, nq, side, dirs)
    total = 0
    piece = side + 1
    other = 1 - side
    for i in range(nq[side]):
        frm = queens[side, i]
        cells[frm] = EMPTY
        for d in range(8):
            step = dirs[d]
            to = frm + step
            while cells[to] == EMPTY:
                cells[to] = piece
                queens[side, i] = to
                for e in range(8):
                    astep = dirs[e]
                    a = to + astep
                    while cells[a] == EMPTY:
                        cells[a] = ARROW
                        total += perft_kernel(cells, queens, nq, other, dirs, depth - 1)
                        cells[a] = EMPTY
                        a += astep
                cells[to] = EMPTY
                queens[side, i] = frm
                to += step
        cells[frm] = piece
    return total


def perft(board: "Board", depth: int) -> int:
    """Leaf count of ``board``'s move tree to ``depth`` full moves; the board is left as it was.

    >>> from amazons_env import Board
    >>> perft(Board(10), 2)
    4307152
    """
    if depth < 0:
        raise ValueError(f"perft depth must be >= 0, got {depth}")
    cells, queens = board.cells.copy(), board.queens.copy()
    return int(perft_kernel(cells, queens, board.queen_counts, int(board.turn), board.dirs, depth))
