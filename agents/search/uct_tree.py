"""The numba half of ``uct``: a search tree in flat arrays and the simulations that grow it.

No Python runs per simulation: ``run`` plays a batch of simulations and returns, and the agent
(``agents.search.uct``) calls it again until its time or simulation budget is spent.

**Nodes.** Row ``x`` of ``ni`` (``int32[M, NI]``) and ``nf`` (``float64[M, NF]``) is one node: the
action that leads to it (``FROM``, ``TO``, ``ARROW``: padded squares, -1 where unused), its
children (a contiguous block ``FIRST .. FIRST + NKIDS``, ``FIRST = -1`` until expanded), its
``VISITS``, its summed values ``WSUM`` and first-play value ``STATIC``, its ``PRIOR`` and
``SOLVED`` (+1 proven won, -1 proven lost, 0 not proven). Every value stored at a node is for the
side that *chose* the action leading to it (the side to act at its parent), so selection at a
node compares its children directly.

**Two tree shapes.** ``SPLIT = 0``: every edge is a whole move (from, to, arrow), the children of
a position being ``alphabeta.candidates`` (queen moves scored by the territory kernel, the best
``kq`` kept, each of their arrows scored). ``SPLIT = 1``: a move takes two levels, a queen move
(a ``KIND_ARROW`` node: the same side still has to shoot) and then an arrow (a ``KIND_MOVE``
node: the other side to move); queen moves are scored by the position after them, arrows by the
position after the whole move. The value's sign flips only after a whole move.

**Cheap levels** (``FAST``, split tree): a level whose bit is set is ordered by a cheap score
instead (a queen move by the squares its amazon then reaches, an arrow by the enemy amazons it
faces) and each child is evaluated by the kernel when it is first visited (``STATIC`` is NaN
until then), so an expansion costs no evaluation. ``FAST_QUEENS`` alone is the agent's
``prior=mixed``: the queen-move scoring, which is most of the evaluations of a fully scored split
tree (54 of 73 per expanded move at the 8x8 start), is replaced by one evaluation per queen move
actually visited.

**A simulation** descends by PUCT (``Q + c P sqrt(N) / (1 + n)``; an unvisited child's ``Q`` is
its score from the expansion; an unevaluated child is entered at once, best prior first) over
the children that progressive widening has opened (``max(1, pw_c N^pw_a)`` best by prior),
expands the first move node it reaches with at least ``expand_at`` visits (arrow nodes are
expanded when first entered, or with a cheap queen level when entered again), and backs up the
leaf's value: its score from the parent's expansion (or its evaluation now, if it has none), or
with ``playout = p`` the evaluation after ``p`` random moves. Proven results (no move left; the
filling-phase counts of ``agents.search.endgame``) are backed up as solved values (MCTS-solver):
a node with a won child is won, a node whose children are all lost is lost, and selection never enters a lost child.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from amazons_env import core

from agents.evaluation.evaluator import KERNEL_TYPE
from agents.search import endgame
from agents.search.alphabeta_kernel import EVALS as EVALS_AB
from agents.search.alphabeta_kernel import candidates
from agents.search.clock import now_ns
from agents.search.rays import ray_end

__all__ = [
    "NI",
    "NF",
    "FROM",
    "TO",
    "ARROW",
    "FIRST",
    "NKIDS",
    "VISITS",
    "SOLVED",
    "KIND",
    "COMPLETE",
    "WSUM",
    "STATIC",
    "PRIOR",
    "KIND_MOVE",
    "KIND_ARROW",
    "C_PUCT",
    "TAU",
    "PW_C",
    "PW_A",
    "SPLIT",
    "KQ",
    "EXPAND_AT",
    "PLAYOUT",
    "ENDGAME",
    "MAX_KIDS",
    "FAST",
    "FAST_QUEENS",
    "FAST_ARROWS",
    "ROOT",
    "FREE",
    "SIMS",
    "EVALS",
    "RNG",
    "NST",
    "new_root",
    "run",
    "compact",
]

FROM, TO, ARROW, FIRST, NKIDS, VISITS, SOLVED, KIND, COMPLETE = range(9)
NI = 9
WSUM, STATIC, PRIOR = range(3)
NF = 3
KIND_MOVE, KIND_ARROW = 0, 1  # a position with a side to move / a queen moved, its arrow to come
C_PUCT, TAU, PW_C, PW_A = range(4)  # float config
SPLIT, KQ, EXPAND_AT, PLAYOUT, ENDGAME, MAX_KIDS, FAST = range(7)  # int config
FAST_QUEENS, FAST_ARROWS = 1, 2  # bits of ``FAST``: the levels ordered by cheap scores
ROOT, FREE, SIMS, EVALS, RNG = range(5)  # state
NST = 5
CHECK_EVERY = 8  # evaluations (or simulations) between two readings of the clock
MAX_DEPTH = 512  # path length bound: 2 levels per move, at most 140 moves on 12x12


@njit(cache=True)
def new_root(ni, nf, st):
    """Reset the tree to one unexpanded move node (row 0)."""
    ni[0, :] = -1
    ni[0, VISITS] = 0
    ni[0, SOLVED] = 0
    ni[0, NKIDS] = 0
    ni[0, KIND] = KIND_MOVE
    ni[0, COMPLETE] = 0
    nf[0, :] = 0.0
    st[ROOT] = 0
    st[FREE] = 1


@njit(cache=True, inline="always")
def _rand(st, n):
    """A number in ``0 .. n - 1`` from the xorshift64 state ``st[RNG]``."""
    x = st[RNG]
    x ^= x << 13
    x ^= (x >> 7) & 0x01FFFFFFFFFFFFFF
    x ^= x << 17
    st[RNG] = x
    return (x & 0x7FFFFFFFFFFFFFFF) % n


@njit(cache=True)
def _queen_moves(cells, queens, nq, side, dirs, out):
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


@njit(cache=True)
def _playout(cells, queens, nq, side, dirs, plies, kernel, params, st, buf):
    """Value for ``side`` (to move) after ``plies`` uniformly random queen moves, each with a
    uniformly random arrow, then the evaluation; the arrays are restored."""
    sign = 1.0
    played = 0
    value = 0.0
    undo = np.empty((plies, 4), dtype=np.int64)
    done = False
    for p in range(plies):
        n = _queen_moves(cells, queens, nq, side, dirs, buf)
        if n == 0:
            value = -1.0
            done = True
            break
        j = _rand(st, n)
        i, to = buf[j, 0], buf[j, 1]
        frm = queens[side, i]
        cells[frm] = core.EMPTY
        n = 0
        for d in range(8):
            for a in range(to + dirs[d], ray_end(cells, to, dirs[d]), dirs[d]):
                buf[n, 0] = a
                n += 1
        arrow = buf[_rand(st, n), 0]  # frm itself is always there: n >= 1
        core.make_move(cells, queens, side, i, to, arrow)
        undo[p, 0], undo[p, 1], undo[p, 2], undo[p, 3] = i, frm, to, arrow
        played += 1
        side = 1 - side
        sign = -sign
    if not done:
        st[EVALS] += 1
        value = kernel(cells, queens, nq, side, dirs, params)
    for p in range(played - 1, -1, -1):
        side = 1 - side
        core.unmake_move(cells, queens, side, undo[p, 0], undo[p, 1], undo[p, 2], undo[p, 3])
    return sign * value


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
def _expand(
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
        n = _queen_moves(cells, queens, nq, side, dirs, moves)
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
    ni[x, FIRST] = first
    ni[x, NKIDS] = n
    ni[x, COMPLETE] = 1 if complete else 0
    st[FREE] = first + n


@njit(cache=True)
def _select(x, ni, nf, fcfg):
    """The child of ``x`` to descend into (a won child at once, never a lost one), or -1 if every
    child is lost."""
    first, n = ni[x, FIRST], ni[x, NKIDS]
    parent_n = ni[x, VISITS] + 1
    opened = n
    if fcfg[PW_C] > 0.0:
        opened = max(1, int(fcfg[PW_C] * parent_n ** fcfg[PW_A]))
    explore = fcfg[C_PUCT] * np.sqrt(parent_n)
    best = -1
    best_score = -1e300
    seen = 0
    for c in range(first, first + n):
        solved = ni[c, SOLVED]
        if solved == 1:
            return c
        if solved == -1:
            continue
        visits = ni[c, VISITS]
        if visits == 0 and np.isnan(nf[c, STATIC]):
            return c  # not evaluated yet: the first open one in prior order goes first
        q = nf[c, WSUM] / visits if visits > 0 else nf[c, STATIC]
        score = q + explore * nf[c, PRIOR] / (1 + visits)
        if score > best_score:
            best_score = score
            best = c
        seen += 1
        if seen >= opened:
            break
    return best


@njit(cache=True)
def _prove(x, ni):
    """The solved value of ``x`` for the side acting at ``x`` from its children: 1 if one is won,
    -1 if all are lost, else 0."""
    first, n = ni[x, FIRST], ni[x, NKIDS]
    lost = 0
    for c in range(first, first + n):
        if ni[c, SOLVED] == 1:
            return 1
        if ni[c, SOLVED] == -1:
            lost += 1
    return -1 if lost == n and n > 0 else 0


_RUN_ARGS = (
    types.uint8[::1],
    types.int64[:, ::1],
    types.int64[::1],
    types.int64,
    types.int64[::1],
    KERNEL_TYPE,
    types.float64[::1],
    types.float64[::1],
    types.int64[::1],
    types.int32[:, ::1],
    types.float64[:, ::1],
    types.int64[::1],
    types.int64,
    types.int64,
    types.int64,
    types.int64[:, ::1],
    types.float64[::1],
    types.int64[:, ::1],
    types.float64[::1],
    types.int64[::1],
)


@njit(types.int64(*_RUN_ARGS), cache=True)
def run(
    cells,
    queens,
    nq,
    side0,
    dirs,
    kernel,
    params,
    fcfg,
    icfg,
    ni,
    nf,
    st,
    sims,
    stop_ns,
    grow_at,
    moves,
    scores,
    qmoves,
    qscores,
    stats,
):
    """Play up to ``sims`` simulations from the root ``st[ROOT]`` (``side0`` to move in ``cells``;
    the arrays are restored on return); returns how many were played. It returns early when the
    root is solved, when ``clock.now_ns()`` reaches ``stop_ns`` (read every few evaluations) or
    when the tree has ``grow_at`` rows in use (the caller may grow it). A node that would need
    more rows than the tree has left stays a leaf. ``stats``: ``alphabeta.candidates``' counters
    (its evaluator calls are added to ``st[EVALS]``)."""
    path = np.empty(MAX_DEPTH, dtype=np.int64)
    sides = np.empty(MAX_DEPTH, dtype=np.int64)
    qidx = np.empty(MAX_DEPTH, dtype=np.int64)
    capacity = ni.shape[0]
    done = 0
    root = st[ROOT]
    checked = -CHECK_EVERY
    while done < sims and ni[root, SOLVED] == 0 and st[FREE] < grow_at:
        if done > 0 and (st[EVALS] - checked >= CHECK_EVERY or done % CHECK_EVERY == 0):  # one at least
            checked = st[EVALS]
            if now_ns() >= stop_ns:
                break
        x = root
        side = side0
        depth = 0
        path[0] = x
        sides[0] = side
        leaf = True  # the walk stopped at an unexpanded, unsolved node: its value below
        while True:
            if ni[x, SOLVED] != 0 and depth > 0:
                leaf = False  # the backup reads the solved value
                break
            if ni[x, FIRST] < 0:
                if depth > 0 and ni[x, VISITS] == 0 and np.isnan(nf[x, STATIC]):
                    break  # a leaf never evaluated (fast priors): evaluated below
                if ni[x, KIND] == KIND_MOVE:
                    if depth > 0 and ni[x, VISITS] < icfg[EXPAND_AT]:
                        break
                    if not core.has_move(cells, queens, nq, side, dirs):
                        ni[x, SOLVED] = 1  # the side to move here has lost: a win for the chooser
                    elif icfg[ENDGAME] > 0:
                        outcome, _ = endgame.fill_value(cells, queens, nq, side, dirs, icfg[ENDGAME])
                        ni[x, SOLVED] = -outcome
                    if ni[x, SOLVED] != 0:
                        leaf = False
                        break
                if st[FREE] + icfg[MAX_KIDS] > capacity:
                    break  # no room: stays a leaf
                _expand(
                    x,
                    cells,
                    queens,
                    nq,
                    side,
                    dirs,
                    kernel,
                    params,
                    fcfg,
                    icfg,
                    ni,
                    nf,
                    st,
                    moves,
                    scores,
                    qmoves,
                    qscores,
                    stats,
                )
            c = _select(x, ni, nf, fcfg)
            if c < 0:  # every child lost for the side acting at x
                leaf = False
                break
            if ni[c, KIND] == KIND_ARROW:  # the queen move of a split tree
                i = core.find_queen(queens, nq, side, ni[c, FROM])
                cells[ni[c, FROM]] = core.EMPTY
                cells[ni[c, TO]] = side + 1
                queens[side, i] = ni[c, TO]
                qidx[depth + 1] = i
            elif ni[c, FROM] < 0:  # its arrow
                cells[ni[c, ARROW]] = core.ARROW
                side = 1 - side
            else:  # a whole move
                i = core.find_queen(queens, nq, side, ni[c, FROM])
                core.make_move(cells, queens, side, i, ni[c, TO], ni[c, ARROW])
                qidx[depth + 1] = i
                side = 1 - side
            depth += 1
            path[depth] = c
            sides[depth] = side
            x = c
        value = 0.0  # for the side that chose the last node of the path
        if leaf and depth > 0:
            if icfg[PLAYOUT] > 0 and ni[x, KIND] == KIND_MOVE:
                value = -_playout(cells, queens, nq, side, dirs, icfg[PLAYOUT], kernel, params, st, moves)
            else:
                if np.isnan(nf[x, STATIC]):  # for the chooser; a queen move: the opponent "to move"
                    nf[x, STATIC] = -kernel(cells, queens, nq, 1 - sides[depth - 1], dirs, params)
                    st[EVALS] += 1
                value = nf[x, STATIC]
        elif not leaf and depth > 0 and ni[x, SOLVED] == 0:
            value = -1.0 if sides[depth] == sides[depth - 1] else 1.0  # all children lost, not proven
        for k in range(depth, 0, -1):  # back up and undo, leaf first
            c = path[k]
            chooser = sides[k - 1]
            if ni[c, SOLVED] == 0 and ni[c, FIRST] >= 0 and ni[c, COMPLETE]:
                proven = _prove(c, ni)  # for the side acting at c
                ni[c, SOLVED] = proven if sides[k] == chooser else -proven
            if ni[c, SOLVED] != 0:
                value = float(ni[c, SOLVED])
            ni[c, VISITS] += 1
            nf[c, WSUM] += value
            if k >= 2 and sides[k - 2] != chooser:
                value = -value  # the parent's chooser is the other side
            if ni[c, KIND] == KIND_ARROW:
                cells[ni[c, TO]] = core.EMPTY
                cells[ni[c, FROM]] = chooser + 1
                queens[chooser, qidx[k]] = ni[c, FROM]
            elif ni[c, FROM] < 0:
                cells[ni[c, ARROW]] = core.EMPTY
            else:
                core.unmake_move(cells, queens, chooser, qidx[k], ni[c, FROM], ni[c, TO], ni[c, ARROW])
        if ni[root, FIRST] >= 0 and ni[root, SOLVED] == 0 and ni[root, COMPLETE]:
            ni[root, SOLVED] = _prove(root, ni)  # the root's value is for its side to move
        ni[root, VISITS] += 1
        done += 1
    st[SIMS] += done
    return done


@njit(
    types.int64(types.int32[:, ::1], types.float64[:, ::1], types.int64, types.int32[:, ::1], types.float64[:, ::1]),
    cache=True,
)
def compact(ni, nf, root, out_i, out_f):
    """Copy the subtree of ``root`` into ``out_i``/``out_f`` (root at row 0, children blocks kept
    contiguous); returns its node count, or -1 if it does not fit."""
    capacity = out_i.shape[0]
    out_i[0, :] = ni[root, :]
    out_f[0, :] = nf[root, :]
    free = 1
    head = 0
    while head < free:
        first, n = out_i[head, FIRST], out_i[head, NKIDS]
        if first >= 0:
            if free + n > capacity:
                return -1
            out_i[free : free + n, :] = ni[first : first + n, :]
            out_f[free : free + n, :] = nf[first : first + n, :]
            out_i[head, FIRST] = free
            free += n
        head += 1
    return free
