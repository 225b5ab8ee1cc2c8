"""The ``meta`` row of a game in the env kernels: its turn fields, and the packed bit words of
the board's lines and queens that the observation and mask kernels keep up to date in it.

``meta`` is an ``int64[META_SIZE]`` row per game (fields below). Besides the turn state it holds
the empty squares of every line, four lines packed into each word, and the queens of every row,
updated incrementally as squares change (``toggle_square``, ``move_queen``). From them a queen's
slides are two words of packed lines (``queen_lines``) and the reach planes come from row masks
(``reach_plane``), branch-free. ``amazons_env.envs.kernels.game`` builds the turn, observation and
batch kernels on these.

>>> from amazons_env import Board
>>> meta = new_meta(Board(6).cells, 0)
>>> int(meta[SIDE]), int(meta[WINNER]), meta.shape == (META_SIZE,)
(0, -1, True)
>>> bin(int(meta[LINES + 2]) & 0xFFF)   # row 3 of the 6x6 start: all six squares empty
'0b111111'
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from amazons_env import core
from amazons_env.core import ARROW, EMPTY, MAX_QUEENS, MAX_SIZE
from amazons_env.envs.kernels.intrinsics import expand_row as _expand_row

__all__ = [
    "SIDE",
    "PHASE",
    "SRC",
    "DST",
    "QIDX",
    "TURNS",
    "DONE",
    "WINNER",
    "NLEGAL",
    "ROWN",
    "ROWS",
    "LINES",
    "LINES_REV",
    "QUEEN_ROWS",
    "META_SIZE",
    "new_meta",
    "toggle_square",
    "move_queen",
    "queen_lines",
    "reach_plane",
]

# meta fields (padded squares unless said otherwise)
SIDE = 0  # side to move (0 White, 1 Black)
PHASE = 1  # 0: queen move, 1: arrow
SRC = 2  # arrow phase: the square the moving queen left
DST = 3  # arrow phase: the square of the queen that must shoot
QIDX = 4  # arrow phase: that queen's index in queens[side]
TURNS = 5  # full turns completed
DONE = 6  # 1 once the game has ended (a side has no move, or an illegal action was taken)
WINNER = 7  # the winner once DONE, else -1
NLEGAL = 8  # number of legal actions (listed in the game's ``legal`` buffer)
ROWN = 9  # number of mask rows set (their public from-squares in ROWS..)
ROWS = 10
# The empty squares along every line of the board, four lines packed into each int64 word
# (``lines``): lane 0 (bits 0-11) of word ``j`` is row j (bit c: square (j, c) empty), lane 1
# (bits 16-27) column j, lane 2 diagonal ``r - c == j - (N - 1)`` and lane 3 anti-diagonal
# ``r + c == j``, those three with bit r for the square on row r. Words ``LINES_REV + j`` hold
# the same lanes mirrored (bit ``MAX_SIZE - 1 - i`` for bit i), so that both ends of a line are
# found with the same carry trick (``_slide``). Bits off the board are 0 (not empty).
LINES = ROWS + MAX_QUEENS
LINES_REV = LINES + 2 * MAX_SIZE - 1
QUEEN_ROWS = LINES_REV + 2 * MAX_SIZE - 1  # bit c of field QUEEN_ROWS + side * MAX_SIZE + r: a queen of side on (r, c)
META_SIZE = QUEEN_ROWS + 2 * MAX_SIZE


# _ROW[N, sq], _COL[N, sq]: row and column of public square sq on an NxN board (a load instead
# of a division by a size known only at run time)
_ROW = np.array([[sq // n if n else 0 for sq in range(MAX_SIZE * MAX_SIZE)] for n in range(MAX_SIZE + 1)], np.int64)
_COL = np.array([[sq % n if n else 0 for sq in range(MAX_SIZE * MAX_SIZE)] for n in range(MAX_SIZE + 1)], np.int64)
_TOP = MAX_SIZE - 1  # a bit's position in the mirrored lanes is _TOP minus its position
_LANE0, _LANE1, _LANE2, _LANE3 = (np.int64(0xFFF) << (16 * i) for i in range(4))
_ONES = 0x0001000100010001  # bit 0 of every lane
_LANES123 = 0x0001000100010000  # bit 0 of lanes 1-3


def new_meta(cells: np.ndarray, side: int) -> np.ndarray:
    """A fresh ``meta`` row for the position ``cells`` with ``side`` to move in the queen phase."""
    meta = np.zeros(META_SIZE, dtype=np.int64)
    meta[SIDE] = side
    meta[WINNER] = -1
    size = math.isqrt(len(cells)) - 2
    _fill_words(meta[None], cells, core.padded_index(size), size)
    return meta


@njit(cache=True, inline="always")
def toggle_square(meta, g, size, sq):
    """Public square ``sq`` changed between empty and occupied: flip its bit in the (mirrored)
    words of the four lines through it (see ``LINES``)."""
    r = _ROW[size, sq]
    c = _COL[size, sq]
    one = np.int64(1)
    meta[g, LINES + r] ^= one << c
    meta[g, LINES + c] ^= one << (16 + r)
    meta[g, LINES + r - c + size - 1] ^= one << (32 + r)
    meta[g, LINES + r + c] ^= one << (48 + r)
    meta[g, LINES_REV + r] ^= one << (_TOP - c)
    meta[g, LINES_REV + c] ^= one << (16 + _TOP - r)
    meta[g, LINES_REV + r - c + size - 1] ^= one << (32 + _TOP - r)
    meta[g, LINES_REV + r + c] ^= one << (48 + _TOP - r)


@njit(cache=True, inline="always")
def move_queen(meta, g, size, side, src, dst):
    """Keep ``QUEEN_ROWS`` in step: ``side``'s queen left public square ``src`` (-1: none) for ``dst``."""
    at = QUEEN_ROWS + side * MAX_SIZE
    if src >= 0:
        meta[g, at + _ROW[size, src]] ^= np.int64(1) << _COL[size, src]
    meta[g, at + _ROW[size, dst]] ^= np.int64(1) << _COL[size, dst]


@njit(cache=True)
def _fill_words(meta, cells, pad, size):
    """Set the ``LINES`` and ``QUEEN_ROWS`` words of ``meta[0]`` (all zero) from ``cells``."""
    for sq in range(size * size):
        cell = cells[pad[sq]]
        if cell == EMPTY:
            toggle_square(meta, 0, size, sq)
        elif cell != ARROW:
            move_queen(meta, 0, size, cell - 1, -1, sq)


@njit(cache=True, inline="always")
def _slide(empty, queen):
    """In each 16-bit lane: the bits of ``empty`` above the lane's one ``queen`` bit up to the
    first bit not in ``empty``, i.e. the squares a queen reaches along the line in one direction.
    Branch-free: no lane borrows from the next (the queen bit is <= bit 11, bits 12-15 of
    ``empty`` are 0), so one subtraction finds every lane's first blocked square at once."""
    upto = (queen << 1) - _ONES  # the queen's bit and the bits below it
    blocked = ~(empty | upto)  # the blocked squares above the queen (and bits 12-15)
    first = blocked & ~(blocked - _ONES)  # the lowest of them
    return (first - _ONES) & ~upto


@njit(cache=True, inline="always")
def queen_lines(meta, g, size, sq, maps):
    """The empty squares one queen move from public square ``sq`` as two words of lanes (row,
    column, diagonal, anti-diagonal): ``(forward, mirrored)``, the squares above and below the
    queen along each line. Sets ``maps`` so that bit ``p`` of lane ``i`` is square
    ``p * maps[i] + maps[8 + i]`` (mirrored lanes: ``i + 4``)."""
    r = _ROW[size, sq]
    c = _COL[size, sq]
    d = r - c + size - 1
    a = r + c
    forward = (
        (meta[g, LINES + r] & _LANE0)
        | (meta[g, LINES + c] & _LANE1)
        | (meta[g, LINES + d] & _LANE2)
        | (meta[g, LINES + a] & _LANE3)
    )
    mirrored = (
        (meta[g, LINES_REV + r] & _LANE0)
        | (meta[g, LINES_REV + c] & _LANE1)
        | (meta[g, LINES_REV + d] & _LANE2)
        | (meta[g, LINES_REV + a] & _LANE3)
    )
    one = np.int64(1)
    queen = (one << c) | ((one << r) * _LANES123)
    queen_mirrored = (one << (_TOP - c)) | ((one << (_TOP - r)) * _LANES123)
    # bit p of the row lane is square r*N + p, of the column p*N + c, of the diagonal
    # p*(N+1) - (r - c), of the anti-diagonal p*(N-1) + r + c; mirrored: p -> _TOP - p
    maps[0], maps[1], maps[2], maps[3] = 1, size, size + 1, size - 1
    maps[8], maps[9], maps[10], maps[11] = r * size, c, c - r, r + c
    for i in range(4):
        maps[4 + i] = -maps[i]
        maps[12 + i] = _TOP * maps[i] + maps[8 + i]
    return _slide(forward, queen), _slide(mirrored, queen_mirrored)


@njit(cache=True, inline="always")
def _fill(b, p, left):
    """Occluded fill of the bits ``b`` along a row through the bits ``p`` (shifting left or right):
    ``b`` plus every bit of ``p`` reached from it without crossing a bit outside ``p``."""
    if left:
        b |= p & (b << 1)
        p &= p << 1
        b |= p & (b << 2)
        p &= p << 2
        b |= p & (b << 4)
        p &= p << 4
        return b | (p & (b << 8))
    b |= p & (b >> 1)
    p &= p >> 1
    b |= p & (b >> 2)
    p &= p >> 2
    b |= p & (b >> 4)
    p &= p >> 4
    return b | (p & (b >> 8))


@njit(cache=True, inline="always")
def reach_plane(meta, g, side, size, out, offset, rows):
    """Set ``out[g, offset + sq]`` to 1 on every square one queen move from a queen of ``side``,
    0 elsewhere, and zero up to 7 bytes after the plane (see ``_expand_row``). ``rows``:
    ``int64[MAX_SIZE]`` scratch.

    Branch-free on row bit masks (bit c of row r = square (r, c); the empty squares are lane 0
    of ``meta``'s ``LINES``, the queens its ``QUEEN_ROWS``): one pass down the board carries
    the south, south-east and south-west rays from row to row, one pass up the northern ones
    (writing the rows in increasing order), and each row fills east and west within itself.
    Walking 8 rays per queen instead ends every ray in a mispredicted branch."""
    queen_rows = QUEEN_ROWS + side * MAX_SIZE
    s = se = sw = 0
    above = 0  # the queens of the row above
    for r in range(size - 1, -1, -1):
        empty = meta[g, LINES + r] & _LANE0
        s = (s | above) & empty
        se = ((se | above) << 1) & empty
        sw = ((sw | above) >> 1) & empty
        rows[r] = s | se | sw
        above = meta[g, queen_rows + r]
    n = ne = nw = 0
    below = 0
    for r in range(size):
        empty = meta[g, LINES + r] & _LANE0
        mine = meta[g, queen_rows + r]
        n = (n | below) & empty
        ne = ((ne | below) << 1) & empty
        nw = ((nw | below) >> 1) & empty
        reach = (
            rows[r]
            | n
            | ne
            | nw
            | ((_fill(mine, empty, True) << 1) & empty)
            | ((_fill(mine, empty, False) >> 1) & empty)
        )
        _expand_row(out, g, offset + r * size, reach, size)
        below = mine
