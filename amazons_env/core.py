"""The rules core: numba kernels over plain arrays.

This module is the single source of truth for the rules. Everything above it (``Board``, the
environments, the search agents, self-play) calls these kernels.

Representation (a *mailbox* with a one-square wall around the board, like the C reference):

* ``cells``: ``uint8[W*W]`` with ``W = size + 2``. Values: ``EMPTY``, ``WHITE_QUEEN``,
  ``BLACK_QUEEN``, ``ARROW`` and ``WALL`` (the frame). A square is passable iff it is ``EMPTY``,
  so no bounds checks are needed in the inner loops.
* ``queens``: ``int64[2, MAX_QUEENS]``, the padded squares of each side's queens; only the first
  ``nq[side]`` entries of a row are meaningful.
* ``nq``: ``int64[2]``, how many queens each side has.
* ``side``: ``0`` for White, ``1`` for Black; a side's queens are stored as ``side + 1``.
* ``dirs``: ``int64[8]``, the eight queen directions as padded-index offsets (``directions(W)``).

Moves are triples of *padded* squares ``(from, to, arrow)``; ``Board`` converts to public squares
(``rank * size + file``, a1 = 0). A side to move with no legal move has lost.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "EMPTY",
    "WHITE_QUEEN",
    "BLACK_QUEEN",
    "ARROW",
    "WALL",
    "MAX_QUEENS",
    "MIN_SIZE",
    "MAX_SIZE",
    "directions",
    "padded_index",
    "public_index",
    "max_moves",
    "generate_moves",
    "generate_public_moves",
    "legal_move_rows",
    "count_moves",
    "count_moves_from",
    "count_moves_open",
    "run_tables",
    "count_queen_moves",
    "count_arrows",
    "count_directions",
    "has_move",
    "find_queen",
    "make_move",
    "unmake_move",
    "is_legal_move",
]

EMPTY = 0
WHITE_QUEEN = 1
BLACK_QUEEN = 2
ARROW = 3
WALL = 4

MAX_QUEENS = 12
MIN_SIZE = 4
MAX_SIZE = 12


def directions(width: int) -> np.ndarray:
    """The eight queen directions as offsets on a padded board of row width ``width``."""
    return np.array([1, -1, width, -width, width + 1, width - 1, -width + 1, -width - 1], dtype=np.int64)


def padded_index(size: int) -> np.ndarray:
    """``padded_index(size)[sq]`` is the padded square of public square ``sq``."""
    width = size + 2
    sq = np.arange(size * size)
    return ((sq // size + 1) * width + sq % size + 1).astype(np.int64)


def public_index(size: int) -> np.ndarray:
    """``public_index(size)[p]`` is the public square of padded square ``p`` (-1 on the frame)."""
    width = size + 2
    out = np.full(width * width, -1, dtype=np.int64)
    out[padded_index(size)] = np.arange(size * size)
    return out


def max_moves(size: int, queens: int) -> int:
    """An upper bound on the number of legal moves: a queen reaches at most 4(size-1) squares,
    and so does the arrow from there."""
    reach = 4 * (size - 1)
    return max(1, queens * reach * reach)


@njit(cache=True)
def count_arrows(cells, dirs, square):
    """Number of squares a queen standing on ``square`` reaches (one queen move or one arrow)."""
    n = 0
    for d in range(8):
        step = dirs[d]
        s = square + step
        while cells[s] == EMPTY:
            n += 1
            s += step
    return n


@njit(cache=True)
def _emit_moves(cells, queens, nq, side, dirs, to_public, out):
    """The move generator behind ``generate_moves`` (``to_public`` None: padded squares) and
    ``generate_public_moves`` (squares written through the ``to_public`` table). numba prunes the
    ``is None`` branches at compile time, so each variant is a plain loop."""
    n = 0
    piece = side + 1
    for i in range(nq[side]):
        frm = queens[side, i]
        cells[frm] = EMPTY  # the square just left is open to the arrow
        f = frm if to_public is None else to_public[frm]
        for d in range(8):
            step = dirs[d]
            to = frm + step
            while cells[to] == EMPTY:
                t = to if to_public is None else to_public[to]
                for e in range(8):
                    astep = dirs[e]
                    a = to + astep
                    while cells[a] == EMPTY:
                        out[n, 0] = f
                        out[n, 1] = t
                        out[n, 2] = a if to_public is None else to_public[a]
                        n += 1
                        a += astep
                to += step
        cells[frm] = piece
    return n


@njit(cache=True)
def generate_moves(cells, queens, nq, side, dirs, out):
    """Write every legal move of ``side`` into ``out[:, 0:3]`` as (from, to, arrow); return the count.

    ``out`` must hold ``max_moves(size, nq[side])`` rows. Order: queens in array order, then the
    eight directions of the queen move, nearest square first, then likewise for the arrow.
    """
    return _emit_moves(cells, queens, nq, side, dirs, None, out)


@njit(cache=True)
def generate_public_moves(cells, queens, nq, side, dirs, to_public, out):
    """``generate_moves`` writing public squares (``to_public = public_index(size)``) instead of
    padded ones, so no conversion pass is needed afterwards."""
    return _emit_moves(cells, queens, nq, side, dirs, to_public, out)


@njit(cache=True)
def legal_move_rows(cells, queens, nq, side, dirs, to_public, scratch):
    """``generate_public_moves`` into ``scratch``, returned as a new ``(n, 3)`` array. The copy is
    made inside the kernel, so a scratch buffer shared between boards is safe under the GIL."""
    n = generate_public_moves(cells, queens, nq, side, dirs, to_public, scratch)
    return scratch[:n].copy()


# The four lines through a square as pairs of opposite entries of ``directions()``, and for each
# line the six directions that leave it.
_LINES = np.array([[0, 1], [2, 3], [4, 7], [5, 6]], dtype=np.int64)
_ACROSS = np.array([[2, 3, 4, 5, 6, 7], [0, 1, 4, 5, 6, 7], [0, 1, 2, 3, 5, 6], [0, 1, 2, 3, 4, 7]], dtype=np.int64)


@njit(cache=True)
def count_moves_from(cells, dirs, frm):
    """Number of legal moves (queen move + arrow) of the queen on ``frm``; ``cells`` is restored.

    Along a line through ``frm`` with empty runs of ``p`` and ``q`` squares on either side, each
    of the ``p + q`` destinations shoots along that same line to exactly ``p + q`` squares (the
    rest of the line, ``frm`` included), so the line contributes ``(p + q)**2`` moves without
    walking; only the six directions leaving the line are walked from each destination.
    """
    piece = cells[frm]
    cells[frm] = EMPTY
    n = 0
    for line in range(4):
        length = 0
        for half in range(2):
            step = dirs[_LINES[line, half]]
            to = frm + step
            while cells[to] == EMPTY:
                length += 1
                for j in range(6):
                    astep = dirs[_ACROSS[line, j]]
                    a = to + astep
                    while cells[a] == EMPTY:
                        n += 1
                        a += astep
                to += step
        n += length * length
    cells[frm] = piece
    return n


@njit(cache=True, inline="always")
def _sum_over_queens(count_from, cells, queens, nq, side, dirs):
    """``count_from(cells, dirs, square)`` summed over ``side``'s queens (inlined with the kernel
    ``count_from`` is, so the call is direct)."""
    n = 0
    for i in range(nq[side]):
        n += count_from(cells, dirs, queens[side, i])
    return n


@njit(cache=True)
def count_moves(cells, queens, nq, side, dirs):
    """Number of legal moves of ``side`` (queen move + arrow pairs), without listing them."""
    return _sum_over_queens(count_moves_from, cells, queens, nq, side, dirs)


def run_tables(size: int) -> np.ndarray:
    """Scratch space for ``count_moves_open``: zeros of shape ``(9, (size + 2)**2)``, reusable."""
    return np.zeros((9, (size + 2) ** 2), dtype=np.int64)


@njit(cache=True)
def count_moves_open(cells, queens, nq, side, dirs, runs):
    """``count_moves`` by another route, faster on open boards (the first moves of a game, as in
    perft); ``runs`` is scratch from ``run_tables(size)``.

    Two passes over the board give every empty square's run length in each of the 8 directions,
    hence ``runs[8, s]``, the squares a queen on ``s`` reaches. A queen on ``frm`` moving along a
    line with empty runs ``p`` and ``q`` either side then has ``p + q + 2pq + sum runs[8, to]``
    moves over the line's destinations ``to``: seen from ``to``, the line holds ``p - 1`` (or
    ``q - 1``) squares with ``frm`` occupied and ``p + q`` once the queen has left it.
    """
    width = dirs[2]
    total = cells.shape[0]
    for s in range(width + 1, total - width - 1):  # runs ending at s from the west, south, ...
        if cells[s] == EMPTY:
            runs[0, s] = runs[0, s - 1] + 1
            runs[1, s] = runs[1, s - width] + 1
            runs[2, s] = runs[2, s - width - 1] + 1
            runs[3, s] = runs[3, s - width + 1] + 1
        else:
            runs[0, s] = runs[1, s] = runs[2, s] = runs[3, s] = 0
    for s in range(total - width - 2, width, -1):  # ... and from the east, north, ...
        if cells[s] == EMPTY:
            runs[4, s] = runs[4, s + 1] + 1
            runs[5, s] = runs[5, s + width] + 1
            runs[6, s] = runs[6, s + width + 1] + 1
            runs[7, s] = runs[7, s + width - 1] + 1
            runs[8, s] = (
                runs[0, s]
                + runs[1, s]
                + runs[2, s]
                + runs[3, s]
                + runs[4, s]
                + runs[5, s]
                + runs[6, s]
                + runs[7, s]
                - 8
            )
        else:
            runs[4, s] = runs[5, s] = runs[6, s] = runs[7, s] = 0
    n = 0
    for i in range(nq[side]):
        frm = queens[side, i]
        for line in range(4):
            p = 0
            for half in range(2):
                step = dirs[_LINES[line, half]]
                to = frm + step
                q = 0
                while cells[to] == EMPTY:
                    q += 1
                    n += runs[8, to]
                    to += step
                if half == 0:
                    p = q
            n += p + q + 2 * p * q
    return n


@njit(cache=True)
def count_queen_moves(cells, queens, nq, side, dirs):
    """Number of queen moves (ignoring the arrow) available to ``side``."""
    return _sum_over_queens(count_arrows, cells, queens, nq, side, dirs)


@njit(cache=True)
def count_directions(cells, queens, nq, side, dirs):
    """Sum over ``side``'s queens of the number of directions each can move in (0..8 per queen)."""
    n = 0
    for i in range(nq[side]):
        q = queens[side, i]
        for d in range(8):
            if cells[q + dirs[d]] == EMPTY:
                n += 1
    return n


@njit(cache=True)
def has_move(cells, queens, nq, side, dirs):
    """Whether ``side`` has a legal move: a queen with an empty neighbour can always step there
    and shoot back into the square it left."""
    for i in range(nq[side]):
        q = queens[side, i]
        for d in range(8):
            if cells[q + dirs[d]] == EMPTY:
                return True
    return False


@njit(cache=True)
def find_queen(queens, nq, side, square):
    """Index of ``side``'s queen on ``square`` in ``queens[side]``, or -1."""
    for i in range(nq[side]):
        if queens[side, i] == square:
            return i
    return -1


@njit(cache=True)
def make_move(cells, queens, side, index, to, arrow):
    """Play ``side``'s queen number ``index`` to ``to`` and shoot ``arrow``. No legality check."""
    frm = queens[side, index]
    cells[frm] = EMPTY
    cells[to] = side + 1
    cells[arrow] = ARROW
    queens[side, index] = to


@njit(cache=True)
def unmake_move(cells, queens, side, index, frm, to, arrow):
    """Exactly undo ``make_move(cells, queens, side, index, to, arrow)`` played from ``frm``."""
    cells[arrow] = EMPTY
    cells[to] = EMPTY
    cells[frm] = side + 1
    queens[side, index] = frm


@njit(cache=True)
def _line_clear(cells, dirs, a, b):
    """Whether ``b`` is one queen move from ``a``: aligned, and every square up to ``b`` empty."""
    for d in range(8):
        step = dirs[d]
        s = a + step
        while cells[s] == EMPTY:
            if s == b:
                return True
            s += step
    return False


@njit(cache=True)
def is_legal_move(cells, queens, nq, side, dirs, frm, to, arrow):
    """Whether (frm, to, arrow) is a legal move for ``side``. The arrays are left unchanged."""
    if find_queen(queens, nq, side, frm) < 0:
        return False
    if not _line_clear(cells, dirs, frm, to):
        return False
    piece = cells[frm]
    cells[frm] = EMPTY
    ok = _line_clear(cells, dirs, to, arrow)
    cells[frm] = piece
    return ok
