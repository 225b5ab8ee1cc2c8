"""``AmazonsVectorEnv``: many two-player Amazons games advanced together, one numba call per step.

>>> import numpy as np
>>> envs = AmazonsVectorEnv(num_envs=3, size=6)
>>> obs, infos = envs.reset(seed=0)
>>> obs.shape, infos["action_mask"].shape, infos["action_mask"].sum(axis=1).tolist()
((3, 9, 6, 6), (3, 1296), [40, 40, 40])
>>> actions = np.array([infos["action_mask"][i].argmax() for i in range(3)])
>>> obs, rewards, terminated, truncated, infos = envs.step(actions)
>>> infos["phase"].tolist()
[1, 1, 1]
"""

from __future__ import annotations

from typing import Any, Optional

import gymnasium
import numba
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from . import core
from . import env_kernels as K
from .board import Board
from .errors import IllegalMoveError, InvalidMoveError
from .squares import check_size

__all__ = ["AmazonsVectorEnv"]


class AmazonsVectorEnv(VectorEnv):
    """``num_envs`` independent ``AmazonsEnv`` games (two-player, no opponent) in shared arrays.

    Spaces, observations, masks, rewards and illegal-action handling are those of ``AmazonsEnv``
    (see its docstring), batched: observations ``int8[num_envs, 9, N, N]``; ``infos`` holds
    ``action_mask`` (``int8[num_envs, N**4]``), ``player``, ``phase``, ``move_number`` and
    ``illegal_action`` arrays (each with gymnasium's ``_key`` presence flags, always true).
    Rewards belong to the side that acted in each game.

    Autoreset is gymnasium's default ``NEXT_STEP`` mode: the step after a game ends resets it
    (its action is ignored, reward 0). ``reset(options={"reset_mask": bool[num_envs]})`` resets
    only some games. Each ``step`` runs one numba kernel over all games.

    ``copy=True`` (default) returns fresh arrays each step; ``copy=False`` returns read-only views
    of the env's own buffers (observations, rewards, flags and every ``infos`` array), overwritten
    by the next ``step``, and the same ``infos`` dict every time (faster; copy what you keep).
    ``sample_legal_actions()`` draws a uniformly random legal action per game (random play).
    ``illegal_action="raise"`` checks every action first and raises ``IllegalMoveError`` naming the
    game, leaving all games unchanged.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int, size: int = 10, illegal_action: str = "lose", copy: bool = True,
                 render_mode: Optional[str] = None) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r} must be a positive integer")
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action={illegal_action!r}: use 'lose' or 'raise'")
        if render_mode is not None:
            raise ValueError(f"AmazonsVectorEnv does not render (render_mode={render_mode!r})")
        self.num_envs = int(num_envs)
        self.size = n = check_size(size)
        self.illegal_action = illegal_action
        self.copy = copy
        self.render_mode = None
        nn = self._nn = n * n
        self.single_action_space = spaces.Discrete(nn * nn)
        self.single_observation_space = spaces.Box(0, 1, (K.NUM_PLANES, n, n), np.int8)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, nn * nn))
        self.observation_space = spaces.Box(0, 1, (self.num_envs, K.NUM_PLANES, n, n), np.int8)
        self._pad = core.padded_index(n)
        self._pub = core.public_index(n)
        self._dirs = core.directions(n + 2)
        start = Board(n)
        self._init_cells = start.cells.copy()
        self._init_queens = start.queens.copy()
        self._init_nq = start.queen_counts.copy()
        self._init_meta = K.new_meta(start.cells, int(start.turn))
        b = self.num_envs
        self._cells = np.tile(self._init_cells, (b, 1))
        self._queens = np.tile(self._init_queens, (b, 1, 1))
        self._nq = np.tile(self._init_nq, (b, 1))
        self._meta = np.tile(self._init_meta, (b, 1))
        self._obs = np.zeros((b, K.NUM_PLANES * nn), np.int8)
        self._masks = np.zeros((b, nn * nn), np.int8)
        self._legal = np.zeros((b, K.max_legal(n)), np.int32)
        self._rewards = np.zeros(b, np.float64)
        self._terminated = np.zeros(b, np.bool_)
        self._truncated = np.zeros(b, np.bool_)
        self._illegal = np.zeros(b, np.bool_)
        self._present = np.ones(b, np.bool_)
        self._present.flags.writeable = False
        # copy=False hands out read-only views: the masks double as this env's legality check
        self._obs_view = self._obs.reshape(b, K.NUM_PLANES, n, n)[...]
        self._masks_view = self._masks[...]
        self._info_views = {"player": self._meta[:, K.SIDE], "phase": self._meta[:, K.PHASE],
                            "move_number": self._meta[:, K.TURNS], "illegal_action": self._illegal[...]}
        for view in (self._obs_view, self._masks_view, *self._info_views.values()):
            view.flags.writeable = False
        # with copy=False the infos are the same read-only views every step: build the dict once
        self._info_cache = self._with_presence({"action_mask": self._masks_view, **self._info_views})
        self._uniforms = np.empty(self.num_envs)
        # games split into this many blocks, one per numba thread (any count gives the same result)
        self._blocks = numba.get_num_threads()
        self._started = False

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        which = np.ones(self.num_envs, np.bool_)
        if options is not None:
            if not isinstance(options, dict):
                raise ValueError(f"reset options must be a dict, got {options!r}")
            unknown = sorted(set(options) - {"reset_mask"})
            if unknown:
                raise ValueError(f"unknown reset option(s) {unknown}; AmazonsVectorEnv accepts ['reset_mask']")
            if "reset_mask" in options:
                which = np.asarray(options["reset_mask"])
                if which.dtype != np.bool_ or which.shape != (self.num_envs,):
                    raise ValueError(f"options['reset_mask'] must be a bool array of shape ({self.num_envs},)")
                if not self._started and not which.all():
                    raise gymnasium.error.ResetNeeded("the first reset must reset every game")
        K.reset_batch(self._cells, self._queens, self._nq, self._meta, which, self._init_cells, self._init_queens,
                      self._init_nq, self._init_meta, self._dirs, self._pad, self._pub, self._nn,
                      self._obs, self._masks, self._legal)
        self._illegal[which] = False
        self._started = True
        return self._observations(), self._infos()

    def step(self, actions):
        if not self._started:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise InvalidMoveError(
                f"actions must be an integer array of shape ({self.num_envs},), got {actions.dtype} {actions.shape}")
        actions = actions.astype(np.int64, copy=False)
        limit = self._nn * self._nn
        bad = K.first_out_of_range(actions, limit)
        if bad >= 0:
            raise InvalidMoveError(f"game {bad}: action {int(actions[bad])} is out of range (0 <= action < {limit})")
        if self.illegal_action == "raise":
            bad = K.check_batch(self._meta, self._masks, actions)
            if bad >= 0:
                from .env import action_to_str
                raise IllegalMoveError(f"game {bad}: illegal action {action_to_str(int(actions[bad]), self.size)} "
                                       f"({int(actions[bad])}); no game was changed")
        K.step_batch(self._cells, self._queens, self._nq, self._meta, actions, self._init_cells, self._init_queens,
                     self._init_nq, self._init_meta, self._dirs, self._pad, self._pub, self._nn, self._obs,
                     self._masks, self._legal, self._rewards, self._terminated, self._illegal, self._blocks)
        out = (self._rewards, self._terminated, self._truncated)
        if self.copy:
            out = tuple(a.copy() for a in out)
        return (self._observations(), *out, self._infos())

    def sample_legal_actions(self) -> np.ndarray:
        """A uniformly random legal action for every game (from ``np_random``; 0 where a game has
        just ended: the autoreset step ignores it, so ``step(sample_legal_actions())`` plays on
        through game ends). It picks from the list of legal
        actions the step kernel writes beside the mask, so it costs far less than scanning the
        ``N**4`` mask."""
        out = np.empty(self.num_envs, np.int64)
        K.sample_legal(self._meta, self._legal, self.np_random.random(out=self._uniforms), out)
        return out

    def action_masks(self) -> np.ndarray:
        """The masks of all games, ``int8[num_envs, N**4]`` (a copy)."""
        return self._masks.copy()

    def _observations(self) -> np.ndarray:
        return self._obs_view.copy() if self.copy else self._obs_view

    def _infos(self) -> dict[str, Any]:
        if not self.copy:
            return self._info_cache
        return self._with_presence({"action_mask": self._masks.copy(),
                                    **{k: v.copy() for k, v in self._info_views.items()}})

    def _with_presence(self, info: dict[str, Any]) -> dict[str, Any]:
        """Add gymnasium's ``_key`` flags (every game has every key)."""
        for key in list(info):
            info["_" + key] = self._present
        return info
