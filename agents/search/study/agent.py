"""The study's searches as agents: ``search_kernel`` (one fixed-depth search by a kernel),
``batch_two_iteration`` (two-iteration for evaluators without a numba kernel), ``StudySearch``
(an agent: a depth limit or a time per move), registered as ``classic``, ``two-iteration`` and
``move-then-arrow``.

A search has a depth limit (one search at that depth) or a time per move (the default, 1 s:
iterative deepening from depth 1 until the deadline, ``agents.time.clock``; the iteration running
at the deadline is aborted and discarded, since these searches have no move ordering that would
make its partial result safe). Evaluators without a numba kernel (the CNN) are searched by
``two-iteration`` only, by ``batch_two_iteration``: the same tree in Python with one
``evaluate_batch`` call on all the children of each depth-1 node.

>>> from amazons_env import Board
>>> from agents import make
>>> agent = make("two-iteration:depth=2,eval=basic")
>>> result = agent.search(Board(6))
>>> result.depth, result.nodes, str(result.move)
(2, 35679, 'b1-d3/b5')
"""

from __future__ import annotations

import functools
from typing import Any, Optional

import numpy as np

from amazons_env import Board, Move, core
from amazons_env.errors import InvalidArgumentError

from agents.evaluation.evaluator import Evaluator, make_evaluator
from agents.options import EVAL, TIME, OptionError, opt
from agents.registry import register
from agents.search.agent import SearchAgent
from agents.search.alphabeta.batched import Pace, batched_alphabeta
from agents.search.result import SearchResult
from agents.search.study.classic import classic
from agents.search.study.move_then_arrow import move_then_arrow
from agents.search.study.run import INF, NO_LIMIT, Node, best_of, leaf_value, search_run
from agents.search.study.two_iteration import two_iteration
from agents.time.clock import as_ns
from agents.time.deadline import Deadline
from agents.time.limit import Limit

__all__ = ["StudySearch", "VARIANTS", "search_kernel", "batch_two_iteration", "MAX_DEPTH"]

VARIANTS = ("classic", "move-then-arrow", "two-iteration")
MAX_DEPTH = 6  # the largest depth option make() takes: deeper full-width searches never finish


def batch_two_iteration(
    board: Board,
    depth: int,
    evaluator: Evaluator,
    node_limit: int = NO_LIMIT,
    deadline: float = float("inf"),
    pace: Optional[Pace] = None,
) -> tuple[Optional[Move], float, int]:
    """The two-iteration search for evaluators without a kernel: ``(move, value, nodes)`` like
    ``search_kernel``. Above depth 1 it is plain alpha-beta in Python over the moves in the order
    of the kernel searches; a depth-1 node evaluates all its children with **one**
    ``evaluator.evaluate_batch`` call (no pruning among them: one forward pass over the frontier
    beats pruning for a neural net), so its value is exact and the root value equals the kernel
    searches' with the same evaluation (``agents.search.alphabeta.batched``). ``move`` is None when the node
    budget or the ``deadline`` (``time.perf_counter()``; with a ``pace``, also before a forward
    pass predicted to end after it) came first."""
    result = batched_alphabeta(
        board, depth, evaluator, ordered=False, node_limit=node_limit, deadline=deadline, pace=pace
    )
    return result.move, result.value, result.nodes


def search_kernel(
    variant: str,
    board: Board,
    depth: int,
    evaluator: Evaluator,
    node_limit: int = NO_LIMIT,
    deadline: float = float("inf"),
) -> tuple[Optional[Move], float, int]:
    """One fixed-depth search of ``board`` with a kernel evaluator: ``(move, value, nodes)``;
    ``move`` is ``None`` if the node budget ran out or the ``deadline``
    (``time.perf_counter()``) passed first. The board is left unchanged."""
    if variant not in VARIANTS:
        raise InvalidArgumentError(f"unknown search {variant!r}; use one of {VARIANTS}")
    if evaluator.kernel is None:
        raise InvalidArgumentError(
            f"{variant} needs an evaluator with a numba kernel; {evaluator.spec!r} has none "
            "(only two-iteration searches batch evaluators)"
        )
    nq = board.queen_counts.copy()
    position = (board.cells.copy(), board.queens.copy(), nq, board.dirs)
    run = search_run(node_limit, as_ns(deadline))
    args = (*position, Node(int(board.turn), int(depth), -INF, INF, 0), evaluator.kernel, evaluator.params, run)
    leaf, value = leaf_value(*args)  # the root, counted and checked as the kernels do each child
    if not leaf:
        if variant == "classic":
            rows = core.max_moves(board.size, int(nq.max()))
            value = classic(*args, np.empty((depth + 1, rows, 3), dtype=np.int64))
        elif variant == "two-iteration":
            value = two_iteration(*args)
        else:
            value = move_then_arrow(*args)
    nodes = int(run["nodes"][0])
    if run["aborted"][0]:
        return None, 0.0, nodes
    public = core.public_index(board.size)
    frm, to, arrow = (int(public[p]) for p in best_of(run))
    return Move(frm, to, arrow, board.size), float(value), nodes


class StudySearch(SearchAgent):
    """One of the study's searches with an evaluator, as an agent.

    ``time``: seconds per move (default 1 when no ``depth`` is given), searched by iterative
    deepening until the deadline (``agents.time.clock``), up to ``depth`` if given. ``depth`` alone:
    one search to that depth, however long it takes. Through ``make`` ``depth`` is at most
    ``MAX_DEPTH`` (6): these searches are full width (on 6x6 from the start, classic at depth 3
    takes about 30 s and move-then-arrow at depth 4 as long; each further ply costs 10-100 times
    more), so a larger fixed depth could never finish.
    ``eval``: an evaluator spec or object; other keyword options (``cof1``, ``bias``, ``jitter``)
    go to the evaluator. With ``jitter`` the evaluator is reseeded from the agent's seed each move.
    """

    LIMITS = ("time", "depth")

    def __init__(
        self,
        variant: str,
        depth: Optional[int] = None,
        time: Optional[float] = None,
        eval: Any = "improved",
        seed: Optional[int] = None,
        **eval_options: Any,
    ) -> None:
        if variant not in VARIANTS:
            raise InvalidArgumentError(f"unknown search {variant!r}; use one of {VARIANTS}")
        self.name = variant
        if depth is not None and (int(depth) != depth or depth < 1):
            raise OptionError(f"depth={depth!r}: must be a whole number >= 1")
        if time is not None and not time > 0:
            raise OptionError(f"time={time!r}: seconds per move must be > 0")
        super().__init__(Limit(time=1.0) if time is None and depth is None else Limit(time=time, depth=depth), seed)
        self.variant = variant
        self.evaluator = make_evaluator(eval, **eval_options)
        if self.evaluator.kernel is None and variant != "two-iteration":
            raise OptionError(
                f"{variant} needs an evaluator with a numba kernel; {self.evaluator.spec!r} "
                "has none: use two-iteration, which batches whole frontiers"
            )
        self._pace = Pace()  # forward-pass cost of a batch evaluator, learnt across moves

    def _search(self, board: Board, limit: Limit, deadline: Deadline) -> SearchResult:
        """Iterative deepening within ``limit`` (class docstring); ``nodes`` over all iterations."""
        self.evaluator.seed(int(self.rng.integers(1 << 52)))
        empties = int(np.count_nonzero(board.cells == core.EMPTY))
        deepest = empties if limit.depth is None else min(limit.depth, empties)
        if limit.time is None:
            move, value, nodes = self._iteration(board, deepest)
            return SearchResult(move, value, deepest, nodes)
        done: Optional[tuple[Move, float, int]] = None
        total = 0
        for depth in range(1, deepest + 1):
            if done is not None and deadline.passed():
                break
            # the first iteration always finishes: a move to play
            move, value, nodes = self._iteration(board, depth, float("inf") if done is None else deadline.stop)
            total += nodes
            if move is None:
                break  # out of time: keep the last finished iteration
            if done is None:
                deadline.hold()  # the deadline holds from here on
            done = (move, value, depth)
        assert done is not None  # the first iteration runs without a stop: it has a move
        move, value, depth = done
        return SearchResult(move, value, depth, total)

    def _iteration(self, board: Board, depth: int, stop: float = float("inf")) -> tuple[Optional[Move], float, int]:
        if self.evaluator.kernel is None:
            return batch_two_iteration(board, depth, self.evaluator, deadline=stop, pace=self._pace)
        return search_kernel(self.variant, board, depth, self.evaluator, deadline=stop)


def _factory(variant: str) -> functools.partial:
    """``StudySearch`` for one variant: a partial, so the registry reads its options' signature."""
    build = functools.partial(StudySearch, variant)
    build.__doc__ = f"The study's {variant} alpha-beta search as an agent (see ``StudySearch``)."
    return build


for _variant in VARIANTS:
    register(
        _variant,
        forward="eval",
        options={
            "depth": opt(
                "depth limit (alone: one search to that depth; with time: deepen up to it)", ge=1, le=MAX_DEPTH
            ),
            "time": TIME,
            "eval": EVAL,
        },
    )(_factory(_variant))
