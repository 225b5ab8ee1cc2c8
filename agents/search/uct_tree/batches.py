"""A search whose leaves an outside evaluator serves in batches: ``run`` called again and again,
the leaves it held (``leaves``) expanded, evaluated and released between two calls.

``search(job, stop, evaluate)`` plays ``run``'s job (its arguments, with waiting buffers of ``B``
rows) to its end: after each return of ``run`` the held leaves are expanded
(``expansion.expand_nodes``; one that turns out proven, or finds no room, stays a leaf),
``evaluate(xs, cells, sides, expanded)`` gives each one's value for the side that chose it (and may
give the children of the expanded ones their priors, ``priors.reprior``), a proven leaf's proof
replaces its value, and ``leaves.release`` backs them up. Past the deadline's ``stop`` the search
ends at a batch's end once it is sure of its move (``simulation.sure``), as ``run`` would have at
its next look at the clock. ``agents.search.uct_net``'s ``leaves`` is the evaluator of the
policy-value net.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

from agents.search.uct_tree.expansion import expand_nodes
from agents.search.uct_tree.leaves import LEAF, SIDE, held_queens, release
from agents.search.uct_tree.nodes import FIRST, PENDING, ROOT, SOLVED, STOPPED, STOPS, SURE
from agents.search.uct_tree.simulation import run, sure

__all__ = ["search", "Evaluate"]

#: ``evaluate(xs, cells, sides, expanded)``: the held nodes, their positions (padded cells, side to
#: move), the indices of those expanded -> their values for the sides that chose them
Evaluate = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
SIMS, HELD = 12, 20  # where ``run``'s arguments have the budget and the waiting buffers


def search(job: tuple[Any, ...], stop: float, evaluate: Evaluate) -> tuple[int, str]:
    """Play ``run(*job)`` to its end with its held leaves served by ``evaluate`` (module
    docstring); returns the simulations played and why the search stopped (``STOPS``, never
    ``batch``). ``stop``: the deadline's stop, ``perf_counter`` seconds."""
    nq, dirs, kernel, params, fcfg, icfg, ni, nf, st, sims = job[2], *job[4 : SIMS + 1]
    held, held_cells = job[HELD : HELD + 2]
    fixed = (nq, dirs, kernel, params, fcfg, icfg, ni, nf, st, *job[15:HELD])
    played, extended = 0, False  # extended: past the stop, unsure (``run``'s word)
    while True:
        played += run(*(*job[:SIMS], sims - played, *job[SIMS + 1 :]))
        count = int(st[PENDING])
        if count:
            xs, sides, cells = held[:count, LEAF].copy(), held[:count, SIDE].copy(), held_cells[:count]
            ni[xs, FIRST] = -1  # no longer waiting: expanded now, or left a leaf
            expanded = np.flatnonzero(expand_nodes(xs, cells, held_queens(held, count), sides, *fixed) >= 0)
            values = np.asarray(evaluate(xs, cells, sides, expanded), np.float64)
            solved = ni[xs, SOLVED]
            release(ni, nf, st, held, np.where(solved != 0, solved.astype(np.float64), values))
        why = STOPS[int(st[STOPPED])]
        if why == "batch" and played < sims and time.perf_counter() >= stop:
            if sure(ni, nf, int(st[ROOT]), fcfg[SURE]):
                return played, "time_max" if extended else "time"
            extended = True
        if why != "batch" or played >= sims:
            why = "simulations" if why == "batch" else why
            return played, "time_max" if extended and why == "time" else why
