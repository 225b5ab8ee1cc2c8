"""PettingZoo AEC version of the Game of the Amazons (the ``classic`` family's conventions).

``env()`` is ``raw_env()`` with the standard wrappers (``TerminateIllegalWrapper``,
``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``) and, inside the order check, one that
refuses an action that is not an integer in range with ``InvalidMoveError`` (a ``ValueError``
naming it), as ``AmazonsEnv`` does, before the standard ones see it. Agents are ``"player_0"``
(White) and ``"player_1"`` (Black). A turn is two actions by the same agent: the same agent is
selected twice, for its queen move and then for its arrow (see ``AmazonsEnv`` for actions and planes).

>>> game = env(size=6)
>>> game.reset(seed=0)
>>> game.agent_selection, int(game.observe("player_0")["action_mask"].sum())
('player_0', 40)
>>> game.step(int(game.observe("player_0")["action_mask"].argmax()))
>>> game.agent_selection
'player_0'

The options of ``AmazonsEnv`` that make sense for turn-by-turn agents, by the same names and
from the same code (``amazons_env.envs.actions``): ``action_encoding="lines"`` (queen lines: 7,200
actions on 10x10 instead of 10,000), ``mask_dtype="bool"``,
and ``obs_mode``: ``"dict"`` (the default here, PettingZoo classic's
``{"observation", "action_mask"}``) or ``"planes"`` (the planes alone; the mask is then in
``infos[agent]["action_mask"]``, where PettingZoo's wrappers and tests also look for it).

>>> game = env(size=6, obs_mode="planes", action_encoding="lines", mask_dtype="bool")
>>> game.reset(seed=0)
>>> game.observe("player_0").shape, game.infos["player_0"]["action_mask"].dtype
((9, 6, 6), dtype('bool'))
"""

from __future__ import annotations

import operator
from typing import Any, Optional

import numpy as np
from gymnasium import logger, spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from amazons_env.envs.actions import ActionCodec
from amazons_env.envs.gym_env import AmazonsEnv
from amazons_env.errors import InvalidArgumentError, describe

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """``raw_env(**kwargs)`` with PettingZoo's standard wrappers for classic games."""
    game = raw_env(**kwargs)
    game = wrappers.TerminateIllegalWrapper(game, illegal_reward=-1)
    game = wrappers.AssertOutOfBoundsWrapper(game)
    return wrappers.OrderEnforcingWrapper(_CheckedActions(game))


class _CheckedActions(wrappers.BaseWrapper):
    """Refuses an action that is not an integer in range with ``InvalidMoveError`` naming it.

    The standard wrappers it sits in front of would fail less clearly: ``AssertOutOfBoundsWrapper``
    raises a bare ``AssertionError`` ("action is not in action space"), and
    ``TerminateIllegalWrapper`` indexes the mask with the action (``True`` or an array then gives
    numpy's ambiguous-truth error). ``None``, the one action of an agent that is done, passes.
    """

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if action is None and (self.terminations[agent] or self.truncations[agent]):
            super().step(action)
            return
        self.unwrapped.codec.to_flat(action)  # InvalidMoveError unless an integer in range
        super().step(operator.index(action))


class raw_env(AECEnv):
    """Two agents, one ``AmazonsEnv`` underneath (which owns the state and the rules).

    Observation of an agent (``obs_mode="dict"``): ``{"observation": int8[9, N, N] planes from
    that agent's side, "action_mask": [A]}`` (``A`` and the mask's dtype per ``action_encoding``
    and ``mask_dtype``); the mask is all zeros for the agent not selected. ``obs_mode="planes"``:
    the planes, with that mask in ``infos[agent]["action_mask"]``.
    Rewards: +1 to the winner and -1 to the loser on the last arrow, both at once (each agent
    then reads its own from ``last()``); an illegal action costs its taker -1 (the other gets 0,
    PettingZoo's ``TerminateIllegalWrapper`` convention) and ends the game. ``infos`` carry
    ``phase`` and ``move_number``.
    """

    metadata = {
        "render_modes": ["ansi", "rgb_array", "human"],
        "name": "amazons_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        size: int = 10,
        render_mode: Optional[str] = None,
        *,
        obs_mode: str = "dict",
        action_encoding: str = "flat",
        mask_dtype: str = "int8",
    ) -> None:
        super().__init__()
        self.game = AmazonsEnv(
            size=size, render_mode=render_mode, action_encoding=action_encoding, mask_dtype=mask_dtype
        )
        self.codec = ActionCodec(self.game.size, action_encoding, mask_dtype, obs_mode)
        self.render_mode = render_mode
        self.possible_agents = ["player_0", "player_1"]
        self.agents = self.possible_agents[:]
        self.observation_spaces = {
            agent: self.codec.observation_space(self.game.observation_space) for agent in self.possible_agents
        }
        self.action_spaces = {agent: self.codec.action_space() for agent in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        if options is not None and not isinstance(options, dict):
            raise InvalidArgumentError(f"reset options must be a dict or None, got {describe(options)}")
        if options and set(options) - {"position"}:
            # pettingzoo's api_test resets with made-up options; AmazonsEnv itself rejects them
            ignored = ", ".join(sorted(map(describe, set(options) - {"position"})))
            logger.warn(f"raw_env.reset ignores options {ignored}; it accepts 'position'")
        position = (options or {}).get("position")
        self.game.reset(seed=seed, options=None if position is None else {"position": position})
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self._update_infos()
        self.agent_selection = self.agents[int(self.game.side_to_move)]

    def observe(self, agent: str) -> Any:
        side = self.possible_agents.index(agent)
        planes = self.game.observation(side)
        return planes if self.codec.obs_mode == "planes" else self.codec.observation(planes, self._mask(agent))

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        _, _, terminated, _, info = self.game.step(action)
        self.rewards = {a: 0.0 for a in self.agents}
        if terminated:
            # both players' rewards of the last step (info["rewards"], per colour); an illegal
            # action costs only its taker (PettingZoo's TerminateIllegalWrapper convention)
            self.rewards = {a: float(info["rewards"][i]) for i, a in enumerate(self.agents)}
            if info.get("illegal_action"):
                self.rewards[self.agents[1 - self.agents.index(agent)]] = 0.0
            self.terminations = {a: True for a in self.agents}
        self._update_infos()
        self.agent_selection = self.agents[int(self.game.side_to_move)]
        self._accumulate_rewards()  # (in "human" mode the AmazonsEnv has drawn the step already)

    def render(self):
        return self.game.render()

    def close(self) -> None:
        self.game.close()

    def _mask(self, agent: str) -> np.ndarray:
        """``agent``'s legal-action mask: the current phase's if it is selected, else all zeros."""
        if self.possible_agents.index(agent) == int(self.game.side_to_move) and not self.terminations[agent]:
            return self.game.action_masks()
        return np.zeros(self.codec.n, self.codec.mask_dtype)

    def _update_infos(self) -> None:
        info: dict[str, Any] = {"phase": self.game.phase, "move_number": self.game.move_number}
        self.infos = {agent: dict(info) for agent in self.agents}
        if self.codec.obs_mode == "planes":
            for agent in self.agents:
                self.infos[agent]["action_mask"] = self._mask(agent)
