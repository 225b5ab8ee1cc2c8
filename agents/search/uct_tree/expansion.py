"""The children of a ``uct_tree`` node: generated, scored and given their priors.

``expand`` writes the children of a node as one contiguous block of free rows, best first: the
arrows of a queen move (``KIND_ARROW`` node), the queen moves of a position (split tree) or its
whole moves (``move_order.candidates``, move tree). Each child is scored by the evaluation kernel,
or by a cheap score on a level that ``FAST`` orders cheaply (then evaluated when first visited);
its prior is the softmax of the scores over ``tau``, and a child that leaves the other side no
move is a proven win. ``simulation.run`` expands the nodes its simulations reach, and
``agents.search.uct_net`` the ones the net guides; the package docstring shows one expansion.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from amazons_env import core

from agents.evaluation.evaluator import KERNEL_TYPE
from agents.search import endgame
from agents.search.move_order import EVALS as EVALS_AB
from agents.search.move_order import candidates
from agents.search.rays import ray_end
from agents.search.uct_tree.nodes import (
    ARROW,
    COMPLETE,
    ENDGAME,
    EVALS,
    FAST,
    FAST_ARROWS,
    FAST_QUEENS,
    FIRST,
    FREE,
    FROM,
    KIND,
    KIND_ARROW,
    KIND_MOVE,
    KQ,
    MAX_KIDS,
    NKIDS,
    PRIOR,
    SOLVED,
    SPLIT,
    STATIC,
    TAU,
    TO,
    VISITS,
    WSUM,
)

__all__ = ["expand", "expand_nodes", "queen_moves", "TREE_TYPES", "SCRATCH_TYPES"]


@njit(cache=True)
def queen_moves(cells, queens, nq, side, dirs, out):
    """``side``'s queen moves as (queen index, destination) rows of ``out``; returns the count."""
    n = 0
    for i in range(nq[side]):
        frm = queens[side, i]
        for d in range(8):
            for to in range(frm + dirs[d], ray_end(cells, frm, dirs[d]), dirs[d]):
                out[n, 0] = i
                out[n, 1] = to
                n += 1
    return n


@njit(cache=True, inline="always")
def _arrow_score(cells, dirs, a, enemy):
    """A cheap arrow prior in [0, 1]: how many enemy amazons the arrow on ``a`` faces along a
    queen line (one adjacent counts double), over 8."""
    score = 0.0
    for d in range(8):
        t = ray_end(cells, a, dirs[d])
        if cells[t] == enemy:
            score += 2.0 if t == a + dirs[d] else 1.0
    return min(score / 8.0, 1.0)


@njit(cache=True)
def _finish_children(ni, nf, st, first, n, scores, kind, tau, evaluated):
    """Children rows ``first .. first + n`` already hold their actions and scores in ``scores``:
    sort them best first, set priors (softmax of score / tau), solved wins (score above 1), and
    the first-play value: the score if ``evaluated``, else NaN (evaluated when first visited)."""
    order = np.argsort(-scores[:n])
    rows = ni[first : first + n].copy()
    vals = scores[:n].copy()
    total = 0.0
    best = vals[order[0]] if n > 0 else 0.0
    for r in range(n):
        src = order[r]
        x = first + r
        ni[x, FROM], ni[x, TO], ni[x, ARROW] = rows[src, FROM], rows[src, TO], rows[src, ARROW]
        ni[x, FIRST] = -1
        ni[x, NKIDS] = 0
        ni[x, VISITS] = 0
        ni[x, KIND] = kind
        ni[x, COMPLETE] = 0
        v = vals[src]
        ni[x, SOLVED] = 1 if v > 1.0 else 0
        nf[x, STATIC] = min(v, 1.0) if evaluated or v > 1.0 else np.nan
        nf[x, WSUM] = 0.0
        p = np.exp((min(v, 1.0) - min(best, 1.0)) / tau)
        nf[x, PRIOR] = p
        total += p
    for r in range(n):
        nf[first + r, PRIOR] /= total


@njit(cache=True)
def expand(
    x, cells, queens, nq, side, dirs, kernel, params, fcfg, icfg, ni, nf, st, moves, scores, qmoves, qscores, stats
):
    """Generate and score the children of node ``x`` (``side`` to act there)."""
    first = st[FREE]
    other = 1 - side
    tau = fcfg[TAU]
    fast_arrows = icfg[FAST] & FAST_ARROWS
    fast_queens = icfg[FAST] & FAST_QUEENS
    if ni[x, KIND] == KIND_ARROW:  # the queen on TO has moved; score every arrow
        to = ni[x, TO]
        n = 0
        for d in range(8):
            for a in range(to + dirs[d], ray_end(cells, to, dirs[d]), dirs[d]):
                cells[a] = core.ARROW
                if not core.has_move(cells, queens, nq, other, dirs):
                    scores[n] = 2.0
                elif fast_arrows:
                    scores[n] = _arrow_score(cells, dirs, a, other + 1)
                else:
                    scores[n] = -kernel(cells, queens, nq, other, dirs, params)
                    st[EVALS] += 1
                cells[a] = core.EMPTY
                ni[first + n, FROM] = -1
                ni[first + n, TO] = -1
                ni[first + n, ARROW] = a
                n += 1
        _finish_children(ni, nf, st, first, n, scores, KIND_MOVE, tau, fast_arrows == 0)
        complete = True
    elif icfg[SPLIT] == 1:  # score every queen move by the position after it
        piece = side + 1
        n = queen_moves(cells, queens, nq, side, dirs, moves)
        for j in range(n):
            i, to = moves[j, 0], moves[j, 1]
            frm = queens[side, i]
            cells[frm] = core.EMPTY
            cells[to] = piece
            queens[side, i] = to
            if fast_queens:
                scores[j] = core.count_arrows(cells, dirs, to) / (4.0 * (dirs[2] - 3))
            else:
                scores[j] = -kernel(cells, queens, nq, other, dirs, params)
            cells[to] = core.EMPTY
            cells[frm] = piece
            queens[side, i] = frm
            ni[first + j, FROM] = frm
            ni[first + j, TO] = to
            ni[first + j, ARROW] = -1
        if not fast_queens:
            st[EVALS] += n
        keep = n if icfg[KQ] <= 0 else min(n, icfg[KQ])
        _finish_children(ni, nf, st, first, n, scores, KIND_ARROW, tau, fast_queens == 0)
        complete = keep == n
        n = keep
    else:
        before = stats[EVALS_AB]
        complete = icfg[KQ] <= 0 or core.count_queen_moves(cells, queens, nq, side, dirs) <= icfg[KQ]
        n = candidates(cells, queens, nq, side, dirs, kernel, params, icfg[KQ], moves, scores, qmoves, qscores, stats)
        st[EVALS] += stats[EVALS_AB] - before
        for r in range(n):
            ni[first + r, FROM], ni[first + r, TO], ni[first + r, ARROW] = moves[r, 0], moves[r, 1], moves[r, 2]
        _finish_children(ni, nf, st, first, n, scores, KIND_MOVE, tau, True)
    # FIRST last: another thread that sees it sees the whole block (two threads expanding one node
    # write equal blocks, each in its own rows, and either block serves)
    ni[x, NKIDS] = n
    ni[x, COMPLETE] = 1 if complete else 0
    ni[x, FIRST] = first
    st[FREE] = first + n


#: the numba types of the arguments every tree kernel takes: ``kernel, params, fcfg, icfg, ni, nf,
#: st``, and the scratch arrays ``moves, scores, qmoves, qscores, stats`` that ``expand`` writes
TREE_TYPES = (
    KERNEL_TYPE,
    types.float64[::1],
    types.float64[::1],
    types.int64[::1],
    types.int32[:, ::1],
    types.float64[:, ::1],
    types.int64[::1],
)
SCRATCH_TYPES = (types.int64[:, ::1], types.float64[::1], types.int64[:, ::1], types.float64[::1], types.int64[::1])
_EXPAND_ARGS = (
    types.int64[::1],
    types.uint8[:, ::1],
    types.int64[:, :, ::1],
    types.int64[::1],
    types.int64[::1],
    types.int64[::1],
    *TREE_TYPES,
    *SCRATCH_TYPES,
)


@njit(types.int64[::1](*_EXPAND_ARGS), cache=True)
def expand_nodes(
    xs, cells, queens, sides, nq, dirs, kernel, params, fcfg, icfg, ni, nf, st, moves, scores, qmoves, qscores, stats
):
    """Expand each node ``xs[k]`` of a ``uct_tree`` tree (``cells[k]``/``queens[k]``: its position,
    ``sides[k]`` to act there) as ``uct_tree.run`` would on reaching it; returns each one's first
    child row, or -1 where it stays a leaf: proven (no move left, or counted by the filling phase, as
    ``run`` marks it), or no room left in the tree. One call for many nodes: numba's dispatch of the
    kernel argument costs more than a small expansion. For the nodes an evaluator's guidance expands
    from outside ``run`` (``agents.search.uct_net``)."""
    out = np.full(len(xs), -1, np.int64)
    for k in range(len(xs)):
        x, side, c, q = xs[k], sides[k], cells[k], queens[k]
        if ni[x, FIRST] >= 0:
            out[k] = ni[x, FIRST]
            continue
        if ni[x, SOLVED] != 0 or st[FREE] + icfg[MAX_KIDS] > ni.shape[0]:
            continue
        if ni[x, KIND] == KIND_MOVE:
            if not core.has_move(c, q, nq, side, dirs):
                ni[x, SOLVED] = 1
                continue
            if icfg[ENDGAME] > 0:
                outcome, _ = endgame.fill_value(c, q, nq, side, dirs, icfg[ENDGAME])
                if outcome != 0:
                    ni[x, SOLVED] = -outcome
                    continue
        expand(x, c, q, nq, side, dirs, kernel, params, fcfg, icfg, ni, nf, st, moves, scores, qmoves, qscores, stats)
        out[k] = ni[x, FIRST]
    return out
