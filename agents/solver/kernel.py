"""The proof search, in numba: a depth-first win/loss search with a transposition table.

A position is won for the side to move iff some move leads to a position lost for the opponent;
a side with no move has lost. Every node's answer is exact (no depth limit, no bounds), so the
table stores plain won/lost answers keyed by a Zobrist hash of the position (the cells and the
side to move: amazons of one colour are interchangeable, so the hash is canonical) and is never
wrong except by a 64-bit collision. What keeps the tree small:

* region bounds (``bounds.side_bounds``, built on ``agents.search.endgame``'s filling search):
  the moves a side can still make in the regions it has to itself against the room the
  opponent can ever reach decide many positions without search, the filling phase among them;
  this is the Amazons region decomposition that pays on small boards;
* enhanced transposition cutoffs: before searching any child, every child is looked up, and one
  already known lost for the opponent (or with no move at all) wins at once;
* move ordering by mobility: children where the opponent's amazons reach the fewest squares and
  ours the most are searched first, so a won node usually needs one child searched.

A node budget (``stats[LIMIT]``) makes a search give up with answer ``UNKNOWN``; nothing unknown
is stored, so a later search with a larger budget continues from what the table holds.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from amazons_env import core

from agents.solver.bounds import side_bounds

__all__ = ["WON", "LOST", "UNKNOWN", "NODES", "LIMIT", "prove", "zobrist_keys", "position_hash"]

WON, LOST, UNKNOWN = 1, -1, 0
NODES, LIMIT = range(2)  # entries of ``stats``
FILL_BUDGET = 4_000  # fill-search nodes per region in the filling check at each node


def zobrist_keys(cells: int, seed: int = 20010) -> np.ndarray:
    """Random keys: ``keys[square, piece]`` for the pieces 1..3 and ``keys[0, 0]`` for Black to move
    (square 0 lies on the frame, where no piece stands)."""
    rng = np.random.default_rng(seed)
    return rng.integers(1, 2**63, size=(cells, 4), dtype=np.int64).astype(np.uint64)


@njit(cache=True)
def position_hash(cells, side, keys):
    """The Zobrist hash of ``cells`` with ``side`` to move."""
    h = keys[0, 0] if side == 1 else np.uint64(0)
    for s in range(cells.shape[0]):
        c = cells[s]
        if c == core.WHITE_QUEEN or c == core.BLACK_QUEEN or c == core.ARROW:
            h ^= keys[s, c]
    return h


@njit(cache=True)
def _probe(table_keys, table_values, h):
    i = h & np.uint64(table_keys.shape[0] - 1)
    if table_keys[i] == h:
        return table_values[i]
    return UNKNOWN


@njit(cache=True)
def _store(table_keys, table_values, h, value):
    i = h & np.uint64(table_keys.shape[0] - 1)
    table_keys[i] = h
    table_values[i] = value


@njit(
    types.int64(
        types.uint8[::1],
        types.int64[:, ::1],
        types.int64[::1],
        types.int64,
        types.int64[::1],
        types.uint64,
        types.uint64[:, ::1],
        types.uint64[::1],
        types.int8[::1],
        types.int64[:, :, ::1],
        types.int64[:, ::1],
        types.int64[::1],
        types.int64,
    ),
    cache=True,
)
def prove(cells, queens, nq, side, dirs, h, keys, table_keys, table_values, moves, scores, stats, ply):
    """``WON``/``LOST`` for ``side`` to move in the position ``(cells, queens)`` with hash ``h``, or
    ``UNKNOWN`` once ``stats[NODES]`` reaches ``stats[LIMIT]``. ``moves[ply]``/``scores[ply]`` are this
    ply's scratch rows (``moves`` shaped ``(plies, max_moves, 3)``); the arrays are restored."""
    if stats[NODES] >= stats[LIMIT]:
        return UNKNOWN
    stats[NODES] += 1
    known = _probe(table_keys, table_values, h)
    if known != UNKNOWN:
        return known
    outcome = side_bounds(cells, queens, nq, side, dirs, FILL_BUDGET)
    if outcome != 0:
        value = WON if outcome > 0 else LOST
        _store(table_keys, table_values, h, value)
        return value
    rows = moves[ply]
    n = core.generate_moves(cells, queens, nq, side, dirs, rows)
    if n == 0:
        _store(table_keys, table_values, h, LOST)
        return LOST
    other = 1 - side
    piece = side + 1
    turn_key = keys[0, 0]
    row_scores = scores[ply]
    for j in range(n):
        frm, to, arrow = rows[j, 0], rows[j, 1], rows[j, 2]
        index = core.find_queen(queens, nq, side, frm)
        core.make_move(cells, queens, side, index, to, arrow)
        child = h ^ keys[frm, piece] ^ keys[to, piece] ^ keys[arrow, core.ARROW] ^ turn_key
        if not core.has_move(cells, queens, nq, other, dirs) or _probe(table_keys, table_values, child) == LOST:
            core.unmake_move(cells, queens, side, index, frm, to, arrow)
            _store(table_keys, table_values, h, WON)
            return WON
        theirs = core.count_queen_moves(cells, queens, nq, other, dirs)
        ours = core.count_queen_moves(cells, queens, nq, side, dirs)
        row_scores[j] = 2 * theirs - ours
        core.unmake_move(cells, queens, side, index, frm, to, arrow)
    order = np.argsort(row_scores[:n], kind="mergesort")
    for k in range(n):
        j = order[k]
        frm, to, arrow = rows[j, 0], rows[j, 1], rows[j, 2]
        index = core.find_queen(queens, nq, side, frm)
        core.make_move(cells, queens, side, index, to, arrow)
        child = h ^ keys[frm, piece] ^ keys[to, piece] ^ keys[arrow, core.ARROW] ^ turn_key
        value = prove(
            cells, queens, nq, other, dirs, child, keys, table_keys, table_values, moves, scores, stats, ply + 1
        )
        core.unmake_move(cells, queens, side, index, frm, to, arrow)
        if value == UNKNOWN:
            return UNKNOWN
        if value == LOST:
            _store(table_keys, table_values, h, WON)
            return WON
    _store(table_keys, table_values, h, LOST)
    return LOST
