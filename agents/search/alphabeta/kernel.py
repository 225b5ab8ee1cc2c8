"""The alpha-beta kernel, in numba: ``negamax``, a selective principal-variation search over whole
moves, with its transposition table and the bundles it takes (``Search``, ``SearchConfig``,
``TranspositionTable``); Zobrist keys: ``agents.search.zobrist``; candidate moves:
``agents.search.move_order``.
``agents.search.alphabeta.agent`` is the agent around it (time, iterative deepening).

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
  when they fail high inside the window (the agent adds aspiration windows at the root).
* **Filling phase** (``agents.search.endgame``): an interior node whose position is separated is
  scored by the exact move counts when they decide the game.
* **Time**: the search reads the wall clock every ``CHECK_EVERY`` evaluator calls
  (``out_of_time``) and aborts on ``stats.deadline``; ``stats.limit`` caps evaluator calls.

Killers and history tables are not used: the static ordering already sorts every node's candidates.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types

from amazons_env import core
from amazons_env.errors import InvalidArgumentError, describe

from agents.evaluation.evaluator import KERNEL_TYPE
from agents.search import endgame
from agents.search.move_order import POSITION_TYPE, STATS_TYPE, WIN, MoveLists, SearchStats, candidates, out_of_time
from agents.search.zobrist import move_key

__all__ = [
    "negamax",
    "Search",
    "SearchConfig",
    "TranspositionTable",
    "transposition_table",
    "SEARCH_TYPE",
    "INF",
    "MAX_PLY",
]

INF = 1e9
EPS = 1e-9
MAX_PLY = 64
# TT bound flags
EXACT, LOWER, UPPER = range(3)


class SearchConfig(NamedTuple):
    """``negamax``'s options: ``kq`` queen moves kept before arrows are scored (0: all), ``k``
    children searched per node (0: all), ``use_tt`` (1: use the table), ``endgame_budget`` (the
    fill-search budget per region, 0: off)."""

    kq: int
    k: int
    use_tt: int
    endgame_budget: int


class TranspositionTable(NamedTuple):
    """``2**bits`` always-replace entries (``transposition_table``): the Zobrist ``keys``, and per
    entry its ``values``, ``depths``, ``bounds`` (``EXACT``, ``LOWER``, ``UPPER``) and best
    ``moves`` (padded from, to, arrow)."""

    keys: np.ndarray
    values: np.ndarray
    depths: np.ndarray
    bounds: np.ndarray
    moves: np.ndarray


class Search(NamedTuple):
    """What a ``negamax`` search shares between its nodes: ``config``, ``table`` and the Zobrist
    keys ``zobrist`` (``zobrist_table``), the candidate lists of every ply (``moves[ply]``,
    ``scores[ply]``; ``queen_moves``, ``queen_scores`` as in ``MoveLists``), the counters
    ``stats`` (``move_order.search_stats``) and the root's ``best`` move (padded from, to, arrow)."""

    config: SearchConfig
    table: TranspositionTable
    zobrist: np.ndarray
    moves: np.ndarray
    scores: np.ndarray
    queen_moves: np.ndarray
    queen_scores: np.ndarray
    stats: SearchStats
    best: np.ndarray


CONFIG_TYPE = types.NamedUniTuple(types.int64, len(SearchConfig._fields), SearchConfig)
TABLE_TYPE = types.NamedTuple(
    (types.uint64[::1], types.float64[::1], types.int64[::1], types.int64[::1], types.int64[:, ::1]), TranspositionTable
)
SEARCH_TYPE = types.NamedTuple(
    (
        CONFIG_TYPE,
        TABLE_TYPE,
        types.uint64[:, ::1],
        types.int64[:, :, ::1],
        types.float64[:, ::1],
        types.int64[:, ::1],
        types.float64[::1],
        STATS_TYPE,
        types.int64[::1],
    ),
    Search,
)


def transposition_table(bits: int = 18) -> TranspositionTable:
    """An empty ``TranspositionTable`` of ``2**bits`` entries (``bits`` in 4..26)."""
    if not 4 <= bits <= 26:
        raise InvalidArgumentError(f"tt_bits={describe(bits)}: must be in 4..26")
    size = 1 << bits
    return TranspositionTable(
        np.zeros(size, dtype=np.uint64),
        np.zeros(size, dtype=np.float64),
        np.zeros(size, dtype=np.int64),
        np.zeros(size, dtype=np.int64),
        np.zeros((size, 3), dtype=np.int64),
    )


_ARGS = (
    POSITION_TYPE,
    types.int64,
    types.int64,
    types.float64,
    types.float64,
    types.int64,
    types.uint64,
    KERNEL_TYPE,
    types.float64[::1],
    SEARCH_TYPE,
)


# nogil: the engine's command loop (``stop``) and a ponder search run beside it
@njit(types.float64(*_ARGS), cache=True, nogil=True)
def negamax(position, side, depth, alpha, beta, ply, key, kernel, params, search):
    """The search (module docstring) of ``position`` with ``side`` to move, to ``depth`` whole
    moves, ``ply`` moves below the root, whose Zobrist key is ``key``; ``search.best`` gets the
    root move."""
    cells, queens, nq, dirs = position
    config, table, stats = search.config, search.table, search.stats
    stats.nodes[0] += 1
    if stats.evals[0] > stats.limit[0]:
        stats.aborted[0] = 1
    if out_of_time(stats):
        return 0.0
    if not core.has_move(cells, queens, nq, side, dirs):
        return -WIN
    if ply > 0 and config.endgame_budget > 0:
        outcome, margin = endgame.fill_value(cells, queens, nq, side, dirs, config.endgame_budget)
        if outcome != 0:
            return outcome * WIN + 0.001 * margin
    if depth == 0:
        stats.evals[0] += 1
        return kernel(cells, queens, nq, side, dirs, params)
    slot = key & np.uint64(table.keys.shape[0] - 1)
    tt_from = -1
    tt_to = -1
    tt_arrow = -1
    if config.use_tt and table.keys[slot] == key:
        tt_from, tt_to, tt_arrow = table.moves[slot, 0], table.moves[slot, 1], table.moves[slot, 2]
        if ply > 0 and table.depths[slot] >= depth:
            v = table.values[slot]
            bound = table.bounds[slot]
            if bound == EXACT or (bound == LOWER and v >= beta) or (bound == UPPER and v <= alpha):
                return v
    out = search.moves[ply]
    sc = search.scores[ply]
    lists = MoveLists(out, sc, search.queen_moves, search.queen_scores)
    n = candidates(cells, queens, nq, side, dirs, kernel, params, config.kq, lists, stats)
    if stats.aborted[0]:
        return 0.0
    m = n if config.k <= 0 else min(config.k, n)
    if tt_from >= 0:  # the stored move first, wherever the static order put it
        for j in range(n):
            if out[j, 0] == tt_from and out[j, 1] == tt_to and out[j, 2] == tt_arrow:
                for r in range(j, 0, -1):
                    out[r, 0], out[r, 1], out[r, 2] = out[r - 1, 0], out[r - 1, 1], out[r - 1, 2]
                    sc[r] = sc[r - 1]
                out[0, 0], out[0, 1], out[0, 2] = tt_from, tt_to, tt_arrow
                break
    best = search.best
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
            stats.root_improved[0] = 1
    else:
        zob = search.zobrist
        other = 1 - side
        for k in range(m):
            frm, to, arrow = out[k, 0], out[k, 1], out[k, 2]
            index = core.find_queen(queens, nq, side, frm)
            core.make_move(cells, queens, side, index, to, arrow)
            child = move_key(key, zob, side, frm, to, arrow)
            if k == 0:
                v = -negamax(position, other, depth - 1, -beta, -alpha, ply + 1, child, kernel, params, search)
            else:
                v = -negamax(position, other, depth - 1, -alpha - EPS, -alpha, ply + 1, child, kernel, params, search)
                if v > alpha and v < beta and not stats.aborted[0]:
                    v = -negamax(position, other, depth - 1, -beta, -alpha, ply + 1, child, kernel, params, search)
            core.unmake_move(cells, queens, side, index, frm, to, arrow)
            if stats.aborted[0]:
                return 0.0
            if v > value:
                value = v
                best_k = k
                if v > alpha:
                    alpha = v
                    if ply == 0:
                        best[0], best[1], best[2] = frm, to, arrow
                        stats.root_improved[0] = 1
                    if alpha >= beta:
                        break
    if config.use_tt:
        table.keys[slot] = key
        table.values[slot] = value
        table.depths[slot] = depth
        table.bounds[slot] = UPPER if value <= alpha0 else (LOWER if value >= beta else EXACT)
        table.moves[slot, 0], table.moves[slot, 1], table.moves[slot, 2] = (
            out[best_k, 0],
            out[best_k, 1],
            out[best_k, 2],
        )
    return value
