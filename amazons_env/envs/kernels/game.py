"""Numba kernels of one game of the environments: the two-phase turn, observation planes and
action masks (``batch`` steps a batch of games with them).

They run on the rules core's arrays (``cells``, ``queens``, ``nq``, ``dirs``; see ``core``) and
call its kernels for every rule (``find_queen``, ``has_move``, queen-line checks), so the envs
have no rules of their own. The only extra state is ``meta``, an ``int64[META_SIZE]`` row per
game (its fields and bit words are in ``line_words``, re-exported here). Between the two steps
of a turn the moving queen already stands on its new square in ``cells``/``queens``: the arrow
phase is then an ordinary queen-line shot from there.

Every array holds a batch of games (the single env uses a batch of one) and the kernels take
the game's index ``g`` rather than per-game views, on arrays without reference counting
(``_borrowed``): numba counts references to each view and each inlined call's array arguments
with atomic instructions, ~40 per step. Views are made only for the core's rule kernels.

The observation and mask kernels read the incremental bit words that ``line_words`` keeps in
``meta`` and are branch-free where they can be: a queen's slides come from two words of packed
lines (``queen_lines``), the reach planes from row masks (``reach_plane``), and planes and mask rows
are filled with memsets and 8-byte stores (``intrinsics``). They are checked against the rules
core and slow references in ``tests/amazons_env/test_env.py`` and
``tests/amazons_env/test_vector_reference.py``.

Actions are ``from_square * N*N + to_square`` in public squares (``rank * N + file``).

>>> from amazons_env import Board
>>> board = Board(6)
>>> cells, queens, nq = board.cells.copy()[None], board.queens.copy()[None], board.queen_counts.copy()[None]
>>> meta = new_meta(board.cells, 0)[None]
>>> nn = 36
>>> obs, masks = np.zeros((1, NUM_PLANES * nn), np.int8), np.zeros((1, nn * nn), np.int8)
>>> legal = np.zeros((1, max_legal(6)), np.int32)
>>> write_obs_mask(cells, queens, nq, meta, 0, core.directions(8), core.padded_index(6), core.public_index(6),
...                nn, 0, obs, masks, legal)
>>> int(meta[0, NLEGAL]), int(masks.sum())
(40, 40)
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from amazons_env import core
from amazons_env.core import ARROW, EMPTY, MAX_QUEENS, MAX_SIZE
from amazons_env.envs.kernels.intrinsics import borrowed as _borrowed
from amazons_env.envs.kernels.intrinsics import fill_bytes as _set
from amazons_env.envs.kernels.line_words import (
    DONE,
    DST,
    LINES,
    LINES_REV,
    META_SIZE,
    NLEGAL,
    PHASE,
    QIDX,
    QUEEN_ROWS,
    ROWN,
    ROWS,
    SIDE,
    SRC,
    TURNS,
    WINNER,
    move_queen,
    new_meta,
    queen_lines,
    reach_plane,
    toggle_square,
)

__all__ = [
    # the meta row, from line_words
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
    "max_legal",
    "NUM_PLANES",
    "OK",
    "WIN",
    "ILLEGAL",
    "action_source",
    "step_one",
    "arrow_plane",
    "other_planes",
    "write_obs_mask",
    "clear_mask",
    "single_step",
]


NUM_PLANES = 9

# step results
OK = 0
WIN = 1  # the mover's arrow left the opponent without a move: the mover won
ILLEGAL = 2


def max_legal(size: int) -> int:
    """Room for the legal actions of one step (queen phase: every queen's slides)."""
    return MAX_QUEENS * 4 * (size - 1)


# _RECIPROCAL[nn]: x // nn == (x * _RECIPROCAL[nn]) >> 32 for every action 0 <= x < nn * nn:
# it is 2**32 / nn + e with 0 < e <= 1, so the product overshoots x / nn by less than
# x / 2**32 < 2**-17, less than the 1 / nn that x / nn's fraction stays away from the next integer
_RECIPROCAL = np.array([(1 << 32) // nn + 1 if nn else 0 for nn in range(MAX_SIZE**2 + 1)], np.int64)


@njit(cache=True, inline="always")
def action_source(action, nn):
    """``action // nn``, the public square an action starts from, without a division."""
    return (action * _RECIPROCAL[nn]) >> 32


@njit(cache=True, inline="always")
def step_one(cells, queens, nq, meta, g, dirs, pad, nn, action, known_legal=False):
    """Apply one in-range ``action`` to game ``g``. Returns ``OK``, ``WIN`` or ``ILLEGAL``; the
    state is untouched when the action is illegal. ``known_legal``: the caller has checked the
    action against the current mask, so the queen-line check is skipped."""
    src = action_source(action, nn)
    dst = action - src * nn
    frm = pad[src]
    to = pad[dst]
    side = meta[g, SIDE]
    size = dirs[2] - 2
    if meta[g, PHASE] == 0:
        index = core.find_queen(queens[g], nq[g], side, frm)
        if index < 0 or not (known_legal or core._line_clear(cells[g], dirs, frm, to)):
            return ILLEGAL
        cells[g, frm] = EMPTY
        cells[g, to] = side + 1
        queens[g, side, index] = to
        toggle_square(meta, g, size, src)
        toggle_square(meta, g, size, dst)
        move_queen(meta, g, size, side, src, dst)
        meta[g, SRC] = frm
        meta[g, DST] = to
        meta[g, QIDX] = index
        meta[g, PHASE] = 1
        return OK
    if frm != meta[g, DST] or not (known_legal or core._line_clear(cells[g], dirs, frm, to)):
        return ILLEGAL
    cells[g, to] = ARROW
    toggle_square(meta, g, size, dst)
    meta[g, PHASE] = 0
    meta[g, TURNS] += 1
    side ^= 1
    meta[g, SIDE] = side
    if not core.has_move(cells[g], queens[g], nq[g], side, dirs):
        meta[g, DONE] = 1
        meta[g, WINNER] = side ^ 1
        return WIN
    return OK


@njit(cache=True, inline="always")
def _legal_row(meta, g, size, nn, sq, masks, out, offset, legal, n, maps):
    """Set game ``g``'s mask row of the slides from public square ``sq``, mark their targets in
    ``out[g, offset + target]``, list the actions in ``legal[g, n:]``; return the new length.
    One loop over the set bits of each of ``queen_lines``'s two words: two loop exits per
    queen where walking its eight rays mispredicts eight."""
    base = sq * nn
    forward, mirrored = queen_lines(meta, g, size, sq, maps)
    for half in range(2):
        word = forward if half == 0 else mirrored
        while word != 0:
            k = trailing_zeros(word)
            lane = (k >> 4) + 4 * half
            target = (k & 15) * maps[lane] + maps[8 + lane]
            masks[g, base + target] = 1
            out[g, offset + target] = 1
            legal[g, n] = base + target
            n += 1
            word &= word - 1
    return n


@njit(cache=True, inline="always")
def arrow_plane(cells, g, pad, nn, out):
    """Plane 2 from ``cells`` (the step kernel then only adds each new arrow)."""
    for sq in range(nn):  # branch-free: arrows sit at random places
        out[g, 2 * nn + sq] = cells[g, pad[sq]] == ARROW


@njit(cache=True, inline="always")
def other_planes(cells, queens, nq, meta, g, dirs, pub, nn, perspective, out, masks, legal, rows):
    """Every plane but the arrows (see ``write_obs_mask``). Planes written whole are not zeroed
    first; they are written in increasing order (``reach_plane`` writes a little past its plane).
    ``rows``: ``int64[2 * MAX_SIZE]`` scratch."""
    size = dirs[2] - 2
    _set(out, g, 0, 2 * nn, 0)
    _set(out, g, 4 * nn, 6 * nn, 0)
    other = perspective ^ 1
    for i in range(nq[g, perspective]):
        out[g, pub[queens[g, perspective, i]]] = 1
    for i in range(nq[g, other]):
        out[g, nn + pub[queens[g, other, i]]] = 1
    arrow_phase = meta[g, PHASE] == 1 and meta[g, DONE] == 0
    _set(out, g, 3 * nn, 4 * nn, arrow_phase)
    if arrow_phase:
        out[g, 4 * nn + pub[meta[g, DST]]] = 1
        out[g, 5 * nn + pub[meta[g, SRC]]] = 1
    mover = perspective == meta[g, SIDE]
    if mover:  # another side's view leaves the mover's mask bookkeeping alone
        meta[g, ROWN] = 0
        meta[g, NLEGAL] = 0
    if mover and meta[g, DONE] == 0:
        _set(out, g, 6 * nn, 7 * nn, 0)
        if arrow_phase:
            meta[g, NLEGAL] = _legal_row(meta, g, size, nn, pub[meta[g, DST]], masks, out, 6 * nn, legal, 0, rows)
            meta[g, ROWS] = pub[meta[g, DST]]
            meta[g, ROWN] = 1
        else:
            n = 0
            for i in range(nq[g, perspective]):
                q = pub[queens[g, perspective, i]]
                n = _legal_row(meta, g, size, nn, q, masks, out, 6 * nn, legal, n, rows)
                meta[g, ROWS + i] = q
            meta[g, NLEGAL] = n
            meta[g, ROWN] = nq[g, perspective]
    else:
        reach_plane(meta, g, perspective, size, out, 6 * nn, rows)
    reach_plane(meta, g, other, size, out, 7 * nn, rows)
    _set(out, g, 8 * nn, 9 * nn, perspective)


@njit(cache=True)
def write_obs_mask(cells, queens, nq, meta, g, dirs, pad, pub, nn, perspective, out, masks, legal):
    """Write the ``NUM_PLANES`` planes of game ``g`` seen by ``perspective`` (see ``AmazonsEnv``)
    into the flat ``int8[NUM_PLANES * nn]`` row ``out[g]``; when it is ``perspective``'s turn,
    also set the legal actions in the all-zero mask row ``masks[g]``, list them in
    ``legal[g, :meta[g, NLEGAL]]`` (``max_legal`` room) and record the mask's non-zero rows in
    ``meta`` (for ``clear_mask``). A finished game has no legal action."""
    cells, queens, nq, meta, out, masks, legal = (
        _borrowed(cells),
        _borrowed(queens),
        _borrowed(nq),
        _borrowed(meta),
        _borrowed(out),
        _borrowed(masks),
        _borrowed(legal),
    )
    arrow_plane(cells, g, pad, nn, out)
    rows = np.empty(2 * MAX_SIZE, np.int64)
    other_planes(cells, queens, nq, meta, g, dirs, pub, nn, perspective, out, masks, legal, rows)


@njit(cache=True, inline="always")
def clear_mask(meta, g, nn, masks):
    """Zero the rows ``write_obs_mask`` set (cheaper than clearing all ``nn * nn`` entries)."""
    for r in range(meta[g, ROWN]):
        base = meta[g, ROWS + r] * nn
        _set(masks, g, base, base + nn, 0)
    meta[g, ROWN] = 0


@njit(cache=True)
def single_step(cells, queens, nq, meta, dirs, pad, pub, nn, action, obs, masks, legal):
    """``step_one`` on game 0, then the next observation (for the side to move) and mask into
    zeroed ``obs[0]``/``masks[0]`` (skipped when the action was illegal)."""
    code = step_one(cells, queens, nq, meta, 0, dirs, pad, nn, action)
    if code != ILLEGAL:
        write_obs_mask(cells, queens, nq, meta, 0, dirs, pad, pub, nn, meta[0, SIDE], obs, masks, legal)
    return code
