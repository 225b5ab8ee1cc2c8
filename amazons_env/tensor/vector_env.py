"""``AmazonsTensorVectorEnv``: a gymnasium ``VectorEnv`` over the tensor rules, for torch loops
whose tensors stay on one device (observations, rewards, flags and infos are torch tensors).

>>> envs = AmazonsTensorVectorEnv(3, size=6)
>>> obs, infos = envs.reset(seed=0)
>>> obs.shape, obs.dtype, infos["action_mask"].sum(dim=1).tolist()
(torch.Size([3, 9, 6, 6]), torch.int8, [40, 40, 40])
>>> obs, rewards, terminated, truncated, infos = envs.step(envs.sample_legal_actions())
>>> infos["phase"].tolist(), infos["rewards"].shape
([1, 1, 1], torch.Size([3, 2]))
"""

from __future__ import annotations

from typing import Any, Optional, Union

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from amazons_env.envs.arguments import check_seed, reset_options
from amazons_env.envs.planes import NUM_PLANES
from amazons_env.envs.vector_arguments import check_autoreset_mode, check_num_envs
from amazons_env.errors import InvalidArgumentError, InvalidMoveError, describe
from amazons_env.squares import Color
from amazons_env.tensor.env_games import EnvGames, Outcome

__all__ = ["AmazonsTensorVectorEnv"]

INFO_KEYS = ("action_mask", "player", "phase", "move_number", "illegal_action", "winner", "rewards")


class AmazonsTensorVectorEnv(VectorEnv):
    """``num_envs`` games on ``device``, as ``AmazonsVectorEnv`` with torch tensors.

    Actions, observation planes, masks, rewards and ``infos`` keys are ``AmazonsVectorEnv``'s
    (its docstring and ``AmazonsEnv``'s are the reference), as tensors on ``device``:
    observations ``int8[num_envs, 9, N, N]``, rewards ``float32[num_envs]``, ``terminated`` and
    ``truncated`` ``bool[num_envs]``; ``infos`` holds ``action_mask`` (``bool[num_envs, A]``),
    ``player``, ``phase``, ``move_number``, ``illegal_action``, ``winner`` (-1 while a game is
    played) and ``rewards`` (``float32[num_envs, 2]``, White's and Black's), each with
    gymnasium's ``_key`` flags: the same keys on every step. Every tensor returned is new (the
    env keeps no reference to it: gymnasium's ``copy=True`` convention). ``step`` takes an
    integer tensor (or array) of ``num_envs`` actions; an illegal action loses the game.

    **Opponent.** ``opponent=`` (``"random"``, a policy net ``net(observation, action_mask) ->
    logits`` or an opponent of ``amazons_env.tensor.opponents``) replies inside ``step`` on the
    same device; ``rewards`` and ``player`` are then the learner's, whose colour is
    ``learner_color`` (``"white"``, ``"black"`` or ``"random"``, drawn per game at each reset).

    **Autoreset** is gymnasium's ``NEXT_STEP`` mode by default (the step after a game ends
    restarts it; its action is ignored, reward 0); ``autoreset_mode="Disabled"`` leaves it to
    ``reset(options={"reset_mask": bool[num_envs]})``, and stepping a finished game raises
    ``ResetNeeded``. ``reset(seed=...)`` seeds the env's torch generator (learner colours, the
    opponent's draws, ``sample_legal_actions``).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int,
        size: int = 10,
        device: torch.device | str | None = None,
        *,
        action_encoding: str = "flat",
        opponent: Any = None,
        learner_color: Union[str, int, Color] = "white",
        autoreset_mode: Union[str, AutoresetMode] = AutoresetMode.NEXT_STEP,
    ) -> None:
        self.num_envs = b = check_num_envs(num_envs)
        self._autoreset_mode = check_autoreset_mode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self._autoreset_mode}
        self._games = games = EnvGames(
            b, size, device, action_encoding=action_encoding, opponent=opponent, learner_color=learner_color
        )
        self.size, self.device, self.action_encoding = games.state.size, games.device, games.encoding
        self.opponent = games.opponent
        self.render_mode = None
        n = self.size
        self.single_observation_space = spaces.Box(0, 1, (NUM_PLANES, n, n), np.int8)
        self.single_action_space = spaces.Discrete(games.num_actions)
        self.observation_space = spaces.Box(0, 1, (b, NUM_PLANES, n, n), np.int8)
        self.action_space = spaces.MultiDiscrete(np.full(b, games.num_actions))
        self._present = torch.ones(b, dtype=torch.bool, device=self.device)
        self._started = False

    @property
    def autoreset_mode(self) -> AutoresetMode:
        """The autoreset mode, fixed at construction (as in ``metadata["autoreset_mode"]``)."""
        return self._autoreset_mode

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        seed = check_seed(seed)
        which = self._reset_mask(options)
        super().reset(seed=seed)  # after the checks: a refused reset changes nothing
        if seed is not None:
            self._games.seed(seed)
        outcome = self._games.reset(which)
        self._started = True
        return outcome.observation, self._infos(outcome)

    def step(self, actions):
        if not self._started:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        actions = self._actions(actions)
        ended = self._games.state.terminated
        if self._autoreset_mode is AutoresetMode.DISABLED:
            if bool(ended.any()):
                first = int(ended.nonzero()[0, 0])
                raise gymnasium.error.ResetNeeded(
                    f"game {first} has ended and autoreset_mode is Disabled: reset it first "
                    "(reset(options={'reset_mask': mask})); no game was changed"
                )
            outcome = self._games.step(actions)
        else:
            outcome = self._games.step(actions, restart=ended)
        truncated = torch.zeros_like(outcome.terminated)
        return outcome.observation, outcome.reward, outcome.terminated, truncated, self._infos(outcome)

    def sample_legal_actions(self) -> torch.Tensor:
        """A uniformly random legal action of every game (0 where a game has just ended: the
        autoreset step ignores it)."""
        return self._games.random_actions()

    # -- internals ---------------------------------------------------------------------------------

    def _reset_mask(self, options: Optional[dict]) -> Optional[torch.Tensor]:
        options = reset_options(options, "reset_mask", "AmazonsTensorVectorEnv")
        if "reset_mask" not in options:
            return None
        mask = options["reset_mask"]
        if isinstance(mask, np.ndarray) and mask.dtype == np.bool_:
            mask = torch.from_numpy(mask)
        if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool or mask.shape != (self.num_envs,):
            raise InvalidArgumentError(
                f"options['reset_mask']={describe(mask)}: use a bool tensor (or array) of shape ({self.num_envs},)"
            )
        if not self._started and not bool(mask.all()):
            raise gymnasium.error.ResetNeeded("the first reset must reset every game")
        return mask.to(self.device)

    def _actions(self, actions: Any) -> torch.Tensor:
        if isinstance(actions, np.ndarray) and actions.dtype.kind in "iu":
            actions = torch.from_numpy(actions.astype(np.int64))
        if not isinstance(actions, torch.Tensor) or actions.shape != (self.num_envs,):
            raise InvalidMoveError(f"actions={describe(actions)}: use an integer tensor of shape ({self.num_envs},)")
        return actions.to(self.device)

    def _infos(self, outcome: Outcome) -> dict[str, Any]:
        state = self._games.state
        values = {
            "action_mask": outcome.action_mask,
            "player": outcome.player,
            "phase": state.phase.clone(),
            "move_number": state.move_number.clone(),
            "illegal_action": outcome.illegal,
            "winner": state.winner.clone(),
            "rewards": outcome.player_rewards,
        }
        infos: dict[str, Any] = {}
        for key in INFO_KEYS:
            infos[key] = values[key]
            infos["_" + key] = self._present.clone()
        return infos
