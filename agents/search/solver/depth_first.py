"""Depth-first win/loss search in numba: the proof search below ``dfpn``'s top plies.

A position is won for the side to move iff some move leads to a position lost for the opponent;
a side with no move has lost. The search answers ``WON`` or ``LOST`` exactly (no depth limit), or
``UNKNOWN`` once the node budget (``Scratch.stats[LIMIT]``) is spent, and stores only exact
answers, in the df-pn table (``table``: won as ``(0, INF)``, lost as ``(INF, 0)``), so ``dfpn``
reads them as proven nodes and a later search continues from what the table holds. What keeps
the tree small: the region bounds on entering a node (``bounds.side_bounds``), enhanced
transposition cutoffs (every child is looked up first; one known lost for the opponent, or where
the opponent has no move, wins at once) and move ordering by mobility (children where the
opponent's amazons reach the fewest squares and ours the most first, so a won node usually needs
one child searched).

Where df-pn makes every child of every node it enters, this search makes them only where the
proof needs them, at several times df-pn's rate a node: below the plies where the choice of a
move is hard, it is the cheaper search (``benchmarks/strength/small_boards.py``).

>>> import numpy as np
>>> from amazons_env import Board, core
>>> from agents.search.solver.table import new_table
>>> from agents.search.solver.scratch import ProofPosition, new_scratch
>>> from agents.search.zobrist import position_key
>>> board = Board.from_text("q3/4/4/Q1*1 w")   # White wins (``prover``)
>>> empties = int(np.count_nonzero(board.cells == core.EMPTY))
>>> table, scratch = new_table(12, 4), new_scratch(empties, core.max_moves(4, 1), board.cells.shape[0])
>>> pos = ProofPosition(board.cells.copy(), board.queens.copy(), board.queen_counts.copy(), board.dirs)
>>> prove(pos, 0, position_key(pos.cells, 0, table.zobrist), table, scratch, 0) == WON
True
"""

from __future__ import annotations

from numba import njit, types

from amazons_env import core

from agents.search.solver.bounds import FILL_BUDGET, reduce_moves, side_bounds
from agents.search.solver.lines import after as lines_after
from agents.search.solver.lines import count as count_on_lines
from agents.search.solver.lines import occupancy as lines_occupancy
from agents.search.solver.scratch import EMPTIES, LIMIT, NODES, POSITION_TYPE, SCRATCH_TYPE
from agents.search.solver.table import INF, TABLE_TYPE, child_keys, probe, store

__all__ = ["prove", "mobility_score", "WON", "LOST", "UNKNOWN", "PLAIN_EMPTIES"]

WON, LOST, UNKNOWN = 1, -1, 0
PLAIN_EMPTIES = 2  # positions with at most this many empty squares: plain minimax, no table or bounds
# the opponent's queen moves against ours in the move order: 8 gave the fewest nodes of 2, 4, 6, 8,
# 16 and the opponent's alone on four 5x5 replies (experiments/solver-5x5/order_weight.txt)
THEIRS_WEIGHT = 8
KNOWN = 1 << 40  # the ordering score of a child known won for the opponent: sorted last, not searched


@njit(cache=True)
def _plain(pos, side, empties, scratch, ply):
    """``WON``/``LOST`` by plain minimax, for the last few empty squares (``empties``): most of
    a proof's nodes are there, and few of them are in the table or decided by the bounds. It
    always finishes (a few hundred nodes at most), so the node budget can stop a search only
    between two of these, and every slice of a search makes progress."""
    cells, queens, nq, dirs = pos.cells, pos.queens, pos.nq, pos.dirs
    scratch.stats[NODES] += 1
    if empties <= 1:  # one square left: any move fills it (the arrow goes back where the amazon stood)
        return WON if core.has_move(cells, queens, nq, side, dirs) else LOST
    rows = scratch.moves[ply]
    n = core.generate_moves(cells, queens, nq, side, dirs, rows)
    other = 1 - side
    for j in range(n):
        frm, to, arrow = rows[j, 0], rows[j, 1], rows[j, 2]
        index = core.find_queen(queens, nq, side, frm)
        core.make_move(cells, queens, side, index, to, arrow)
        value = _plain(pos, other, empties - 1, scratch, ply + 1)
        core.unmake_move(cells, queens, side, index, frm, to, arrow)
        if value == LOST:
            return WON
    return LOST


@njit(cache=True)
def mobility_score(theirs, ours):
    """The order of a side's moves, lowest first, scored on the position after one:
    ``THEIRS_WEIGHT`` times the opponent's queen moves there (``theirs``: none means the opponent
    has no move, a win) less the side's own (``ours``): the opponent shortest of moves first, then
    ours most. A side that has a queen move has a move: the arrow can go back where the amazon stood."""
    return THEIRS_WEIGHT * theirs - ours


@njit(cache=True)
def _store_exact(table, h, won, work):
    """Store ``h`` proven (df-pn's numbers: won ``(0, INF)``, lost ``(INF, 0)``) after ``work`` nodes."""
    store(table, h, 0 if won else INF, INF if won else 0, work)


@njit(cache=True)
def _won(table, scratch, h, ply, n, j, start):
    """Store ``h`` won; at the root, mark its winning child ``j`` in the root's row of ``delta``
    (``prover`` reads the proof move there, as it does after df-pn)."""
    _store_exact(table, h, True, scratch.stats[NODES] - start + 1)
    if ply == 0:
        scratch.delta[0, :n] = INF
        scratch.delta[0, j] = 0
    return WON


@njit(
    types.int64(POSITION_TYPE, types.int64, types.uint64, TABLE_TYPE, SCRATCH_TYPE, types.int64), cache=True, nogil=True
)
def prove(pos, side, h, table, scratch, ply):
    """``WON``/``LOST`` for ``side`` to move in ``pos`` (key ``h``), or ``UNKNOWN`` once
    ``scratch.stats[NODES]`` reaches its ``LIMIT``; ``scratch`` rows from ``ply`` on are used."""
    stats = scratch.stats
    if stats[NODES] >= stats[LIMIT]:
        return UNKNOWN
    found, phi, delta = probe(table, h)
    if found and phi == 0:
        return WON
    if found and delta == 0:
        return LOST
    stats[NODES] += 1
    start = stats[NODES]
    if stats[EMPTIES] - ply <= PLAIN_EMPTIES and ply > 0:
        value = _plain(pos, side, stats[EMPTIES] - ply, scratch, ply)
        _store_exact(table, h, value == WON, stats[NODES] - start + 1)
        return value
    cells, queens, nq, dirs = pos.cells, pos.queens, pos.nq, pos.dirs
    sealed, filling = scratch.sealed[ply], scratch.filling[ply]
    outcome = side_bounds(cells, queens, nq, side, dirs, FILL_BUDGET, sealed, filling, scratch.regions)
    if outcome != 0:
        _store_exact(table, h, outcome > 0, 1)
        return WON if outcome > 0 else LOST
    rows = scratch.moves[ply]
    n = core.generate_moves(cells, queens, nq, side, dirs, rows)
    if n == 0:
        _store_exact(table, h, False, 1)
        return LOST
    n = reduce_moves(rows, n, nq, side, sealed, filling)
    other = 1 - side
    keys, scores = scratch.keys[ply], scratch.scores[ply]
    child_keys(table, h, side, rows, n, keys)
    lines = scratch.lines
    occ = lines_occupancy(cells, lines)
    for j in range(n):
        frm, to, arrow = rows[j, 0], rows[j, 1], rows[j, 2]
        index = core.find_queen(queens, nq, side, frm)
        core.make_move(cells, queens, side, index, to, arrow)
        child = keys[j]
        words = lines_after(occ, lines, frm, to, arrow)
        if lines.size:  # none: no move at all
            theirs = count_on_lines(queens, nq, other, lines, words)
        else:
            theirs = core.count_queen_moves(cells, queens, nq, other, dirs)
        found, phi, delta = probe(table, child)
        if (found and delta == 0) or theirs == 0:
            core.unmake_move(cells, queens, side, index, frm, to, arrow)
            return _won(table, scratch, h, ply, n, j, start)
        if found and phi == 0:  # known won for the opponent: never searched (so a search
            scores[j] = KNOWN  # resumed in slices never spends its slice re-reading answers)
        else:
            if lines.size:
                ours = count_on_lines(queens, nq, side, lines, words)
            else:
                ours = core.count_queen_moves(cells, queens, nq, side, dirs)
            scores[j] = mobility_score(theirs, ours)
        core.unmake_move(cells, queens, side, index, frm, to, arrow)
    for _ in range(n):  # lowest score first, the first of equals first (no sort: most won nodes
        j = 0  # end at their first child)
        for i in range(1, n):
            if scores[i] < scores[j]:
                j = i
        if scores[j] >= KNOWN:
            break
        scores[j] = KNOWN  # taken
        frm, to, arrow = rows[j, 0], rows[j, 1], rows[j, 2]
        index = core.find_queen(queens, nq, side, frm)
        core.make_move(cells, queens, side, index, to, arrow)
        value = prove(pos, other, keys[j], table, scratch, ply + 1)
        core.unmake_move(cells, queens, side, index, frm, to, arrow)
        if value == UNKNOWN:
            return UNKNOWN
        if value == LOST:
            return _won(table, scratch, h, ply, n, j, start)
    _store_exact(table, h, False, stats[NODES] - start + 1)
    return LOST
