"""Move ordering for the search kernels (alpha-beta's ``negamax``, ``uct_tree``'s expansion, the
batched greedy opponent): ``candidates``, a position's whole moves scored and sorted by an
evaluation kernel in two stages (module docstring of ``agents.search.alphabeta.kernel``) into
``MoveLists``, its first stage scoring each queen move without an arrow (``queen_move_value``);
the counters and deadline it shares with ``negamax`` (``SearchStats``: ``search_stats``,
``out_of_time``); ``Position``, the arrays of a position that the kernels pass down.

>>> from amazons_env import Board
>>> from agents.evaluation.evaluator import make_evaluator
>>> board, territory = Board(6), make_evaluator("territory")
>>> lists, stats = move_lists(6), search_stats()
>>> n = candidates(board.cells.copy(), board.queens.copy(), board.queen_counts.copy(), 0, board.dirs,
...                territory.kernel, territory.params, 0, lists, stats)
>>> n == len(board.legal_moves()) == int(stats.evals[0]), bool(np.all(np.diff(lists.scores[:n]) <= 0))
(True, True)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types

from amazons_env import core

from agents.evaluation.evaluator import KERNEL_TYPE
from agents.search.rays import ray_end
from agents.time.clock import CHECK_EVERY, NEVER, now_ns

__all__ = [
    "candidates",
    "queen_move_value",
    "Position",
    "POSITION_TYPE",
    "SearchStats",
    "search_stats",
    "MoveLists",
    "move_lists",
    "out_of_time",
    "STATS_TYPE",
    "MOVE_LISTS_TYPE",
    "WIN",
    "NO_LIMIT",
]

WIN = 2.0
NO_LIMIT = 1 << 62


class Position(NamedTuple):
    """The rules core's arrays of a position that a search kernel changes and restores: padded
    ``cells``, ``queens``, queen counts ``nq``, and the board's ``dirs`` (the side to move travels
    beside it: it changes at every ply)."""

    cells: np.ndarray
    queens: np.ndarray
    nq: np.ndarray
    dirs: np.ndarray


class SearchStats(NamedTuple):
    """A search's counters and limits, each a one-element ``int64`` array that the kernels update
    in place: ``nodes`` entered, ``evals`` (evaluator calls), ``limit`` (the most evaluator calls
    allowed), ``aborted`` (1 once the search must stop), ``root_improved`` (1 once the root's best
    move was set in this search), ``deadline`` (``agents.time.clock.now_ns`` value) and
    ``next_check`` (the ``evals`` count at which the clock is read next)."""

    nodes: np.ndarray
    evals: np.ndarray
    limit: np.ndarray
    aborted: np.ndarray
    root_improved: np.ndarray
    deadline: np.ndarray
    next_check: np.ndarray


class MoveLists(NamedTuple):
    """Where ``candidates`` writes a position's moves: ``moves`` (rows of padded from, to, arrow)
    with their ``scores``, and its scratch for the queen moves (``queen_moves``: rows of queen
    index, destination; ``queen_scores``)."""

    moves: np.ndarray
    scores: np.ndarray
    queen_moves: np.ndarray
    queen_scores: np.ndarray


POSITION_TYPE = types.NamedTuple((types.uint8[::1], types.int64[:, ::1], types.int64[::1], types.int64[::1]), Position)
STATS_TYPE = types.NamedUniTuple(types.int64[::1], len(SearchStats._fields), SearchStats)
MOVE_LISTS_TYPE = types.NamedTuple(
    (types.int64[:, ::1], types.float64[::1], types.int64[:, ::1], types.float64[::1]), MoveLists
)


def search_stats() -> SearchStats:
    """Fresh ``SearchStats``: counters at 0, no evaluator budget, no deadline."""
    one = [np.zeros(1, dtype=np.int64) for _ in SearchStats._fields]
    stats = SearchStats(*one)
    stats.limit[0], stats.deadline[0], stats.next_check[0] = NO_LIMIT, NEVER, NEVER
    return stats


def move_lists(size: int) -> MoveLists:
    """``MoveLists`` with room for every move of a ``size`` x ``size`` board."""
    rows = core.max_moves(size, core.MAX_QUEENS)
    return MoveLists(
        np.empty((rows, 3), dtype=np.int64), np.empty(rows), np.empty((rows, 2), dtype=np.int64), np.empty(rows)
    )


@njit(types.boolean(STATS_TYPE), cache=True, nogil=True)
def out_of_time(stats):
    """Whether the search must stop: already aborted, or (read every ``CHECK_EVERY`` evaluator
    calls) the wall clock has passed ``stats.deadline``, which then aborts it."""
    if stats.evals[0] >= stats.next_check[0]:
        stats.next_check[0] = stats.evals[0] + CHECK_EVERY
        if now_ns() > stats.deadline[0]:
            stats.aborted[0] = 1
    return stats.aborted[0] != 0


@njit(cache=True, inline="always")
def queen_move_value(cells, queens, nq, side, i, to, dirs, kernel, params):
    """The value for ``side`` of moving its queen ``i`` to ``to`` with no arrow shot: the
    evaluation ``kernel`` of that position for the opponent, negated. The position is restored
    before it returns. Compiled into each kernel that calls it (``inline="always"``): it runs
    once per queen move."""
    frm = queens[side, i]
    piece = side + 1
    cells[frm] = core.EMPTY
    cells[to] = piece
    queens[side, i] = to
    value = -kernel(cells, queens, nq, 1 - side, dirs, params)
    cells[to] = core.EMPTY
    cells[frm] = piece
    queens[side, i] = frm
    return value


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
        MOVE_LISTS_TYPE,
        STATS_TYPE,
    ),
    cache=True,
)
def candidates(cells, queens, nq, side, dirs, kernel, params, kq, lists, stats):
    """Write ``side``'s candidate moves into ``lists.moves[:n]`` (padded from, to, arrow) with their
    static scores (for ``side``) in ``lists.scores[:n]``, best first; return ``n`` (module
    docstring). The deadline in ``stats`` (``search_stats``) is checked between queen moves: once
    it has passed, the list is cut short and ``stats.aborted`` set."""
    out, scores, qmoves, qscores = lists
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
            qscores[j] = queen_move_value(cells, queens, nq, side, qmoves[j, 0], qmoves[j, 1], dirs, kernel, params)
        stats.evals[0] += nqm
        order = np.argsort(-qscores[:nqm])[:kq]
        keep = kq
    else:
        order = np.arange(nqm)
    n = 0
    for j in range(keep):
        if out_of_time(stats):
            break  # the caller sees ``stats.aborted``
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
    stats.evals[0] += n
    order = np.argsort(-scores[:n])
    sorted_moves = out[order]
    sorted_scores = scores[order]
    out[:n] = sorted_moves
    scores[:n] = sorted_scores
    return n
