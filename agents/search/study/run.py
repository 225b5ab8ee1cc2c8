"""What the study's three kernels share: ``SearchRun`` (a search's node counters, limits and the
root's best move), ``enter`` (count a node, read the clock) and ``Position`` (the position's
arrays, from ``agents.search.move_order``).

>>> run = search_run(node_limit=2)
>>> [bool(enter(run)) for _ in range(3)], int(run.nodes[0])
([False, False, True], 3)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types

from agents.time.clock import CHECK_EVERY, NEVER, now_ns

__all__ = ["SearchRun", "search_run", "enter", "RUN_TYPE", "INF", "NO_LIMIT"]

INF = 1e30
NO_LIMIT = 1 << 62


class SearchRun(NamedTuple):
    """One study search's state beside the position: ``nodes`` entered, the ``limit`` on them,
    ``aborted`` (1 once the search must stop), the ``deadline`` (``agents.time.clock.now_ns``
    value) and ``next_check`` (the node count at which the clock is read next), each a
    one-element ``int64`` array the kernels update in place; ``best``, the root's move (padded
    from, to, arrow)."""

    nodes: np.ndarray
    limit: np.ndarray
    aborted: np.ndarray
    deadline: np.ndarray
    next_check: np.ndarray
    best: np.ndarray


RUN_TYPE = types.NamedUniTuple(types.int64[::1], len(SearchRun._fields), SearchRun)


def search_run(node_limit: int = NO_LIMIT, deadline_ns: int = NEVER) -> SearchRun:
    """A fresh ``SearchRun``: no node counted, no best move; the clock is read from the first
    node on when there is a deadline."""

    def one(value: int) -> np.ndarray:
        return np.full(1, value, dtype=np.int64)

    first_check = 0 if deadline_ns < NEVER else NEVER
    return SearchRun(one(0), one(node_limit), one(0), one(deadline_ns), one(first_check), np.full(3, -1, np.int64))


@njit(types.boolean(RUN_TYPE), cache=True, nogil=True)
def enter(run):
    """Count a node; True if the search must stop (node budget spent, deadline passed, or
    already aborted)."""
    run.nodes[0] += 1
    if run.nodes[0] > run.limit[0]:
        run.aborted[0] = 1
    elif run.nodes[0] >= run.next_check[0]:
        run.next_check[0] = run.nodes[0] + CHECK_EVERY
        if now_ns() > run.deadline[0]:
            run.aborted[0] = 1
    return run.aborted[0] != 0
