"""What the study's three kernels share: ``Node`` (where a node stands in the search: side to move,
depth left, window, ply), the search's ``run`` record (node counters, limits, the root's best move:
``search_run``), ``enter`` (count a node, read the clock), ``leaf_value`` (the head of every node:
count it and value it where the search ends there), ``arrow_level`` (the arrows of one queen move
under a window: two-iteration's inner loop and move-then-arrow's arrow half) and ``KERNEL_ARGS``
(the argument types every kernel takes first).

A kernel expands a node: it calls ``leaf_value`` on each child and recurses only into the children
it leaves open, so a leaf (most nodes) costs no call of the kernel. ``leaf_value`` and
``arrow_level`` are compiled into each kernel (``inline="always"``, like
``agents.search.rays.ray_end``): they cost what their lines written out in each cost.

The kernels take the position's arrays one by one and the rest as ``Node`` (scalars) and ``run``
(one record): a tuple of arrays would cost reference counting at every node of these cheap nodes
(``benchmarks/search/alphabeta_speed.py`` measures the kernels).

>>> run = search_run(node_limit=2)
>>> [bool(enter(run)) for _ in range(3)], int(run["nodes"][0])
([False, False, True], 3)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import from_dtype, njit, types

from amazons_env import core

from agents.evaluation.evaluator import KERNEL_TYPE
from agents.search.rays import ray_end
from agents.time.clock import CHECK_EVERY, NEVER, now_ns

__all__ = [
    "Node",
    "search_run",
    "best_of",
    "enter",
    "leaf_value",
    "arrow_level",
    "RUN",
    "NODE_TYPE",
    "RUN_TYPE",
    "KERNEL_ARGS",
    "INF",
    "NO_LIMIT",
]

INF = 1e30
NO_LIMIT = 1 << 62


class Node(NamedTuple):
    """A node of the search: ``side`` to move, ``depth`` whole moves left, the window ``alpha`` ..
    ``beta`` (values for ``side``), ``ply`` whole moves below the root."""

    side: int
    depth: int
    alpha: float
    beta: float
    ply: int


#: one study search's state beside the position, a record the kernels update in place: ``nodes``
#: entered, the ``limit`` on them, ``aborted`` (1 once the search must stop), the ``deadline``
#: (``agents.time.clock.now_ns`` value), ``next_check`` (the node count at which the clock is read
#: next) and the root's best move (padded ``best_from``, ``best_to``, ``best_arrow``)
RUN = np.dtype(
    [
        ("nodes", np.int64),
        ("limit", np.int64),
        ("aborted", np.int64),
        ("deadline", np.int64),
        ("next_check", np.int64),
        ("best_from", np.int64),
        ("best_to", np.int64),
        ("best_arrow", np.int64),
    ],
    align=True,
)
NODE_TYPE = types.NamedTuple((types.int64, types.int64, types.float64, types.float64, types.int64), Node)
RUN_TYPE = from_dtype(RUN)[::1]
#: the numba types of what every kernel takes first: the position's ``cells``, ``queens``, ``nq``,
#: ``dirs``, the ``node``, the evaluation ``kernel`` and its ``params``, the ``run``
KERNEL_ARGS = (types.uint8[::1], types.int64[:, ::1], types.int64[::1], types.int64[::1], NODE_TYPE, KERNEL_TYPE,
               types.float64[::1], RUN_TYPE)  # fmt: skip


def search_run(node_limit: int = NO_LIMIT, deadline_ns: int = NEVER) -> np.ndarray:
    """A fresh ``run`` (a one-element array of ``RUN``): no node counted, no best move; the clock
    is read from the first node on when there is a deadline."""
    run = np.zeros(1, dtype=RUN)
    run["limit"], run["deadline"] = node_limit, deadline_ns
    run["next_check"] = 0 if deadline_ns < NEVER else NEVER
    run["best_from"], run["best_to"], run["best_arrow"] = -1, -1, -1
    return run


def best_of(run: np.ndarray) -> tuple[int, int, int]:
    """The root's best move in ``run`` (padded from, to, arrow; -1 where none was found)."""
    return int(run["best_from"][0]), int(run["best_to"][0]), int(run["best_arrow"][0])


@njit(types.boolean(RUN_TYPE), cache=True, nogil=True)
def enter(run):
    """Count a node; True if the search must stop (node budget spent, deadline passed, or
    already aborted)."""
    state = run[0]
    state.nodes += 1
    if state.nodes > state.limit:
        state.aborted = 1
    elif state.nodes >= state.next_check:
        state.next_check = state.nodes + CHECK_EVERY
        if now_ns() > state.deadline:
            state.aborted = 1
    return state.aborted != 0


@njit(types.Tuple((types.boolean, types.float64))(*KERNEL_ARGS), cache=True, nogil=True, inline="always")
def leaf_value(cells, queens, nq, dirs, node, kernel, params, run):
    """Count ``node`` (``enter``) and tell whether the search ends there, with its value for
    ``node.side``: ``(True, 0.0)`` when the search must stop, ``(True, -1.0)`` when the side to move
    has no move (it has lost), ``(True, the evaluation kernel)`` at depth 0; ``(False, 0.0)`` for a
    node that a kernel expands. Called on the root (``agents.search.study.agent.search_kernel``) and
    by the kernels on every child."""
    side = node.side
    if enter(run):
        return True, 0.0
    if not core.has_move(cells, queens, nq, side, dirs):
        return True, -1.0
    if node.depth == 0:
        return True, kernel(cells, queens, nq, side, dirs, params)
    return False, 0.0


@njit(cache=True, inline="always")
def arrow_level(search, cells, queens, nq, dirs, node, to, kernel, params, run):
    """Alpha-beta over the arrows from ``to``, where ``node.side``'s queen stands after its queen
    move: each arrow is shot and the position below it valued at ``node.depth - 1`` (by
    ``leaf_value``, else by ``search``, the calling kernel) under ``node``'s window. Returns the
    best value and its arrow (the first of the best; -1 when the search was aborted before any
    arrow was valued); the values are bounds once a value reaches ``node.beta`` (a cutoff: the
    rest are not searched) or the search is aborted (``run``)."""
    side, depth, alpha, beta, ply = node
    state = run[0]
    value = -INF
    best = -1
    for e in range(8):
        astep = dirs[e]
        for a in range(to + astep, ray_end(cells, to, astep), astep):
            cells[a] = core.ARROW
            child = Node(1 - side, depth - 1, -beta, -alpha, ply + 1)
            leaf, v = leaf_value(cells, queens, nq, dirs, child, kernel, params, run)
            v = -(v if leaf else search(cells, queens, nq, dirs, child, kernel, params, run))
            cells[a] = core.EMPTY
            if state.aborted:
                return value, best
            if v > value:
                value = v
                best = a
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        return value, best
    return value, best
