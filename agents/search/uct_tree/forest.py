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
(``reuse=false``) and the same seed (``tests/agents/test_batch_opponents.py`` plays both). In the
filling phase (a separated root, with ``cfg.endgame`` on) it plays the agent's filling move
(``endgame.filling_move``: ``count_fill``'s first move of the side to move, at the agent's budget)
without searching, in the same call. The agents' proven-move shortcut (``prove``, a df-pn proof in
small endgames) is not played here: where it finds a win, the agent may play another winning move.

>>> import numpy as np
>>> from amazons_env import Board, Move, core
>>> from agents import make
>>> from agents.search.uct_tree.nodes import NF, NI
>>> agent, board = make("uct:sims=64"), Board(6)
>>> cfg = agent.search_config(6, int(board.queen_counts.max()))
>>> rows = 64 * cfg.max_kids + 1
>>> games = Slice(board.cells[None].copy(), board.queens[None].copy(), board.queen_counts[None].copy(),
...               np.zeros(1, np.int64), np.zeros(1, np.int64), 0, 1, board.dirs)
>>> forest = Forest(np.empty((rows, NI), np.int32), np.empty((rows, NF)), 0, rows)
>>> out = np.zeros((1, 3), np.int64)
>>> search_roots(games, agent.evaluator.kernel, agent.evaluator.params_for(6), cfg, forest, 64, np.array([7]),
...              scratch(6), out)
>>> pub = core.public_index(6)
>>> board.is_legal(Move(*(int(pub[s]) for s in out[0]), 6))
True
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types

from agents.evaluation.evaluator import KERNEL_TYPE
from agents.search.endgame import DEFAULT_BUDGET as FILL_BUDGET
from agents.search.endgame import count_fill
from agents.search.move_order import Position
from agents.search.uct_tree.expansion import BUFFERS_TYPE, scratch
from agents.search.uct_tree.leaves import WIDTH, Recorded
from agents.search.uct_tree.nodes import (
    ARROW,
    COMPLETE,
    CONFIG_TYPE,
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
    Budget,
    Tree,
)
from agents.search.uct_tree.simulation import run

__all__ = ["search_roots", "pick_move", "scratch", "NO_DEADLINE", "SLICE_TYPES", "Slice", "Forest"]

#: ``Deadline.ns`` of a search without a time limit (its stop and its last instant never come)
NO_DEADLINE = np.full(2, 1 << 62, np.int64)


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


class Slice(NamedTuple):
    """The games a batched kernel plays a slice of (``SLICE_TYPES``): their positions (rows of
    ``cells``, ``queens``, ``nq``; ``sides`` to move), the rows ``games[lo:hi]`` to play, ``dirs``."""

    cells: np.ndarray
    queens: np.ndarray
    nq: np.ndarray
    sides: np.ndarray
    games: np.ndarray
    lo: int
    hi: int
    dirs: np.ndarray


class Forest(NamedTuple):
    """The rows ``base .. base + rows`` of ``ni``/``nf`` that one thread's searches use, one tree at a time."""

    ni: np.ndarray
    nf: np.ndarray
    base: int
    rows: int


SLICE_TYPE = types.NamedTuple(SLICE_TYPES, Slice)
FOREST_TYPE = types.NamedTuple((types.int32[:, ::1], types.float64[:, ::1], types.int64, types.int64), Forest)
_SEARCH_ARGS = (SLICE_TYPE, KERNEL_TYPE, types.float64[::1], CONFIG_TYPE, FOREST_TYPE, types.int64, types.int64[::1],
                BUFFERS_TYPE, types.int64[:, ::1])  # fmt: skip


# typed as ``run`` is (cached once for every evaluator); nogil: slices of a batch run on threads
@njit(types.void(*_SEARCH_ARGS), cache=True, nogil=True)
def search_roots(games, kernel, params, cfg, forest, sims, seeds, buffers, out):
    """Search the positions of ``games`` (its slice ``lo:hi``) with ``sims`` simulations each, one
    after the other in ``forest``'s rows of ``ni``/``nf`` (which stay in cache from one search to
    the next), root ``k`` with seed ``seeds[k]``, under the options ``cfg``, and write its move
    (padded squares) into ``out[k]``."""
    ni, nf, base, rows = forest
    st = np.zeros(NST, np.int64)
    tree = Tree(ni, nf, st)
    budget = Budget(sims, np.full(2, 1 << 62, np.int64), 0)  # no deadline, no game clock
    recorded = Recorded(np.zeros((0, WIDTH), np.int64), np.zeros((0, 0), np.uint8), np.zeros(0))  # none
    levels = 2 if cfg.split == 1 else 1
    bounds, first = np.empty((2, 3), np.int64), np.empty((2, 3), np.int64)
    for k in range(games.lo, games.hi):
        g = games.games[k]
        side = games.sides[g]
        position = Position(games.cells[g].copy(), games.queens[g].copy(), games.nq[g].copy(), games.dirs)
        cells, queens, nq, dirs = position
        if cfg.endgame > 0 and count_fill(cells, queens, nq, dirs, FILL_BUDGET, bounds, first):
            out[k, :] = first[side, :]  # the filling phase: the agent's filling move, no search
            continue
        ni[base, :] = -1
        ni[base, VISITS], ni[base, SOLVED], ni[base, NKIDS], ni[base, KIND], ni[base, COMPLETE] = 0, 0, 0, KIND_MOVE, 0
        nf[base, :] = 0.0
        st[:] = 0
        st[ROOT], st[FREE], st[LIMIT], st[RNG] = base, base + 1, base + rows, seeds[k]
        run(position, side, kernel, params, cfg, tree, budget, buffers, recorded)
        pick_move(ni, nf, base, levels, out[k])
