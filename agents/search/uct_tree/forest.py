"""Many searches in one numba call: a tree per root, each in its own rows of shared arrays.

``search_roots`` runs ``simulation.run`` with a node budget for every position of a batch (the
games of a vector env where the opponent is to move), each from a fresh root with its own random
stream, and reads each one's move as ``choice.pick`` does (``pick_move``, the same order: a proven
win, the most visited child, the better mean, the larger action; at a root solved before any
child was visited, the best child by that order). Root ``k`` of the call owns the
rows ``k * rows .. (k + 1) * rows`` of ``ni``/``nf`` (``st[LIMIT]`` keeps it there: a node that
would need more stays a leaf). It releases the GIL: ``agents.batch_opponents`` runs slices of a
batch on several threads, which write disjoint rows.

A search here is the ``uct`` agent's search of that position with the same options, a fresh tree
(``reuse=false``) and the same seed (``tests/agents/test_batch_opponents.py`` plays both), except
in the filling phase: the agent plays ``endgame.filling_move`` at a separated root, this search
runs its tree (whose endgame counts solve it) like any other.

>>> import numpy as np
>>> from amazons_env import Board, Move, core
>>> from agents import make
>>> from agents.search.uct_tree.nodes import FAST, FAST_QUEENS, MAX_KIDS, NF, NI
>>> agent, board = make("uct:sims=64"), Board(6)
>>> cells, queens, nq = board.cells[None].copy(), board.queens[None].copy(), board.queen_counts[None].copy()
>>> icfg = agent.icfg.copy()
>>> icfg[FAST], icfg[MAX_KIDS] = FAST_QUEENS, 4 * 4 * 5
>>> rows = 64 * 80 + 1
>>> ni, nf = np.empty((rows, NI), np.int32), np.empty((rows, NF))
>>> out = np.zeros((1, 3), np.int64)
>>> search_roots(cells, queens, nq, np.zeros(1, np.int64), np.zeros(1, np.int64), 0, 1, board.dirs,
...              agent.evaluator.kernel, agent.evaluator.params_for(6), agent.fcfg, icfg, ni, nf, 0, rows, 64,
...              np.array([7]), *scratch(6), out)
>>> pub = core.public_index(6)
>>> board.is_legal(Move(*(int(pub[s]) for s in out[0]), 6))
True
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from amazons_env import core

from agents.search.move_order import search_stats
from agents.search.uct_tree.expansion import SCRATCH_TYPES, TREE_TYPES
from agents.search.uct_tree.leaves import buffers as leaf_buffers
from agents.search.uct_tree.nodes import (
    ARROW,
    COMPLETE,
    FIRST,
    FREE,
    FROM,
    KIND,
    KIND_MOVE,
    LIMIT,
    NKIDS,
    NST,
    RNG,
    ROOT,
    SOLVED,
    STATIC,
    TO,
    VISITS,
    WSUM,
)
from agents.search.uct_tree.simulation import run

__all__ = ["search_roots", "pick_move", "scratch", "NO_DEADLINE", "SLICE_TYPES"]

#: ``Deadline.ns`` of a search without a time limit (its stop and its last instant never come)
NO_DEADLINE = np.full(2, 1 << 62, np.int64)


def scratch(size: int) -> tuple[np.ndarray, ...]:
    """One thread's buffers for ``search_roots`` on ``size`` x ``size`` boards: ``run``'s move
    lists and scores, its counters, and empty buffers for recorded positions (none here)."""
    rows = core.max_moves(size, core.MAX_QUEENS)
    moves, scores = np.empty((rows, 3), np.int64), np.empty(rows)
    return (moves, scores, np.empty((rows, 2), np.int64), np.empty(rows), search_stats(), *leaf_buffers(0, size))


@njit(cache=True)
def _better(rank, mean, code, best_rank, best_mean, best_code):
    """Whether ``(rank, mean, code)`` sorts after the best so far (NaN means sort last, as in
    ``numpy.lexsort``)."""
    if rank != best_rank:
        return rank > best_rank
    if mean != best_mean:
        if np.isnan(mean):
            return True
        return not np.isnan(best_mean) and mean > best_mean
    return code >= best_code


@njit(cache=True)
def _best_child(ni, nf, x):
    """The row of the child of ``x`` that ``choice.pick`` takes; -1 if ``x`` has no children."""
    if x < 0 or ni[x, FIRST] < 0 or ni[x, NKIDS] == 0:
        return -1
    best, best_rank, best_mean, best_code = -1, 0.0, 0.0, 0
    for r in range(ni[x, FIRST], ni[x, FIRST] + ni[x, NKIDS]):
        visits = ni[r, VISITS]
        mean = nf[r, WSUM] / visits if visits > 0 else nf[r, STATIC]
        solved = ni[r, SOLVED]
        rank = np.inf if solved == 1 else (-1.0 if solved == -1 else float(visits))
        code = ((ni[r, FROM] + 1) << 20) + ((ni[r, TO] + 1) << 10) + (ni[r, ARROW] + 1)
        if best < 0 or _better(rank, mean, code, best_rank, best_mean, best_code):
            best, best_rank, best_mean, best_code = r, rank, mean, code
    return best


@njit(cache=True)
def pick_move(ni, nf, root, levels, out):
    """Write the padded ``(from, to, arrow)`` that ``choice.pick(tree, root, levels)`` chooses
    into ``out``; returns False where it would return None (no child visited: a root solved at
    its expansion, in the filling phase), having written the best child by the same order (a
    proven win first, then the best static value), or -1s if ``root`` has no children."""
    seen = 0
    if ni[root, FIRST] >= 0:
        for r in range(ni[root, FIRST], ni[root, FIRST] + ni[root, NKIDS]):
            seen += ni[r, VISITS]
    frm, to, arrow = -1, -1, -1
    node = root
    for _ in range(levels):
        child = _best_child(ni, nf, node)
        if child < 0:  # a queen move whose arrows were never expanded: shoot back
            arrow = frm
            break
        frm = ni[child, FROM] if ni[child, FROM] >= 0 else frm
        to = ni[child, TO] if ni[child, TO] >= 0 else to
        arrow = ni[child, ARROW] if ni[child, ARROW] >= 0 else arrow
        node = child
    out[0], out[1], out[2] = frm, to, arrow
    return seen > 0


#: the games a batched kernel plays a slice of: cells, queens, nq, sides (to move), games (rows),
#: lo, hi (the slice of ``games``), dirs
SLICE_TYPES = (
    types.uint8[:, ::1],
    types.int64[:, :, ::1],
    types.int64[:, ::1],
    types.int64[::1],
    types.int64[::1],
    types.int64,
    types.int64,
    types.int64[::1],
)

_SEARCH_ARGS = (
    *SLICE_TYPES,
    *TREE_TYPES[:-1],  # kernel, params, fcfg, icfg, ni, nf (each root's own ``st``)
    types.int64,
    types.int64,
    types.int64,
    types.int64[::1],
    *SCRATCH_TYPES,
    types.int64[:, ::1],
    types.uint8[:, ::1],
    types.float64[::1],
    types.int64[:, ::1],
)


# typed as ``run`` is (cached once for every evaluator); nogil: slices of a batch run on threads
@njit(types.void(*_SEARCH_ARGS), cache=True, nogil=True)
def search_roots(
    cells,
    queens,
    nq,
    sides,
    games,
    lo,
    hi,
    dirs,
    kernel,
    params,
    fcfg,
    icfg,
    ni,
    nf,
    base,
    rows,
    sims,
    seeds,
    moves,
    scores,
    qmoves,
    qscores,
    stats,
    recorded,
    recorded_cells,
    recorded_values,
    out,
):
    """Search the positions of games ``games[lo:hi]`` (rows of ``cells``, ``queens``, ``nq``;
    ``sides[g]`` to move) with ``sims`` simulations each, one after the other in the rows
    ``base .. base + rows`` of ``ni``/``nf`` (which stay in cache from one search to the next),
    root ``k`` with seed ``seeds[k]``, and write its move (padded squares) into ``out[k]``."""
    st = np.zeros(NST, np.int64)
    deadline = np.full(2, 1 << 62, np.int64)
    levels = 2 if icfg[0] == 1 else 1  # SPLIT: two tree levels per move
    for k in range(lo, hi):
        g = games[k]
        ni[base, :] = -1
        ni[base, VISITS], ni[base, SOLVED], ni[base, NKIDS], ni[base, KIND], ni[base, COMPLETE] = 0, 0, 0, KIND_MOVE, 0
        nf[base, :] = 0.0
        st[:] = 0
        st[ROOT], st[FREE], st[LIMIT], st[RNG] = base, base + 1, base + rows, seeds[k]
        position = (cells[g].copy(), queens[g].copy(), nq[g].copy())
        tree = (ni, nf, st, sims, deadline, 0)  # no game clock: ``settle`` off
        buffers = (moves, scores, qmoves, qscores, stats, recorded, recorded_cells, recorded_values)
        run(*position, sides[g], dirs, kernel, params, fcfg, icfg, *tree, *buffers)
        pick_move(ni, nf, base, levels, out[k])
