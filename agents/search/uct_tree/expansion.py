"""The children of a ``uct_tree`` node: generated, scored and given their priors.

``expand`` writes the children of a node as one contiguous block of free rows, best first: the
arrows of a queen move (``KIND_ARROW`` node), the queen moves of a position (split tree) or its
whole moves (``move_order.candidates``, move tree). Each child is scored by the evaluation kernel,
or by a cheap score on a level that ``SearchConfig.fast`` orders cheaply (then evaluated when first visited);
its prior is the softmax of the scores over ``tau``, and a child that leaves the other side no
move is a proven win; a move tree keeps the ``SearchConfig.keep`` best whole moves (0: all).
``simulation.run`` expands the nodes its simulations reach, and
``agents.search.net_guide`` the ones the net guides; the package docstring shows one expansion.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types

from amazons_env import core

from agents.evaluation.evaluator import KERNEL_TYPE
from agents.search import endgame
from agents.search.move_order import (
    MOVE_LISTS_TYPE,
    STATS_TYPE,
    MoveLists,
    Position,
    SearchStats,
    candidates,
    move_lists,
    queen_move_value,
    search_stats,
)
from agents.search.rays import ray_end
from agents.search.uct_tree.nodes import (
    COMPLETE,
    CONFIG_TYPE,
    EVALS,
    FAST_ARROWS,
    FAST_QUEENS,
    FIRST,
    FREE,
    KIND,
    KIND_ARROW,
    KIND_MOVE,
    NKIDS,
    SOLVED,
    TO,
    TREE_TYPE,
    write_children,
)

__all__ = ["expand", "expand_nodes", "queen_moves", "Buffers", "Positions", "BUFFERS_TYPE", "scratch"]


class Buffers(NamedTuple):
    """One thread's scratch for ``expand``: ``lists`` (a position's children and queen moves, with
    their scores: ``move_order.candidates``'), ``stats`` (its counters)."""

    lists: MoveLists
    stats: SearchStats


class Positions(NamedTuple):
    """Positions of one game, one per row: padded ``cells``, ``queens``, the ``sides`` to act."""

    cells: np.ndarray
    queens: np.ndarray
    sides: np.ndarray


BUFFERS_TYPE = types.NamedTuple((MOVE_LISTS_TYPE, STATS_TYPE), Buffers)
POSITIONS_TYPE = types.NamedTuple((types.uint8[:, ::1], types.int64[:, :, ::1], types.int64[::1]), Positions)


def scratch(size: int) -> Buffers:
    """``Buffers`` for ``size`` x ``size`` boards.

    >>> scratch(6).lists.moves.shape
    (4800, 3)
    """
    return Buffers(move_lists(size), search_stats())


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
def expand(x, position, side, kernel, params, cfg, tree, buffers):
    """Generate and score the children of node ``x`` of ``tree`` (``position``: its position,
    ``side`` to act there), with the evaluation ``kernel(..., params)`` and the options ``cfg``."""
    cells, queens, nq, dirs = position
    ni, nf, st = tree
    moves, scores = buffers.lists.moves, buffers.lists.scores
    first = st[FREE]
    other = 1 - side
    tau = cfg.tau
    fast_arrows = cfg.fast & FAST_ARROWS
    fast_queens = cfg.fast & FAST_QUEENS
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
                moves[n, 0], moves[n, 1], moves[n, 2] = -1, -1, a
                n += 1
        write_children(ni, nf, first, n, moves, scores, KIND_MOVE, tau, fast_arrows == 0)
        complete = True
    elif cfg.split == 1:  # score every queen move by the position after it
        piece = side + 1
        n = queen_moves(cells, queens, nq, side, dirs, moves)
        for j in range(n):
            i, to = moves[j, 0], moves[j, 1]
            frm = queens[side, i]
            if fast_queens:  # the moved queen's reach: the square it left is empty
                cells[frm] = core.EMPTY
                scores[j] = core.count_arrows(cells, dirs, to) / (4.0 * (dirs[2] - 3))
                cells[frm] = piece
            else:
                scores[j] = queen_move_value(cells, queens, nq, side, i, to, dirs, kernel, params)
            moves[j, 0], moves[j, 2] = frm, -1  # (queen, to) becomes (from, to, no arrow)
        if not fast_queens:
            st[EVALS] += n
        keep = n if cfg.kq <= 0 else min(n, cfg.kq)
        write_children(ni, nf, first, n, moves, scores, KIND_ARROW, tau, fast_queens == 0)
        complete = keep == n
        n = keep
    else:
        before = buffers.stats.evals[0]
        complete = cfg.kq <= 0 or core.count_queen_moves(cells, queens, nq, side, dirs) <= cfg.kq
        n = candidates(cells, queens, nq, side, dirs, kernel, params, cfg.kq, buffers.lists, buffers.stats)
        st[EVALS] += buffers.stats.evals[0] - before
        if 0 < cfg.keep < n:  # the best ``keep`` (``candidates`` sorts best first), the others never searched
            n = cfg.keep
            complete = False
        write_children(ni, nf, first, n, moves, scores, KIND_MOVE, tau, True)
    # FIRST last: another thread that sees it sees the whole block (two threads expanding one node
    # write equal blocks, each in its own rows, and either block serves)
    ni[x, NKIDS] = n
    ni[x, COMPLETE] = 1 if complete else 0
    ni[x, FIRST] = first
    st[FREE] = first + n


_EXPAND_ARGS = (types.int64[::1], POSITIONS_TYPE, types.int64[::1], types.int64[::1], KERNEL_TYPE,
                types.float64[::1], CONFIG_TYPE, TREE_TYPE, BUFFERS_TYPE)  # fmt: skip


@njit(types.int64[::1](*_EXPAND_ARGS), cache=True)
def expand_nodes(xs, positions, nq, dirs, kernel, params, cfg, tree, buffers):
    """Expand each node ``xs[k]`` of ``tree`` (``positions`` row ``k``: its position and side to act)
    as ``uct_tree.run`` would on reaching it; returns each one's first child row, or -1 where it
    stays a leaf: proven (no move left, or counted by the filling phase, as ``run`` marks it), or no
    room left in the tree. One call for many nodes: numba's dispatch of the kernel argument costs
    more than a small expansion. For the nodes an evaluator's guidance expands from outside ``run``
    (``agents.search.net_guide``)."""
    ni, st = tree.ni, tree.st
    out = np.full(len(xs), -1, np.int64)
    for k in range(len(xs)):
        x, side, c, q = xs[k], positions.sides[k], positions.cells[k], positions.queens[k]
        if ni[x, FIRST] >= 0:
            out[k] = ni[x, FIRST]
            continue
        if ni[x, SOLVED] != 0 or st[FREE] + cfg.max_kids > ni.shape[0]:
            continue
        if ni[x, KIND] == KIND_MOVE:
            if not core.has_move(c, q, nq, side, dirs):
                ni[x, SOLVED] = 1
                continue
            if cfg.endgame > 0:
                outcome, _ = endgame.fill_value(c, q, nq, side, dirs, cfg.endgame)
                if outcome != 0:
                    ni[x, SOLVED] = -outcome
                    continue
        expand(x, Position(c, q, nq, dirs), side, kernel, params, cfg, tree, buffers)
        out[k] = ni[x, FIRST]
    return out
