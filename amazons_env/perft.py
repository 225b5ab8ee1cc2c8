"""Perft: count the leaves of the full move tree to a given depth (the standard rules test).

From the 10x10 start: 2176, 4,307,152 and 8,350,439,170 leaves at depths 1, 2 and 3.
The last level is bulk-counted with ``core.count_moves_open`` (no moves made at depth 1: the
run lengths of the position give each queen's move count; see its docstring).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from amazons_env.board import Board
from amazons_env.core import ARROW, EMPTY, count_moves_open
from amazons_env.errors import InvalidArgumentError, describe
from amazons_env.squares import as_int

__all__ = ["perft", "perft_kernel"]


@njit(cache=True)
def perft_kernel(cells, queens, nq, side, dirs, depth):
    """Leaf count of the move tree of depth ``depth`` below the position (arrays restored on return)."""
    runs = np.zeros((9, cells.shape[0]), dtype=np.int64)  # run_tables(size)
    return _perft(cells, queens, nq, side, dirs, depth, runs)


@njit(cache=True)
def _perft(cells, queens, nq, side, dirs, depth, runs):
    if depth == 0:
        return 1
    if depth == 1:
        return count_moves_open(cells, queens, nq, side, dirs, runs)
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
                        total += _perft(cells, queens, nq, other, dirs, depth - 1, runs)
                        cells[a] = EMPTY
                        a += astep
                cells[to] = EMPTY
                queens[side, i] = frm
                to += step
        cells[frm] = piece
    return total


def perft(board: Board, depth: int) -> int:
    """Leaf count of ``board``'s move tree to ``depth`` full moves; the board is left as it was.

    >>> from amazons_env import Board
    >>> perft(Board(10), 2)
    4307152
    """
    value = as_int(depth)
    if value is None or value < 0:
        raise InvalidArgumentError(f"perft depth must be an integer >= 0, got {describe(depth)}")
    if not isinstance(board, Board):
        raise InvalidArgumentError(f"perft needs a Board, got {describe(board)}")
    depth = value
    cells, queens = board.cells.copy(), board.queens.copy()
    return int(perft_kernel(cells, queens, board.queen_counts, int(board.turn), board.dirs, depth))
