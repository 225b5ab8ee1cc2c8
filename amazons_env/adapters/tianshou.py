"""Tianshou: its policies mask actions only through ``obs.mask`` (a bool per action) beside
``obs.obs``, the observation their model reads. ``TianshouObservation`` gives a single-agent
``AmazonsEnv`` that observation; ``multi_agent_env`` gives Tianshou's ``PettingZooEnv`` over the
PettingZoo env (which turns our ``{"observation", "action_mask"}`` into ``obs``/``mask`` itself).

>>> env = TianshouObservation(AmazonsEnv(size=4, opponent="random"))
>>> obs, info = env.reset(seed=0)
>>> obs["obs"].shape, obs["mask"].dtype, int(obs["mask"].sum())
((9, 4, 4), dtype('bool'), 16)
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from tianshou.env import PettingZooEnv

from amazons_env.envs import pettingzoo_env
from amazons_env.envs.actions import num_actions
from amazons_env.envs.gym_env import AmazonsEnv
from amazons_env.errors import InvalidArgumentError, describe

__all__ = ["TianshouObservation", "multi_agent_env"]


class TianshouObservation(gymnasium.ObservationWrapper):
    """An ``AmazonsEnv`` (any options: an opponent, ``action_encoding``, ``obs_mode``) observed as
    ``{"obs": int8 planes [9, N, N], "mask": bool [A]}``, Tianshou's convention: its DQN family
    reads ``obs.mask`` to keep illegal actions out of both the greedy choice and the random
    exploration, and hands ``obs.obs`` to the model (``tianshou.utils.net.common.Net`` flattens it).

    The mask is the env's ``action_masks()`` after the step: all ``False`` once a game is over.

    >>> env = TianshouObservation(AmazonsEnv(size=4, obs_mode="dict", action_encoding="lines"))
    >>> env.observation_space["mask"].shape
    (384,)
    """

    def __init__(self, env: AmazonsEnv) -> None:
        if not isinstance(getattr(env, "unwrapped", None), AmazonsEnv):
            raise InvalidArgumentError(f"TianshouObservation wraps an AmazonsEnv, got {describe(env)}")
        super().__init__(env)
        inner: AmazonsEnv = env.unwrapped  # type: ignore[assignment]
        space = inner.observation_space
        planes = space["observation"] if isinstance(space, spaces.Dict) else space
        mask = spaces.MultiBinary(num_actions(inner.size, inner.action_encoding))
        self.observation_space = spaces.Dict({"obs": planes, "mask": mask})

    def observation(self, observation: Any) -> dict[str, np.ndarray]:
        planes = observation["observation"] if isinstance(observation, dict) else observation
        inner: AmazonsEnv = self.env.unwrapped  # type: ignore[assignment]
        return {"obs": planes, "mask": inner.action_masks().astype(bool)}


def multi_agent_env(**kwargs: Any) -> PettingZooEnv:
    """Tianshou's ``PettingZooEnv`` over ``amazons_env.envs.pettingzoo_env.env(**kwargs)`` (its
    options but ``obs_mode``, which must be ``"dict"``, Tianshou's source of the mask). Its
    observations are ``{"agent_id", "obs", "mask"}``; ``MultiAgentPolicy`` routes them by
    ``agent_id`` (``"player_0"`` White, ``"player_1"`` Black; each agent acts twice per turn).

    >>> env = multi_agent_env(size=4)
    >>> obs, info = env.reset(seed=0)
    >>> obs["agent_id"], int(sum(obs["mask"]))
    ('player_0', 16)
    """
    if kwargs.get("obs_mode", "dict") != "dict":
        raise InvalidArgumentError(
            f"multi_agent_env: obs_mode={describe(kwargs['obs_mode'])}; Tianshou reads the mask from "
            "obs_mode='dict' observations only"
        )
    return PettingZooEnv(pettingzoo_env.env(**kwargs))
