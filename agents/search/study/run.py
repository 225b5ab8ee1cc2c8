"""What the study's three kernels share: ``Node`` (where a node stands in the search: side to move,
depth left, window, ply), the search's ``run`` record (node counters, limits, the root's best move:
``search_run``) and ``enter`` (count a node, read the clock).

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

from agents.time.clock import CHECK_EVERY, NEVER, now_ns

__all__ = ["Node", "search_run", "best_of", "enter", "RUN", "NODE_TYPE", "RUN_TYPE", "INF", "NO_LIMIT"]

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
