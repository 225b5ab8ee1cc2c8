"""Move ordering for the search kernels: ``candidates``, a position's whole moves scored and sorted
by an evaluation kernel in two stages (module docstring of ``agents.search.alphabeta_kernel``), with
the ``stats`` counters and deadline it shares with ``negamax`` (``search_stats``, ``out_of_time``),
and ``shortlister``, its best moves as a ``MoveSource`` for ``batched_alphabeta``.

>>> from amazons_env import Board
>>> from agents.evaluation.evaluator import make_evaluator
>>> board, territory = Board(6), make_evaluator("territory")
>>> rows = core.max_moves(6, 4)
>>> out, scores = np.empty((rows, 3), dtype=np.int64), np.empty(rows)
>>> n = candidates(board.cells.copy(), board.queens.copy(), board.queen_counts.copy(), 0, board.dirs,
...                territory.kernel, territory.params, 0, out, scores,
...                np.empty((rows, 2), dtype=np.int64), np.empty(rows), search_stats())
>>> n == len(board.legal_moves()), bool(np.all(np.diff(scores[:n]) <= 0))
(True, True)
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from amazons_env import Board, core

from agents.evaluation.evaluator import KERNEL_TYPE, Evaluator
from agents.search.batched_alphabeta import MoveSource
from agents.search.clock import CHECK_EVERY, NEVER, now_ns
from agents.search.rays import ray_end

__all__ = [
    "candidates",
    "shortlister",
    "search_stats",
    "out_of_time",
    "WIN",
    "NO_LIMIT",
    "NODES",
    "EVALS",
    "LIMIT",
    "ABORTED",
    "ROOT_IMPROVED",
    "DEADLINE",
    "NEXT_CHECK",
]

WIN = 2.0
NO_LIMIT = 1 << 62
# stats slots (DEADLINE, NEXT_CHECK: ``agents.search.clock``'s ``perf_counter_ns`` values / evaluator calls)
NODES, EVALS, LIMIT, ABORTED, ROOT_IMPROVED, DEADLINE, NEXT_CHECK = range(7)


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


@njit(
    types.int64(
        types.uint8[::1],
        types.int64[:, ::1],
        types.int64[::1],
        types.int64,
        types.int64[::1],
        KERNEL_TYPE,
        types.float64[::1],
        types.int64,
        types.int64[:, ::1],
        types.float64[::1],
        types.int64[:, ::1],
        types.float64[::1],
        types.int64[::1],
    ),
    cache=True,
)
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
            for to in range(frm + step, ray_end(cells, frm, step), step):
                qmoves[nqm, 0] = i
                qmoves[nqm, 1] = to
                nqm += 1
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
            for a in range(to + astep, ray_end(cells, to, astep), astep):
                cells[a] = core.ARROW
                if core.has_move(cells, queens, nq, other, dirs):
                    scores[n] = -kernel(cells, queens, nq, other, dirs, params)
                else:
                    scores[n] = WIN
                cells[a] = core.EMPTY
                out[n, 0], out[n, 1], out[n, 2] = frm, to, a
                n += 1
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


def shortlister(board: Board, prefilter: Evaluator, shortlist: int, kq: int) -> MoveSource:
    """A move source giving the ``shortlist`` best of ``prefilter``'s ``candidates``."""
    rows = core.max_moves(board.size, int(board.queen_counts.max()))
    scratch = (np.empty(rows), np.empty((rows, 2), dtype=np.int64), np.empty(rows), search_stats())

    def moves_of(cells, queens, nq, side, dirs, out) -> int:
        return min(
            shortlist, candidates(cells, queens, nq, side, dirs, prefilter.kernel, prefilter.params, kq, out, *scratch)
        )

    return moves_of
