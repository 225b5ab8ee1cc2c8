"""``uct``: the one Monte Carlo tree search, in numba, and its presets ``mcts``, ``uct-net``, ``pvmcts``.

The tree lives in flat arrays and every simulation runs in numba (``agents.search.uct_tree`` describes
the tree, the two shapes and a simulation); this module is the agent around it:

* **Evaluators** (OpenSpiel's ``MCTSBot`` shape): inside the simulations, the evaluator's numba
  kernel (``eval``, ``territory`` by default) scores each node's children (their priors) and
  values the leaves; from outside them, a ``uct_tree.batches.Guide`` (``agents.search.net_guide``:
  the policy-value net's ``evaluate`` and ``prior``, batched) may re-prior nodes before and between
  parts of the simulations, and value the positions they record.
* **Budget**: ``time`` seconds per move (default 1.0) or ``sims`` simulations (a move's own
  ``Limit(time=..., simulations=...)`` passed to ``search`` replaces them). The simulations read the
  deadline inside numba (every few evaluations) and stop at the agent's deadline, which keeps back
  what returning the move takes (``agents.time.margin``). Under a game clock (``Limit.time_max``,
  from a time manager) the search stops as soon as it is sure of a settled move and goes on past
  ``time``, up to ``time_max``, while it is unsure (the most visited move leads the runner-up by less
  than ``sure`` times, or has the worse mean: ``uct_tree.stopping``). The ``stopped`` stat says
  which: ``SearchAgent``'s module docstring.
* **Pondering** (``PONDERS``): a search on a caller's ``Deadline`` reads it at every clock check,
  so a deadline moved by another thread (a ponder hit) takes effect at once; the ``ponder`` stat is
  the reply the search expects (the most visited one under its move, None if it looked at none).
* **Tree reuse**: after our move and the reply, the subtree of the position reached is copied to
  the front of the tree (``uct_tree.compact``) and searched on; the whole tree is kept for a
  search of the same position (after a ponder search of it).
* **Threads** (``threads=N``, default 1): tree parallelism, N Python threads (``uct_tree.run``
  releases the GIL) on the one tree with a virtual loss each (``uct_tree.simulation``); the root
  is expanded by one thread first, a ``sims`` budget shared out (``benchmarks/search/threads.py``).
* **Filling phase** and **proven wins**: ``SearchAgent`` plays them before searching (``endgame``,
  ``prove``); else **the move** is a proven win if there is one, or the most visited child.

Options (``make("uct:time=0.5,c=0.8")``; ``amazons agents uct`` lists them with their help):
the tree's shape, the PUCT constant and prior temperature, progressive widening, the moves kept per
node, expansion and playouts, the ``prior`` (below), the filling-phase counts, ``prove``, reuse,
threads, and ``eval``, the evaluator (a spec with a numba kernel; further keyword options go to it).

**Priors.** ``"eval"``: every child scored by the evaluation when its parent is expanded;
``"mixed"`` (split tree): queen moves in a cheap mobility order, each evaluated when first visited,
arrows scored; ``"fast"``: both levels cheap; ``"auto"`` (default): ``mixed`` up to 8x8, else ``eval``.

**Presets**: ``mcts``, ``uct-net`` and ``pvmcts`` configure this agent (``agents.search.presets``).

>>> from amazons_env import Board
>>> from agents import make
>>> board = Board(6)
>>> agent = make("uct:sims=200,seed=1")
>>> result = agent.search(board)
>>> board.is_legal(result.move), result.simulations, board.ply, result.stopped
(True, 200, 0, 'simulations')
>>> board.push(result.move)
>>> board.is_legal(result.ponder)
True
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional

import numpy as np

from amazons_env import Board, Move, core
from amazons_env.errors import InvalidArgumentError

from agents.evaluation.evaluator import make_evaluator
from agents.options import EVAL, TIME, OptionError, opt
from agents.registry import register
from agents.resources import cores, most_threads, reserve
from agents.search import uct_tree as T
from agents.search.agent import PROVE_NODES, SearchAgent
from agents.search.move_order import Position
from agents.search.result import SearchResult
from agents.search.uct_tree import Budget, Buffers, Job, SearchConfig, Tree
from agents.search.uct_tree.batches import Guide
from agents.search.uct_tree.choice import Pick, pick, visit_shares
from agents.search.uct_tree.lines import kept_node
from agents.time.clock import NEVER, now_ns
from agents.time.deadline import Deadline
from agents.time.limit import Limit

__all__ = ["UCT", "visit_policy", "PRIORS", "OPTIONS"]

TREES = ("split", "move")
#: the tree levels each ``prior`` orders by cheap scores (``uct_tree.FAST_*`` bits); the others
#: are scored by the evaluation when their parent is expanded
PRIORS = {"eval": 0, "mixed": T.FAST_QUEENS, "fast": T.FAST_QUEENS | T.FAST_ARROWS}
AUTO_MIXED_UP_TO = 8  # the largest board on which ``prior=auto`` is ``mixed`` (module docstring)
#: rows of every tree, allocated at once and kept from move to move: the operating system backs
#: only the pages a search writes, so a search never pauses to copy its tree into a bigger one
MAX_NODES = 1 << 22
MAX_THREADS = 1024  # the most ``threads`` accepted: one tree each, so a bound on the memory asked for


#: the options of ``uct`` (the presets of ``agents.search.presets`` take some of them)
OPTIONS = {
    "time": TIME,
    "sims": opt("simulations per move (instead of time)", ge=1),
    "eval": EVAL,
    "tree": opt("split: queen move and arrow as two tree levels; move: whole moves", choices=TREES),
    "c": opt("PUCT exploration constant", gt=0),
    "tau": opt("prior temperature", gt=0),
    "pw": opt("progressive widening: pw * N^pw_exp children open (0: all)", ge=0),
    "pw_exp": opt("progressive widening exponent", gt=0),
    "kq": opt("queen moves kept per position (0 = all)", ge=0),
    "k": opt("whole moves kept per position of a move tree (0 = all)", ge=0),
    "expand_at": opt("visits before a leaf is expanded", ge=0),
    "playout": opt("random plies before a leaf's evaluation (0: the evaluation itself)", ge=0),
    "prior": opt(
        "eval: children scored when expanded; fast: mobility order, evaluated on first visit; "
        "mixed: fast queen moves, evaluated arrows; auto: mixed up to 8x8 (split tree), else eval",
        choices=("auto",) + tuple(PRIORS),
    ),
    "endgame": opt("fill-search budget per region (0 = off)", ge=0),
    "prove": opt("df-pn nodes to prove a small endgame's win before searching (0 = off)", ge=0),
    "reuse": opt("keep the subtree between moves"),
    "sure": opt(
        "under a game clock: the lead (times the runner-up's visits, with a mean as good) at which "
        "a search is sure of its move; an unsure one goes on past its time, up to time_max",
        ge=1,
    ),
    "threads": opt(
        "threads searching the tree at once, with virtual loss (independent of NUMBA_NUM_THREADS)", ge=1, le=1024
    ),
}


@register("uct", forward="eval", options=OPTIONS)
class UCT(SearchAgent):
    """MCTS with evaluation at the leaves, priors and progressive widening (module docstring)."""

    name = "uct"
    LIMITS = ("time", "simulations")
    STATS = ("simulations", "evals", "tree")
    PONDERS = True

    def __init__(
        self,
        time: Optional[float] = None,
        sims: Optional[int] = None,
        eval: Any = "territory",
        tree: str = "split",
        c: float = 1.0,
        tau: float = 0.1,
        pw: float = 2.0,
        pw_exp: float = 0.5,
        kq: int = 0,
        k: int = 0,
        expand_at: int = 1,
        playout: int = 0,
        prior: str = "auto",
        endgame: int = 300,
        prove: int = PROVE_NODES,
        reuse: bool = True,
        sure: float = T.SURE_LEAD,
        threads: int = 1,
        seed: Optional[int] = None,
        **eval_options: Any,
    ) -> None:
        if time is not None and not (isinstance(time, (int, float)) and 0 < time < float("inf")):
            raise OptionError(f"time={time!r}: seconds per move must be a finite number > 0")
        if sims is not None and not (isinstance(sims, int) and sims >= 1):
            raise OptionError(f"sims={sims!r}: must be a whole number >= 1")
        if tree not in TREES:
            raise OptionError(f"tree={tree!r}: must be one of {', '.join(TREES)}")
        if prior != "auto" and (prior not in PRIORS or prior != "eval" and tree != "split"):
            raise OptionError(
                f"prior={prior!r}: must be auto or one of {', '.join(PRIORS)} (all but 'eval' need tree=split)"
            )
        if not (isinstance(sure, (int, float)) and 1 <= sure < float("inf")):
            raise OptionError(f"sure={sure!r}: must be a finite number >= 1")
        for key, value in (("c", c), ("tau", tau), ("pw_exp", pw_exp)):
            if not (isinstance(value, (int, float)) and 0 < value < float("inf")):
                raise OptionError(f"{key}={value!r}: must be a finite number > 0")
        if not (isinstance(pw, (int, float)) and 0 <= pw < float("inf")):
            raise OptionError(f"pw={pw!r}: must be a finite number >= 0 (0: no widening)")
        for key, value in dict(kq=kq, k=k, expand_at=expand_at, playout=playout, endgame=endgame, prove=prove).items():
            if isinstance(value, bool) or not (isinstance(value, int) and value >= 0):
                raise OptionError(f"{key}={value!r}: must be a whole number >= 0")
        if k and tree != "move":
            raise OptionError(f"k={k}: whole moves kept per position are a move tree's (tree={tree!r})")
        if isinstance(threads, bool) or not (isinstance(threads, int) and 1 <= threads <= MAX_THREADS):
            raise OptionError(f"threads={threads!r}: must be a whole number in 1..{MAX_THREADS}")
        if threads > most_threads():
            raise OptionError(
                f"threads={threads}: more than this machine can run at once ({cores()} cores; at most "
                f"{most_threads()} threads: agents.resources.most_threads)"
            )
        limit = Limit(time=1.0) if time is None and sims is None else Limit(time=time, simulations=sims)
        super().__init__(limit, seed, endgame, prove)
        self.evaluator = make_evaluator(eval, **eval_options)
        if self.evaluator.kernel is None:
            raise OptionError(f"eval={eval!r}: uct needs an evaluator with a numba kernel")
        self.tree, self.reuse, self.threads = tree, bool(reuse), threads
        self._reserve_tree()
        self.prior = prior
        #: the options of every search (``search_config`` adds a board's own)
        self.config = SearchConfig(
            c_puct=float(c), tau=float(tau), pw_c=float(pw), pw_a=float(pw_exp), sure=float(sure),
            split=int(tree == "split"), kq=kq, keep=k, expand_at=expand_at, playout=playout, endgame=endgame,
        )  # fmt: skip
        #: what guides the search from outside its simulations (``uct-net``, ``pvmcts``), None in uct
        self.guide: Optional[Guide] = None
        now_ns()  # a first call may load numba's object mode (a fraction of a second): not in a timed move
        #: the kept tree (None before the first search), of ``_tree_position`` (None after ``reset``)
        self._tree: Optional[Tree] = None
        self._tree_position: Optional[tuple[bytes, int]] = None  # root cells and ply of the kept tree
        self._scratch: dict[tuple[int, int], Buffers] = {}

    def reset(self) -> None:
        self._tree_position = None  # the tree's arrays stay, for the next game's tree (``_roots``)
        if self.guide is not None:
            self.guide.reset()

    # -- the tree -------------------------------------------------------------------------------

    def _buffers(self, size: int, k: int) -> Buffers:
        """Thread ``k``'s scratch arrays for a ``size`` board (each thread has its own)."""
        if (size, k) not in self._scratch:
            self._scratch[size, k] = T.scratch(size)
        return self._scratch[size, k]

    def search_config(self, size: int, most: int, threads: int = 1) -> SearchConfig:
        """The options of a search of a ``size`` x ``size`` board where a side has ``most`` amazons,
        by ``threads`` threads: the agent's, with the prior's cheap levels, the most children one
        expansion writes, and a virtual loss per thread where several search the tree."""
        reach, config = 4 * (size - 1), self.config  # reach: the squares one queen line move reaches, at most
        kids = most * reach if config.split else config.kq * reach if config.kq > 0 else core.max_moves(size, most)
        return config._replace(max_kids=kids, fast=PRIORS[self._prior(size)], vloss=threads if threads > 1 else 0)

    def _prior(self, size: int) -> str:
        """``auto`` resolved: ``mixed`` on a split tree up to 8x8, else ``eval`` (module docstring)."""
        if self.prior != "auto":
            return self.prior
        return "mixed" if self.tree == "split" and size <= AUTO_MIXED_UP_TO else "eval"

    def _reserve_tree(self) -> None:
        """Refuse a tree larger than the memory available (``agents.resources.reserve``): when the
        agent is built, so that a match refuses it before its first game, and again before the
        tree is allocated (at the first move)."""
        rows = MAX_NODES * self.threads
        reserve(rows * (T.NI * 4 + T.NF * 8), f"uct's tree ({MAX_NODES} rows for each of {self.threads} threads)")

    def _roots(self, board: Board) -> Tree:
        """The tree for ``board`` (one, whatever the threads), of ``MAX_NODES`` rows per thread. The
        agent keeps its arrays from move to move (rows written once stay backed by memory): the
        kept subtree of ``board``, if reuse finds it, is copied out and back to the front
        (``uct_tree.compact``), else the tree restarts from a new root."""
        kept = self._tree
        node = self._reused_node(board) if self.reuse and kept is not None else None
        self._tree_position = None  # the kept tree changes now
        if kept is None:
            rows = MAX_NODES * self.threads
            self._reserve_tree()
            kept = Tree(np.empty((rows, T.NI), np.int32), np.empty((rows, T.NF)), np.empty(T.NST, np.int64))
        ni, nf, st = kept
        if node is not None:
            rows = int(st[T.FREE])  # every row used lies below it: the subtree fits
            part_i, part_f = np.empty((rows, T.NI), np.int32), np.empty((rows, T.NF))
            rows = T.compact(ni, nf, node, part_i, part_f)
            ni[:rows], nf[:rows] = part_i[:rows], part_f[:rows]
            st[:] = 0
            st[T.FREE] = rows
        else:
            st[:] = 0
            T.new_root(ni, nf, st)
        return kept

    def _thread_states(self, st: np.ndarray, capacity: int) -> list[np.ndarray]:
        """One ``st`` per thread over the tree whose state is ``st``: each allocates from its own
        share of the rows above those in use (``uct_tree.run``), with its own random stream."""
        if self.threads == 1:
            st[T.RNG] = int(self.rng.integers(1, 1 << 62))
            return [st]
        base = int(st[T.FREE])
        span = (capacity - base) // self.threads
        states = []
        for k in range(self.threads):
            own = st.copy()
            own[T.FREE], own[T.LIMIT] = base + k * span, base + (k + 1) * span
            own[T.RNG], own[T.SIMS], own[T.EVALS] = int(self.rng.integers(1, 1 << 62)), 0, 0
            states.append(own)
        return states

    def _reused_node(self, board: Board) -> Optional[int]:
        """The node of the kept tree for ``board``: its root if ``board`` is the kept tree's position
        (a ponder search's, after the reply it expected), the node reached by ``board``'s last two
        moves if it is two plies on (``lines.kept_node``); else None."""
        if self._tree is None or self._tree_position is None:
            return None
        cells, ply = self._tree_position
        return kept_node(self._tree, cells, ply, board, self.tree == "split")

    # -- the search -----------------------------------------------------------------------------

    def _search(self, board: Board, limit: Limit, deadline: Deadline) -> SearchResult:
        """Run the simulations for ``board``'s side to move, on the tree by each thread, and choose
        the move: ``nodes`` and the ``simulations`` stat count this move's simulations, ``evals``
        the evaluator calls and ``tree`` the tree's rows in use after the search; ``stopped`` says
        why it ended (``SearchAgent``), ``ponder`` is the reply it expects (None if it never looked
        at one)."""
        config = self.search_config(board.size, int(board.queen_counts.max()), self.threads)
        tree = self._roots(board)
        ni, nf, st = tree
        budget = NEVER if limit.simulations is None else limit.simulations
        weights = self.evaluator.params_for(board.size)  # the evaluator's set for this board size
        guide = self.guide
        recorded = T.leaves.buffers(0, board.size) if guide is None else guide.recorded(board.size)
        settle = int(limit.time_max is not None)

        def job(own: np.ndarray, k: int, sims: int) -> Job:
            """Thread ``k``'s ``run`` on the tree with the state ``own``."""
            cells, queens, nq = board.cells.copy(), board.queens.copy(), board.queen_counts.copy()  # each thread's own
            return Job(
                Position(cells, queens, nq, board.dirs), int(board.turn), self.evaluator.kernel, weights, config,
                Tree(ni, nf, own), Budget(sims, deadline.ns, settle), self._buffers(board.size, k), recorded,
            )  # fmt: skip

        if guide is not None:  # on the tree's own state, before the threads share out the rows
            guide.before(board, job(st, 0, 0), deadline.stop)
        states = self._thread_states(st, ni.shape[0])
        starts = [int(own[T.FREE]) for own in states]  # the first row each thread allocates
        sims = 0
        if self.threads > 1 and ni[int(st[T.ROOT]), T.FIRST] < 0:
            # the first thread expands the root alone before the others start: else each would
            # expand it into its own rows and go on searching there
            sims = T.run(*job(states[0], 0, 1))
        budget -= sims
        extended = False  # a part ended on its budget past the deadline's stop: the search went on, unsure
        parts = 0 if guide is None else guide.part_size(board.size)
        while True:
            # in parts of ``part_size`` simulations before the deadline's stop (the guide's
            # ``between`` runs between two), the rest in one
            part = budget if not parts or time.perf_counter() >= deadline.stop else min(budget, parts)
            shares = [part // self.threads + (k < part % self.threads) for k in range(self.threads)]
            jobs = [job(own, k, share) for k, (own, share) in enumerate(zip(states, shares))]
            played, stopped = self._run(jobs, states, deadline)
            sims, budget = sims + played, budget - played
            if stopped != "simulations" or budget <= 0:
                break
            extended = time.perf_counter() >= deadline.stop
            assert guide is not None  # one part without a guide
            guide.between(board, tree, deadline.stop)
        if extended and stopped == "time":
            stopped = "time_max"
        if self.threads > 1:  # the tree's state: every row used lies below its FREE
            st[T.FREE] = max(int(own[T.FREE]) for own in states)
            st[T.SIMS] += sum(int(own[T.SIMS]) for own in states)
            st[T.EVALS] += sum(int(own[T.EVALS]) for own in states)
        levels = 2 if self.tree == "split" else 1
        chosen = pick(tree, int(st[T.ROOT]), levels)
        assert chosen is not None, "a searched root has a visited child"
        reply = pick(tree, chosen.node, levels)
        self._tree, self._tree_position = tree, (board.cells.tobytes(), board.ply)
        rows = starts[0] + sum(int(own[T.FREE]) - start for own, start in zip(states, starts))
        stats = {"simulations": sims, "evals": int(st[T.EVALS]), "tree": rows, "stopped": stopped}
        stats["ponder"] = None if reply is None else self._move(reply, board.size)
        return SearchResult(self._move(chosen, board.size), chosen.value, nodes=sims, stats=stats)

    def _run(self, jobs: list[Job], states: list[np.ndarray], deadline: Deadline) -> tuple[int, str]:
        """``uct_tree.run`` of each job on the one tree (``states``: each thread's ``st``), one
        thread each (this one runs the first), or the guide's batches (``uct_tree.batches``, one
        thread); returns the simulations played and why the search stopped. A thread that ends the
        search for all (the root proven, the move settled) moves the deadline to now, so that the
        others stop at their next clock check: the search stopped for its reason; else for the
        reason of the last thread to return."""
        if self.guide is not None and self.guide.batched:
            return T.batches.search(jobs[0], self.guide)
        if len(jobs) == 1:
            sims = T.run(*jobs[0])
            return sims, T.STOPS[int(states[0][T.STOPPED])]
        finished: list[str] = []

        def search(job: Job, st: np.ndarray) -> int:
            played = T.run(*job)
            why = T.STOPS[int(st[T.STOPPED])]
            if why in ("proven", "settled") and not finished:
                deadline.move(time.perf_counter())
            finished.append(why)  # list.append is atomic: the order the trees returned in
            return played

        with ThreadPoolExecutor(len(jobs) - 1, thread_name_prefix="uct") as pool:
            others = [pool.submit(search, job, st) for job, st in zip(jobs[1:], states[1:])]
            sims = search(jobs[0], states[0]) + sum(future.result() for future in others)
        return sims, finished[0] if finished[0] in ("proven", "settled") else finished[-1]

    @staticmethod
    def _move(chosen: Pick, size: int) -> Move:
        """The ``Move`` of a pick's padded squares."""
        public = core.public_index(size)
        frm, to, arrow = (int(public[square]) for square in chosen.squares)
        return Move(frm, to, arrow, size)


def visit_policy(agent: UCT, board: Board) -> tuple[np.ndarray, np.ndarray]:
    """The root visit shares of ``agent``'s last search (on ``board``, split tree) over whole moves
    (``uct_tree.choice.visit_shares``): the policy target of expert iteration
    (``training.selfplay.policy_value``)."""
    if agent._tree is None or agent._tree_position != (board.cells.tobytes(), board.ply) or agent.tree != "split":
        raise InvalidArgumentError("visit_policy: the agent's last search was not a split-tree search of this board")
    return visit_shares(agent._tree, board.size)
