"""``alphabeta``: the selective principal-variation search (``agents.search.alphabeta.kernel``, in
numba) as an agent, with its time manager and the batched search for evaluators without a kernel.

* **Iterative deepening** from depth 1, each iteration with an **aspiration window** around the
  last value from depth 3 (re-searched with the full window when it fails).
* **Filling phase**: a separated root is played by the filling move directly (``SearchAgent``);
  inside the search, the kernel scores separated positions by their exact move counts.
* **Time** (``clock=full``, the default): iterative deepening that keeps starting iterations while
  time is left and aborts the running one on the deadline (``agents.time.clock``: the kernel
  reads the wall clock every ``CHECK_EVERY`` evaluator calls), so ``time=T`` thinks about T
  seconds. An aborted iteration still counts if it had finished searching the previous best move
  (its best move is then at least as good) or had failed high at the root, otherwise the
  previous iteration's move is played. ``clock=predict`` budgets evaluator calls from the
  measured rate, starts no iteration after half the time and discards aborted iterations, so it
  thinks about 0.6 T per move (the manager of the early results in ``benchmarks/README.md``).

Evaluators without a kernel (the CNN: ``evaluate_batch``) use ``batch_search``
(``agents.search.alphabeta.batched``): the candidate scores come from one ``evaluate_batch`` call
on the children of a node (all of them, or with ``prefilter`` the best ``shortlist`` of a kernel
evaluator's two-stage candidates; no TT, no PVS), then the best ``k`` are searched by plain
alpha-beta in Python.

>>> from amazons_env import Board
>>> from agents import make
>>> board = Board(6)
>>> result = make("alphabeta:depth=2,k=6").search(board)
>>> result.depth, board.is_legal(result.move), board.ply
(2, True, 0)
>>> make("alphabeta:time=0.5").search(board, Limit(depth=1)).depth   # one move's own limit
1
"""

from __future__ import annotations

import time as _time
from typing import Any, NamedTuple, Optional

import numpy as np

from amazons_env import Board, Move, core

from agents.evaluation.evaluator import Evaluator, make_evaluator
from agents.options import EVAL, TIME, OptionError, opt
from agents.registry import register
from agents.search.agent import PROVE_NODES, SearchAgent
from agents.search.alphabeta.batched import Pace, batched_alphabeta, shortlister
from agents.search.alphabeta.kernel import INF, MAX_PLY, Search, SearchConfig, negamax, transposition_table
from agents.search.move_order import NO_LIMIT, WIN, Position, SearchStats, search_stats
from agents.search.result import SearchResult
from agents.search.zobrist import position_key, zobrist_table
from agents.time.clock import as_ns
from agents.time.deadline import DEADLINE_STOP, Deadline
from agents.time.limit import Limit
from agents.time.manager import CLOCKS, clock_name

__all__ = ["AlphaBeta", "batch_search"]


class Iteration(NamedTuple):
    """A finished iteration of iterative deepening: its best ``move`` (padded squares for the
    kernel search, a ``Move`` for the batched one), its ``value`` and ``depth``."""

    move: Any
    value: float
    depth: int


def batch_search(
    board: Board,
    depth: int,
    evaluator: Evaluator,
    k: int = 8,
    deadline: float = float("inf"),
    prefilter: Optional[Evaluator] = None,
    shortlist: int = 48,
    kq: int = 12,
    pace: Optional[Pace] = None,
    first: Optional[Move] = None,
    root_memo: Optional[list] = None,
) -> tuple[Optional[Move], float, int, bool]:
    """Selective alpha-beta for an evaluator without a kernel (``agents.search.alphabeta.batched``): at every node
    one ``evaluator.evaluate_batch`` call scores the children; a depth-1 node returns the best
    score, deeper nodes search their ``k`` best children (``k=0``: all). The children scored are
    all of them, or with a ``prefilter`` (an evaluator with a kernel) the best ``shortlist`` of
    its two-stage ``candidates`` (``kq`` queen moves): the cheap kernel picks the moves worth a
    forward pass. Returns ``(move, value, evals, complete)``, ``evals`` counting the main
    evaluator's positions; ``move`` is None if ``deadline`` (``time.perf_counter()``) passed first
    (with a ``pace``: or a forward pass was predicted to end after it), unless the root move
    ``first`` had been searched: then ``move`` is the best so far and ``complete`` False
    (``batched_alphabeta``, which also explains ``root_memo``)."""
    moves_of = None if prefilter is None else shortlister(board, prefilter, shortlist, kq)
    result = batched_alphabeta(
        board,
        depth,
        evaluator,
        k=k,
        win=WIN,
        deadline=deadline,
        moves_of=moves_of,
        pace=pace,
        first=first,
        root_memo=root_memo,
    )
    return result.move, result.value, result.evals, result.complete


@register(
    "alphabeta",
    forward="eval",
    options={
        "time": TIME,
        "depth": opt("depth limit (alone: one fixed-depth search)", ge=1, lt=MAX_PLY),
        "eval": EVAL,
        "k": opt("children searched per node (0 = all)", ge=0),
        "kq": opt("queen moves kept before arrows are scored (0 = all)", ge=0),
        "tt": opt("use the transposition table"),
        "tt_bits": opt("log2 of the table's entries", ge=4, le=26),
        "endgame": opt("fill-search budget per region inside the search (0 = off)", ge=0),
        "prove": opt("df-pn nodes to prove a small endgame's win before searching (0 = off)", ge=0),
        "aspiration": opt("aspiration window half-width", gt=0),
        "prefilter": opt(
            "for an evaluator without a kernel: a kernel evaluator that shortlists moves", kind="evaluator"
        ),
        "shortlist": opt("candidates per node the prefilter keeps", ge=1),
        "clock": opt(
            "time manager (full: deepen until the deadline; predict: stop early, about 0.6 of the time)", choices=CLOCKS
        ),
    },
)
class AlphaBeta(SearchAgent):
    """The selective PVS engine (module docstring) as an agent.

    Options: ``time`` seconds per move (default 1.0; iterative deepening), ``depth`` a depth limit
    (alone: one fixed-depth search), ``eval`` an evaluator spec or object (default ``territory``;
    other keyword options go to it), ``k`` children searched per node (0 = all), ``kq`` queen
    moves kept before arrows are scored (0 = all), ``tt`` (use the table), ``tt_bits``,
    ``endgame`` (fill-search budget per region inside the search; 0 = off), ``aspiration`` window
    half-width, ``clock`` the time manager (``full`` or ``predict``, module docstring). For an
    evaluator without a kernel (``batch_search``): ``prefilter`` an evaluator spec with a kernel
    that shortlists the ``shortlist`` best candidates per node for it (default None: it scores
    every child).
    """

    name = "alphabeta"
    LIMITS = ("time", "depth")
    STATS = ("evals",)
    WIN_VALUE = WIN

    def __init__(
        self,
        time: Optional[float] = None,
        depth: Optional[int] = None,
        eval: Any = "territory",
        k: int = 10,
        kq: int = 12,
        tt: bool = True,
        tt_bits: int = 18,
        endgame: int = 300,
        prove: int = PROVE_NODES,
        aspiration: float = 0.1,
        prefilter: Any = None,
        shortlist: int = 48,
        clock: str = "full",
        seed: Optional[int] = None,
        **eval_options: Any,
    ) -> None:
        self.clock_mode = clock_name(clock)
        if depth is not None and (int(depth) != depth or not 1 <= depth < MAX_PLY):
            raise OptionError(f"depth={depth!r}: must be a whole number in 1..{MAX_PLY - 1}")
        if time is not None and not time > 0:
            raise OptionError(f"time={time!r}: seconds per move must be > 0")
        if k < 0 or kq < 0 or endgame < 0 or prove < 0 or not aspiration > 0:
            raise OptionError(
                f"k={k}, kq={kq}, endgame={endgame}, prove={prove} must be >= 0 and aspiration={aspiration} > 0"
            )
        super().__init__(
            Limit(time=1.0) if time is None and depth is None else Limit(time=time, depth=depth), seed, endgame, prove
        )
        self.evaluator = make_evaluator(eval, **eval_options)
        self.prefilter = None if prefilter is None else make_evaluator(prefilter)
        if self.prefilter is not None and (self.prefilter.kernel is None or self.evaluator.kernel is not None):
            raise OptionError(
                f"prefilter={prefilter!r}: a prefilter needs a kernel and serves an evaluator "
                f"without one ({self.evaluator.spec!r})"
            )
        if shortlist < 1:
            raise OptionError(f"shortlist={shortlist!r}: must be >= 1")
        self.shortlist = int(shortlist)
        self.k, self.kq, self.aspiration = int(k), int(kq), float(aspiration)
        self.config = SearchConfig(int(kq), int(k), int(bool(tt)), int(endgame))
        self.table = transposition_table(tt_bits)
        self._arrays: dict[int, tuple] = {}
        self._pace = Pace()  # forward-pass cost of a batch evaluator, learnt across moves

    def reset(self) -> None:
        self.table.keys[:] = 0

    def _stop(self, start: float, seconds: float) -> float:
        # the predicting manager stops at the full time: it keeps its own margin by stopping early
        return start + seconds if self.clock_mode == "predict" else super()._stop(start, seconds)

    def _scratch(self, board: Board) -> tuple:
        if board.size not in self._arrays:
            rows = core.max_moves(board.size, core.MAX_QUEENS)
            self._arrays[board.size] = (
                zobrist_table(board.size + 2),
                np.empty((MAX_PLY, rows, 3), dtype=np.int64),
                np.empty((MAX_PLY, rows)),
                np.empty((rows, 2), dtype=np.int64),
                np.empty(rows),
            )
        return self._arrays[board.size]

    def _once(
        self,
        board: Board,
        depth: int,
        alpha: float,
        beta: float,
        limit: int,
        stats: SearchStats,
        best: np.ndarray,
        stop: float = float("inf"),
        deadline: Optional[Deadline] = None,
    ) -> float:
        zob, moves, scores, qmoves, qscores = self._scratch(board)
        cells, queens = board.cells.copy(), board.queens.copy()
        stats.limit[0], stats.aborted[0], stats.root_improved[0] = limit, 0, 0
        stats.deadline[0] = as_ns(stop)
        if deadline is not None and deadline.halted:  # read after the write: a halt in between is not lost
            stats.deadline[0] = deadline.ns[DEADLINE_STOP]
        # the clock is read even with no deadline: a caller's halt reaches an iteration that runs unbounded
        stats.next_check[0] = stats.evals[0]
        side = int(board.turn)
        position = Position(cells, queens, board.queen_counts.copy(), board.dirs)
        search = Search(self.config, self.table, zob, moves, scores, qmoves, qscores, stats, best)
        key = np.uint64(position_key(cells, side, zob))  # a Python int would be typed int64
        return negamax(position, side, depth, alpha, beta, 0, key, self.evaluator.kernel, self.evaluator.params, search)

    def _search(self, board: Board, limit: Limit, deadline: Deadline) -> SearchResult:
        empties = int(np.count_nonzero(board.cells == core.EMPTY))
        deepest = min(empties, MAX_PLY - 1, limit.depth or MAX_PLY)
        if self.evaluator.kernel is None:
            return self._search_batch(board, deepest, limit, deadline)
        stats = search_stats()
        best = np.full(3, -1, dtype=np.int64)
        done = self._deepen(board, deepest, limit, deadline, stats, best)
        public = core.public_index(board.size)
        frm, to, arrow = (int(public[p]) for p in done.move)
        move = Move(frm, to, arrow, board.size)
        nodes, evals = int(stats.nodes[0]), int(stats.evals[0])
        return SearchResult(move, float(done.value), done.depth, nodes, stats={"evals": evals})

    def _window(self, depth: int, done: Optional[Iteration]) -> tuple[float, float]:
        """The root window: aspiration around the last iteration's value from depth 3."""
        if done is not None and depth >= 3 and abs(done.value) < 1:
            return (done.value - self.aspiration, done.value + self.aspiration)
        return (-INF, INF)

    def _deepen(
        self, board: Board, deepest: int, limit: Limit, deadline: Deadline, stats: SearchStats, best: np.ndarray
    ) -> Iteration:
        """Iterative deepening within the time (module docstring); ``(best move, value, depth)``.

        ``clock=full`` starts the next iteration while time is left and aborts it on the deadline
        (``agents.time.clock``). ``clock=predict`` budgets evaluator calls from the measured
        rate and starts no iteration after half the time. An aborted iteration's move replaces
        the last finished one only when that is safe: a root move finished inside the window
        (PVS searched the last best move first, so this one is at least as good), or (full
        clock) the aspiration window failed high (that move beats the last value by the
        window's width) before the full-window search was cut."""
        predict = self.clock_mode == "predict"
        start = deadline.start

        def halted() -> None:  # the caller's `stop`: the running iteration ends at its next clock check
            if deadline.halted:
                stats.deadline[0], stats.next_check[0] = deadline.ns[DEADLINE_STOP], stats.evals[0]

        deadline.watch(halted)
        done: Optional[Iteration] = None
        for depth in range(1, deepest + 1):
            if limit.time is None and depth < deepest:
                continue  # a fixed-depth search: only the last iteration
            if deadline.halted:
                break
            # the first iteration finishes unless halted: a move to play
            evals, bound = NO_LIMIT, float("inf")
            if done is not None and limit.time is not None:
                now, stop = _time.perf_counter(), deadline.stop
                if predict:
                    if now - start > 0.5 * (stop - start):
                        break  # an iteration rarely finishes in less than the time already spent
                    evals = int(stats.evals[0] + stats.evals[0] / max(now - start, 1e-6) * (stop - now))
                elif now >= stop:
                    break
                else:
                    bound = stop
            window = self._window(depth, done)
            value = self._once(board, depth, *window, evals, stats, best, bound, deadline)
            fail_high = None
            if not stats.aborted[0] and (value <= window[0] or value >= window[1]):
                fail_high = best.copy() if value >= window[1] and not predict else None
                value = self._once(board, depth, -INF, INF, evals, stats, best, bound, deadline)
            if stats.aborted[0]:
                if done is not None and stats.root_improved[0]:
                    done = done._replace(move=best.copy())
                elif done is not None and fail_high is not None:
                    done = done._replace(move=fail_high)
                break
            if done is None:
                deadline.hold()  # the deadline holds from here on
            done = Iteration(best.copy(), value, depth)
            if abs(value) >= WIN:
                break  # proven
        if done is None:  # halted before an iteration finished: the depth-1 move (milliseconds)
            value = self._once(board, 1, -INF, INF, NO_LIMIT, stats, best)
            done = Iteration(best.copy(), value, 1)
        return done

    def _search_batch(self, board: Board, deepest: int, limit: Limit, deadline: Deadline) -> SearchResult:
        """Iterative deepening with ``batch_search``. The full clock stops before a forward pass
        that would end after the deadline (``Pace``) and searches the last iteration's move first,
        so that an aborted iteration's best move counts once that move's subtree is done (as in
        the kernel search); the predicting clock discards aborted iterations."""
        predict = self.clock_mode == "predict"
        pace = None if predict else self._pace
        root_memo: Optional[list] = None if predict else []  # the root's scores, computed once for all iterations

        def search(depth: int, stop: float, first: Optional[Move] = None) -> tuple[Optional[Move], float, int, bool]:
            return batch_search(
                board,
                depth,
                self.evaluator,
                self.k,
                stop,
                self.prefilter,
                self.shortlist,
                self.kq,
                pace,
                first,
                root_memo,
            )

        done: Optional[Iteration] = None
        evals = 0
        for depth in range(1, deepest + 1):
            if limit.time is None and depth < deepest:
                continue
            if done is not None and deadline.halted:
                break  # the caller's `stop`: an iteration is not cut, the next one is not started
            stop = deadline.stop
            if predict:
                move, value, spent, complete = search(depth, stop)
            elif done is None:  # the full clock lets the first iteration finish: a move to play
                move, value, spent, complete = search(depth, float("inf"))
                deadline.hold()  # the deadline holds from here on
            else:
                move, value, spent, complete = search(depth, stop, done.move)
            evals += spent
            if move is None:
                break
            if not complete:
                assert done is not None  # a cut search has a move only when it searched the last one's first
                done = done._replace(move=move)
                break
            done = Iteration(move, value, depth)
        if done is None:  # predict: not even depth 1 in time, finish it anyway
            move, value, spent, _ = search(1, float("inf"))
            assert move is not None  # a search without a stop finishes: it has a move
            done, evals = Iteration(move, value, 1), evals + spent
        return SearchResult(done.move, done.value, done.depth, 0, stats={"evals": evals})
