"""Bounds on the moves each side has left, from the regions of the board: an early answer.

The empty squares and the amazons split into regions (connected under king steps, as in
``agents.search.endgame``); a move keeps its amazon and its arrow in the amazon's region, and
regions only ever shrink or split. So a side can make at most as many more moves as there are
empty squares in the regions its amazons touch (``upper``), and at least as many as it can make
alone in the regions only its own amazons touch (``lower``: the longest filling sequence there,
which the opponent cannot disturb). The side to move has won if its ``lower`` exceeds the
opponent's ``upper`` (it answers every opponent move from its own regions, and moves first), and
has lost if its ``upper`` is at most the opponent's ``lower``. Once no region is shared this is
the exact filling-phase count (``endgame.count_fill``); before, it decides many positions where
one side has walled off more room than the other can ever reach.

>>> from amazons_env import Board
>>> b = Board.from_text("Q1*2/***2/5/5/3q1 w")   # White sealed with 1 empty square, Black has 18
>>> side_bounds(b.cells.copy(), b.queens.copy(), b.queen_counts, 0, b.dirs, 1000)
-1
"""

from __future__ import annotations

import numpy as np
from numba import njit

from amazons_env import core

from agents.search.endgame import _fill, flood_region, region_members

__all__ = ["side_bounds"]


@njit(cache=True)
def side_bounds(cells, queens, nq, side, dirs, budget):
    """1 if ``side`` to move has won by the region bounds (module docstring), -1 if it has lost,
    0 if they do not decide. ``budget``: fill-search nodes per sealed region; ``cells`` and
    ``queens`` are used as scratch and restored."""
    total = cells.shape[0]
    label = np.full(total, -1, dtype=np.int64)
    queue = np.empty(total, dtype=np.int64)
    members = np.empty(core.MAX_QUEENS, dtype=np.int64)
    move = np.empty(3, dtype=np.int64)
    state = np.zeros(2, dtype=np.int64)
    lower = np.zeros(2, dtype=np.int64)
    upper = np.zeros(2, dtype=np.int64)
    region = 0
    for owner_side in range(2):
        for qi in range(nq[owner_side]):
            start = queens[owner_side, qi]
            if label[start] >= 0:
                continue
            empties, sides = flood_region(cells, dirs, start, region, label, queue)
            if sides & 1:
                upper[0] += empties
            if sides & 2:
                upper[1] += empties
            if sides != 3 and empties > 0:
                owner = sides - 1
                m = region_members(queens, nq, owner, label, region, members)
                state[0] = budget
                state[1] = 0
                lower[owner] += _fill(cells, queens, owner, dirs, members, m, empties, state, move, 0)
            region += 1
    other = 1 - side
    if lower[side] > upper[other]:
        return 1
    if upper[side] <= lower[other]:
        return -1
    return 0
