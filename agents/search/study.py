"""The study's three alpha-beta searches, in numba: ``classic``, ``move-then-arrow``, ``two-iteration``.

All three are negamax with alpha-beta pruning over values for the side to move (an evaluator's
value, see ``agents.evaluation.evaluator``); a side to move with no move scores -1. Depth counts whole moves
(queen move + arrow); the evaluation is applied only at the start of a whole move.

* **classic**: a node generates its full list of (queen move, arrow) pairs up front
  (``core.generate_moves``) and searches each with depth - 1.
* **two-iteration**: a node is two loops, each with its own alpha-beta bookkeeping: the queen level
  walks the queen moves; for each, the arrow level walks the arrows of that queen (depth - 1 after
  the arrow) and hands its best value back to the queen level, which updates alpha and cuts.
  Moves are produced lazily, in the same order as ``generate_moves``, so it searches *the same
  tree* as classic with the same cutoffs (same root value, same best move, same node count), but a
  node that is cut after a few children never builds its full move list: that is where it is faster.
* **move-then-arrow**: the queen move and the arrow are chosen one after the other, so a node has
  about (#queen moves + #arrows) children instead of their product. Precisely, at a node with
  depth ``d`` (both halves searched by this same procedure, recursively):

  1. *queen half*: each queen move ``m`` is valued as ``-MTA(p + m, d - 1)``, where ``p + m`` is the
     position after the queen move **with no arrow shot**, the opponent to move; ``m*`` is the best
     (exact argmax, first one on ties; the parent's window is not used here).
  2. *arrow half*: with ``m*`` played, each arrow ``a`` is valued ``-MTA(p + (m*, a), d - 1)``
     (a normal position after the whole move) under the parent's alpha-beta window; the node's value
     is the best of these, and its move is (``m*``, best arrow).

  It can miss moves whose arrow is what makes them good (the queen half never sees arrows).

Nodes: positions entered by the search after whole moves, the root included (for move-then-arrow,
also the queen-half positions). Search with a depth limit (one search at that depth) or a time per
move (the default, 1 s: iterative deepening from depth 1 until the deadline, ``agents.search.clock``;
the iteration running at the deadline is aborted and discarded, since these searches have no
move ordering that would make its partial result safe). Evaluators without a numba kernel (the
CNN) are searched by ``two-iteration`` only, by ``batch_two_iteration``: the same tree in Python with one
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
from numba import njit, types

from amazons_env import Board, Move, core
from amazons_env.errors import InvalidArgumentError

from agents.evaluation.evaluator import KERNEL_TYPE, Evaluator, make_evaluator
from agents.options import EVAL, TIME, OptionError, opt
from agents.registry import register
from agents.search.agent import Deadline, SearchAgent
from agents.search.batched_alphabeta import Pace, batched_alphabeta
from agents.search.clock import CHECK_EVERY, NEVER, as_ns, now_ns
from agents.search.rays import ray_end
from agents.search.result import Limit, SearchResult

__all__ = ["StudySearch", "VARIANTS", "search_kernel", "batch_two_iteration"]

NODES, LIMIT, ABORTED, DEADLINE, NEXT_CHECK = range(5)  # indices into the ``stats`` array
INF = 1e30
NO_LIMIT = 1 << 62
VARIANTS = ("classic", "move-then-arrow", "two-iteration")
MAX_DEPTH = 6  # the largest depth option make() takes: deeper full-width searches never finish

_COMMON = (
    types.uint8[::1],
    types.int64[:, ::1],
    types.int64[::1],
    types.int64,
    types.int64[::1],
    types.int64,
    types.float64,
    types.float64,
    KERNEL_TYPE,
    types.float64[::1],
    types.int64[::1],
    types.int64[::1],
    types.int64,
)


@njit(cache=True)
def _enter(cells, queens, nq, side, dirs, stats):
    """Count a node; True if the search must stop (node budget spent, deadline passed, or
    already aborted)."""
    stats[NODES] += 1
    if stats[NODES] > stats[LIMIT]:
        stats[ABORTED] = 1
    elif stats[NODES] >= stats[NEXT_CHECK]:
        stats[NEXT_CHECK] = stats[NODES] + CHECK_EVERY
        if now_ns() > stats[DEADLINE]:
            stats[ABORTED] = 1
    return stats[ABORTED] != 0


@njit(types.float64(*_COMMON, types.int64[:, :, ::1]), cache=True)
def classic(cells, queens, nq, side, dirs, depth, alpha, beta, kernel, params, stats, best, ply, buf):
    """Classic alpha-beta from the position (``side`` to move); ``best`` gets the root move."""
    if _enter(cells, queens, nq, side, dirs, stats):
        return 0.0
    if not core.has_move(cells, queens, nq, side, dirs):
        return -1.0
    if depth == 0:
        return kernel(cells, queens, nq, side, dirs, params)
    moves = buf[depth]
    n = core.generate_moves(cells, queens, nq, side, dirs, moves)
    value = -INF
    for k in range(n):
        frm, to, arrow = moves[k, 0], moves[k, 1], moves[k, 2]
        index = core.find_queen(queens, nq, side, frm)
        core.make_move(cells, queens, side, index, to, arrow)
        v = -classic(
            cells, queens, nq, 1 - side, dirs, depth - 1, -beta, -alpha, kernel, params, stats, best, ply + 1, buf
        )
        core.unmake_move(cells, queens, side, index, frm, to, arrow)
        if stats[ABORTED]:
            return 0.0
        if v > value:
            value = v
            if ply == 0:
                best[0], best[1], best[2] = frm, to, arrow
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    return value


@njit(types.float64(*_COMMON), cache=True)
def two_iteration(cells, queens, nq, side, dirs, depth, alpha, beta, kernel, params, stats, best, ply):
    """Two-iteration alpha-beta (queen level, then arrow level); ``best`` gets the root move."""
    if _enter(cells, queens, nq, side, dirs, stats):
        return 0.0
    if not core.has_move(cells, queens, nq, side, dirs):
        return -1.0
    if depth == 0:
        return kernel(cells, queens, nq, side, dirs, params)
    piece = side + 1
    value = -INF
    for i in range(nq[side]):
        frm = queens[side, i]
        for d in range(8):
            step = dirs[d]
            for to in range(frm + step, ray_end(cells, frm, step), step):
                cells[frm] = core.EMPTY
                cells[to] = piece
                queens[side, i] = to
                # the arrow level: its own best value and alpha, the same beta
                arrow_value = -INF
                arrow_alpha = alpha
                for e in range(8):
                    astep = dirs[e]
                    for a in range(to + astep, ray_end(cells, to, astep), astep):
                        cells[a] = core.ARROW
                        v = -two_iteration(
                            cells,
                            queens,
                            nq,
                            1 - side,
                            dirs,
                            depth - 1,
                            -beta,
                            -arrow_alpha,
                            kernel,
                            params,
                            stats,
                            best,
                            ply + 1,
                        )
                        cells[a] = core.EMPTY
                        if stats[ABORTED]:
                            break
                        if v > arrow_value:
                            arrow_value = v
                            if ply == 0 and v > value:
                                best[0], best[1], best[2] = frm, to, a
                            if v > arrow_alpha:
                                arrow_alpha = v
                                if arrow_alpha >= beta:
                                    break
                    if stats[ABORTED] or arrow_alpha >= beta:
                        break
                cells[to] = core.EMPTY
                cells[frm] = piece
                queens[side, i] = frm
                if stats[ABORTED]:
                    return 0.0
                # back at the queen level
                if arrow_value > value:
                    value = arrow_value
                    if value > alpha:
                        alpha = value
                        if alpha >= beta:
                            return value
    return value


@njit(types.float64(*_COMMON), cache=True)
def move_then_arrow(cells, queens, nq, side, dirs, depth, alpha, beta, kernel, params, stats, best, ply):
    """Move-then-arrow alpha-beta (see the module docstring); ``best`` gets the root move."""
    if _enter(cells, queens, nq, side, dirs, stats):
        return 0.0
    if not core.has_move(cells, queens, nq, side, dirs):
        return -1.0
    if depth == 0:
        return kernel(cells, queens, nq, side, dirs, params)
    piece = side + 1
    # 1. the queen half: exact argmax over queen moves, no arrow shot
    queen_value = -INF
    best_i = -1
    best_to = -1
    for i in range(nq[side]):
        frm = queens[side, i]
        cells[frm] = core.EMPTY
        for d in range(8):
            step = dirs[d]
            for to in range(frm + step, ray_end(cells, frm, step), step):
                cells[to] = piece
                queens[side, i] = to
                v = -move_then_arrow(
                    cells,
                    queens,
                    nq,
                    1 - side,
                    dirs,
                    depth - 1,
                    -INF,
                    -queen_value,
                    kernel,
                    params,
                    stats,
                    best,
                    ply + 1,
                )
                cells[to] = core.EMPTY
                queens[side, i] = frm
                if stats[ABORTED]:
                    break
                if v > queen_value:
                    queen_value = v
                    best_i = i
                    best_to = to
            if stats[ABORTED]:
                break
        cells[frm] = piece
        if stats[ABORTED]:
            return 0.0
    # 2. the arrow half, for the chosen queen move, under the parent's window
    frm = queens[side, best_i]
    to = best_to
    cells[frm] = core.EMPTY
    cells[to] = piece
    queens[side, best_i] = to
    value = -INF
    for e in range(8):
        astep = dirs[e]
        for a in range(to + astep, ray_end(cells, to, astep), astep):
            cells[a] = core.ARROW
            v = -move_then_arrow(
                cells, queens, nq, 1 - side, dirs, depth - 1, -beta, -alpha, kernel, params, stats, best, ply + 1
            )
            cells[a] = core.EMPTY
            if stats[ABORTED]:
                break
            if v > value:
                value = v
                if ply == 0:
                    best[0], best[1], best[2] = frm, to, a
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        if stats[ABORTED] or alpha >= beta:
            break
    cells[to] = core.EMPTY
    cells[frm] = piece
    queens[side, best_i] = frm
    return 0.0 if stats[ABORTED] else value


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
    searches' with the same evaluation (``agents.search.batched_alphabeta``). ``move`` is None when the node
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
    cells, queens, nq = board.cells.copy(), board.queens.copy(), board.queen_counts.copy()
    stop = as_ns(deadline)
    stats = np.array([0, node_limit, 0, stop, 0 if stop < NEVER else NEVER], dtype=np.int64)
    best = np.full(3, -1, dtype=np.int64)
    args = (
        cells,
        queens,
        nq,
        int(board.turn),
        board.dirs,
        depth,
        -INF,
        INF,
        evaluator.kernel,
        evaluator.params,
        stats,
        best,
        0,
    )
    if variant == "classic":
        rows = core.max_moves(board.size, int(nq.max()))
        value = classic(*args, np.empty((depth + 1, rows, 3), dtype=np.int64))
    elif variant == "two-iteration":
        value = two_iteration(*args)
    else:
        value = move_then_arrow(*args)
    if stats[ABORTED]:
        return None, 0.0, int(stats[NODES])
    public = core.public_index(board.size)
    frm, to, arrow = (int(public[p]) for p in best)
    return Move(frm, to, arrow, board.size), float(value), int(stats[NODES])


class StudySearch(SearchAgent):
    """One of the study's searches with an evaluator, as an agent.

    ``time``: seconds per move (default 1 when no ``depth`` is given), searched by iterative
    deepening until the deadline (``agents.search.clock``), up to ``depth`` if given. ``depth`` alone:
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
