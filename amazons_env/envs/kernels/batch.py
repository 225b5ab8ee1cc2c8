"""Numba kernels of a batch of games, for the vector env: reset, the range checks of a batch of
actions, one step of every game with next-step autoreset (on one thread or several), an
opponent's half-turn in some games, observations from another side, uniform legal actions.

Each game of the batch is stepped by the one-game kernels of ``kernels`` (``step_one``,
``other_planes``, ``clear_mask``) on arrays without reference counting (``_borrowed``, see
``kernels``); games are independent and each writes only its own rows.

>>> from amazons_env import Board, core
>>> from amazons_env.envs.kernels.game import NLEGAL, NUM_PLANES, max_legal, new_meta
>>> board, nn = Board(6), 36
>>> init = (board.cells, board.queens, board.queen_counts, new_meta(board.cells, 0))
>>> cells, queens, nq, meta = (np.stack([a, a]) for a in init)
>>> obs, masks = np.zeros((2, NUM_PLANES * nn), np.int8), np.zeros((2, nn * nn), np.int8)
>>> legal = np.zeros((2, max_legal(6)), np.int32)
>>> reset_batch(cells, queens, nq, meta, np.ones(2, np.bool_), *init, core.directions(8), core.padded_index(6),
...             core.public_index(6), nn, obs, masks, legal)
>>> [int(n) for n in meta[:, NLEGAL]], int(masks.sum())
([40, 40], 80)
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from amazons_env.core import EMPTY, MAX_SIZE
from amazons_env.envs.kernels.game import (
    DONE,
    DST,
    ILLEGAL,
    NLEGAL,
    PHASE,
    SIDE,
    WIN,
    WINNER,
    action_source,
    arrow_plane,
    clear_mask,
    other_planes,
    step_one,
    write_obs_mask,
)
from amazons_env.envs.kernels.intrinsics import borrowed as _borrowed
from amazons_env.envs.kernels.intrinsics import prefetch_write as _prefetch

__all__ = [
    "reset_batch",
    "first_out_of_range",
    "check_batch",
    "step_batch",
    "step_batch_parallel",
    "step_some",
    "observe_some",
    "sample_legal",
    "random_replies",
    "learner_outcomes",
]


@njit(cache=True)
def reset_batch(
    cells, queens, nq, meta, which, init_cells, init_queens, init_nq, init_meta, dirs, pad, pub, nn, obs, masks, legal
):
    """Put every game ``i`` with ``which[i]`` back to the initial position and refresh its
    observation and mask."""
    for i in range(cells.shape[0]):
        if which[i]:
            clear_mask(meta, i, nn, masks)
            _reset_game(i, cells, queens, nq, meta, init_cells, init_queens, init_nq, init_meta)
            write_obs_mask(cells, queens, nq, meta, i, dirs, pad, pub, nn, init_meta[SIDE], obs, masks, legal)


@njit(cache=True, inline="always")
def _reset_game(g, cells, queens, nq, meta, init_cells, init_queens, init_nq, init_meta):
    for k in range(init_cells.shape[0]):
        cells[g, k] = init_cells[k]
    for side in range(2):
        nq[g, side] = init_nq[side]
        for k in range(init_queens.shape[1]):
            queens[g, side, k] = init_queens[side, k]
    for k in range(init_meta.shape[0]):
        meta[g, k] = init_meta[k]


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
def _step_game(
    i,
    cells,
    queens,
    nq,
    meta,
    actions,
    init_cells,
    init_queens,
    init_nq,
    init_meta,
    dirs,
    pad,
    pub,
    nn,
    obs,
    masks,
    legal,
    rewards,
    terminated,
    illegal,
    rows,
):
    """One game of ``step_batch``; returns the side that acted (-1 for an autoreset)."""
    actor = -1 if meta[i, DONE] != 0 else meta[i, SIDE]
    action = actions[i]
    in_mask = masks[i, action] == 1  # the mask of the current position, kept by this env
    clear_mask(meta, i, nn, masks)
    rewards[i] = 0.0
    terminated[i] = False
    illegal[i] = False
    if meta[i, DONE] != 0:
        _reset_game(i, cells, queens, nq, meta, init_cells, init_queens, init_nq, init_meta)
        arrow_plane(cells, i, pad, nn, obs)
    else:
        shot = meta[i, PHASE] == 1
        code = step_one(cells, queens, nq, meta, i, dirs, pad, nn, action, True) if in_mask else ILLEGAL
        if code == ILLEGAL:
            rewards[i] = -1.0
            terminated[i] = True
            illegal[i] = True
            meta[i, DONE] = 1
            meta[i, WINNER] = meta[i, SIDE] ^ 1
        else:
            if shot:  # the arrow plane only gains the new arrow
                obs[i, 2 * nn + action - action_source(action, nn) * nn] = 1
            if code == WIN:
                rewards[i] = 1.0
                terminated[i] = True
    other_planes(cells, queens, nq, meta, i, dirs, pub, nn, meta[i, SIDE], obs, masks, legal, rows)
    return actor


@njit(cache=True)
def _step_range(
    lo,
    hi,
    cells,
    queens,
    nq,
    meta,
    actions,
    init_cells,
    init_queens,
    init_nq,
    init_meta,
    dirs,
    pad,
    pub,
    nn,
    obs,
    masks,
    legal,
    rewards,
    terminated,
    illegal,
    player_rewards,
):
    """Games ``lo`` to ``hi - 1`` of ``step_batch``, on borrowed arrays (see ``_borrowed``)."""
    cells, queens, nq, meta, actions = (
        _borrowed(cells),
        _borrowed(queens),
        _borrowed(nq),
        _borrowed(meta),
        _borrowed(actions),
    )
    init_cells, init_queens, init_nq, init_meta = (
        _borrowed(init_cells),
        _borrowed(init_queens),
        _borrowed(init_nq),
        _borrowed(init_meta),
    )
    dirs, pad, pub, obs, masks, legal = (
        _borrowed(dirs),
        _borrowed(pad),
        _borrowed(pub),
        _borrowed(obs),
        _borrowed(masks),
        _borrowed(legal),
    )
    rewards, terminated, illegal, player_rewards = (
        _borrowed(rewards),
        _borrowed(terminated),
        _borrowed(illegal),
        _borrowed(player_rewards),
    )
    rows = np.empty(2 * MAX_SIZE, np.int64)  # scratch of this range
    for i in range(lo, hi):
        if i + 1 < hi:  # the next game's mask entry: its first read would wait on memory
            _prefetch(masks, i + 1, actions[i + 1])
        actor = _step_game(
            i,
            cells,
            queens,
            nq,
            meta,
            actions,
            init_cells,
            init_queens,
            init_nq,
            init_meta,
            dirs,
            pad,
            pub,
            nn,
            obs,
            masks,
            legal,
            rewards,
            terminated,
            illegal,
            rows,
        )
        # games are zero-sum: the other side gets the opposite of the actor's reward
        r = rewards[i]
        player_rewards[i, 0] = r if actor == 0 else 0.0 - r  # 0.0 - r: no -0.0
        player_rewards[i, 1] = 0.0 - player_rewards[i, 0]


@njit(cache=True)
def step_batch(
    cells,
    queens,
    nq,
    meta,
    actions,
    init_cells,
    init_queens,
    init_nq,
    init_meta,
    dirs,
    pad,
    pub,
    nn,
    obs,
    masks,
    legal,
    rewards,
    terminated,
    illegal,
    player_rewards,
):
    """Advance every game by one action (next-step autoreset: a game that ended on the previous
    step is reset instead and its action ignored); write rewards for the acting side and for
    each colour (``player_rewards[i] = [white, black]``), terminations, illegal-action flags,
    observations (for the side to move next) and masks. The arrays must hold what
    ``reset_batch`` and earlier calls left (planes are updated, not rebuilt). One thread: no
    threading layer is involved, so a busy machine does not slow it down."""
    _step_range(
        0,
        cells.shape[0],
        cells,
        queens,
        nq,
        meta,
        actions,
        init_cells,
        init_queens,
        init_nq,
        init_meta,
        dirs,
        pad,
        pub,
        nn,
        obs,
        masks,
        legal,
        rewards,
        terminated,
        illegal,
        player_rewards,
    )


@njit(cache=True, parallel=True)
def step_batch_parallel(
    cells,
    queens,
    nq,
    meta,
    actions,
    init_cells,
    init_queens,
    init_nq,
    init_meta,
    dirs,
    pad,
    pub,
    nn,
    obs,
    masks,
    legal,
    rewards,
    terminated,
    illegal,
    player_rewards,
    blocks,
):
    """``step_batch`` on ``blocks`` threads (set numba's thread count to ``blocks`` around it)."""
    # contiguous blocks of games, games in a block in order. Games are independent and each writes
    # only its own rows, so the result does not depend on ``blocks``.
    n = cells.shape[0]
    for b in prange(blocks):
        _step_range(
            b * n // blocks,
            (b + 1) * n // blocks,
            cells,
            queens,
            nq,
            meta,
            actions,
            init_cells,
            init_queens,
            init_nq,
            init_meta,
            dirs,
            pad,
            pub,
            nn,
            obs,
            masks,
            legal,
            rewards,
            terminated,
            illegal,
            player_rewards,
        )


@njit(cache=True)
def step_some(which, cells, queens, nq, meta, actions, dirs, pad, pub, nn, obs, masks, legal):
    """Apply ``actions[i]`` (legal, checked by the caller) to the running games ``i`` listed in
    ``which`` and refresh their observations and masks (an opponent's half-turn)."""
    rows = np.empty(2 * MAX_SIZE, np.int64)
    for k in range(which.shape[0]):
        i = which[k]
        clear_mask(meta, i, nn, masks)
        shot = meta[i, PHASE] == 1
        step_one(cells, queens, nq, meta, i, dirs, pad, nn, actions[i], True)
        if shot:
            obs[i, 2 * nn + actions[i] - action_source(actions[i], nn) * nn] = 1
        other_planes(cells, queens, nq, meta, i, dirs, pub, nn, meta[i, SIDE], obs, masks, legal, rows)


@njit(cache=True)
def observe_some(which, perspective, cells, queens, nq, meta, dirs, pad, pub, nn, obs, masks, legal):
    """Rewrite the observation of each game ``i`` in ``which`` as seen by ``perspective[i]``."""
    for k in range(which.shape[0]):
        i = which[k]
        write_obs_mask(cells, queens, nq, meta, i, dirs, pad, pub, nn, perspective[i], obs, masks, legal)


@njit(cache=True)
def sample_legal(meta, legal, uniforms, out):
    """``out[i]``: a uniformly random legal action of game ``i`` (``uniforms[i]`` in [0, 1) picks
    it from its ``legal`` list); 0 for a finished game (its next step is the autoreset, which
    ignores the action, and 0 passes the range check)."""
    for i in range(meta.shape[0]):
        n = meta[i, NLEGAL]
        out[i] = legal[i, int(uniforms[i] * n)] if n > 0 else 0


@njit(cache=True)
def random_replies(learner, uniforms, cells, queens, nq, meta, dirs, pad, pub, nn, obs, masks, legal):
    """In every running game ``i`` where the opponent of ``learner[i]`` is to move, a whole turn of
    the batched random opponent: the queen action that ``uniforms[2 i]`` picks from the legal list,
    then the arrow that ``uniforms[2 i + 1]`` picks among the moved queen's empty lines; only the
    position after the turn gets its observation and mask (the one in between is never shown)."""
    rows = np.empty(2 * MAX_SIZE, np.int64)
    for i in range(meta.shape[0]):
        if meta[i, DONE] != 0 or meta[i, SIDE] == learner[i] or meta[i, PHASE] != 0:
            continue
        clear_mask(meta, i, nn, masks)
        step_one(cells, queens, nq, meta, i, dirs, pad, nn, legal[i, int(uniforms[2 * i] * meta[i, NLEGAL])], True)
        to = meta[i, DST]
        count = 0
        for d in range(8):
            square = to + dirs[d]
            while cells[i, square] == EMPTY:
                count += 1
                square += dirs[d]
        k = int(uniforms[2 * i + 1] * count)  # >= 1 square: the one the queen left
        arrow = -1
        for d in range(8):
            square = to + dirs[d]
            while arrow < 0 and cells[i, square] == EMPTY:
                if k == 0:
                    arrow = square
                k -= 1
                square += dirs[d]
        step_one(cells, queens, nq, meta, i, dirs, pad, nn, pub[to] * nn + pub[arrow], True)
        obs[i, 2 * nn + pub[arrow]] = 1
        other_planes(cells, queens, nq, meta, i, dirs, pub, nn, meta[i, SIDE], obs, masks, legal, rows)


@njit(cache=True)
def learner_outcomes(
    was_done, learner, cells, queens, nq, meta, dirs, pad, pub, nn, obs, masks, legal, rewards, player_rewards, ended
):
    """After the opponent's replies: the games that ended in this step (``ended``), their rewards
    of White and Black (``player_rewards``) and the learner's (``rewards``), and the last
    observation of an ended game rewritten from the learner's side."""
    for i in range(meta.shape[0]):
        ended[i] = meta[i, DONE] == 1 and not was_done[i]
        player_rewards[i, 0] = 0.0
        player_rewards[i, 1] = 0.0
        if ended[i]:
            winner = meta[i, WINNER]
            player_rewards[i, winner] = 1.0
            player_rewards[i, 1 - winner] = -1.0
            if meta[i, SIDE] != learner[i]:
                write_obs_mask(cells, queens, nq, meta, i, dirs, pad, pub, nn, learner[i], obs, masks, legal)
        rewards[i] = player_rewards[i, learner[i]]
