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
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from gymnasium import logger, spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .env import AmazonsEnv, decode_action
from .errors import InvalidArgumentError, describe

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
        frm, to = decode_action(action, self.unwrapped.game.size)
        super().step(frm * self.unwrapped.game.size ** 2 + to)


class raw_env(AECEnv):
    """Two agents, one ``AmazonsEnv`` underneath (which owns the state and the rules).

    Observation of an agent: ``{"observation": int8[9, N, N] planes from that agent's side,
    "action_mask": int8[N**4]}``; the mask is all zeros for the agent not selected.
    Rewards: +1 to the winner and -1 to the loser on the last arrow; an illegal action costs
    its taker -1 (the other gets 0) and ends the game. ``infos`` carry ``phase`` and ``move_number``.
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "name": "amazons_v0",
                "is_parallelizable": False, "render_fps": 4}

    def __init__(self, size: int = 10, render_mode: Optional[str] = None) -> None:
        super().__init__()
        self.game = AmazonsEnv(size=size, render_mode=render_mode)
        self.render_mode = render_mode
        self.possible_agents = ["player_0", "player_1"]
        self.agents = self.possible_agents[:]
        n = self.game.size
        self.observation_spaces = {
            agent: spaces.Dict({"observation": self.game.observation_space,
                                "action_mask": spaces.Box(0, 1, (n ** 4,), np.int8)})
            for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(n ** 4) for agent in self.possible_agents}

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

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        side = self.possible_agents.index(agent)
        if side == int(self.game.side_to_move) and not self.terminations[agent]:
            mask = self.game.action_masks()
        else:
            mask = np.zeros(self.action_spaces[agent].n, np.int8)
        return {"observation": self.game.observation(side), "action_mask": mask}

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
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        return self.game.render()

    def close(self) -> None:
        self.game.close()

    def _update_infos(self) -> None:
        info = {"phase": self.game.phase, "move_number": self.game.move_number}
        self.infos = {agent: dict(info) for agent in self.agents}
