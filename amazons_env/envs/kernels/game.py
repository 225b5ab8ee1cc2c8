"""Numba kernels of one game of the environments: the two-phase turn, observation planes and
action masks (``batch`` steps a batch of games with them).

They run on the rules core's arrays (``cells``, ``queens``, ``nq``, ``dirs``; see ``core``) and
call its kernels for every rule (``find_queen``, ``has_move``, queen-line checks), so the envs
have no rules of their own. The only extra state is ``meta``, an ``int64[META_SIZE]`` row per
game (its fields and bit words are in ``line_words``, re-exported here). Between the two steps
of a turn the moving queen already stands on its new square in ``cells``/``queens``: the arrow
phase is then an ordinary queen-line shot from there.

Every array holds a batch of games (the single env uses a batch of one), bundled in named tuples
by what they are: the positions (``Positions``: ``cells``, ``queens``, ``nq``, ``meta``), the
board's squares and directions (``Geometry``) and what the env shows (``Observations``: planes,
masks, legal lists). The kernels take the game's index ``g`` rather than per-game views, on
arrays without reference counting (``_borrowed``): numba counts references to each view and each
inlined call's array arguments with atomic instructions, many times per step. Views are made only
for the core's rule kernels.

The observation and mask kernels read the incremental bit words that ``line_words`` keeps in
``meta`` and are branch-free where they can be: a queen's slides come from two words of packed
lines (``queen_lines``), the reach planes from row masks (``reach_plane``), and planes and mask rows
are filled with memsets and 8-byte stores (``intrinsics``). They are checked against the rules
core and slow references in ``tests/amazons_env/envs/test_env.py`` and
``tests/amazons_env/envs/test_vector_reference.py``.

Actions are ``from_square * N*N + to_square`` in public squares (``rank * N + file``).

>>> from amazons_env import Board
>>> games, out = start_positions(Board(6), 1), new_observations(6, 1)
>>> write_obs_mask(games, 0, Geometry.of(6), 0, out)
>>> int(games.meta[0, NLEGAL]), int(out.masks.sum())
(40, 40)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, NamedTuple

import numba
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
from amazons_env.envs.planes import (
    NUM_PLANES,
    PLANE_ARROW_PHASE,
    PLANE_ARROWS,
    PLANE_BLACK,
    PLANE_OPPONENT_QUEENS,
    PLANE_OPPONENT_REACH,
    PLANE_OWN_QUEENS,
    PLANE_OWN_REACH,
    PLANE_SHOOTER,
    PLANE_VACATED,
)

if TYPE_CHECKING:
    from amazons_env.board import Board

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
    "Positions",
    "Geometry",
    "Observations",
    "start_positions",
    "new_observations",
    "compiled",
    "max_legal",
    "OK",
    "WIN",
    "ILLEGAL",
    "action_source",
    "step_one",
    "arrow_plane",
    "other_planes",
    "write_obs_mask",
    "clear_mask",
    "show_every_action",
    "single_step",
]


# step results
OK = 0
WIN = 1  # the mover's arrow left the opponent without a move: the mover won
ILLEGAL = 2


def max_legal(size: int) -> int:
    """Room for the legal actions of one step (queen phase: every queen's slides)."""
    return MAX_QUEENS * 4 * (size - 1)


class Positions(NamedTuple):
    """The positions of a batch of games, one row each: padded ``cells`` ``uint8[B, P]``,
    ``queens`` ``int64[B, 2, MAX_QUEENS]`` (padded squares), queen counts ``nq`` ``int64[B, 2]``
    and the ``meta`` rows ``int64[B, META_SIZE]`` (turn fields and bit words, ``line_words``)."""

    cells: np.ndarray
    queens: np.ndarray
    nq: np.ndarray
    meta: np.ndarray


class Geometry(NamedTuple):
    """An ``size`` x ``size`` board's constants: ``nn = size * size``, the rules core's ``dirs``
    (``core.directions``), public-to-padded squares ``pad`` and padded-to-public ``pub``."""

    size: int
    nn: int
    dirs: np.ndarray
    pad: np.ndarray
    pub: np.ndarray

    @classmethod
    def of(cls, size: int) -> Geometry:
        return cls(size, size * size, core.directions(size + 2), core.padded_index(size), core.public_index(size))


class Observations(NamedTuple):
    """What the env shows of a batch of games: the planes ``obs`` ``int8[B, NUM_PLANES * N*N]``,
    the flat action masks ``masks`` ``int8[B, N**4]`` and the ``legal`` lists of their actions
    ``int32[B, max_legal(N)]`` (``meta[g, NLEGAL]`` long)."""

    obs: np.ndarray
    masks: np.ndarray
    legal: np.ndarray


def start_positions(board: Board, count: int) -> Positions:
    """``count`` copies of ``board``'s position (a ``Board``; its moves are not kept)."""
    row = (board.cells, board.queens, board.queen_counts, new_meta(board.cells, int(board.turn)))
    return Positions(*(np.repeat(a[None], count, axis=0) for a in row))


def new_observations(size: int, count: int) -> Observations:
    """Zeroed observation buffers of ``count`` games on a ``size`` x ``size`` board."""
    nn = size * size
    legal = np.zeros((count, max_legal(size)), np.int32)
    return Observations(np.zeros((count, NUM_PLANES * nn), np.int8), np.zeros((count, nn * nn), np.int8), legal)


def compiled(kernel: Any, *args: Any) -> Callable[..., Any]:
    """``kernel`` compiled for the types of ``args`` (loaded from numba's cache when it is
    there), as a function that skips numba's dispatch: call it with arguments of those types
    only (it does not check them). Numba's dispatch types every array of a call's bundles anew,
    as costly as stepping many games: the envs call their per-step kernels this way.

    >>> from amazons_env import Board
    >>> games, out = start_positions(Board(6), 1), new_observations(6, 1)
    >>> write = compiled(write_obs_mask, games, 0, Geometry.of(6), 0, out)
    >>> write(games, 0, Geometry.of(6), 1, out); int(out.masks.sum())   # Black's view: no mask
    0
    """
    return kernel.compile(tuple(numba.typeof(a) for a in args))


# _RECIPROCAL[nn]: x // nn == (x * _RECIPROCAL[nn]) >> 32 for every action 0 <= x < nn * nn:
# it is 2**32 / nn + e with 0 < e <= 1, so the product overshoots x / nn by less than
# x / 2**32 < 2**-17, less than the 1 / nn that x / nn's fraction stays away from the next integer
_RECIPROCAL = np.array([(1 << 32) // nn + 1 if nn else 0 for nn in range(MAX_SIZE**2 + 1)], np.int64)


@njit(cache=True, inline="always")
def action_source(action, nn):
    """``action // nn``, the public square an action starts from, without a division."""
    return (action * _RECIPROCAL[nn]) >> 32


@njit(cache=True, inline="always")
def step_one(games, g, geometry, action, known_legal=False):
    """Apply one in-range ``action`` to game ``g`` of ``games`` (``Positions``). Returns ``OK``,
    ``WIN`` or ``ILLEGAL``; the state is untouched when the action is illegal. ``known_legal``:
    the caller has checked the action against the current mask, so the queen-line check is
    skipped."""
    cells, queens, nq, meta = games
    dirs, size, nn = geometry.dirs, geometry.size, geometry.nn
    src = action_source(action, nn)
    dst = action - src * nn
    frm = geometry.pad[src]
    to = geometry.pad[dst]
    side = meta[g, SIDE]
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
def _legal_row(meta, g, geometry, sq, out, n, maps):
    """Set game ``g``'s mask row of the slides from public square ``sq`` in ``out.masks``, mark
    their targets on the own-reach plane of ``out.obs``, list the actions in ``out.legal[g, n:]``;
    return the new length. One loop over the set bits of each of ``queen_lines``'s two words:
    two loop exits per queen where walking its eight rays mispredicts eight."""
    nn = geometry.nn
    base = sq * nn
    reach = PLANE_OWN_REACH * nn
    forward, mirrored = queen_lines(meta, g, geometry.size, sq, maps)
    for half in range(2):
        word = forward if half == 0 else mirrored
        while word != 0:
            k = trailing_zeros(word)
            lane = (k >> 4) + 4 * half
            target = (k & 15) * maps[lane] + maps[8 + lane]
            out.masks[g, base + target] = 1
            out.obs[g, reach + target] = 1
            out.legal[g, n] = base + target
            n += 1
            word &= word - 1
    return n


@njit(cache=True, inline="always")
def arrow_plane(cells, g, pad, nn, obs):
    """The arrows' plane from ``cells`` (the step kernel then only adds each new arrow)."""
    for sq in range(nn):  # branch-free: arrows sit at random places
        obs[g, PLANE_ARROWS * nn + sq] = cells[g, pad[sq]] == ARROW


@njit(cache=True, inline="always")
def other_planes(games, g, geometry, perspective, out, rows):
    """Every plane but the arrows (see ``write_obs_mask``). Planes written whole are not zeroed
    first; they are written in increasing order (``reach_plane`` writes a little past its plane).
    ``rows``: ``int64[2 * MAX_SIZE]`` scratch."""
    _, queens, nq, meta = games
    size, nn, pub, obs = geometry.size, geometry.nn, geometry.pub, out.obs
    _set(obs, g, PLANE_OWN_QUEENS * nn, PLANE_ARROWS * nn, 0)
    _set(obs, g, PLANE_SHOOTER * nn, PLANE_OWN_REACH * nn, 0)
    other = perspective ^ 1
    for i in range(nq[g, perspective]):
        obs[g, PLANE_OWN_QUEENS * nn + pub[queens[g, perspective, i]]] = 1
    for i in range(nq[g, other]):
        obs[g, PLANE_OPPONENT_QUEENS * nn + pub[queens[g, other, i]]] = 1
    arrow_phase = meta[g, PHASE] == 1 and meta[g, DONE] == 0
    _set(obs, g, PLANE_ARROW_PHASE * nn, PLANE_SHOOTER * nn, arrow_phase)
    if arrow_phase:
        obs[g, PLANE_SHOOTER * nn + pub[meta[g, DST]]] = 1
        obs[g, PLANE_VACATED * nn + pub[meta[g, SRC]]] = 1
    mover = perspective == meta[g, SIDE]
    if mover:  # another side's view leaves the mover's mask bookkeeping alone
        meta[g, ROWN] = 0
        meta[g, NLEGAL] = 0
    if mover and meta[g, DONE] == 0:
        _set(obs, g, PLANE_OWN_REACH * nn, PLANE_OPPONENT_REACH * nn, 0)
        if arrow_phase:
            meta[g, NLEGAL] = _legal_row(meta, g, geometry, pub[meta[g, DST]], out, 0, rows)
            meta[g, ROWS] = pub[meta[g, DST]]
            meta[g, ROWN] = 1
        else:
            n = 0
            for i in range(nq[g, perspective]):
                q = pub[queens[g, perspective, i]]
                n = _legal_row(meta, g, geometry, q, out, n, rows)
                meta[g, ROWS + i] = q
            meta[g, NLEGAL] = n
            meta[g, ROWN] = nq[g, perspective]
    else:
        reach_plane(meta, g, perspective, size, obs, PLANE_OWN_REACH * nn, rows)
    reach_plane(meta, g, other, size, obs, PLANE_OPPONENT_REACH * nn, rows)
    _set(obs, g, PLANE_BLACK * nn, NUM_PLANES * nn, perspective)


@njit(cache=True)
def write_obs_mask(games, g, geometry, perspective, out):
    """Write the ``NUM_PLANES`` planes of game ``g`` of ``games`` (``Positions``) seen by
    ``perspective`` (see ``AmazonsEnv``) into the flat row ``out.obs[g]`` (``Observations``);
    when it is ``perspective``'s turn, also set the legal actions in the all-zero mask row
    ``out.masks[g]``, list them in ``out.legal[g, :meta[g, NLEGAL]]`` and record the mask's
    non-zero rows in ``meta`` (for ``clear_mask``). A finished game has no legal action."""
    games, out = _borrowed(games), _borrowed(out)
    arrow_plane(games.cells, g, geometry.pad, geometry.nn, out.obs)
    rows = np.empty(2 * MAX_SIZE, np.int64)
    other_planes(games, g, geometry, perspective, out, rows)


@njit(cache=True, inline="always")
def clear_mask(meta, g, nn, masks):
    """Zero game ``g``'s mask row: the rows ``write_obs_mask`` set (cheaper than clearing all
    ``nn * nn`` entries), or all of it in a finished game (``show_every_action`` filled it)."""
    if meta[g, DONE] != 0:
        _set(masks, g, 0, nn * nn, 0)
    else:
        for r in range(meta[g, ROWN]):
            base = meta[g, ROWS + r] * nn
            _set(masks, g, base, base + nn, 0)
    meta[g, ROWN] = 0


@njit(cache=True, inline="always")
def show_every_action(g, nn, masks):
    """Game ``g`` has just ended: every entry of its mask row set, as the vector env shows a
    finished game until it restarts (pgx's convention; ``clear_mask`` zeroes the row then)."""
    _set(masks, g, 0, nn * nn, 1)


@njit(cache=True)
def single_step(games, geometry, action, out):
    """``step_one`` on game 0, then the next observation (for the side to move) and mask into
    zeroed ``out.obs[0]``/``out.masks[0]`` (skipped when the action was illegal)."""
    code = step_one(games, 0, geometry, action)
    if code != ILLEGAL:
        write_obs_mask(games, 0, geometry, games.meta[0, SIDE], out)
    return code
