"""Numba kernels of a batch of games, for the vector env: reset, the range checks of a batch of
actions, one step of every game with next-step autoreset (on one thread or several), an
opponent's half-turn in some games, uniform legal actions, the learner's outcomes.

Each game of the batch is stepped by the one-game kernels of ``game`` (``step_one``,
``other_planes``, ``clear_mask``) on its bundles (``Positions``, ``Geometry``, ``Observations``)
and this module's ``Outcomes``, borrowed (without reference counting, see ``_borrowed``); games
are independent and each writes only its own rows.

The vector env calls these kernels once per step or half-turn, where numba's dispatch (typing
every array of the bundles on every call) costs as much as stepping many games: it calls the
compiled function of its arguments' types (``game.compiled``) instead.

>>> from amazons_env import Board
>>> from amazons_env.envs.kernels.game import NLEGAL, Geometry, new_observations, start_positions
>>> games, start, out = start_positions(Board(6), 2), start_positions(Board(6), 1), new_observations(6, 2)
>>> reset_batch(games, np.ones(2, np.bool_), start, Geometry.of(6), out)
>>> [int(n) for n in games.meta[:, NLEGAL]], int(out.masks.sum())
([40, 40], 80)
"""

from __future__ import annotations

from typing import NamedTuple

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
    show_every_action,
    step_one,
    write_obs_mask,
)
from amazons_env.envs.kernels.intrinsics import borrowed as _borrowed
from amazons_env.envs.kernels.intrinsics import prefetch_write as _prefetch
from amazons_env.envs.planes import PLANE_ARROWS

__all__ = [
    "Outcomes",
    "new_outcomes",
    "reset_batch",
    "first_out_of_range",
    "check_batch",
    "step_batch",
    "step_batch_parallel",
    "step_some",
    "sample_legal",
    "random_replies",
    "learner_outcomes",
]


class Outcomes(NamedTuple):
    """What a step of a batch of games returns besides observations: the ``rewards`` of the side
    that acted (``float64[B]``), ``terminated`` and ``illegal`` (an illegal action ended the game)
    flags (``bool[B]``) and ``player_rewards`` (``float64[B, 2]``: White's and Black's)."""

    rewards: np.ndarray
    terminated: np.ndarray
    illegal: np.ndarray
    player_rewards: np.ndarray


def new_outcomes(count: int) -> Outcomes:
    """Zeroed ``Outcomes`` of ``count`` games."""
    return Outcomes(np.zeros(count), np.zeros(count, np.bool_), np.zeros(count, np.bool_), np.zeros((count, 2)))


@njit(cache=True)
def reset_batch(games, which, start, geometry, out):
    """Put every game ``i`` of ``games`` with ``which[i]`` back to the position of ``start`` (a
    ``Positions`` of one game) and refresh its observation and mask in ``out``."""
    for i in range(games.cells.shape[0]):
        if which[i]:
            clear_mask(games.meta, i, geometry.nn, out.masks)
            _reset_game(i, games, start)
            write_obs_mask(games, i, geometry, start.meta[0, SIDE], out)


@njit(cache=True, inline="always")
def _reset_game(g, games, start):
    for k in range(start.cells.shape[1]):
        games.cells[g, k] = start.cells[0, k]
    for side in range(2):
        games.nq[g, side] = start.nq[0, side]
        for k in range(start.queens.shape[2]):
            games.queens[g, side, k] = start.queens[0, side, k]
    for k in range(start.meta.shape[1]):
        games.meta[g, k] = start.meta[0, k]


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
def _step_game(i, games, actions, start, geometry, out, outcomes, rows):
    """One game of ``step_batch``; returns the side that acted (-1 for an autoreset)."""
    meta, masks, nn = games.meta, out.masks, geometry.nn
    actor = -1 if meta[i, DONE] != 0 else meta[i, SIDE]
    action = actions[i]
    in_mask = masks[i, action] == 1  # the mask of the current position, kept by this env
    clear_mask(meta, i, nn, masks)
    outcomes.rewards[i] = 0.0
    outcomes.terminated[i] = False
    outcomes.illegal[i] = False
    if meta[i, DONE] != 0:
        _reset_game(i, games, start)
        arrow_plane(games.cells, i, geometry.pad, nn, out.obs)
    else:
        shot = meta[i, PHASE] == 1
        code = step_one(games, i, geometry, action, True) if in_mask else ILLEGAL
        if code == ILLEGAL:
            outcomes.rewards[i] = -1.0
            outcomes.terminated[i] = True
            outcomes.illegal[i] = True
            meta[i, DONE] = 1
            meta[i, WINNER] = meta[i, SIDE] ^ 1
        else:
            if shot:  # the arrow plane only gains the new arrow
                out.obs[i, PLANE_ARROWS * nn + action - action_source(action, nn) * nn] = 1
            if code == WIN:
                outcomes.rewards[i] = 1.0
                outcomes.terminated[i] = True
    other_planes(games, i, geometry, meta[i, SIDE], out, rows)
    if outcomes.terminated[i]:
        show_every_action(i, nn, masks)
    return actor


@njit(cache=True)
def _step_range(lo, hi, games, actions, start, geometry, out, outcomes):
    """Games ``lo`` to ``hi - 1`` of ``step_batch``, on borrowed arrays (see ``_borrowed``)."""
    games, actions, start, geometry = _borrowed(games), _borrowed(actions), _borrowed(start), _borrowed(geometry)
    out, outcomes = _borrowed(out), _borrowed(outcomes)
    player_rewards = outcomes.player_rewards
    rows = np.empty(2 * MAX_SIZE, np.int64)  # scratch of this range
    for i in range(lo, hi):
        if i + 1 < hi:  # the next game's mask entry: its first read would wait on memory
            _prefetch(out.masks, i + 1, actions[i + 1])
        actor = _step_game(i, games, actions, start, geometry, out, outcomes, rows)
        # games are zero-sum: the other side gets the opposite of the actor's reward
        r = outcomes.rewards[i]
        player_rewards[i, 0] = r if actor == 0 else 0.0 - r  # 0.0 - r: no -0.0
        player_rewards[i, 1] = 0.0 - player_rewards[i, 0]


@njit(cache=True)
def step_batch(games, actions, start, geometry, out, outcomes):
    """Advance every game by one action (next-step autoreset: a game that ended on the previous
    step is reset to ``start`` instead and its action ignored); write ``outcomes`` (rewards for
    the acting side and for each colour, terminations, illegal-action flags) and, in ``out``,
    observations (for the side to move next) and masks (a game that ends shows every action until
    it restarts: ``show_every_action``). The arrays must hold what ``reset_batch`` and earlier
    calls left (planes and masks are updated, not rebuilt). One thread: no
    threading layer is involved, so a busy machine does not slow it down."""
    _step_range(0, games.cells.shape[0], games, actions, start, geometry, out, outcomes)


@njit(cache=True, parallel=True)
def step_batch_parallel(games, actions, start, geometry, out, outcomes, blocks):
    """``step_batch`` on ``blocks`` threads (set numba's thread count to ``blocks`` around it)."""
    # contiguous blocks of games, games in a block in order. Games are independent and each writes
    # only its own rows, so the result does not depend on ``blocks``.
    n = games.cells.shape[0]
    for b in prange(blocks):
        _step_range(b * n // blocks, (b + 1) * n // blocks, games, actions, start, geometry, out, outcomes)


@njit(cache=True)
def step_some(which, games, actions, geometry, out):
    """Apply ``actions[i]`` (legal, checked by the caller) to the running games ``i`` listed in
    ``which`` and refresh their observations and masks (an opponent's half-turn)."""
    rows = np.empty(2 * MAX_SIZE, np.int64)
    meta, nn = games.meta, geometry.nn
    for k in range(which.shape[0]):
        i = which[k]
        clear_mask(meta, i, nn, out.masks)
        shot = meta[i, PHASE] == 1
        code = step_one(games, i, geometry, actions[i], True)
        if shot:
            out.obs[i, PLANE_ARROWS * nn + actions[i] - action_source(actions[i], nn) * nn] = 1
        other_planes(games, i, geometry, meta[i, SIDE], out, rows)
        if code == WIN:
            show_every_action(i, nn, out.masks)


@njit(cache=True)
def sample_legal(meta, legal, uniforms, out):
    """``out[i]``: a uniformly random legal action of game ``i`` (``uniforms[i]`` in [0, 1) picks
    it from its ``legal`` list); 0 for a finished game (its next step is the autoreset, which
    ignores the action, and 0 passes the range check)."""
    for i in range(meta.shape[0]):
        n = meta[i, NLEGAL]
        out[i] = legal[i, int(uniforms[i] * n)] if n > 0 else 0


@njit(cache=True)
def random_replies(learner, uniforms, games, geometry, out):
    """In every running game ``i`` where the opponent of ``learner[i]`` is to move, a whole turn of
    the batched random opponent: the queen action that ``uniforms[2 i]`` picks from the legal list,
    then the arrow that ``uniforms[2 i + 1]`` picks among the moved queen's empty lines; only the
    position after the turn gets its observation and mask (the one in between is never shown)."""
    rows = np.empty(2 * MAX_SIZE, np.int64)
    cells, meta, dirs, pub, nn = games.cells, games.meta, geometry.dirs, geometry.pub, geometry.nn
    for i in range(meta.shape[0]):
        if meta[i, DONE] != 0 or meta[i, SIDE] == learner[i] or meta[i, PHASE] != 0:
            continue
        clear_mask(meta, i, nn, out.masks)
        step_one(games, i, geometry, out.legal[i, int(uniforms[2 * i] * meta[i, NLEGAL])], True)
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
        code = step_one(games, i, geometry, pub[to] * nn + pub[arrow], True)
        out.obs[i, PLANE_ARROWS * nn + pub[arrow]] = 1
        other_planes(games, i, geometry, meta[i, SIDE], out, rows)
        if code == WIN:
            show_every_action(i, nn, out.masks)


@njit(cache=True)
def learner_outcomes(was_done, learner, games, geometry, out, outcomes):
    """After the opponent's replies: the games that ended in this step (``outcomes.terminated``),
    their rewards of White and Black (``outcomes.player_rewards``) and the learner's
    (``outcomes.rewards``), and the last observation of an ended game rewritten from the
    learner's side."""
    meta, ended, player_rewards = games.meta, outcomes.terminated, outcomes.player_rewards
    for i in range(meta.shape[0]):
        ended[i] = meta[i, DONE] == 1 and not was_done[i]
        player_rewards[i, 0] = 0.0
        player_rewards[i, 1] = 0.0
        if ended[i]:
            winner = meta[i, WINNER]
            player_rewards[i, winner] = 1.0
            player_rewards[i, 1 - winner] = -1.0
            if meta[i, SIDE] != learner[i]:
                write_obs_mask(games, i, geometry, learner[i], out)
        outcomes.rewards[i] = player_rewards[i, learner[i]]
