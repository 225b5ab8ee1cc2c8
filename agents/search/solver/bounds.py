"""Bounds on the moves each side has left, from the regions of the board: an early answer, and
the moves a proof needs to look at in the regions a side has to itself.

The empty squares and the amazons split into regions (connected under king steps, as in
``agents.search.endgame``); a move keeps its amazon and its arrow in the amazon's region, and
regions only ever shrink or split. So a side can make at most as many more moves as there are
empty squares in the regions its amazons touch (``upper``), and at least as many as it can make
alone in the regions only its own amazons touch (``lower``: the longest filling sequence there,
which the opponent cannot disturb). The side to move has won if its ``lower`` exceeds the
opponent's ``upper`` (it answers every opponent move from its own regions, and moves first), and
has lost if its ``upper`` is at most the opponent's ``lower``. A side that plays only in its own
regions never moves its other amazons, which then wall the opponent in for good: so the
opponent's ``upper`` may count only the empty squares it reaches over empty squares and its own
amazons (``reach``), never through ours; that is the bound used, on both sides. Once no region is shared this is
the exact filling-phase count (``endgame.count_fill``); before, it decides many positions where
one side has walled off more room than the other can ever reach.

A sealed region (amazons of one side only) whose longest filling sequence is known exactly, ``f``
moves, is the whole number ``f`` in combinatorial game theory (Right has no move there, and
``{f-1 | } = f``), and the game is the sum of its regions. A move there leaves it at most ``f-1``,
and every move that leaves exactly ``f-1`` (the first move of a longest sequence) gives the same
sum, which is at least what any other move there gives; so a proof needs one such move of a side
in all its exactly counted sealed regions together, and none of the others (``sealed`` and
``filling`` name them, ``reduce_moves`` applies them): Müller's pruning of dominated moves, in
the form that never changes a value. The searches' tests check it against brute force.

>>> from amazons_env import Board
>>> b = Board.from_text("Q1*2/***2/5/5/3q1 w")   # White sealed with 1 empty square, Black has 18
>>> sealed, filling, work = np.full(core.MAX_QUEENS, -1), np.full(3, -1), new_regions(b.cells.shape[0])
>>> side_bounds(b.cells.copy(), b.queens.copy(), b.queen_counts, 0, b.dirs, 1000, sealed, filling, work)
-1
>>> int(sealed[0]) == int(b.queens[0, 0]), int(filling[0]) == int(b.queens[0, 0])   # a6's moves: one
(True, True)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from amazons_env import core

from agents.search.endgame import _fill, flood_region, region_members

__all__ = ["side_bounds", "reach", "reduce_moves", "Regions", "new_regions", "FILL_BUDGET"]

FILL_BUDGET = 2_000  # the proof searches' fill-search nodes per region in a node's bounds


class Regions(NamedTuple):
    """``side_bounds``' working arrays, made once per search rather than at every node (a proof
    takes the bounds at most of its nodes): a region ``label`` and a flood ``queue`` per square,
    a region's amazon indices (``members``), a fill search's first ``move`` and ``state`` (nodes
    left, ran out), and each side's ``lower`` and ``upper`` bound."""

    label: np.ndarray
    queue: np.ndarray
    members: np.ndarray
    move: np.ndarray
    state: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


def new_regions(squares: int) -> Regions:
    """Working arrays for a board of ``squares`` cells (borders included: ``cells.shape[0]``)."""
    ints = np.zeros(2, dtype=np.int64)
    return Regions(
        np.full(squares, -1, dtype=np.int64), np.empty(squares, dtype=np.int64),
        np.empty(core.MAX_QUEENS, dtype=np.int64), np.empty(3, dtype=np.int64), ints, ints.copy(), ints.copy(),
    )  # fmt: skip


@njit(cache=True)
def side_bounds(cells, queens, nq, side, dirs, budget, sealed, filling, work):
    """1 if ``side`` to move has won by the region bounds (module docstring), -1 if it has lost,
    0 if they do not decide. ``budget``: fill-search nodes per sealed region. ``sealed[k]`` gets
    the square of ``side``'s amazon ``k`` if it stands in an exactly counted sealed region (-1
    if not), and ``filling`` the first move of a longest filling sequence in one of them (-1s if
    none has a move). ``cells`` and ``queens`` are used as scratch and restored, ``work``
    (``new_regions``) is overwritten."""
    label, queue, members, move, state = work.label, work.queue, work.members, work.move, work.state
    lower, upper = work.lower, work.upper
    label[:] = -1
    lower[:] = 0
    upper[:] = 0
    sealed[: nq[side]] = -1
    filling[:] = -1
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
            if sides != 3:
                owner = sides - 1
                m = region_members(queens, nq, owner, label, region, members)
                found = 0
                exact = True
                if empties > 0:
                    state[0] = budget
                    state[1] = 0
                    move[:] = -1
                    found = _fill(cells, queens, owner, dirs, members, m, empties, state, move, 0)
                    exact = state[1] == 0 or found == empties
                    lower[owner] += found
                if owner == side and exact:
                    for k in range(m):
                        sealed[members[k]] = queens[side, members[k]]
                    if found > 0 and filling[0] < 0:
                        filling[:] = move
            region += 1
    other = 1 - side
    if lower[side] > upper[other] or lower[side] > reach(cells, dirs, queens, nq, other, label, queue):
        return 1
    if upper[side] <= lower[other] or reach(cells, dirs, queens, nq, side, label, queue) <= lower[other]:
        return -1
    return 0


@njit(cache=True)
def reach(cells, dirs, queens, nq, side, mark, queue):
    """The empty squares ``side``'s amazons reach by king steps over empty squares and their own
    amazons while the opponent's amazons stand still. ``mark`` and ``queue`` are scratch of the
    board's length (``mark`` is overwritten)."""
    mark[:] = 0
    piece = side + 1
    tail = 0
    for qi in range(nq[side]):
        q = queens[side, qi]
        if mark[q] == 0:
            mark[q] = 1
            queue[tail] = q
            tail += 1
    head, empties = 0, 0
    while head < tail:
        s = queue[head]
        head += 1
        for k in range(8):
            t = s + dirs[k]
            c = cells[t]
            if mark[t] == 0 and (c == core.EMPTY or c == piece):
                mark[t] = 1
                empties += c == core.EMPTY
                queue[tail] = t
                tail += 1
    return empties


@njit(cache=True)
def reduce_moves(rows, n, nq, side, sealed, filling):
    """Drop from ``rows[:n]`` the moves of ``side``'s amazons on ``sealed`` squares and add the
    ``filling`` move in their place (module docstring); return the moves left."""
    any_sealed = False
    for k in range(nq[side]):
        if sealed[k] >= 0:
            any_sealed = True
    if not any_sealed:
        return n
    kept = 0
    for j in range(n):
        frm = rows[j, 0]
        drop = False
        for k in range(nq[side]):
            if sealed[k] == frm:
                drop = True
        if not drop:
            rows[kept, 0], rows[kept, 1], rows[kept, 2] = frm, rows[j, 1], rows[j, 2]
            kept += 1
    if filling[0] >= 0:
        rows[kept, 0], rows[kept, 1], rows[kept, 2] = filling[0], filling[1], filling[2]
        kept += 1
    return kept
