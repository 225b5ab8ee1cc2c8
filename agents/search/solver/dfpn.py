"""Depth-first proof-number search (df-pn, Nagai 2002) in numba, with the 1+epsilon trick.

Every node carries two numbers for its side to move, in negamax form: ``phi``, an estimate of
the work left to prove it won, and ``delta``, to prove it lost (``phi = 0``: won, ``delta = 0``:
lost; ``INF`` the other of a proven pair). A node's ``phi`` is the least ``delta`` of its
children (one child lost for the opponent wins it) and its ``delta`` the sum of its children's
``phi`` (every child must be won for the opponent). ``mid`` searches the child with the least
``delta`` until the node's numbers pass the thresholds its parent gave it, so the search stays
in the subtree that looks cheapest to settle, depth-first, with its numbers kept in a
transposition table (``Table``: two-way buckets keyed by ``agents.search.zobrist``'s keys, the
entry with less work below it replaced).

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

The 1+epsilon trick (Pawlewicz and Lew 2007) lets the chosen child run until its ``delta``
passes the second best's by a quarter, not by one, so the search switches between siblings less.
Amazons has no cycles (every move burns a square), so the table's answers are exact.
A node budget (``stats[LIMIT]``) stops the search with every node's numbers stored, so a later
call continues where this one stopped (``prover`` drives it in slices and saves the table).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, typeof, types

from amazons_env import core

from agents.search.solver.bounds import side_bounds
from agents.search.zobrist import zobrist_table

__all__ = ["ProofPosition", "Table", "Scratch", "mid", "new_table", "new_scratch", "INF", "NODES", "LIMIT", "NO_LIMIT"]

INF = (1 << 32) - 1  # a proven side's number; unproven sums stop just below it
NODES, LIMIT = range(2)  # slots of ``Scratch.stats``
NO_LIMIT = 1 << 62
FILL_BUDGET = 2_000  # fill-search nodes per region in a node's bounds
DELTA_DIVISOR = 2  # a new child's delta: 1 + the opponent's queen moves there // this


# not named Position: numba takes two named tuples of one name and the same fields for one type, and
# ``agents.search.move_order.Position`` (which the solver cannot import: it sits above the evaluators)
# has these fields
class ProofPosition(NamedTuple):
    """The rules core's arrays of the position searched, changed and restored by the search."""

    cells: np.ndarray
    queens: np.ndarray
    nq: np.ndarray
    dirs: np.ndarray


class Table(NamedTuple):
    """The transposition table: the keys of squares and pieces that index it (``zobrist[4, W*W]``,
    ``zobrist.zobrist_table``), and per entry the position's key, its ``phi`` and ``delta`` and the
    nodes searched below it (``work``, saturating), in two-way buckets."""

    zobrist: np.ndarray
    keys: np.ndarray
    phi: np.ndarray
    delta: np.ndarray
    work: np.ndarray


class Scratch(NamedTuple):
    """The search's counters ``stats`` (``NODES``, ``LIMIT``) and per-ply rows: the moves of the
    node at that ply, its children's numbers and keys."""

    stats: np.ndarray
    moves: np.ndarray
    phi: np.ndarray
    delta: np.ndarray
    keys: np.ndarray


def new_table(bits: int, size: int) -> Table:
    """An empty table of ``2**bits`` entries (20 bytes each) for a ``size`` x ``size`` board."""
    n = 1 << bits
    return Table(
        zobrist_table(size + 2), np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=np.uint32),
        np.zeros(n, dtype=np.uint32), np.zeros(n, dtype=np.uint32),
    )  # fmt: skip


def new_scratch(plies: int, rows: int) -> Scratch:
    """Scratch for a search at most ``plies`` deep with at most ``rows`` moves a node (the
    children's ``delta`` start at ``INF``: a row no node wrote names no lost child)."""
    return Scratch(
        np.array([0, NO_LIMIT], dtype=np.int64), np.zeros((plies, rows, 3), dtype=np.int64),
        np.zeros((plies, rows), dtype=np.int64), np.full((plies, rows), INF, dtype=np.int64),
        np.zeros((plies, rows), dtype=np.uint64),
    )  # fmt: skip


_INTS = np.zeros(2, np.int64)
POSITION_TYPE = typeof(ProofPosition(np.zeros(1, np.uint8), np.zeros((2, 1), np.int64), _INTS, _INTS))
TABLE_TYPE = typeof(new_table(1, 4))
SCRATCH_TYPE = typeof(new_scratch(1, 1))


@njit(cache=True)
def probe(table, h):
    """``(found, phi, delta)`` of the entry for key ``h``."""
    i = np.int64(h & np.uint64(table.keys.shape[0] - 1)) & ~np.int64(1)
    for s in range(i, i + 2):
        if table.keys[s] == h:
            return True, np.int64(table.phi[s]), np.int64(table.delta[s])
    return False, np.int64(0), np.int64(0)


@njit(cache=True)
def store(table, h, phi, delta, work):
    """Keep ``(phi, delta)`` for key ``h``: in its own slot, else over the bucket's lighter entry."""
    i = np.int64(h & np.uint64(table.keys.shape[0] - 1)) & ~np.int64(1)
    if table.keys[i] == h:
        s = i
    elif table.keys[i + 1] == h:
        s = i + 1
    elif table.work[i] <= table.work[i + 1]:
        s = i
    else:
        s = i + 1
    table.keys[s] = h
    table.phi[s] = phi
    table.delta[s] = delta
    table.work[s] = min(work, INF)


@njit(cache=True)
def _new_child(pos, side, h, table):
    """``(phi, delta)`` of a child not yet searched, ``side`` to move there (module docstring)."""
    found, phi, delta = probe(table, h)
    if found:
        return phi, delta
    if not core.has_move(pos.cells, pos.queens, pos.nq, side, pos.dirs):
        store(table, h, INF, 0, 0)
        return INF, np.int64(0)
    return np.int64(1), 1 + core.count_queen_moves(pos.cells, pos.queens, pos.nq, side, pos.dirs) // DELTA_DIVISOR


@njit(
    types.UniTuple(types.int64, 2)(
        POSITION_TYPE, types.int64, types.uint64, types.int64, types.int64, TABLE_TYPE, SCRATCH_TYPE, types.int64
    ),
    cache=True,
)
def mid(pos, side, h, th_phi, th_delta, table, scratch, ply):
    """Search the node ``pos`` (``side`` to move, key ``h``) until its ``phi >= th_phi`` or its
    ``delta >= th_delta`` (or it is proven, or ``scratch.stats[NODES]`` reaches its ``LIMIT``);
    store and return its ``(phi, delta)``. ``scratch`` rows from ``ply`` on are used."""
    stats = scratch.stats
    stats[NODES] += 1
    start = stats[NODES]
    cells, queens, nq = pos.cells, pos.queens, pos.nq
    outcome = side_bounds(cells, queens, nq, side, pos.dirs, FILL_BUDGET)
    if outcome != 0:
        phi, delta = (np.int64(0), INF) if outcome > 0 else (INF, np.int64(0))
        store(table, h, phi, delta, 1)
        return phi, delta
    rows = scratch.moves[ply]
    n = core.generate_moves(cells, queens, nq, side, pos.dirs, rows)
    if n == 0:
        store(table, h, INF, 0, 1)
        return INF, np.int64(0)
    other = 1 - side
    piece = side + 1
    zob = table.zobrist
    cphi, cdelta, ckeys = scratch.phi[ply], scratch.delta[ply], scratch.keys[ply]
    for j in range(n):
        frm, to, arrow = rows[j, 0], rows[j, 1], rows[j, 2]
        index = core.find_queen(queens, nq, side, frm)
        core.make_move(cells, queens, side, index, to, arrow)
        child = h ^ zob[piece, frm] ^ zob[piece, to] ^ zob[core.ARROW, arrow] ^ zob[0, 0]
        p, d = _new_child(pos, other, child, table)
        core.unmake_move(cells, queens, side, index, frm, to, arrow)
        cphi[j], cdelta[j], ckeys[j] = p, d, child
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
