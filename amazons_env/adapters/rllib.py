"""RLlib (its new API stack): ``AmazonsMultiAgentEnv``, the two players as a turn-based
``MultiAgentEnv`` observed the way RLlib's masking ``RLModule`` (``ActionMaskingTorchRLModule``,
shipped in ``ray.rllib.examples``) reads them, and ``ppo_config``, a ``PPOConfig`` that trains
both players with one masked policy.

RLlib's masking module wants ``{"observations": flat float Box, "action_mask": float Box}``: it
hands ``observations`` to its default encoder (a dense net for a flat Box) and adds ``log(mask)``
to the logits. Hence the planes flattened to ``float32[9 * N * N]`` here, not the envs' int8
``[9, N, N]`` under ``observation``.

>>> env = AmazonsMultiAgentEnv({"size": 4})
>>> obs, infos = env.reset(seed=0)
>>> list(obs), obs["player_0"]["observations"].shape, int(obs["player_0"]["action_mask"].sum())
(['player_0'], (144,), 16)
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from amazons_env.envs.actions import num_actions
from amazons_env.envs.gym_env import AmazonsEnv
from amazons_env.envs.planes import NUM_PLANES
from amazons_env.errors import InvalidArgumentError, describe

__all__ = ["AGENTS", "AmazonsMultiAgentEnv", "ActionMaskingTorchRLModule", "ppo_config", "shared_policy"]

AGENTS = ("player_0", "player_1")
"""White, then Black (the PettingZoo env's names)."""

_REFUSED = ("opponent", "obs_mode", "render_mode")  # options that would not make two RLlib agents


class AmazonsMultiAgentEnv(MultiAgentEnv):
    """Both players of an ``AmazonsEnv`` as RLlib agents ``"player_0"`` (White) and ``"player_1"``
    (Black), one at a time: ``step`` takes the action of the agent that was observed and returns
    the observation of the agent to act next (the same agent after its queen move, for the arrow).

    ``config`` (RLlib's ``env_config``) holds ``AmazonsEnv``'s options: ``size``,
    ``action_encoding``, ``illegal_action`` (``"raise"`` makes any unmasked choice an error).
    Observations: ``{"observations": float32[9 * N * N]`` (the planes from that agent's side,
    flattened), ``"action_mask": float32[A]}``. Rewards: 0 while the game goes on; on the last
    step +1 to the winner and -1 to the loser, both observed then (RLlib's turn-based convention);
    ``terminateds["__all__"]``; games never truncate.

    >>> env = AmazonsMultiAgentEnv({"size": 4})
    >>> obs, _ = env.reset(seed=0)
    >>> obs, rewards, terminateds, _, _ = env.step({"player_0": int(obs["player_0"]["action_mask"].argmax())})
    >>> list(obs), rewards, terminateds
    (['player_0'], {'player_0': 0.0}, {'__all__': False})
    """

    def __init__(self, config: Optional[dict[str, Any]] = None) -> None:
        super().__init__()
        options = dict(config or {})
        refused = sorted(set(options) & set(_REFUSED))
        if refused:
            raise InvalidArgumentError(
                f"AmazonsMultiAgentEnv: env_config option(s) {', '.join(map(describe, refused))} do not apply "
                "(both players are RLlib agents, observed as RLlib's masking module wants)"
            )
        self.game = AmazonsEnv(**options)
        n = self.game.size
        actions = num_actions(n, self.game.action_encoding)
        space = spaces.Dict(
            {
                "observations": spaces.Box(0.0, 1.0, (NUM_PLANES * n * n,), np.float32),
                "action_mask": spaces.Box(0.0, 1.0, (actions,), np.float32),
            }
        )
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.observation_spaces = {agent: space for agent in AGENTS}
        self.action_spaces = {agent: spaces.Discrete(actions) for agent in AGENTS}
        self._player = 0

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[dict, dict]:
        planes, info = self.game.reset(seed=seed, options=options)
        self._player = int(info["player"])
        return {AGENTS[self._player]: self._observation(planes)}, {}

    # MultiAgentEnv subclasses gymnasium.Env but steps with dicts of agents, as its own step does
    def step(self, action_dict: dict[Any, Any]) -> tuple[dict, dict, dict, dict, dict]:  # type: ignore[override]
        actor = AGENTS[self._player]
        if set(action_dict) != {actor}:
            raise InvalidArgumentError(
                f"AmazonsMultiAgentEnv: {actor} is to act, got actions for {sorted(action_dict)}"
            )
        planes, _, terminated, _, info = self.game.step(action_dict[actor])
        if terminated:
            observations = {agent: self._observation(self.game.observation(side)) for side, agent in enumerate(AGENTS)}
            rewards = {agent: float(info["rewards"][side]) for side, agent in enumerate(AGENTS)}
            return observations, rewards, {"__all__": True}, {"__all__": False}, {}
        self._player = int(info["player"])
        return (
            {AGENTS[self._player]: self._observation(planes)},
            {actor: 0.0},
            {"__all__": False},
            {"__all__": False},
            {},
        )

    def _observation(self, planes: np.ndarray) -> dict[str, np.ndarray]:
        return {
            "observations": planes.reshape(-1).astype(np.float32),
            "action_mask": self.game.action_masks().astype(np.float32),
        }


def shared_policy(agent_id: Any, episode: Any, **kwargs: Any) -> str:
    """RLlib's ``policy_mapping_fn`` of ``ppo_config``: both players learn one policy, ``"shared"``
    (each observes the board from its own side, and plane 8 says which side that is)."""
    return "shared"


def ppo_config(**env_config: Any) -> PPOConfig:
    """RLlib's ``PPOConfig`` on ``AmazonsMultiAgentEnv(env_config)`` with both players mapped to
    one masked policy (``ActionMaskingTorchRLModule``); chain RLlib's own settings on it
    (``.env_runners(...)``, ``.training(...)``) and ``.build_algo()``.

    >>> config = ppo_config(size=6)
    >>> sorted(config.policies), config.env_config
    (['shared'], {'size': 6})
    """
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule)
    return (
        PPOConfig()
        .environment(AmazonsMultiAgentEnv, env_config=env_config)
        .multi_agent(policies={"shared"}, policy_mapping_fn=shared_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
    )
