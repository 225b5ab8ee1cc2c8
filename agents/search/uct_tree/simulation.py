"""A ``uct_tree`` simulation, in numba: ``run`` plays a batch of them from the root and returns.

Each simulation descends by PUCT over the children that progressive widening has opened
(``_select``), expands the first move node it reaches with enough visits (``expansion.expand``),
takes the leaf's value (its score, its evaluation, or a random playout's), and backs the value up
the path, proving nodes won or lost on the way (``_prove``, MCTS-solver). The package docstring
describes the rules and shows a call.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from amazons_env import core

from agents.evaluation.evaluator import KERNEL_TYPE
from agents.search import endgame
from agents.search.clock import now_ns
from agents.search.rays import ray_end
from agents.search.uct_tree.expansion import expand, queen_moves
from agents.search.uct_tree.nodes import (
    ARROW,
    C_PUCT,
    COMPLETE,
    ENDGAME,
    EVALS,
    EXPAND_AT,
    FIRST,
    FREE,
    FROM,
    KIND,
    KIND_ARROW,
    KIND_MOVE,
    MAX_KIDS,
    NKIDS,
    PLAYOUT,
    PRIOR,
    PW_A,
    PW_C,
    RNG,
    ROOT,
    SIMS,
    SOLVED,
    STATIC,
    TO,
    VISITS,
    WSUM,
)

__all__ = ["run"]

CHECK_EVERY = 8  # evaluations (or simulations) between two readings of the clock
MAX_DEPTH = 512  # path length bound: 2 levels per move, at most 140 moves on 12x12


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
def _playout(cells, queens, nq, side, dirs, plies, kernel, params, st, buf):
    """Value for ``side`` (to move) after ``plies`` uniformly random queen moves, each with a
    uniformly random arrow, then the evaluation; the arrays are restored."""
    sign = 1.0
    played = 0
    value = 0.0
    undo = np.empty((plies, 4), dtype=np.int64)
    done = False
    for p in range(plies):
        n = queen_moves(cells, queens, nq, side, dirs, buf)
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
                expand(
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
