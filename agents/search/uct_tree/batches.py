"""A search whose positions an outside evaluator values in batches: ``run`` called again and
again, the positions it recorded (``leaves``) valued and released between two calls.

``search(job, value, prior)`` plays ``run``'s job (its arguments, with buffers of ``B`` rows) to
its end: after each return of ``run``, ``value(xs, cells, sides, backed)`` gives each recorded node
``xs[j]`` (its position: padded ``cells[j]``, ``sides[j]`` to move) its new value for the side that
chose it, ``backed[j]`` being the value its simulation backed up through it; ``leaves.release``
puts the new values in their place; then ``prior(nodes, rows)`` may give the nodes' children priors
(``priors.reprior``): the nodes deepest first, because a re-sort moves rows, and each one's row in
the batch. Past the deadline's stop (``job``'s ``Deadline.ns``, read at each batch's end, so that
another thread may move it) the search ends at a batch's end once it is sure of its move
(``simulation.sure``), as ``run`` would have at its next look at the clock.
``agents.search.uct_net``'s ``leaves`` is the policy-value net's evaluator.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

from agents.search.agent import DEADLINE_STOP
from agents.search.uct_tree.leaves import DEPTH, LEAF, SIDE, release
from agents.search.uct_tree.nodes import PENDING, ROOT, STOPPED, STOPS, SURE
from agents.search.uct_tree.simulation import run, sure

__all__ = ["search", "Value", "Prior", "SIMS", "DEADLINE", "RECORDED"]

#: ``value(xs, cells, sides, backed)``: the recorded nodes, their positions (padded cells, side to
#: move) and the values their simulations backed up through them -> their values
Value = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
#: ``prior(nodes, rows)``: the recorded nodes, deepest first, and their rows in the batch, after
#: their values are in place
Prior = Callable[[np.ndarray, np.ndarray], None]
SIMS, DEADLINE, RECORDED = 12, 13, 20  # where ``run``'s arguments have the budget, the deadline, the buffers


def search(job: tuple[Any, ...], value: Value, prior: Prior) -> tuple[int, str]:
    """Play ``run(*job)`` to its end with its recorded positions valued by ``value`` and
    ``prior`` (module docstring); returns the simulations played and why the search stopped
    (``STOPS``, never ``batch``)."""
    fcfg, ni, nf, st, sims = job[7], job[9], job[10], job[11], job[SIMS]
    recorded, recorded_cells, recorded_values = job[RECORDED : RECORDED + 3]
    played, extended = 0, False  # extended: past the stop, unsure (``run``'s word)
    while True:
        played += run(*(*job[:SIMS], sims - played, *job[SIMS + 1 :]))
        count = int(st[PENDING])
        if count:
            xs, sides = recorded[:count, LEAF].copy(), recorded[:count, SIDE].copy()
            values = np.asarray(value(xs, recorded_cells[:count], sides, recorded_values[:count]))
            release(nf, st, recorded, recorded_values, values)
            rows = np.argsort(-recorded[:count, DEPTH], kind="stable")
            prior(xs[rows], rows)
        why = STOPS[int(st[STOPPED])]
        if why == "batch" and played < sims and time.perf_counter_ns() >= job[DEADLINE][DEADLINE_STOP]:
            if sure(ni, nf, int(st[ROOT]), fcfg[SURE]):
                return played, "time_max" if extended else "time"
            extended = True
        if why != "batch" or played >= sims:
            why = "simulations" if why == "batch" else why
            return played, "time_max" if extended and why == "time" else why
