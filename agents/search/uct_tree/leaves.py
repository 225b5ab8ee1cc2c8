"""Leaves that wait for an outside evaluator: ``run`` holds them with a virtual loss on their path,
and ``release`` backs up the values the evaluator then gives them.

An evaluator too slow to call once per leaf from numba (``agents.search.uct_net``'s policy-value
net through ONNX Runtime, ~50-100 us a position in a batch, against ~5 us of Python per call) can
still serve every expansion: where ``run`` would expand a move node (not the root), it *holds* it
instead (``hold``): the node's ``FIRST`` becomes ``WAITING``, its row in the waiting buffers gets
the node, the position at it (cells, queens, side to move) and the path from the root with the
side to act at each of its nodes, and the simulation's virtual loss stays on the path
(``icfg[VLOSS]`` is on, so a descent counts a visit and a loss on each node it passes), so that
the next simulations go elsewhere, as the threads' do. A simulation that reaches a waiting node
takes it for a leaf (its score), as it does a node another thread is expanding. When the buffers
are full, ``run`` returns (``STOP_BATCH``); it also returns with leaves held on its other stops.
``batches.search`` then expands the held nodes, has the evaluator value them in one call (and give
their children priors) and calls ``release``: each value backed up its path, the virtual loss
replaced, as ``run`` backs up a value. Proofs are left to the next simulations through them.

The buffers: ``held`` (``int64[B, WIDTH]``: ``LEAF``, ``DEPTH``, ``SIDE``, the queens from
``QUEENS``, the path from ``PATH``, the side to act at each of its nodes from ``SIDES``) and
``held_cells`` (``uint8[B, cells]``); ``B = 0`` holds nothing (``run`` expands as always). A
path longer than ``MAX_PATH`` nodes is not held: its node is expanded at once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from amazons_env import core

from agents.search.uct_tree.nodes import FIRST, PENDING, STATIC, WSUM

__all__ = [
    "WAITING",
    "LEAF",
    "DEPTH",
    "SIDE",
    "QUEENS",
    "PATH",
    "SIDES",
    "MAX_PATH",
    "WIDTH",
    "buffers",
    "hold",
    "release",
    "held_queens",
]

#: ``ni[x, FIRST]`` of a node held for the evaluator (below ``simulation.CLAIMED``'s -2)
WAITING = -3
#: the longest path held (nodes from the root, both levels of a split move: 64 whole moves)
MAX_PATH = 128
LEAF, DEPTH, SIDE = range(3)  # columns of ``held``: the node, its path's last index, the side to move there
QUEENS = 3  # the queens of both sides, ``core.MAX_QUEENS`` each
PATH = QUEENS + 2 * core.MAX_QUEENS  # the path's nodes, root first
SIDES = PATH + MAX_PATH  # the side to act at each node of the path (the chooser of the next)
WIDTH = SIDES + MAX_PATH


def buffers(rows: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Waiting buffers for ``rows`` leaves of ``size`` x ``size`` positions (0: none held)."""
    return np.zeros((rows, WIDTH), np.int64), np.zeros((rows, (size + 2) ** 2), np.uint8)


@njit(cache=True)
def hold(x, depth, path, sides, cells, queens, ni, nf, st, held, held_cells):
    """Hold move node ``x`` (reached by ``path[: depth + 1]``, ``sides[k]`` to act at ``path[k]``;
    the position at ``x`` in ``cells``/``queens``) for the evaluator, if the buffers have
    room, the path fits and ``x`` has its score; returns whether it did."""
    j = st[PENDING]
    if j >= held.shape[0] or depth >= MAX_PATH or np.isnan(nf[x, STATIC]):
        return False
    held[j, LEAF], held[j, DEPTH], held[j, SIDE] = x, depth, sides[depth]
    mq = queens.shape[1]
    for s in range(2):
        for i in range(mq):
            held[j, QUEENS + s * mq + i] = queens[s, i]
    for k in range(depth + 1):
        held[j, PATH + k] = path[k]
        held[j, SIDES + k] = sides[k]
    held_cells[j, :] = cells
    ni[x, FIRST] = WAITING
    st[PENDING] = j + 1
    return True


def held_queens(held: np.ndarray, count: int) -> np.ndarray:
    """The queens (``int64[count, 2, MAX_QUEENS]``) of the first ``count`` held leaves."""
    return np.ascontiguousarray(held[:count, QUEENS:PATH]).reshape(count, 2, core.MAX_QUEENS)


@njit(cache=True)
def release(ni, nf, st, held, values):
    """Back up ``values[j]`` (for the side that chose leaf ``j``) along each held leaf's path, the
    virtual loss of its descent replaced (``run``'s backup: a value flips sign where the chooser
    changes), and empty the buffers. The caller has expanded the leaves (``FIRST`` is no longer
    ``WAITING``)."""
    for j in range(st[PENDING]):
        depth = held[j, DEPTH]
        value = values[j]
        for k in range(depth, 0, -1):
            nf[held[j, PATH + k], WSUM] += value + 1.0
            if k >= 2 and held[j, SIDES + k - 2] != held[j, SIDES + k - 1]:
                value = -value
    st[PENDING] = 0
