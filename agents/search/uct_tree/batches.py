"""A search whose positions an outside evaluator values in batches: ``run`` called again and
again, the positions it recorded (``leaves``) valued and released between two calls.

``search(job, evaluator)`` plays ``run``'s job (``simulation.Job``, its arguments, with buffers of
``B`` rows) to its end: after each return of ``run``, ``evaluator.evaluate(xs, cells, sides,
backed)`` gives each recorded node ``xs[j]`` (its position: padded ``cells[j]``, ``sides[j]`` to
move) its new value for the side that chose it, ``backed[j]`` being the value its simulation backed
up through it; ``leaves.release`` puts the new values in their place; then ``evaluator.prior(nodes,
rows)`` may give the nodes' children priors (``priors.reprior``): the nodes deepest first, because
a re-sort moves rows, and each one's row in the batch. Past the deadline's stop
(``job.budget.deadline``, read at each batch's end, so that another thread may move it) the search
ends at a batch's end once it is sure of its move (``stopping.sure``), as ``run`` would have at its
next look at the clock. ``agents.search.net_guide.NetGuide`` with ``leaves`` is the policy-value
net's evaluator.
"""

from __future__ import annotations

import time
from typing import Protocol

import numpy as np

from amazons_env import Board

from agents.search.uct_tree.leaves import DEPTH, LEAF, SIDE, Recorded, release
from agents.search.uct_tree.nodes import PENDING, ROOT, STOPPED, STOPS, Tree
from agents.search.uct_tree.simulation import Job, run
from agents.search.uct_tree.stopping import sure
from agents.time.deadline import DEADLINE_STOP

__all__ = ["search", "Evaluator", "Guide"]


class Evaluator(Protocol):
    """What values the recorded positions in batches (OpenSpiel's evaluator: ``evaluate`` and ``prior``)."""

    def evaluate(self, xs: np.ndarray, cells: np.ndarray, sides: np.ndarray, backed: np.ndarray) -> np.ndarray:
        """The recorded nodes ``xs``, their positions (padded ``cells``, ``sides`` to move) and the
        values their simulations backed up through them -> their values (for each one's chooser)."""

    def prior(self, nodes: np.ndarray, rows: np.ndarray) -> None:
        """Priors for the children of the recorded ``nodes`` (deepest first; ``rows``: their rows in
        the batch), after their values are in place."""


class Guide(Evaluator, Protocol):
    """What guides a search from outside its simulations (``agents.search.uct``'s ``guide``;
    ``agents.search.net_guide.NetGuide``): ``before`` the simulations (``job``: thread 0's ``run``
    arguments, to expand nodes with), ``between`` two parts of ``part_size`` simulations (0: one
    part), and where ``batched`` the positions the simulations record (in ``recorded(size)``'s
    buffers) valued by ``evaluate`` and ``prior`` (``search``)."""

    batched: bool

    def reset(self) -> None:
        """Forget what was guided (a new game)."""

    def before(self, board: Board, job: Job, stop: float) -> None:
        """Guide ``board``'s tree before its simulations, within ``stop`` (``perf_counter`` seconds)."""

    def part_size(self, size: int) -> int:
        """Simulations per part of a search on ``size`` x ``size`` boards (0: one part)."""

    def between(self, board: Board, tree: Tree, stop: float) -> None:
        """Guide ``tree`` between two parts (no thread searching), within ``stop``."""

    def recorded(self, size: int) -> Recorded:
        """The buffers of the positions the simulations record (``leaves``; 0 rows: none)."""


def search(job: Job, evaluator: Evaluator) -> tuple[int, str]:
    """Play ``run(*job)`` to its end with its recorded positions valued by ``evaluator``'s
    ``evaluate`` and ``prior`` (module docstring); returns the simulations played and why the search stopped
    (``STOPS``, never ``batch``)."""
    (ni, nf, st), sims, recorded = job.tree, job.budget.sims, job.recorded
    played, extended = 0, False  # extended: past the stop, unsure (``run``'s word)
    while True:
        played += run(*job._replace(budget=job.budget._replace(sims=sims - played)))
        count = int(st[PENDING])
        if count:
            xs, sides = recorded.rows[:count, LEAF].copy(), recorded.rows[:count, SIDE].copy()
            values = np.asarray(evaluator.evaluate(xs, recorded.cells[:count], sides, recorded.values[:count]))
            release(nf, st, recorded, values)
            rows = np.argsort(-recorded.rows[:count, DEPTH], kind="stable")
            evaluator.prior(xs[rows], rows)
        why = STOPS[int(st[STOPPED])]
        if why == "batch" and played < sims and time.perf_counter_ns() >= job.budget.deadline[DEADLINE_STOP]:
            if sure(ni, nf, int(st[ROOT]), job.cfg.sure):
                return played, "time_max" if extended else "time"
            extended = True
        if why != "batch" or played >= sims:
            why = "simulations" if why == "batch" else why
            return played, "time_max" if extended and why == "time" else why
