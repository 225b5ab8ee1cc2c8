"""Queen moves counted from line occupancy words: the proof searches' move order and no-move
test, without walking the rays.

The searches count the queen moves of both sides after every child they make (``depth_first``'s
order, ``dfpn``'s first numbers), and walking 8 rays an amazon is most of a child's cost: a
loop that ends at an unpredictable square. Here each of the four kinds of line (ranks, files and
the two diagonals) has a word in which every line of that kind is a run of bits, one per square,
set where the square is not empty. An amazon's queen moves are then four table reads: per line
through its square, the empty squares it reaches along that line, looked up by the line's bits.
A node makes the words once from its cells (``occupancy``) and a child's words are the node's
with the move's three squares flipped (``after``).

A board whose squares do not fit a word (more than 64 inside the border: sizes above 8) has
no tables (``Lines.size`` 0): the searches count its queen moves by walking
(``core.count_queen_moves``).

>>> from amazons_env import Board
>>> board = Board(size=5)
>>> lines = new_lines(board.cells.shape[0])
>>> occ = occupancy(board.cells, lines)
>>> count(board.queens, board.queen_counts, 0, lines, occ) == core.count_queen_moves(
...     board.cells, board.queens, board.queen_counts, 0, board.dirs)
True
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
from numba import njit

from amazons_env import core

__all__ = ["Lines", "new_lines", "occupancy", "after", "count"]


class Lines(NamedTuple):
    """Per padded square ``s`` and kind of line ``k``, at ``4 * s + k`` (a square's four side by
    side): the bit of ``s`` in word ``k`` (``bit``, 0 on the border), where its line starts in that
    word (``shift``), and where its row of ``reach`` starts (``base``): the queen moves along that
    line from ``s`` for each pattern of the line's bits (``size`` bits: ``mask``). ``size`` is the
    board's (0: too big for a word, walk instead). Flat arrays: numba indexes them in fewer
    instructions than 2-D and 3-D ones, and this is a search's innermost loop."""

    size: int
    mask: int
    bit: np.ndarray
    shift: np.ndarray
    base: np.ndarray
    reach: np.ndarray


def _line_squares(size: int, kind: int) -> list[list[tuple[int, int]]]:
    """The lines of one kind as lists of (row, column) inside the border, in board order."""
    if kind == 0:
        return [[(r, c) for c in range(size)] for r in range(size)]
    if kind == 1:
        return [[(r, c) for r in range(size)] for c in range(size)]
    diagonals = []
    for k in range(-(size - 1), size):
        if kind == 2:  # rows and columns rising together
            squares = [(r, r + k) for r in range(size) if 0 <= r + k < size]
        else:  # columns falling as rows rise
            squares = [(r, k + size - 1 - r) for r in range(size) if 0 <= k + size - 1 - r < size]
        diagonals.append(squares)
    return diagonals


@functools.lru_cache(maxsize=None)
def new_lines(squares: int) -> Lines:
    """The tables of a board of ``squares`` padded cells (``cells.shape[0]``), made once a size
    and shared (read only)."""
    width = int(round(squares**0.5))
    size = width - 2
    if not 1 <= size <= 8:  # 8x8 fills a word
        return Lines(0, 0, np.zeros(1, np.uint64), np.zeros(1, np.uint64), np.zeros(1, np.int64), np.zeros(1, np.uint8))
    bit = np.zeros(4 * squares, np.uint64)
    shift = np.zeros(4 * squares, np.uint64)
    base = np.zeros(4 * squares, np.int64)
    reach = np.zeros(4 * squares << size, np.uint8)  # small enough to stay in the first-level cache
    for kind in range(4):
        start = 0
        for line in _line_squares(size, kind):
            for position, (r, c) in enumerate(line):
                k = 4 * ((r + 1) * width + c + 1) + kind
                bit[k] = np.uint64(1) << np.uint64(start + position)
                shift[k] = start
                base[k] = k << size
                for pattern in range(1 << size):  # bits past the line belong to the next one
                    reach[base[k] + pattern] = _run(pattern, position, len(line))
            start += len(line)
    return Lines(size, (1 << size) - 1, bit, shift, base, reach)


def _run(pattern: int, position: int, length: int) -> int:
    """Empty squares from ``position`` both ways along a line of ``length`` until an occupied one."""
    n = 0
    for step in (-1, 1):
        p = position + step
        while 0 <= p < length and not pattern >> p & 1:
            n += 1
            p += step
    return n


@njit(cache=True)
def occupancy(cells, lines):
    """The four line words of ``cells`` (a tuple; zeros on a board without tables)."""
    o0 = o1 = o2 = o3 = np.uint64(0)
    if lines.size == 0:
        return o0, o1, o2, o3
    bit = lines.bit
    for s in range(cells.shape[0]):
        if cells[s] != core.EMPTY:
            o0 |= bit[4 * s]
            o1 |= bit[4 * s + 1]
            o2 |= bit[4 * s + 2]
            o3 |= bit[4 * s + 3]
    return o0, o1, o2, o3


# inlined: a call passes every array of ``lines`` (and counts references to them), which costs
# more than the work itself
@njit(cache=True, inline="always")
def after(occ, lines, frm, to, arrow):
    """The words after a move from ``frm`` to ``to`` shooting at ``arrow``: each square's bit
    flipped once (an arrow shot back onto ``frm`` flips it twice: it stays occupied)."""
    if lines.size == 0:
        return occ
    bit = lines.bit
    f, t, a = 4 * frm, 4 * to, 4 * arrow
    return (
        occ[0] ^ bit[f] ^ bit[t] ^ bit[a],
        occ[1] ^ bit[f + 1] ^ bit[t + 1] ^ bit[a + 1],
        occ[2] ^ bit[f + 2] ^ bit[t + 2] ^ bit[a + 2],
        occ[3] ^ bit[f + 3] ^ bit[t + 3] ^ bit[a + 3],
    )


@njit(cache=True, inline="always")
def count(queens, nq, side, lines, occ):
    """``core.count_queen_moves`` of ``side`` on the board whose words are ``occ``, on a board with
    tables (``size`` > 0). The callers choose between this and the walk where they call: inside an
    inlined function the choice made both slower than the walk alone."""
    shift, base, reach, mask = lines.shift, lines.base, lines.reach, np.uint64(lines.mask)
    n = 0
    for i in range(nq[side]):  # the four kinds written out: a tuple indexed by a variable is slow in numba
        k = 4 * queens[side, i]
        n += reach[base[k] + np.int64((occ[0] >> shift[k]) & mask)]
        n += reach[base[k + 1] + np.int64((occ[1] >> shift[k + 1]) & mask)]
        n += reach[base[k + 2] + np.int64((occ[2] >> shift[k + 2]) & mask)]
        n += reach[base[k + 3] + np.int64((occ[3] >> shift[k + 3]) & mask)]
    return n
