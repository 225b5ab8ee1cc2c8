"""Depth-first proof-number search (df-pn, Nagai 2002) in numba, with the 1+epsilon trick.

Every node carries two numbers for its side to move, in negamax form: ``phi``, an estimate of
the work left to prove it won, and ``delta``, to prove it lost (``phi = 0``: won, ``delta = 0``:
lost; ``INF`` the other of a proven pair). A node's ``phi`` is the least ``delta`` of its
children (one child lost for the opponent wins it) and its ``delta`` the sum of its children's
``phi`` (every child must be won for the opponent). ``mid`` searches the child with the least
``delta`` until the node's numbers pass the thresholds its parent gave it, so the search stays
in the subtree that looks cheapest to settle, depth-first, with its numbers kept in a
transposition table (``table.Table``: two-way buckets keyed by ``agents.search.zobrist``'s keys,
the entry with less work below it replaced).

Terminal answers: a side with no move has lost, and on entering a node the region bounds
(``bounds.side_bounds``: the moves each side can still make in the regions it has to itself,
against the room the other can ever reach) decide many positions exactly, the filling phase
among them: the Amazons region decomposition that pays on these boards. A child not yet
searched is looked up in the table (a child known lost for the opponent wins at once, before any
search), or a side with no move there has lost, or it starts with ``phi = 1`` and ``delta``
growing with the opponent's queen moves there (``DELTA_DIVISOR``): the child where the opponent
is shortest of moves is searched first, and is the cheapest to refute (move-count
initialisation, as in df-pn+). Mobility is the evaluation here: the searches' evaluators
(``agents.evaluation``) stay out of the search base, which every agent imports and which calls
this search (``shortcut``). The bounds are taken on entry, not for every child made, because a
node makes a hundred children and enters few (``benchmarks/strength/small_boards.py``: this way 5x4 is
proved, the other way it was not within the same time).

Below the top plies df-pn hands a node over: a position with at most ``stats[DEPTH_FIRST]`` empty
squares (``prover.DEPTH_FIRST_EMPTIES``) is proved by the ``depth_first`` search, which makes a
node's children only where the proof needs them and runs several times faster a node; df-pn
keeps the plies where the choice of a move is hard (``benchmarks/strength/small_boards.py``).
Both leave out the moves of sealed regions but one (``bounds.reduce_moves``).

The 1+epsilon trick (Pawlewicz and Lew 2007) lets the chosen child run until its ``delta``
passes the second best's by a quarter, not by one, so the search switches between siblings less.
Amazons has no cycles (every move burns a square), so the table's answers are exact.
A node budget (``stats[LIMIT]``) stops the search with every node's numbers stored, so a later
call continues where this one stopped (``prover`` drives it in slices and saves the table).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from amazons_env import core

from agents.search.solver import depth_first
from agents.search.solver.bounds import FILL_BUDGET, reduce_moves, side_bounds
from agents.search.solver.lines import after as lines_after
from agents.search.solver.lines import count as lines_count
from agents.search.solver.lines import occupancy as lines_occupancy
from agents.search.solver.scratch import DEPTH_FIRST, EMPTIES, LIMIT, NODES, POSITION_TYPE, SCRATCH_TYPE
from agents.search.solver.table import INF, TABLE_TYPE, child_keys, probe, store

__all__ = ["mid", "DELTA_DIVISOR"]

DELTA_DIVISOR = 2  # a new child's delta: 1 + the opponent's queen moves there // this


@njit(cache=True)
def _new_child(pos, side, h, table, lines, words):
    """``(phi, delta)`` of a child not yet searched, ``side`` to move there (module docstring);
    ``words``: its line words (``lines``)."""
    found, phi, delta = probe(table, h)
    if found:
        return phi, delta
    if lines.size:
        theirs = lines_count(pos.queens, pos.nq, side, lines, words)
    else:
        theirs = core.count_queen_moves(pos.cells, pos.queens, pos.nq, side, pos.dirs)
    if theirs == 0:  # no queen move is no move at all
        store(table, h, INF, 0, 0)
        return INF, np.int64(0)
    return np.int64(1), 1 + theirs // DELTA_DIVISOR


@njit(
    types.UniTuple(types.int64, 2)(
        POSITION_TYPE, types.int64, types.uint64, types.int64, types.int64, TABLE_TYPE, SCRATCH_TYPE, types.int64
    ),
    cache=True,
    nogil=True,  # threads prove positions side by side in one table (``prover``, ``table``)
)
def mid(pos, side, h, th_phi, th_delta, table, scratch, ply):
    """Search the node ``pos`` (``side`` to move, key ``h``) until its ``phi >= th_phi`` or its
    ``delta >= th_delta`` (or it is proven, or ``scratch.stats[NODES]`` reaches its ``LIMIT``);
    store and return its ``(phi, delta)``. A node with at most ``scratch.stats[DEPTH_FIRST]``
    empty squares is proved by the ``depth_first`` search instead. ``scratch`` rows from ``ply`` on are used."""
    stats = scratch.stats
    if stats[EMPTIES] - ply <= stats[DEPTH_FIRST]:
        value = depth_first.prove(pos, side, h, table, scratch, ply)
        if value != depth_first.UNKNOWN:
            return (np.int64(0), INF) if value == depth_first.WON else (INF, np.int64(0))
        found, phi, delta = probe(table, h)  # stopped by the node budget: the numbers it had
        return (phi, delta) if found else (np.int64(1), np.int64(1))
    stats[NODES] += 1
    start = stats[NODES]
    cells, queens, nq = pos.cells, pos.queens, pos.nq
    sealed, filling = scratch.sealed[ply], scratch.filling[ply]
    outcome = side_bounds(cells, queens, nq, side, pos.dirs, FILL_BUDGET, sealed, filling, scratch.regions)
    if outcome != 0:
        phi, delta = (np.int64(0), INF) if outcome > 0 else (INF, np.int64(0))
        store(table, h, phi, delta, 1)
        return phi, delta
    rows = scratch.moves[ply]
    n = core.generate_moves(cells, queens, nq, side, pos.dirs, rows)
    if n == 0:
        store(table, h, INF, 0, 1)
        return INF, np.int64(0)
    n = reduce_moves(rows, n, nq, side, sealed, filling)
    other = 1 - side
    cphi, cdelta, ckeys = scratch.phi[ply], scratch.delta[ply], scratch.keys[ply]
    child_keys(table, h, side, rows, n, ckeys)
    lines = scratch.lines
    occ = lines_occupancy(cells, lines)
    for j in range(n):
        frm, to, arrow = rows[j, 0], rows[j, 1], rows[j, 2]
        index = core.find_queen(queens, nq, side, frm)
        core.make_move(cells, queens, side, index, to, arrow)
        p, d = _new_child(pos, other, ckeys[j], table, lines, lines_after(occ, lines, frm, to, arrow))
        core.unmake_move(cells, queens, side, index, frm, to, arrow)
        cphi[j], cdelta[j] = p, d
        if d == 0:  # a child lost for the opponent: won without searching the rest
            store(table, h, 0, INF, stats[NODES] - start + 1)
            return np.int64(0), INF
    while True:
        phi, delta = INF, np.int64(0)
        best, second = -1, INF
        for j in range(n):
            d = cdelta[j]
            if d < phi:
                second = phi
                phi = d
                best = j
            elif d < second:
                second = d
            delta = min(delta + cphi[j], INF - 1)
        if phi == 0 or phi == INF:  # won, or every child won for the opponent: lost
            delta = INF if phi == 0 else np.int64(0)
            break
        if phi >= th_phi or delta >= th_delta or stats[NODES] >= stats[LIMIT]:
            break
        child_th_phi = min(th_delta - (delta - cphi[best]), INF)
        child_th_delta = min(th_phi, second + 1 + second // 4)  # 1 + epsilon, epsilon = 1/4
        frm, to, arrow = rows[best, 0], rows[best, 1], rows[best, 2]
        index = core.find_queen(queens, nq, side, frm)
        core.make_move(cells, queens, side, index, to, arrow)
        p, d = mid(pos, other, ckeys[best], child_th_phi, child_th_delta, table, scratch, ply + 1)
        core.unmake_move(cells, queens, side, index, frm, to, arrow)
        cphi[best], cdelta[best] = p, d
    store(table, h, phi, delta, stats[NODES] - start + 1)
    return phi, delta
