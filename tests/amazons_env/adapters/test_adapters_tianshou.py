"""``amazons_env.adapters.tianshou`` with Tianshou's own objects: DQN trains single-agent on
``TianshouObservation`` and multi-agent (one DQN per side) on ``multi_agent_env``, masked.

Without Tianshou (the ``rl`` extra) the root ``conftest.py`` skips this module, saying so.
"""

import logging

import gymnasium
import pytest
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import amazons_env  # noqa: F401  # registers Amazons-v0
from amazons_env.adapters.tianshou import TianshouObservation, multi_agent_env
from amazons_env.envs.gym_env import AmazonsEnv
from amazons_env.errors import IllegalMoveError, InvalidArgumentError

SIZE = 4
PLANES = (9, SIZE, SIZE)
ACTIONS = SIZE**4


def _dqn(eps: float = 0.5) -> DQN:
    """A DQN that explores half of the time: without masks it would pick illegal actions at once."""
    net = Net(state_shape=PLANES, action_shape=ACTIONS, hidden_sizes=[64])
    policy = DiscreteQLearningPolicy(model=net, action_space=AmazonsEnv(SIZE).action_space, eps_training=eps)
    return DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), target_update_freq=20)


def _train(algorithm, envs, steps: int):
    collector: Collector = Collector(algorithm, envs, VectorReplayBuffer(1000, len(envs)), exploration_noise=True)
    collector.reset()
    params = OffPolicyTrainerParams(
        training_collector=collector,
        max_epochs=1,
        epoch_num_steps=steps,
        collection_step_num_env_steps=10,
        batch_size=32,
        test_collector=None,
        show_progress=False,
        verbose=False,
    )
    return algorithm.run_training(params)


def test_dqn_against_an_opponent_trains_masked_and_would_not_without_the_mask():
    """``illegal_action="raise"``: one unmasked choice is an ``IllegalMoveError``."""

    def make(wrapped: bool):
        env = AmazonsEnv(size=SIZE, opponent="random", learner_color="random", illegal_action="raise")
        return TianshouObservation(env) if wrapped else env

    stats = _train(_dqn(), DummyVectorEnv([lambda: make(True) for _ in range(2)]), steps=300)
    assert stats.train_step >= 300 and stats.train_episode > 0 and stats.update_step > 0
    with pytest.raises(IllegalMoveError):
        _train(_dqn(), DummyVectorEnv([lambda: make(False)]), steps=50)


def test_two_dqns_play_each_other_through_pettingzoo_without_an_illegal_move(caplog):
    """PettingZoo's ``TerminateIllegalWrapper`` logs every illegal move (and ends the game)."""
    env = multi_agent_env(size=SIZE)
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[_dqn(), _dqn()], env=env)
    envs = DummyVectorEnv([lambda: multi_agent_env(size=SIZE) for _ in range(2)])
    with caplog.at_level(logging.WARNING, logger="pettingzoo.utils.env_logger"):
        stats = _train(algorithm, envs, steps=300)
    assert stats.train_step >= 300 and stats.train_episode > 0
    assert not [record for record in caplog.records if "Illegal move" in record.getMessage()]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="pettingzoo.utils.env_logger"):
        obs, _ = env.reset(seed=0)
        env.step(obs["mask"].index(False))  # what the check above would have seen
    assert [record for record in caplog.records if "Illegal move" in record.getMessage()]


def test_the_observation_follows_the_env_options_and_refuses_other_envs():
    env = TianshouObservation(AmazonsEnv(size=SIZE, action_encoding="lines", mask_dtype="bool"))
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs) and obs["mask"].sum() == 16
    obs, *_ = env.step(int(obs["mask"].argmax()))
    assert env.observation_space.contains(obs) and obs["obs"][3].all()  # the arrow phase
    made = TianshouObservation(gymnasium.make("Amazons-v0", size=SIZE))  # gymnasium's wrappers around it
    assert made.reset(seed=0)[0]["mask"].sum() == 16
    with pytest.raises(InvalidArgumentError, match="AmazonsEnv"):
        TianshouObservation("Amazons-v0")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="obs_mode"):
        multi_agent_env(size=SIZE, obs_mode="planes")
