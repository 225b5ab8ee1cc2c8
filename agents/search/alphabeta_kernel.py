"""The alpha-beta kernel, in numba: ``negamax``, a selective principal-variation search over whole
moves, and its parts (transposition table, Zobrist keys; candidate moves: ``agents.search.move_order``).
``agents.search.alphabeta`` is the agent around it (time, iterative deepening, evaluators without a kernel).

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
  (``out_of_time``) and aborts on ``stats[DEADLINE]``; ``stats[LIMIT]`` caps evaluator calls.

Killers and history tables are not used: the static ordering already sorts every node's candidates.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from amazons_env import core
from amazons_env.errors import InvalidArgumentError, describe

from agents.evaluation.evaluator import KERNEL_TYPE
from agents.search import endgame
from agents.search.move_order import ABORTED, EVALS, LIMIT, NODES, ROOT_IMPROVED, WIN, candidates, out_of_time

__all__ = [
    "negamax",
    "TranspositionTable",
    "zobrist_table",
    "position_key",
    "INF",
    "MAX_PLY",
    "KQ",
    "K",
    "USE_TT",
    "ENDGAME_BUDGET",
]

INF = 1e9
EPS = 1e-9
MAX_PLY = 64
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
            raise InvalidArgumentError(f"tt_bits={describe(bits)}: must be in 4..26")
        self.keys = np.zeros(1 << bits, dtype=np.uint64)
        self.values = np.zeros(1 << bits, dtype=np.float64)
        self.info = np.zeros((1 << bits, 5), dtype=np.int64)

    def clear(self) -> None:
        self.keys[:] = 0


_ARGS = (
    types.uint8[::1],
    types.int64[:, ::1],
    types.int64[::1],
    types.int64,
    types.int64[::1],
    types.int64,
    types.float64,
    types.float64,
    types.int64,
    types.uint64,
    KERNEL_TYPE,
    types.float64[::1],
    types.int64[::1],
    types.uint64[:, ::1],
    types.uint64[::1],
    types.float64[::1],
    types.int64[:, ::1],
    types.int64[:, :, ::1],
    types.float64[:, ::1],
    types.int64[:, ::1],
    types.float64[::1],
    types.int64[::1],
    types.int64[::1],
)


@njit(types.float64(*_ARGS), cache=True)
def negamax(
    cells,
    queens,
    nq,
    side,
    dirs,
    depth,
    alpha,
    beta,
    ply,
    key,
    kernel,
    params,
    cfg,
    zob,
    tt_key,
    tt_val,
    tt_info,
    moves,
    scores,
    qmoves,
    qscores,
    stats,
    best,
):
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
                v = -negamax(
                    cells,
                    queens,
                    nq,
                    other,
                    dirs,
                    depth - 1,
                    -beta,
                    -alpha,
                    ply + 1,
                    child,
                    kernel,
                    params,
                    cfg,
                    zob,
                    tt_key,
                    tt_val,
                    tt_info,
                    moves,
                    scores,
                    qmoves,
                    qscores,
                    stats,
                    best,
                )
            else:
                v = -negamax(
                    cells,
                    queens,
                    nq,
                    other,
                    dirs,
                    depth - 1,
                    -alpha - EPS,
                    -alpha,
                    ply + 1,
                    child,
                    kernel,
                    params,
                    cfg,
                    zob,
                    tt_key,
                    tt_val,
                    tt_info,
                    moves,
                    scores,
                    qmoves,
                    qscores,
                    stats,
                    best,
                )
                if v > alpha and v < beta and not stats[ABORTED]:
                    v = -negamax(
                        cells,
                        queens,
                        nq,
                        other,
                        dirs,
                        depth - 1,
                        -beta,
                        -alpha,
                        ply + 1,
                        child,
                        kernel,
                        params,
                        cfg,
                        zob,
                        tt_key,
                        tt_val,
                        tt_info,
                        moves,
                        scores,
                        qmoves,
                        qscores,
                        stats,
                        best,
                    )
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
