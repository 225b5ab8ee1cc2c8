"""``territory`` on bitboards: the value of ``territory.territory_kernel`` (the mailbox kernel, which
stays the reference) computed with the bitboards of ``agents.evaluation.bitboards``.

Boards up to 8x8 use one 64-bit word, up to 11x11 two; 12x12 falls back to the mailbox kernel.
The four breadth-first searches become sequences of frontier bitboards: the queen distances by
sliding fills (eight rays shifted in step, square by square, through the empty squares), the king
distances by one-step dilations. Each search keeps its *cumulative* sets: row ``d`` of
``layers`` holds the squares within ``d`` moves, so the squares at distance exactly ``d`` are
``row d & ~row d-1``. Every term of the evaluation is a sum over squares of a function of the
distances, so it becomes a sum of popcounts over pairs of layers:

* ``t1``, ``t2``: at each distance ``d``, White's new squares that Black has not reached by ``d``
  count +1, Black's new squares that White has not reached -1, the squares new to both ``tie``;
* ``c1``: ``2^-d`` per square at distance ``d`` of White, minus Black's;
* ``w``: White's squares at ``d`` met with Black's layers in turn, ``2^-|d - e|`` per square at ``e``;
* ``c2``: ``(e - d) / 6`` for Black's layers ``e`` within five of ``d``, -1 for the squares Black
  reached six or more earlier, +1 for those it reached six or more later or never, and -1 for each
  square only Black reaches;
* mobility: an amazon's eight rays walked in step, ring ``k`` (the squares ``k`` steps away) met
  with the opponent's queen-reachable squares, and ``N(b)`` summed over a ring by popcounts of
  four bit planes holding every square's count of empty neighbours.

The value equals the mailbox kernel's up to rounding (the sums are taken in another order; the
tests hold them to 1e-12).

>>> from amazons_env import Board
>>> from agents.evaluation.evaluator import make_evaluator
>>> from agents.evaluation.territory_mailbox import territory_kernel
>>> board = Board(10)
>>> args = (board.cells, board.queens, board.queen_counts, 0, board.dirs, make_evaluator("territory").params)
>>> abs(territory_bb_kernel(*args) - territory_kernel(*args)) < 1e-12
True
"""

from __future__ import annotations

import numpy as np
from numba import njit

from amazons_env import core

from agents.evaluation.bitboards import (
    MAX_BITBOARD_SIZE,
    NOT_FIRST_FILE,
    NOT_LAST_FILE,
    ONE_WORD_MAX,
    band,
    bandnot,
    bit,
    bor,
    bxor,
    count,
    load,
    masks,
    nonzero,
    shl,
    shr,
    store,
    words,
    zero_bytes,
)
from agents.evaluation.evaluator import KERNEL_SIGNATURE
from agents.evaluation.territory_mailbox import (
    _HALF_POWERS,
    C1,
    C2,
    KAPPA,
    MOB,
    T1,
    T2,
    W,
    mobility_penalty,
    phase_score,
    squash,
    territory_kernel,
)

__all__ = ["territory_bb_kernel", "BITBOARD_SIZES"]

BITBOARD_SIZES = range(core.MIN_SIZE, MAX_BITBOARD_SIZE + 1)  # the sizes this kernel computes itself
_MASKS = masks()
# _BIT[size, p]: the bit (public square) of padded square p, by table: a division costs more than
# the rest of packing a board
_BIT = np.full((MAX_BITBOARD_SIZE + 1, (MAX_BITBOARD_SIZE + 2) ** 2), -1, dtype=np.int64)
for _size in BITBOARD_SIZES:
    _BIT[_size, : (_size + 2) ** 2] = core.public_index(_size)
QW, QB, KW, KB = range(4)  # rows of ``layers``: queen then king distances of White, Black


@njit(cache=True)
def _pack_empty(cells, size, zero):
    """The empty squares (``core.EMPTY`` is 0) of the padded ``cells`` as a bitboard, a rank at a
    time (its cells and the frame after it are read as words)."""
    width = size + 2
    lo = np.uint64(0)
    hi = np.uint64(0)
    for r in range(size):
        rank = zero_bytes(cells, (r + 1) * width + 1, size)
        at = r * size
        if at >= 64:
            hi |= rank << np.uint64(at - 64)
        else:
            lo |= rank << np.uint64(at)
            if at + size > 64:  # the rank straddles the two words
                hi |= rank >> np.uint64(64 - at)
    return words(zero, lo, hi)


@njit(cache=True)
def _amazons(queens, nq, side, size, zero):
    b = zero
    for i in range(nq[side]):
        b = bor(b, bit(zero, _BIT[size, queens[side, i]]))
    return b


@njit(cache=True)
def _advance(rays, empty, east, west, size):
    """One more square along each of eight rays (the queen directions of ``core.directions``):
    each ray survives where it lands on an empty square without wrapping round an edge."""
    return (
        band(shl(rays[0], 1), east),
        band(shr(rays[1], 1), west),
        band(shl(rays[2], size), empty),
        band(shr(rays[3], size), empty),
        band(shl(rays[4], size + 1), east),
        band(shl(rays[5], size - 1), west),
        band(shr(rays[6], size - 1), east),
        band(shr(rays[7], size + 1), west),
    )


@njit(cache=True)
def _union(rays):
    return bor(bor(bor(rays[0], rays[1]), bor(rays[2], rays[3])), bor(bor(rays[4], rays[5]), bor(rays[6], rays[7])))


@njit(cache=True)
def _queen_step(g, empty, east, west, size):
    """The empty squares one queen move from ``g``. ``east``/``west``: the empty squares a move
    towards a higher/lower file may land on (the others would have wrapped round an edge)."""
    rays = (g, g, g, g, g, g, g, g)
    out = bandnot(g, g)
    while True:  # all eight directions in step: one loop test per square of the longest ray
        rays = _advance(rays, empty, east, west, size)
        ring = _union(rays)
        if not nonzero(ring):
            return out
        out = bor(out, ring)


@njit(cache=True)
def _king_step(g, empty, not_first, not_last, size):
    """The empty squares one king move from ``g``: a sideways dilation over the whole board (a
    diagonal step may pass beside a blocked square), then one rank up and down."""
    h = bor(g, bor(band(shl(g, 1), not_first), band(shr(g, 1), not_last)))
    return band(bor(h, bor(shl(h, size), shr(h, size))), empty)


@njit(cache=True)
def _layers(start, queen, empty, not_first, not_last, size, layers, row):
    """Breadth-first search from ``start`` by queen (``queen``) or king moves through ``empty``:
    ``layers[row, d]`` = the squares within ``d`` moves. Returns the greatest ``d``."""
    east = band(empty, not_first)
    west = band(empty, not_last)
    reached = start
    frontier = start
    store(start, layers, row, 0)
    d = 0
    while True:
        if queen:
            step = _queen_step(frontier, empty, east, west, size)
        else:
            step = _king_step(frontier, empty, not_first, not_last, size)
        frontier = bandnot(step, reached)
        if not nonzero(frontier):
            return d
        reached = bor(reached, frontier)
        d += 1
        store(reached, layers, row, d)


@njit(cache=True)
def _layer(layers, row, last, d, zero):
    """The squares at distance exactly ``d`` (``last``: the search's greatest distance)."""
    if d > last:
        return zero
    return bandnot(load(zero, layers, row, d), load(zero, layers, row, d - 1))


@njit(cache=True)
def _within(layers, row, last, d, zero):
    """The squares within ``d`` moves."""
    return load(zero, layers, row, min(d, last))


@njit(cache=True)
def _territory(layers, w, nw, b, nb, tie, zero):
    """``t1`` (queen rows) or ``t2`` (king rows): squares White reaches first minus Black's."""
    t = 0.0
    for d in range(1, max(nw, nb) + 1):
        lw = _layer(layers, w, nw, d, zero)
        lb = _layer(layers, b, nb, d, zero)
        t += (
            count(bandnot(lw, _within(layers, b, nb, d, zero)))
            - count(bandnot(lb, _within(layers, w, nw, d, zero)))
            + tie * count(band(lw, lb))
        )
    return t


@njit(cache=True)
def _queen_position(layers, nw, nb, zero):
    """``(c1, w)`` from the queen distances."""
    c1 = 0.0
    for d in range(1, max(nw, nb) + 1):
        c1 += 2.0 * _HALF_POWERS[d] * (count(_layer(layers, QW, nw, d, zero)) - count(_layer(layers, QB, nb, d, zero)))
    w = 0.0
    black = _within(layers, QB, nb, nb, zero)
    for d in range(1, nw + 1):
        both = band(_layer(layers, QW, nw, d, zero), black)
        e = 1
        while nonzero(both):  # Black reaches all of them, at some e <= nb
            met = band(both, _layer(layers, QB, nb, e, zero))
            w += count(met) * _HALF_POWERS[abs(d - e)]
            both = bandnot(both, met)
            e += 1
    return c1, w


@njit(cache=True)
def _king_position(layers, nw, nb, empty, zero):
    """``c2`` from the king distances: ``clip((Dk_b - Dk_w) / 6, -1, 1)`` summed."""
    c2 = 0.0
    for d in range(1, nw + 1):
        white = _layer(layers, KW, nw, d, zero)
        for e in range(max(1, d - 5), min(d + 5, nb) + 1):
            c2 += count(band(white, _layer(layers, KB, nb, e, zero))) * ((e - d) / 6.0)
        if d >= 6:
            c2 -= count(band(white, _within(layers, KB, nb, d - 6, zero)))
        c2 += count(bandnot(white, _within(layers, KB, nb, d + 5, zero)))
    only_black = bandnot(_within(layers, KB, nb, nb, zero), _within(layers, KW, nw, nw, zero))
    return c2 - count(band(only_black, empty))


@njit(cache=True)
def _free_neighbours(empty, not_first, not_last, size):
    """``N(b)`` of every square as four bit planes (``N = n0 + 2 n1 + 4 n2 + 8 n3``): the eight
    neighbour indicators, ``empty`` shifted back along each direction, added bit-sliced."""
    east = band(empty, not_first)
    west = band(empty, not_last)
    n0 = n1 = n2 = n3 = bandnot(empty, empty)
    for x in (
        shr(east, 1),
        shl(west, 1),
        shr(empty, size),
        shl(empty, size),
        shr(east, size + 1),
        shr(west, size - 1),
        shl(east, size - 1),
        shl(west, size + 1),
    ):
        c0 = band(n0, x)
        n0 = bxor(n0, x)
        c1 = band(n1, c0)
        n1 = bxor(n1, c0)
        n3 = bor(n3, band(n2, c1))
        n2 = bxor(n2, c1)
    return n0, n1, n2, n3


@njit(cache=True)
def _mobility_alpha(square, empty, east, west, size, reach, free):
    """Lieberum's alpha for the amazon on ``square`` (``territory._mobility_alpha``), ring by
    ring: ``2^-k N(b)`` summed over the squares ``b`` ``k`` queen steps away that ``reach`` (the
    opponent's queen-reachable squares) holds; ``free``: ``_free_neighbours``."""
    rays = (square, square, square, square, square, square, square, square)
    alpha = 0.0
    weight = 1.0
    while True:
        rays = _advance(rays, empty, east, west, size)
        ring = _union(rays)
        if not nonzero(ring):
            return alpha
        weight *= 0.5
        ring = band(ring, reach)
        alpha += weight * (
            count(band(ring, free[0]))
            + 2 * count(band(ring, free[1]))
            + 4 * count(band(ring, free[2]))
            + 8 * count(band(ring, free[3]))
        )


@njit(cache=True)
def _evaluate(cells, queens, nq, side, dirs, params, zero):
    """``territory_kernel`` on bitboards of the type of ``zero`` (one word or two)."""
    size = dirs[2] - 2
    not_first = load(zero, _MASKS, size, NOT_FIRST_FILE)
    not_last = load(zero, _MASKS, size, NOT_LAST_FILE)
    empty = _pack_empty(cells, size, zero)
    white = _amazons(queens, nq, 0, size, zero)
    black = _amazons(queens, nq, 1, size, zero)
    # a side with an empty square beside an amazon can move there and shoot back (core.has_move)
    if not nonzero(_king_step(white if side == 0 else black, empty, not_first, not_last, size)):
        return -1.0
    layers = np.empty((4, size * size + 1, 2), dtype=np.uint64)
    nqw = _layers(white, True, empty, not_first, not_last, size, layers, QW)
    nqb = _layers(black, True, empty, not_first, not_last, size, layers, QB)
    nkw = _layers(white, False, empty, not_first, not_last, size, layers, KW)
    nkb = _layers(black, False, empty, not_first, not_last, size, layers, KB)
    tie = params[KAPPA] if side == 0 else -params[KAPPA]
    f = np.zeros(5)
    f[T1] = _territory(layers, QW, nqw, QB, nqb, tie, zero)
    f[T2] = _territory(layers, KW, nkw, KB, nkb, tie, zero)
    f[C1], f[W] = _queen_position(layers, nqw, nqb, zero)
    f[C2] = _king_position(layers, nkw, nkb, empty, zero)
    squares = float(size * size)
    s, score = phase_score(f, params, squares)
    if s > 0.0 and params[MOB] != 0.0:
        free = _free_neighbours(empty, not_first, not_last, size)
        east = band(empty, not_first)
        west = band(empty, not_last)
        for j in range(2):
            sign = 1.0 if j == 1 else -1.0  # a penalty for Black's amazons counts for White
            if j == 0:
                reach = _within(layers, QB, nqb, nqb, zero)
            else:
                reach = _within(layers, QW, nqw, nqw, zero)
            for i in range(nq[j]):
                alpha = _mobility_alpha(bit(zero, _BIT[size, queens[j, i]]), empty, east, west, size, reach, free)
                score += sign * mobility_penalty(alpha, s, params)
    return squash(score, side, s, params, squares)


@njit(KERNEL_SIGNATURE, cache=True)
def territory_bb_kernel(cells, queens, nq, side, dirs, params):
    """``territory_kernel``'s value by bitboards: one word up to 8x8, two up to 11x11, the mailbox
    kernel itself on 12x12."""
    size = dirs[2] - 2
    if size <= ONE_WORD_MAX:
        return _evaluate(cells, queens, nq, side, dirs, params, np.uint64(0))
    if size <= MAX_BITBOARD_SIZE:
        return _evaluate(cells, queens, nq, side, dirs, params, (np.uint64(0), np.uint64(0)))
    return territory_kernel(cells, queens, nq, side, dirs, params)
