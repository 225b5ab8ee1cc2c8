"""Positions an outside evaluator values a batch later: ``run`` records them, ``release`` blends
the values the evaluator then gives into the simulations that recorded them.

An evaluator too slow to call once per node from numba (``agents.search.net_guide``'s policy-value
net through ONNX Runtime, whose cost per position falls with the batch while each call from
numba costs a Python round trip: ``benchmarks/nets/learned_cost.py`` measures both) can still serve
every position the simulations settle on. A simulation that passes a move node below the root
with ``SearchConfig.leaf_at`` visits (before its own: with ``EXPAND_AT``'s, the simulation that
expands it) *records* it (``record``): the node, the position at it (padded cells, side to move)
and the path from the root with the side to act at each of its nodes; the simulation goes on as
always, and the value it backs up through the node is kept too (``Recorded.values``, for the side
that chose the node). When the buffers are full, ``run`` returns (``STOP_BATCH``); it also
returns with positions recorded on its other stops. The caller (``batches.search``) has them
valued in one call and calls ``release`` with the new values: each simulation's value at its
node replaced, along its path, by the evaluator's (a blend, AlphaGo-style:
``agents.search.net_guide``'s ``leaf_value``), with no visit counted twice; then it may give the recorded nodes'
children priors (``priors.reprior``, deepest first: a re-sort moves rows that the paths name).
No virtual loss: the tree the simulations grow is ``run``'s own (a blend of 0 and no priors
leave it as it would have been, tested), the evaluator's judgement arriving up to a batch late.

The buffers (``Recorded``): ``rows`` (``int64[B, WIDTH]``: ``LEAF``, ``DEPTH``, ``SIDE``, the path
from ``PATH``, the side to act at each of its nodes from ``SIDES``), ``cells`` (``uint8[B, cells]``) and
``values`` (``float64[B]``); ``B = 0`` records nothing. A path longer than ``MAX_PATH`` nodes is not
recorded.

>>> buffers(0, 6).rows.shape, buffers(4, 6).cells.shape
((0, 259), (4, 64))
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types

from agents.search.uct_tree.nodes import PENDING, WSUM

__all__ = [
    "LEAF",
    "DEPTH",
    "SIDE",
    "PATH",
    "SIDES",
    "MAX_PATH",
    "WIDTH",
    "Recorded",
    "RECORDED_TYPE",
    "buffers",
    "record",
    "release",
]

#: the longest path recorded (nodes from the root, both levels of a split move: 64 whole moves)
MAX_PATH = 128
LEAF, DEPTH, SIDE = range(3)  # columns of ``recorded``: the node, its path's last index, the side to move there
PATH = 3  # the path's nodes, root first
SIDES = PATH + MAX_PATH  # the side to act at each node of the path (the chooser of the next)
WIDTH = SIDES + MAX_PATH


class Recorded(NamedTuple):
    """The positions recorded for an outside evaluator (module docstring): ``rows``, ``cells``, ``values``."""

    rows: np.ndarray
    cells: np.ndarray
    values: np.ndarray


RECORDED_TYPE = types.NamedTuple((types.int64[:, ::1], types.uint8[:, ::1], types.float64[::1]), Recorded)


def buffers(rows: int, size: int) -> Recorded:
    """Buffers for ``rows`` recorded positions of ``size`` x ``size`` boards (0: none recorded)."""
    return Recorded(np.zeros((rows, WIDTH), np.int64), np.zeros((rows, (size + 2) ** 2), np.uint8), np.zeros(rows))


@njit(cache=True)
def record(x, depth, path, sides, cells, st, buffers):
    """Record node ``x`` (reached by ``path[: depth + 1]``, ``sides[k]`` to act at ``path[k]``; the
    position at ``x`` in ``cells``) if the buffers have room and the path fits; returns its row,
    or -1."""
    recorded = buffers.rows
    j = st[PENDING]
    if j >= recorded.shape[0] or depth >= MAX_PATH:
        return -1
    recorded[j, LEAF], recorded[j, DEPTH], recorded[j, SIDE] = x, depth, sides[depth]
    for k in range(depth + 1):
        recorded[j, PATH + k] = path[k]
        recorded[j, SIDES + k] = sides[k]
    buffers.cells[j, :] = cells
    st[PENDING] = j + 1
    return j


@njit(cache=True)
def release(nf, st, buffers, values):
    """Replace, along each recorded path, the value its simulation backed up through the node
    (``buffers.values[j]``, for the side that chose it) by ``values[j]``: the difference added to each
    node's summed values, its sign flipped where the chooser changes (as ``run`` backs a value
    up); no visit changes. Empties the buffers."""
    recorded = buffers.rows
    for j in range(st[PENDING]):
        value = values[j] - buffers.values[j]
        for k in range(recorded[j, DEPTH], 0, -1):
            nf[recorded[j, PATH + k], WSUM] += value
            if k >= 2 and recorded[j, SIDES + k - 2] != recorded[j, SIDES + k - 1]:
                value = -value
    st[PENDING] = 0
