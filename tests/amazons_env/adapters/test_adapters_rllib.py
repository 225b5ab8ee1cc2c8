"""``amazons_env.adapters.rllib`` with RLlib's own objects: one multi-agent PPO iteration (both
players, one masked policy) on a local Ray instance, every action legal.

Without RLlib (``ray[rllib]``: see ``docs/reference/adapters.md``) this module is skipped, saying so.
"""

import math

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason='needs RLlib: pip install "amazons[rllib]" (docs/reference/adapters.md)')

import ray  # noqa: E402  # after the skip: ray without RLlib's dependencies is not enough

from amazons_env.adapters.rllib import AGENTS, AmazonsMultiAgentEnv, ppo_config  # noqa: E402
from amazons_env.errors import IllegalMoveError, InvalidArgumentError  # noqa: E402

SIZE = 4


def test_one_ppo_iteration_with_both_players_takes_only_legal_actions():
    """``illegal_action="raise"``: one unmasked choice would stop the sampling with an error
    (RLlib's own env check steps random actions, hence ``disable_env_checking``)."""
    config = (
        ppo_config(size=SIZE, illegal_action="raise")
        .environment(disable_env_checking=True)
        .env_runners(num_env_runners=0, rollout_fragment_length=64)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=128, minibatch_size=64, num_epochs=1)
        .debugging(seed=0)
    )
    algorithm = config.build_algo()
    try:
        result = algorithm.train()
    finally:
        algorithm.stop()
        ray.shutdown()
    assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 128
    assert result["env_runners"]["num_episodes_lifetime"] > 0
    assert math.isfinite(result["learners"]["shared"]["policy_loss"])


def test_turns_rewards_and_the_last_observations():
    env = AmazonsMultiAgentEnv({"size": SIZE, "illegal_action": "raise"})
    obs, _ = env.reset(seed=0)
    with pytest.raises(IllegalMoveError):  # what the masks keep PPO from
        env.step({"player_0": int(np.flatnonzero(obs["player_0"]["action_mask"] == 0)[0])})
    steps = 0
    while True:
        (agent,) = obs
        assert env.observation_spaces[agent].contains(obs[agent])
        action = int(np.flatnonzero(obs[agent]["action_mask"])[0])
        obs, rewards, terminateds, truncateds, _ = env.step({agent: action})
        steps += 1
        if terminateds["__all__"]:
            break
        assert rewards == {agent: 0.0} and not truncateds["__all__"]
    assert set(obs) == set(AGENTS) and sorted(rewards.values()) == [-1.0, 1.0]
    assert all(obs[agent]["action_mask"].sum() == 0 for agent in AGENTS)
    assert steps % 2 == 0  # whole turns: a queen move and its arrow each


def test_options_that_do_not_make_two_agents_are_refused():
    with pytest.raises(InvalidArgumentError, match="opponent"):
        AmazonsMultiAgentEnv({"size": SIZE, "opponent": "random"})
    env = AmazonsMultiAgentEnv({"size": SIZE})
    env.reset(seed=0)
    with pytest.raises(InvalidArgumentError, match="player_0 is to act"):
        env.step({"player_1": 0})
