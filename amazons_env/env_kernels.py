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

import math

import numpy as np
from numba import njit, prange

from . import core
from .core import ARROW, EMPTY, MAX_QUEENS, MAX_SIZE

__all__ = [
    "SIDE", "PHASE", "SRC", "DST", "QIDX", "TURNS", "DONE", "WINNER", "NLEGAL", "ROWN", "ROWS", "EMPTY_ROWS", "META_SIZE", "max_legal",
    "NUM_PLANES", "OK", "WIN", "ILLEGAL",
    "new_meta", "step_one", "write_obs_mask", "clear_mask", "single_step",
    "step_batch", "step_batch_parallel", "step_some", "observe_some", "reset_batch", "first_out_of_range", "check_batch", "sample_legal",
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
EMPTY_ROWS = ROWS + MAX_QUEENS  # bit c of field EMPTY_ROWS + r: square (r, c) is empty
META_SIZE = EMPTY_ROWS + MAX_SIZE

NUM_PLANES = 9

# step results
OK = 0
WIN = 1       # the mover's arrow left the opponent without a move: the mover won
ILLEGAL = 2


def max_legal(size: int) -> int:
    """Room for the legal actions of one step (queen phase: every queen's slides)."""
    return MAX_QUEENS * 4 * (size - 1)


def new_meta(cells: np.ndarray, side: int) -> np.ndarray:
    """A fresh ``meta`` row for the position ``cells`` with ``side`` to move in the queen phase."""
    meta = np.zeros(META_SIZE, dtype=np.int64)
    meta[SIDE] = side
    meta[WINNER] = -1
    width = math.isqrt(len(cells))
    empty = cells.reshape(width, width)[1:-1, 1:-1] == EMPTY
    meta[EMPTY_ROWS:EMPTY_ROWS + width - 2] = empty @ (1 << np.arange(width - 2, dtype=np.int64))
    return meta


@njit(cache=True, inline="always")
def _occupy(meta, size, sq, occupied):
    """Keep ``EMPTY_ROWS`` in step with ``cells``: public square ``sq`` became occupied or empty."""
    r = EMPTY_ROWS + sq // size
    bit = np.int64(1) << (sq % size)
    meta[r] = (meta[r] & ~bit) if occupied else (meta[r] | bit)


@njit(cache=True, inline="always")
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
        size = dirs[2] - 2
        _occupy(meta, size, action // nn, False)
        _occupy(meta, size, action % nn, True)
        meta[SRC] = frm
        meta[DST] = to
        meta[QIDX] = index
        meta[PHASE] = 1
        return OK
    if frm != meta[DST] or not (known_legal or core._line_clear(cells, dirs, frm, to)):
        return ILLEGAL
    cells[to] = ARROW
    _occupy(meta, dirs[2] - 2, action % nn, True)
    meta[PHASE] = 0
    meta[TURNS] += 1
    side ^= 1
    meta[SIDE] = side
    if not core.has_move(cells, queens, nq, side, dirs):
        meta[DONE] = 1
        meta[WINNER] = side ^ 1
        return WIN
    return OK


@njit(cache=True, inline="always")
def _fill(g, p, left):
    """Occluded fill of the bits ``g`` along a row through the bits ``p`` (shifting left or right):
    ``g`` plus every bit of ``p`` reached from it without crossing a bit outside ``p``."""
    if left:
        g |= p & (g << 1)
        p &= p << 1
        g |= p & (g << 2)
        p &= p << 2
        g |= p & (g << 4)
        p &= p << 4
        return g | (p & (g << 8))
    g |= p & (g >> 1)
    p &= p >> 1
    g |= p & (g >> 2)
    p &= p >> 2
    g |= p & (g >> 4)
    p &= p >> 4
    return g | (p & (g >> 8))


@njit(cache=True, inline="always")
def _reach(meta, queens, nq, side, dirs, pub, out, offset, rows):
    """Set ``out[offset + sq]`` to 1 on every square one queen move from a queen of ``side``, 0
    elsewhere. ``rows``: ``int64[2 * MAX_SIZE]`` scratch.

    Branch-free on row bit masks (bit c of row r = square (r, c); the empty squares are kept in
    ``meta``): one pass up the board carries the north, north-east and north-west rays from row
    to row, one pass down the southern ones, and each row fills east and west within itself.
    Walking 8 rays per queen instead ends every ray in a mispredicted branch."""
    size = dirs[2] - 2
    rows[:size] = 0
    for i in range(nq[side]):
        sq = pub[queens[side, i]]
        rows[sq // size] |= np.int64(1) << (sq % size)
    n = ne = nw = 0
    below = 0  # the queens of the row below
    for r in range(size):
        empty = meta[EMPTY_ROWS + r]
        mine = rows[r]
        n = (n | below) & empty
        ne = ((ne | below) << 1) & empty
        nw = ((nw | below) >> 1) & empty
        rows[size + r] = (n | ne | nw | (_fill(mine, empty, True) << 1) | (_fill(mine, empty, False) >> 1)) & empty
        below = mine
    s = se = sw = 0
    above = 0
    for r in range(size - 1, -1, -1):
        empty = meta[EMPTY_ROWS + r]
        s = (s | above) & empty
        se = ((se | above) << 1) & empty
        sw = ((sw | above) >> 1) & empty
        reach = rows[size + r] | s | se | sw
        above = rows[r]
        at = offset + r * size
        for c in range(size):
            out[at + c] = (reach >> c) & 1


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def _arrow_plane(cells, pad, nn, out):
    """Plane 2 from ``cells`` (the step kernel then only adds each new arrow)."""
    for sq in range(nn):  # branch-free: arrows sit at random places
        out[2 * nn + sq] = cells[pad[sq]] == ARROW


@njit(cache=True, inline="always")
def _other_planes(cells, queens, nq, meta, dirs, pub, nn, perspective, out, mask, legal, rows):
    """Every plane but the arrows (see ``write_obs_mask``). Planes written whole are not zeroed first."""
    out[:2 * nn] = 0
    out[4 * nn:6 * nn] = 0
    other = perspective ^ 1
    for i in range(nq[perspective]):
        out[pub[queens[perspective, i]]] = 1
    for i in range(nq[other]):
        out[nn + pub[queens[other, i]]] = 1
    arrow_phase = meta[PHASE] == 1 and meta[DONE] == 0
    out[3 * nn:4 * nn] = arrow_phase
    if arrow_phase:
        out[4 * nn + pub[meta[DST]]] = 1
        out[5 * nn + pub[meta[SRC]]] = 1
    mover = perspective == meta[SIDE]
    if mover:  # another side's view leaves the mover's mask bookkeeping alone
        meta[ROWN] = 0
        meta[NLEGAL] = 0
    if mover and meta[DONE] == 0:
        out[6 * nn:7 * nn] = 0
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
        _reach(meta, queens, nq, perspective, dirs, pub, out, 6 * nn, rows)
    _reach(meta, queens, nq, other, dirs, pub, out, 7 * nn, rows)
    out[8 * nn:9 * nn] = perspective


@njit(cache=True)
def write_obs_mask(cells, queens, nq, meta, dirs, pad, pub, nn, perspective, out, mask, legal):
    """Write the ``NUM_PLANES`` planes seen by ``perspective`` (see ``AmazonsEnv``) into the flat
    ``int8[NUM_PLANES * nn]`` array ``out``; when it is ``perspective``'s turn, also set the legal
    actions in the all-zero ``mask``, list them in ``legal[:meta[NLEGAL]]`` (``max_legal`` room)
    and record the mask's non-zero rows in ``meta`` (for ``clear_mask``). A finished game has no
    legal action."""
    _arrow_plane(cells, pad, nn, out)
    rows = np.empty(2 * MAX_SIZE, np.int64)
    _other_planes(cells, queens, nq, meta, dirs, pub, nn, perspective, out, mask, legal, rows)


@njit(cache=True, inline="always")
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
def reset_batch(cells, queens, nq, meta, which, init_cells, init_queens, init_nq, init_meta,
                dirs, pad, pub, nn, obs, masks, legal):
    """Put every game ``i`` with ``which[i]`` back to the initial position and refresh its
    observation and mask."""
    for i in range(cells.shape[0]):
        if which[i]:
            clear_mask(meta[i], nn, masks[i])
            cells[i, :] = init_cells
            queens[i, :, :] = init_queens
            nq[i, :] = init_nq
            meta[i, :] = init_meta
            write_obs_mask(cells[i], queens[i], nq[i], meta[i], dirs, pad, pub, nn, init_meta[SIDE], obs[i], masks[i],
                           legal[i])


@njit(cache=True)
def first_out_of_range(actions, limit):
    """Index of the first action outside ``0 <= action < limit``, or -1."""
    for i in range(actions.shape[0]):
        if actions[i] < 0 or actions[i] >= limit:
            return i
    return -1


@njit(cache=True)
def check_batch(meta, masks, actions):
    """Index of the first unfinished game whose action is not in its mask, or -1."""
    for i in range(meta.shape[0]):
        if meta[i, DONE] == 0 and masks[i, actions[i]] != 1:
            return i
    return -1


@njit(cache=True, inline="always")
def _step_game(i, cells, queens, nq, meta, actions, init_cells, init_queens, init_nq, init_meta,
               dirs, pad, pub, nn, obs, masks, legal, rewards, terminated, illegal, rows):
    """One game of ``step_batch``; returns the side that acted (-1 for an autoreset)."""
    m = meta[i]
    actor = -1 if m[DONE] != 0 else m[SIDE]
    out = obs[i]
    mask = masks[i]
    action = actions[i]
    in_mask = mask[action] == 1  # the mask of the current position, kept by this env
    clear_mask(m, nn, mask)
    rewards[i] = 0.0
    terminated[i] = False
    illegal[i] = False
    if m[DONE] != 0:
        cells[i, :] = init_cells
        queens[i, :, :] = init_queens
        nq[i, :] = init_nq
        m[:] = init_meta
        _arrow_plane(cells[i], pad, nn, out)
    else:
        shot = m[PHASE] == 1
        code = step_one(cells[i], queens[i], nq[i], m, dirs, pad, nn, action, True) if in_mask else ILLEGAL
        if code == ILLEGAL:
            rewards[i] = -1.0
            terminated[i] = True
            illegal[i] = True
            m[DONE] = 1
            m[WINNER] = m[SIDE] ^ 1
        else:
            if shot:  # the arrow plane only gains the new arrow
                out[2 * nn + action % nn] = 1
            if code == WIN:
                rewards[i] = 1.0
                terminated[i] = True
    _other_planes(cells[i], queens[i], nq[i], m, dirs, pub, nn, m[SIDE], out, mask, legal[i], rows)
    return actor


@njit(cache=True, inline="always")
def _step_range(lo, hi, cells, queens, nq, meta, actions, init_cells, init_queens, init_nq, init_meta,
                dirs, pad, pub, nn, obs, masks, legal, rewards, terminated, illegal, player_rewards):
    rows = np.empty(2 * MAX_SIZE, np.int64)  # scratch of this range
    for i in range(lo, hi):
        actor = _step_game(i, cells, queens, nq, meta, actions, init_cells, init_queens, init_nq, init_meta,
                           dirs, pad, pub, nn, obs, masks, legal, rewards, terminated, illegal, rows)
        # games are zero-sum: the other side gets the opposite of the actor's reward
        r = rewards[i]
        player_rewards[i, 0] = r if actor == 0 else 0.0 - r  # 0.0 - r: no -0.0
        player_rewards[i, 1] = 0.0 - player_rewards[i, 0]


@njit(cache=True)
def step_batch(cells, queens, nq, meta, actions, init_cells, init_queens, init_nq, init_meta,
               dirs, pad, pub, nn, obs, masks, legal, rewards, terminated, illegal, player_rewards):
    """Advance every game by one action (next-step autoreset: a game that ended on the previous
    step is reset instead and its action ignored); write rewards for the acting side and for
    each colour (``player_rewards[i] = [white, black]``), terminations, illegal-action flags,
    observations (for the side to move next) and masks. The arrays must hold what
    ``reset_batch`` and earlier calls left (planes are updated, not rebuilt). One thread: no
    threading layer is involved, so a busy machine does not slow it down."""
    _step_range(0, cells.shape[0], cells, queens, nq, meta, actions, init_cells, init_queens, init_nq, init_meta,
                dirs, pad, pub, nn, obs, masks, legal, rewards, terminated, illegal, player_rewards)


@njit(cache=True, parallel=True)
def step_batch_parallel(cells, queens, nq, meta, actions, init_cells, init_queens, init_nq, init_meta,
                        dirs, pad, pub, nn, obs, masks, legal, rewards, terminated, illegal, player_rewards,
                        blocks):
    """``step_batch`` on ``blocks`` threads (set numba's thread count to ``blocks`` around it)."""
    # contiguous blocks of games, games in a block in order. Games are independent and each writes
    # only its own rows, so the result does not depend on ``blocks``. Blocks, not ``prange`` over
    # single games: per-game views inside ``prange`` contend on reference counts.
    n = cells.shape[0]
    for b in prange(blocks):
        _step_range(b * n // blocks, (b + 1) * n // blocks, cells, queens, nq, meta, actions, init_cells,
                    init_queens, init_nq, init_meta, dirs, pad, pub, nn, obs, masks, legal, rewards, terminated,
                    illegal, player_rewards)


@njit(cache=True)
def step_some(which, cells, queens, nq, meta, actions, dirs, pad, pub, nn, obs, masks, legal):
    """Apply ``actions[i]`` (legal, checked by the caller) to the running games ``i`` listed in
    ``which`` and refresh their observations and masks (an opponent's half-turn)."""
    rows = np.empty(2 * MAX_SIZE, np.int64)
    for k in range(which.shape[0]):
        i = which[k]
        m = meta[i]
        clear_mask(m, nn, masks[i])
        shot = m[PHASE] == 1
        step_one(cells[i], queens[i], nq[i], m, dirs, pad, nn, actions[i], True)
        if shot:
            obs[i, 2 * nn + actions[i] % nn] = 1
        _other_planes(cells[i], queens[i], nq[i], m, dirs, pub, nn, m[SIDE], obs[i], masks[i], legal[i], rows)


@njit(cache=True)
def observe_some(which, perspective, cells, queens, nq, meta, dirs, pad, pub, nn, obs, masks, legal):
    """Rewrite the observation of each game ``i`` in ``which`` as seen by ``perspective[i]``."""
    for k in range(which.shape[0]):
        i = which[k]
        write_obs_mask(cells[i], queens[i], nq[i], meta[i], dirs, pad, pub, nn, perspective[i], obs[i], masks[i],
                       legal[i])


@njit(cache=True)
def sample_legal(meta, legal, uniforms, out):
    """``out[i]``: a uniformly random legal action of game ``i`` (``uniforms[i]`` in [0, 1) picks
    it from its ``legal`` list); 0 for a finished game (its next step is the autoreset, which
    ignores the action, and 0 passes the range check)."""
    for i in range(meta.shape[0]):
        n = meta[i, NLEGAL]
        out[i] = legal[i, int(uniforms[i] * n)] if n > 0 else 0
