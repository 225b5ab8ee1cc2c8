"""``alphabeta``: a selective principal-variation search over whole moves, in numba.

What it does at each node (negamax, values for the side to move; the evaluator's values lie in
[-1, 1], proven wins and losses are +-2 plus a small margin so they outrank any evaluation):

* **Candidates** (Arrow's and ANKY's static ordering, in two stages): every queen move is scored by
  the evaluation of the position after it (no arrow yet) and the best ``kq`` are kept; every arrow
  of those queen moves is then scored by the evaluation of the position after the whole move. The
  candidates are sorted by that score. ``kq=0`` keeps every queen move (unselective).
* **Selective search**: only the best ``k`` candidates are searched (``k=0``: all). A depth-1 node
  needs no recursion: its value is the best candidate's static score.
* **Transposition table** on Zobrist keys (whole moves only, so no phase bit is needed: a position
  after a whole move is the same whichever way it was reached), always-replace, storing value,
  bound, depth and best move; the stored move is searched first.
* **PVS**: the first candidate with the full window, the rest with a null window, re-searched
  when they fail high inside the window. **Aspiration windows** at the root from depth 3.
* **Filling phase** (``agents.search.endgame``): an interior node whose position is separated is scored
  by the exact move counts when they decide the game; a separated root is played by the filling
  move directly.
* **Time** (``clock=full``, the default): iterative deepening that keeps starting iterations while
  time is left and aborts the running one on the deadline (``agents.search.clock``: the search reads
  the wall clock every ``CHECK_EVERY`` evaluator calls), so ``time=T`` thinks about T seconds. An
  aborted iteration still counts if it had finished searching the previous best move (its best
  move is then at least as good) or had failed high at the root, otherwise the previous
  iteration's move is played. ``clock=legacy`` is round one's manager, kept to reproduce its
  games: it budgets evaluator calls from the measured rate and starts no iteration after half the
  time, so it thinks about 0.6 T per move.

Killers and history tables are not used: the static ordering already sorts every node's candidates.

Evaluators without a kernel (the CNN: ``evaluate_batch``) use ``batch_search`` (``agents.search.batched_alphabeta``):
the candidate scores come from one ``evaluate_batch`` call on the children of a node (all of them,
or with ``prefilter`` the best ``shortlist`` of a kernel evaluator's two-stage candidates; no TT,
no PVS), then the best ``k`` are searched by plain alpha-beta in Python.

>>> from amazons_env import Board
>>> board = Board(6)
>>> result = make("alphabeta:depth=2,k=6").search(board)
>>> result.depth, board.is_legal(result.move), board.ply
(2, True, 0)
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
from numba import njit, types

from amazons_env import Board, Move, core

from agents.search import endgame
from agents.base import Agent
from agents.search.batched_alphabeta import MoveSource, Pace, batched_alphabeta
from agents.search.clock import CHECK_EVERY, CLOCKS, NEVER, Clock, as_ns, now_ns
from agents.evaluation.evaluator import KERNEL_TYPE, Evaluator, make_evaluator
from agents.options import EVAL, TIME, opt
from agents.registry import make, register

__all__ = ["AlphaBeta", "SearchResult", "TranspositionTable", "candidates", "negamax", "search_stats", "batch_search",
           "zobrist_table", "position_key", "WIN"]

WIN = 2.0
INF = 1e9
EPS = 1e-9
NO_LIMIT = 1 << 62
MAX_PLY = 64
# stats slots (DEADLINE, NEXT_CHECK: ``agents.search.clock``'s ``perf_counter_ns`` values / evaluator calls)
NODES, EVALS, LIMIT, ABORTED, ROOT_IMPROVED, DEADLINE, NEXT_CHECK = range(7)
# cfg slots
KQ, K, USE_TT, ENDGAME_BUDGET = range(4)
# TT bound flags
EXACT, LOWER, UPPER = range(3)


def zobrist_table(width: int, seed: int = 20260522) -> np.ndarray:
    """Random keys ``[4, W*W]``: rows 1-3 per cell value (queens, arrows); ``[0, 0]`` the side key."""
    rng = np.random.default_rng(seed)
    return rng.integers(1, np.iinfo(np.int64).max, size=(4, width * width), dtype=np.int64).astype(np.uint64)


@njit(cache=True)
def position_key(cells, side, zob):
    """The Zobrist key of a position (pieces and arrows, side to move)."""
    key = zob[0, 0] if side == 1 else np.uint64(0)
    for p in range(cells.shape[0]):
        v = cells[p]
        if v == core.WHITE_QUEEN or v == core.BLACK_QUEEN or v == core.ARROW:
            key ^= zob[v, p]
    return key


class TranspositionTable:
    """``2**bits`` always-replace entries: key, value, and (depth, bound, from, to, arrow)."""

    def __init__(self, bits: int = 18) -> None:
        if not 4 <= bits <= 26:
            raise ValueError(f"tt_bits={bits!r}: must be in 4..26")
        self.keys = np.zeros(1 << bits, dtype=np.uint64)
        self.values = np.zeros(1 << bits, dtype=np.float64)
        self.info = np.zeros((1 << bits, 5), dtype=np.int64)

    def clear(self) -> None:
        self.keys[:] = 0


def search_stats() -> np.ndarray:
    """A fresh ``stats`` array for ``negamax`` and ``candidates``: counters at 0, no evaluator
    budget, no deadline."""
    stats = np.zeros(7, dtype=np.int64)
    stats[LIMIT], stats[DEADLINE], stats[NEXT_CHECK] = NO_LIMIT, NEVER, NEVER
    return stats


@njit(types.boolean(types.int64[::1]), cache=True)
def out_of_time(stats):
    """Whether the search must stop: already aborted, or (read every ``CHECK_EVERY`` evaluator
    calls) the wall clock has passed ``stats[DEADLINE]``, which then aborts it."""
    if stats[EVALS] >= stats[NEXT_CHECK]:
        stats[NEXT_CHECK] = stats[EVALS] + CHECK_EVERY
        if now_ns() > stats[DEADLINE]:
            stats[ABORTED] = 1
    return stats[ABORTED] != 0


@njit(types.int64(types.uint8[::1], types.int64[:, ::1], types.int64[::1], types.int64, types.int64[::1],
                  KERNEL_TYPE, types.float64[::1], types.int64, types.int64[:, ::1], types.float64[::1],
                  types.int64[:, ::1], types.float64[::1], types.int64[::1]), cache=True)
def candidates(cells, queens, nq, side, dirs, kernel, params, kq, out, scores, qmoves, qscores, stats):
    """Write ``side``'s candidate moves into ``out[:n]`` (padded from, to, arrow) with their static
    scores (for ``side``) in ``scores[:n]``, best first; return ``n`` (module docstring). The
    deadline in ``stats`` (``search_stats``) is checked between queen moves: once it has passed,
    the list is cut short and ``stats[ABORTED]`` set."""
    piece = side + 1
    other = 1 - side
    nqm = 0
    for i in range(nq[side]):
        frm = queens[side, i]
        for d in range(8):
            step = dirs[d]
            to = frm + step
            while cells[to] == core.EMPTY:
                qmoves[nqm, 0] = i
                qmoves[nqm, 1] = to
                nqm += 1
                to += step
    keep = nqm
    if 0 < kq < nqm:
        for j in range(nqm):
            i, to = qmoves[j, 0], qmoves[j, 1]
            frm = queens[side, i]
            cells[frm] = core.EMPTY
            cells[to] = piece
            queens[side, i] = to
            qscores[j] = -kernel(cells, queens, nq, other, dirs, params)
            cells[to] = core.EMPTY
            cells[frm] = piece
            queens[side, i] = frm
        stats[EVALS] += nqm
        order = np.argsort(-qscores[:nqm])[:kq]
        keep = kq
    else:
        order = np.arange(nqm)
    n = 0
    for j in range(keep):
        if out_of_time(stats):
            break  # the caller sees ``stats[ABORTED]``
        i, to = qmoves[order[j], 0], qmoves[order[j], 1]
        frm = queens[side, i]
        cells[frm] = core.EMPTY
        cells[to] = piece
        queens[side, i] = to
        for e in range(8):
            astep = dirs[e]
            a = to + astep
            while cells[a] == core.EMPTY:
                cells[a] = core.ARROW
                if core.has_move(cells, queens, nq, other, dirs):
                    scores[n] = -kernel(cells, queens, nq, other, dirs, params)
                else:
                    scores[n] = WIN
                cells[a] = core.EMPTY
                out[n, 0], out[n, 1], out[n, 2] = frm, to, a
                n += 1
                a += astep
        cells[to] = core.EMPTY
        cells[frm] = piece
        queens[side, i] = frm
    stats[EVALS] += n
    order = np.argsort(-scores[:n])
    sorted_moves = out[order]
    sorted_scores = scores[order]
    out[:n] = sorted_moves
    scores[:n] = sorted_scores
    return n


_ARGS = (types.uint8[::1], types.int64[:, ::1], types.int64[::1], types.int64, types.int64[::1],
         types.int64, types.float64, types.float64, types.int64, types.uint64, KERNEL_TYPE,
         types.float64[::1], types.int64[::1], types.uint64[:, ::1], types.uint64[::1],
         types.float64[::1], types.int64[:, ::1], types.int64[:, :, ::1], types.float64[:, ::1],
         types.int64[:, ::1], types.float64[::1], types.int64[::1], types.int64[::1])


@njit(types.float64(*_ARGS), cache=True)
def negamax(cells, queens, nq, side, dirs, depth, alpha, beta, ply, key, kernel, params, cfg, zob,
            tt_key, tt_val, tt_info, moves, scores, qmoves, qscores, stats, best):
    """The search (module docstring) to ``depth`` whole moves; ``best`` gets the root move."""
    stats[NODES] += 1
    if stats[EVALS] > stats[LIMIT]:
        stats[ABORTED] = 1
    if out_of_time(stats):
        return 0.0
    if not core.has_move(cells, queens, nq, side, dirs):
        return -WIN
    if ply > 0 and cfg[ENDGAME_BUDGET] > 0:
        outcome, margin = endgame.fill_value(cells, queens, nq, side, dirs, cfg[ENDGAME_BUDGET])
        if outcome != 0:
            return outcome * WIN + 0.001 * margin
    if depth == 0:
        stats[EVALS] += 1
        return kernel(cells, queens, nq, side, dirs, params)
    slot = key & np.uint64(tt_key.shape[0] - 1)
    tt_from = -1
    tt_to = -1
    tt_arrow = -1
    if cfg[USE_TT] and tt_key[slot] == key:
        tt_from, tt_to, tt_arrow = tt_info[slot, 2], tt_info[slot, 3], tt_info[slot, 4]
        if ply > 0 and tt_info[slot, 0] >= depth:
            v = tt_val[slot]
            flag = tt_info[slot, 1]
            if flag == EXACT or (flag == LOWER and v >= beta) or (flag == UPPER and v <= alpha):
                return v
    out = moves[ply]
    sc = scores[ply]
    n = candidates(cells, queens, nq, side, dirs, kernel, params, cfg[KQ], out, sc, qmoves, qscores, stats)
    if stats[ABORTED]:
        return 0.0
    m = n if cfg[K] <= 0 else min(cfg[K], n)
    if tt_from >= 0:  # the stored move first, wherever the static order put it
        for j in range(n):
            if out[j, 0] == tt_from and out[j, 1] == tt_to and out[j, 2] == tt_arrow:
                for r in range(j, 0, -1):
                    out[r, 0], out[r, 1], out[r, 2] = out[r - 1, 0], out[r - 1, 1], out[r - 1, 2]
                    sc[r] = sc[r - 1]
                out[0, 0], out[0, 1], out[0, 2] = tt_from, tt_to, tt_arrow
                break
    alpha0 = alpha
    value = -INF
    best_k = 0
    if depth == 1:
        value = sc[0]
        for j in range(1, n):
            if sc[j] > value:
                value = sc[j]
                best_k = j
        if ply == 0:
            best[0], best[1], best[2] = out[best_k, 0], out[best_k, 1], out[best_k, 2]
            stats[ROOT_IMPROVED] = 1
    else:
        piece = side + 1
        other = 1 - side
        for k in range(m):
            frm, to, arrow = out[k, 0], out[k, 1], out[k, 2]
            index = core.find_queen(queens, nq, side, frm)
            core.make_move(cells, queens, side, index, to, arrow)
            child = key ^ zob[piece, frm] ^ zob[piece, to] ^ zob[core.ARROW, arrow] ^ zob[0, 0]
            if k == 0:
                v = -negamax(cells, queens, nq, other, dirs, depth - 1, -beta, -alpha, ply + 1, child, kernel,
                             params, cfg, zob, tt_key, tt_val, tt_info, moves, scores, qmoves, qscores, stats, best)
            else:
                v = -negamax(cells, queens, nq, other, dirs, depth - 1, -alpha - EPS, -alpha, ply + 1, child,
                             kernel, params, cfg, zob, tt_key, tt_val, tt_info, moves, scores, qmoves, qscores,
                             stats, best)
                if v > alpha and v < beta and not stats[ABORTED]:
                    v = -negamax(cells, queens, nq, other, dirs, depth - 1, -beta, -alpha, ply + 1, child, kernel,
                                 params, cfg, zob, tt_key, tt_val, tt_info, moves, scores, qmoves, qscores, stats,
                                 best)
            core.unmake_move(cells, queens, side, index, frm, to, arrow)
            if stats[ABORTED]:
                return 0.0
            if v > value:
                value = v
                best_k = k
                if v > alpha:
                    alpha = v
                    if ply == 0:
                        best[0], best[1], best[2] = frm, to, arrow
                        stats[ROOT_IMPROVED] = 1
                    if alpha >= beta:
                        break
    if cfg[USE_TT]:
        tt_key[slot] = key
        tt_val[slot] = value
        tt_info[slot, 0] = depth
        tt_info[slot, 1] = UPPER if value <= alpha0 else (LOWER if value >= beta else EXACT)
        tt_info[slot, 2], tt_info[slot, 3], tt_info[slot, 4] = out[best_k, 0], out[best_k, 1], out[best_k, 2]
    return value


def batch_search(board: Board, depth: int, evaluator: Evaluator, k: int = 8,
                 deadline: float = float("inf"), prefilter: Optional[Evaluator] = None,
                 shortlist: int = 48, kq: int = 12, pace: Optional[Pace] = None,
                 first: Optional[Move] = None,
                 root_memo: Optional[list] = None) -> tuple[Optional[Move], float, int, bool]:
    """Selective alpha-beta for an evaluator without a kernel (``agents.search.batched_alphabeta``): at every node
    one ``evaluator.evaluate_batch`` call scores the children; a depth-1 node returns the best
    score, deeper nodes search their ``k`` best children (``k=0``: all). The children scored are
    all of them, or with a ``prefilter`` (an evaluator with a kernel) the best ``shortlist`` of
    its two-stage ``candidates`` (``kq`` queen moves): the cheap kernel picks the moves worth a
    forward pass. Returns ``(move, value, evals, complete)``, ``evals`` counting the main
    evaluator's positions; ``move`` is None if ``deadline`` (``time.perf_counter()``) passed first
    (with a ``pace``: or a forward pass was predicted to end after it), unless the root move
    ``first`` had been searched: then ``move`` is the best so far and ``complete`` False
    (``batched_alphabeta``, which also explains ``root_memo``)."""
    moves_of = None if prefilter is None else _shortlister(board, prefilter, shortlist, kq)
    result = batched_alphabeta(board, depth, evaluator, k=k, win=WIN, deadline=deadline, moves_of=moves_of,
                               pace=pace, first=first, root_memo=root_memo)
    return result.move, result.value, result.evals, result.complete


def _shortlister(board: Board, prefilter: Evaluator, shortlist: int, kq: int) -> MoveSource:
    """A move source giving the ``shortlist`` best of ``prefilter``'s ``candidates``."""
    rows = core.max_moves(board.size, int(board.queen_counts.max()))
    scratch = (np.empty(rows), np.empty((rows, 2), dtype=np.int64), np.empty(rows), search_stats())

    def moves_of(cells, queens, nq, side, dirs, out) -> int:
        return min(shortlist, candidates(cells, queens, nq, side, dirs, prefilter.kernel, prefilter.params, kq,
                                         out, *scratch))
    return moves_of


@dataclass(frozen=True)
class SearchResult:
    """What a search found: the ``move``, its ``value`` for the side to move (proven wins/losses
    are beyond +-1), the ``depth`` completed, ``nodes`` and evaluator calls (``evals``) over all
    iterations, and the ``seconds`` it took."""

    move: Move
    value: float
    depth: int
    nodes: int
    evals: int
    seconds: float


@register("alphabeta", forward="eval", options={
    "time": TIME, "depth": opt("depth limit (alone: one fixed-depth search)", ge=1, lt=MAX_PLY), "eval": EVAL,
    "k": opt("children searched per node (0 = all)", ge=0),
    "kq": opt("queen moves kept before arrows are scored (0 = all)", ge=0),
    "tt": opt("use the transposition table"), "tt_bits": opt("log2 of the table's entries", ge=4, le=26),
    "endgame": opt("fill-search budget per region inside the search (0 = off)", ge=0),
    "aspiration": opt("aspiration window half-width", gt=0),
    "prefilter": opt("for an evaluator without a kernel: a kernel evaluator that shortlists moves",
                     kind="evaluator"),
    "shortlist": opt("candidates per node the prefilter keeps", ge=1),
    "clock": opt("time manager (full: deepen until the deadline)", choices=CLOCKS)})
class AlphaBeta(Agent):
    """The selective PVS engine (module docstring) as an agent.

    Options: ``time`` seconds per move (default 1.0; iterative deepening), ``depth`` a depth limit
    (alone: one fixed-depth search), ``eval`` an evaluator spec or object (default ``territory``;
    other keyword options go to it), ``k`` children searched per node (0 = all), ``kq`` queen
    moves kept before arrows are scored (0 = all), ``tt`` (use the table), ``tt_bits``,
    ``endgame`` (fill-search budget per region inside the search; 0 = off), ``aspiration`` window
    half-width, ``clock`` the time manager (``full``, or ``legacy``: round one's, module
    docstring). For an evaluator without a kernel (``batch_search``): ``prefilter`` an evaluator
    spec with a kernel that shortlists the ``shortlist`` best candidates per node for it (default
    None: it scores every child).
    """

    name = "alphabeta"

    def __init__(self, time: Optional[float] = None, depth: Optional[int] = None, eval: Any = "territory",
                 k: int = 10, kq: int = 12, tt: bool = True, tt_bits: int = 18, endgame: int = 300,
                 aspiration: float = 0.1, prefilter: Any = None, shortlist: int = 48, clock: str = "full",
                 seed: Optional[int] = None, **eval_options: Any) -> None:
        super().__init__(seed)
        if clock not in CLOCKS:
            raise ValueError(f"clock={clock!r}: use one of {', '.join(CLOCKS)}")
        self.clock = clock
        if depth is not None and (int(depth) != depth or not 1 <= depth < MAX_PLY):
            raise ValueError(f"depth={depth!r}: must be a whole number in 1..{MAX_PLY - 1}")
        if time is not None and not time > 0:
            raise ValueError(f"time={time!r}: seconds per move must be > 0")
        if k < 0 or kq < 0 or endgame < 0 or not aspiration > 0:
            raise ValueError(f"k={k}, kq={kq}, endgame={endgame} must be >= 0 and aspiration={aspiration} > 0")
        self.time = 1.0 if time is None and depth is None else time
        self.depth = None if depth is None else int(depth)
        self.evaluator = make_evaluator(eval, **eval_options)
        self.prefilter = None if prefilter is None else make_evaluator(prefilter)
        if self.prefilter is not None and (self.prefilter.kernel is None or self.evaluator.kernel is not None):
            raise ValueError(f"prefilter={prefilter!r}: a prefilter needs a kernel and serves an evaluator "
                             f"without one ({self.evaluator.spec!r})")
        if shortlist < 1:
            raise ValueError(f"shortlist={shortlist!r}: must be >= 1")
        self.shortlist = int(shortlist)
        self.k, self.kq, self.endgame, self.aspiration = int(k), int(kq), int(endgame), float(aspiration)
        self.cfg = np.array([kq, k, int(bool(tt)), endgame], dtype=np.int64)
        self.table = TranspositionTable(tt_bits)
        self._arrays: dict[int, tuple] = {}
        self._pace = Pace()  # forward-pass cost of a batch evaluator, learnt across moves
        self._clock = Clock()
        self.last_result: Optional[SearchResult] = None

    def reset(self) -> None:
        self.table.clear()

    def select_move(self, board: Board) -> Move:
        self.last_result = self.search(board)
        return self.last_result.move

    def _scratch(self, board: Board) -> tuple:
        if board.size not in self._arrays:
            rows = core.max_moves(board.size, core.MAX_QUEENS)
            self._arrays[board.size] = (
                zobrist_table(board.size + 2), np.empty((MAX_PLY, rows, 3), dtype=np.int64),
                np.empty((MAX_PLY, rows)), np.empty((rows, 2), dtype=np.int64), np.empty(rows))
        return self._arrays[board.size]

    def _once(self, board: Board, depth: int, alpha: float, beta: float, limit: int,
              stats: np.ndarray, best: np.ndarray, stop: float = float("inf")) -> float:
        zob, moves, scores, qmoves, qscores = self._scratch(board)
        cells, queens = board.cells.copy(), board.queens.copy()
        stats[LIMIT], stats[ABORTED], stats[ROOT_IMPROVED] = limit, 0, 0
        stats[DEADLINE] = as_ns(stop)
        stats[NEXT_CHECK] = stats[EVALS] if stats[DEADLINE] < NEVER else NEVER
        side = int(board.turn)
        return negamax(cells, queens, board.queen_counts.copy(), side, board.dirs, depth, alpha, beta, 0,
                       position_key(cells, side, zob), self.evaluator.kernel, self.evaluator.params, self.cfg,
                       zob, self.table.keys, self.table.values, self.table.info, moves, scores, qmoves,
                       qscores, stats, best)

    def search(self, board: Board) -> SearchResult:
        """Search ``board`` for its side to move within this agent's time and depth limits."""
        if board.is_game_over():
            raise ValueError(f"{self.spec}: no move to search in a finished game: {board.text()!r}")
        start = _time.perf_counter()
        filling = endgame.filling_move(board) if self.endgame else None
        if filling is not None:
            return SearchResult(filling[0], float(filling[1]) * WIN, 0, 0, 0, _time.perf_counter() - start)
        empties = int(np.count_nonzero(board.cells == core.EMPTY))
        deepest = min(empties, MAX_PLY - 1, self.depth or MAX_PLY)
        if self.evaluator.kernel is None:
            return self._search_batch(board, deepest, start)
        stats = search_stats()
        best = np.full(3, -1, dtype=np.int64)
        done = self._deepen(board, deepest, start, stats, best)
        public = core.public_index(board.size)
        move = Move(*(int(public[p]) for p in done[0]), board.size)
        return SearchResult(move, float(done[1]), done[2], int(stats[NODES]), int(stats[EVALS]),
                            _time.perf_counter() - start)

    def _window(self, depth: int, done: Optional[tuple[np.ndarray, float, int]]) -> tuple[float, float]:
        """The root window: aspiration around the last iteration's value from depth 3."""
        if done is not None and depth >= 3 and abs(done[1]) < 1:
            return (done[1] - self.aspiration, done[1] + self.aspiration)
        return (-INF, INF)

    def _deepen(self, board: Board, deepest: int, start: float, stats: np.ndarray,
                best: np.ndarray) -> tuple[np.ndarray, float, int]:
        """Iterative deepening within the time (module docstring); ``(best move, value, depth)``.

        ``clock=full`` starts the next iteration while time is left and aborts it on the deadline
        (``agents.search.clock``). ``clock=legacy`` (round one's manager, kept to reproduce its games)
        budgets evaluator calls from the measured rate and starts no iteration after half the
        time. An aborted iteration's move replaces the last finished one only when that is safe:
        a root move finished inside the window (PVS searched the last best move first, so this
        one is at least as good), or (full clock) the aspiration window failed high (that move
        beats the last value by the window's width) before the full-window search was cut."""
        legacy = self.clock == "legacy"
        if self.time is None:
            stop = float("inf")
        else:
            stop = start + self.time if legacy else self._clock.stop(start, self.time)
        done: Optional[tuple[np.ndarray, float, int]] = None
        bounded = float("-inf")
        for depth in range(1, deepest + 1):
            if self.time is None and depth < deepest:
                continue  # a fixed-depth search: only the last iteration
            limit, bound = NO_LIMIT, float("inf")  # the first iteration always finishes: a move to play
            if done is not None and self.time is not None:
                now = _time.perf_counter()
                if legacy:
                    if now - start > 0.5 * (stop - start):
                        break  # an iteration rarely finishes in less than the time already spent
                    limit = int(stats[EVALS] + stats[EVALS] / max(now - start, 1e-6) * (stop - now))
                elif now >= stop:
                    break
                else:
                    bound = stop
            window = self._window(depth, done)
            value = self._once(board, depth, *window, limit, stats, best, bound)
            fail_high = None
            if not stats[ABORTED] and (value <= window[0] or value >= window[1]):
                fail_high = best.copy() if value >= window[1] and not legacy else None
                value = self._once(board, depth, -INF, INF, limit, stats, best, bound)
            if stats[ABORTED]:
                if done is not None and stats[ROOT_IMPROVED]:
                    done = (best.copy(), done[1], done[2])
                elif done is not None and fail_high is not None:
                    done = (fail_high, done[1], done[2])
                break
            if done is None:
                bounded = _time.perf_counter()  # the deadline holds from here on
            done = (best.copy(), value, depth)
            if abs(value) >= WIN:
                break  # proven
        assert done is not None  # the first iteration runs without a limit
        if self.time is not None and not legacy:
            self._clock.returned(stop, bounded)
        return done

    def _search_batch(self, board: Board, deepest: int, start: float) -> SearchResult:
        """Iterative deepening with ``batch_search``. The full clock stops before a forward pass
        that would end after the deadline (``Pace``) and searches the last iteration's move first,
        so that an aborted iteration's best move counts once that move's subtree is done (as in
        the kernel search); legacy discards aborted iterations."""
        legacy = self.clock == "legacy"
        if self.time is None:
            stop = float("inf")
        else:
            stop = start + self.time if legacy else self._clock.stop(start, self.time)
        pace = None if legacy else self._pace
        root_memo = None if legacy else []  # the root's scores, computed once for all iterations

        def search(depth: int, stop: float, first: Optional[Move] = None) -> tuple[Optional[Move], float, int, bool]:
            return batch_search(board, depth, self.evaluator, self.k, stop, self.prefilter, self.shortlist,
                                self.kq, pace, first, root_memo)

        done, evals, bounded = None, 0, float("-inf")
        for depth in range(1, deepest + 1):
            if self.depth is not None and self.time is None and depth < deepest:
                continue
            if legacy:
                move, value, spent, complete = search(depth, stop)
            elif done is None:  # the full clock lets the first iteration finish: a move to play
                move, value, spent, complete = search(depth, float("inf"))
                bounded = _time.perf_counter()  # the deadline holds from here on
            else:
                move, value, spent, complete = search(depth, stop, done[0])
            evals += spent
            if move is None:
                break
            if not complete:
                done = (move, done[1], done[2])
                break
            done = (move, value, depth)
        if done is None:  # legacy: not even depth 1 in time, finish it anyway
            move, value, spent, _ = search(1, float("inf"))
            done, evals = (move, value, 1), evals + spent
        if self.time is not None and not legacy:
            self._clock.returned(stop, bounded)
        return SearchResult(done[0], done[1], done[2], 0, evals, _time.perf_counter() - start)
