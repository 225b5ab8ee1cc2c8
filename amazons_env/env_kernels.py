"""Numba kernels of the environments: the two-phase turn, observation planes, action masks,
and batched stepping with autoreset.

They run on the rules core's arrays (``cells``, ``queens``, ``nq``, ``dirs``; see ``core``) and
call its kernels for every rule (``find_queen``, ``has_move``, queen-line checks), so the envs
have no rules of their own. The only extra state is ``meta``, an ``int64[META_SIZE]`` row per
game (fields below). Between the two steps of a turn the moving queen already stands on its new
square in ``cells``/``queens``: the arrow phase is then an ordinary queen-line shot from there.

Actions are ``from_square * N*N + to_square`` in public squares (``rank * N + file``).
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

from . import core
from .core import ARROW, EMPTY, MAX_QUEENS

__all__ = [
    "SIDE", "PHASE", "SRC", "DST", "QIDX", "TURNS", "DONE", "WINNER", "NLEGAL", "ROWN", "ROWS", "META_SIZE", "max_legal",
    "NUM_PLANES", "OK", "WIN", "ILLEGAL",
    "new_meta", "step_one", "write_obs_mask", "clear_mask", "single_step",
    "step_batch", "reset_batch", "check_batch", "sample_legal",
]

# meta fields (padded squares unless said otherwise)
SIDE = 0      # side to move (0 White, 1 Black)
PHASE = 1     # 0: queen move, 1: arrow
SRC = 2       # arrow phase: the square the moving queen left
DST = 3       # arrow phase: the square of the queen that must shoot
QIDX = 4      # arrow phase: that queen's index in queens[side]
TURNS = 5     # full turns completed
DONE = 6      # 1 once the game has ended (a side has no move, or an illegal action was taken)
WINNER = 7    # the winner once DONE, else -1
NLEGAL = 8    # number of legal actions (listed in the game's ``legal`` buffer)
ROWN = 9      # number of mask rows set (their public from-squares in ROWS..)
ROWS = 10
META_SIZE = ROWS + MAX_QUEENS

NUM_PLANES = 9

# step results
OK = 0
WIN = 1       # the mover's arrow left the opponent without a move: the mover won
ILLEGAL = 2


def max_legal(size: int) -> int:
    """Room for the legal actions of one step (queen phase: every queen's slides)."""
    return MAX_QUEENS * 4 * (size - 1)


def new_meta(side: int) -> np.ndarray:
    """A fresh ``meta`` row for a game with ``side`` to move in the queen phase."""
    meta = np.zeros(META_SIZE, dtype=np.int64)
    meta[SIDE] = side
    meta[WINNER] = -1
    return meta


@njit(cache=True)
def step_one(cells, queens, nq, meta, dirs, pad, nn, action, known_legal=False):
    """Apply one in-range ``action`` to one game. Returns ``OK``, ``WIN`` or ``ILLEGAL``; the
    state is untouched when the action is illegal. ``known_legal``: the caller has checked the
    action against the current mask, so the queen-line check is skipped."""
    frm = pad[action // nn]
    to = pad[action % nn]
    side = meta[SIDE]
    if meta[PHASE] == 0:
        index = core.find_queen(queens, nq, side, frm)
        if index < 0 or not (known_legal or core._line_clear(cells, dirs, frm, to)):
            return ILLEGAL
        cells[frm] = EMPTY
        cells[to] = side + 1
        queens[side, index] = to
        meta[SRC] = frm
        meta[DST] = to
        meta[QIDX] = index
        meta[PHASE] = 1
        return OK
    if frm != meta[DST] or not (known_legal or core._line_clear(cells, dirs, frm, to)):
        return ILLEGAL
    cells[to] = ARROW
    meta[PHASE] = 0
    meta[TURNS] += 1
    side ^= 1
    meta[SIDE] = side
    if not core.has_move(cells, queens, nq, side, dirs):
        meta[DONE] = 1
        meta[WINNER] = side ^ 1
        return WIN
    return OK


@njit(cache=True)
def _reach(cells, queens, nq, side, dirs, pub, out, offset):
    """Mark in ``out[offset + sq]`` every square one queen move from a queen of ``side``."""
    for i in range(nq[side]):
        q = queens[side, i]
        for d in range(8):
            step = dirs[d]
            s = q + step
            while cells[s] == EMPTY:
                out[offset + pub[s]] = 1
                s += step


@njit(cache=True)
def _legal_row(cells, dirs, pub, nn, frm, mask, out, offset, legal, n):
    """Set the mask row of the slides from ``frm``, mark their targets in ``out[offset + sq]``,
    list the actions in ``legal[n:]``; return the new length of the list."""
    base = pub[frm] * nn
    for d in range(8):
        step = dirs[d]
        s = frm + step
        while cells[s] == EMPTY:
            sq = pub[s]
            mask[base + sq] = 1
            out[offset + sq] = 1
            legal[n] = base + sq
            n += 1
            s += step
    return n


@njit(cache=True)
def write_obs_mask(cells, queens, nq, meta, dirs, pad, pub, nn, perspective, out, mask, legal):
    """Write the ``NUM_PLANES`` planes seen by ``perspective`` (see ``AmazonsEnv``) into the flat
    ``int8[NUM_PLANES * nn]`` array ``out``; when it is ``perspective``'s turn, also set the legal
    actions in the all-zero ``mask``, list them in ``legal[:meta[NLEGAL]]`` (``max_legal`` room)
    and record the mask's non-zero rows in ``meta`` (for ``clear_mask``). A finished game has no
    legal action."""
    out[:] = 0
    other = perspective ^ 1
    for i in range(nq[perspective]):
        out[pub[queens[perspective, i]]] = 1
    for i in range(nq[other]):
        out[nn + pub[queens[other, i]]] = 1
    for sq in range(nn):  # branch-free: arrows sit at random places
        out[2 * nn + sq] = cells[pad[sq]] == ARROW
    arrow_phase = meta[PHASE] == 1 and meta[DONE] == 0
    if arrow_phase:
        out[3 * nn:4 * nn] = 1
        out[4 * nn + pub[meta[DST]]] = 1
        out[5 * nn + pub[meta[SRC]]] = 1
    mover = perspective == meta[SIDE]
    if mover:  # another side's view leaves the mover's mask bookkeeping alone
        meta[ROWN] = 0
        meta[NLEGAL] = 0
    if mover and meta[DONE] == 0:
        if arrow_phase:
            meta[NLEGAL] = _legal_row(cells, dirs, pub, nn, meta[DST], mask, out, 6 * nn, legal, 0)
            meta[ROWS] = pub[meta[DST]]
            meta[ROWN] = 1
        else:
            n = 0
            for i in range(nq[perspective]):
                q = queens[perspective, i]
                n = _legal_row(cells, dirs, pub, nn, q, mask, out, 6 * nn, legal, n)
                meta[ROWS + i] = pub[q]
            meta[NLEGAL] = n
            meta[ROWN] = nq[perspective]
    else:
        _reach(cells, queens, nq, perspective, dirs, pub, out, 6 * nn)
    _reach(cells, queens, nq, other, dirs, pub, out, 7 * nn)
    if perspective == 1:
        out[8 * nn:9 * nn] = 1


@njit(cache=True)
def clear_mask(meta, nn, mask):
    """Zero the rows ``write_obs_mask`` set (cheaper than clearing all ``nn * nn`` entries)."""
    for r in range(meta[ROWN]):
        base = meta[ROWS + r] * nn
        mask[base:base + nn] = 0
    meta[ROWN] = 0


@njit(cache=True)
def single_step(cells, queens, nq, meta, dirs, pad, pub, nn, action, obs, mask, legal):
    """``step_one``, then the next observation (for the side to move) and mask into fresh
    zeroed ``obs``/``mask`` arrays (skipped when the action was illegal)."""
    code = step_one(cells, queens, nq, meta, dirs, pad, nn, action)
    if code != ILLEGAL:
        write_obs_mask(cells, queens, nq, meta, dirs, pad, pub, nn, meta[SIDE], obs, mask, legal)
    return code


@njit(cache=True)
def reset_batch(cells, queens, nq, meta, which, init_cells, init_queens, init_nq, init_side,
                dirs, pad, pub, nn, obs, masks, legal):
    """Put every game ``i`` with ``which[i]`` back to the initial position and refresh its
    observation and mask."""
    for i in range(cells.shape[0]):
        if which[i]:
            clear_mask(meta[i], nn, masks[i])
            cells[i, :] = init_cells
            queens[i, :, :] = init_queens
            nq[i, :] = init_nq
            meta[i, :] = 0
            meta[i, SIDE] = init_side
            meta[i, WINNER] = -1
            write_obs_mask(cells[i], queens[i], nq[i], meta[i], dirs, pad, pub, nn, init_side, obs[i], masks[i],
                           legal[i])


@njit(cache=True)
def check_batch(meta, masks, actions):
    """Index of the first unfinished game whose action is not in its mask, or -1."""
    for i in range(meta.shape[0]):
        if meta[i, DONE] == 0 and masks[i, actions[i]] != 1:
            return i
    return -1


@njit(cache=True)
def _step_game(i, cells, queens, nq, meta, actions, init_cells, init_queens, init_nq, init_side,
               dirs, pad, pub, nn, obs, masks, legal, rewards, terminated, illegal):
    m = meta[i]
    in_mask = masks[i, actions[i]] == 1  # the mask of the current position, kept by this env
    clear_mask(m, nn, masks[i])
    rewards[i] = 0.0
    terminated[i] = False
    illegal[i] = False
    if m[DONE] != 0:
        cells[i, :] = init_cells
        queens[i, :, :] = init_queens
        nq[i, :] = init_nq
        m[:] = 0
        m[SIDE] = init_side
        m[WINNER] = -1
    else:
        code = step_one(cells[i], queens[i], nq[i], m, dirs, pad, nn, actions[i], True) if in_mask else ILLEGAL
        if code == WIN:
            rewards[i] = 1.0
            terminated[i] = True
        elif code == ILLEGAL:
            rewards[i] = -1.0
            terminated[i] = True
            illegal[i] = True
            m[DONE] = 1
            m[WINNER] = m[SIDE] ^ 1
    write_obs_mask(cells[i], queens[i], nq[i], m, dirs, pad, pub, nn, m[SIDE], obs[i], masks[i], legal[i])


@njit(cache=True, parallel=True)
def step_batch(cells, queens, nq, meta, actions, init_cells, init_queens, init_nq, init_side,
               dirs, pad, pub, nn, obs, masks, legal, rewards, terminated, illegal):
    """Advance every game by one action (next-step autoreset: a game that ended on the previous
    step is reset instead and its action ignored); write rewards for the acting side,
    terminations, illegal-action flags, observations (for the side to move next) and masks."""
    # One contiguous block of games per numba thread. Games are independent and each writes only
    # its own rows, so the result does not depend on the thread count. Blocks, not ``prange`` over
    # single games: per-game views inside ``prange`` contend on reference counts (several times slower).
    n = cells.shape[0]
    blocks = get_num_threads()
    for b in prange(blocks):
        for i in range(b * n // blocks, (b + 1) * n // blocks):
            _step_game(i, cells, queens, nq, meta, actions, init_cells, init_queens, init_nq, init_side,
                       dirs, pad, pub, nn, obs, masks, legal, rewards, terminated, illegal)


@njit(cache=True)
def sample_legal(meta, legal, uniforms, out):
    """``out[i]``: a uniformly random legal action of game ``i`` (``uniforms[i]`` in [0, 1) picks
    it from its ``legal`` list); -1 for a finished game."""
    for i in range(meta.shape[0]):
        n = meta[i, NLEGAL]
        out[i] = legal[i, int(uniforms[i] * n)] if n > 0 else -1
