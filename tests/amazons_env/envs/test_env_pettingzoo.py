"""The PettingZoo AEC env: conformance tests, the two-action turn, rewards."""

import numpy as np
from pettingzoo.test import api_test, seed_test

from amazons_env.envs.actions import parse_action
from amazons_env.envs.pettingzoo_env import env, raw_env


def test_api_test_wrapped_and_raw():
    api_test(env(size=6), num_cycles=300)
    api_test(raw_env(size=4), num_cycles=300)


def test_seed_test():
    seed_test(lambda: env(size=6), num_cycles=300)


def test_same_agent_twice_per_turn_and_zero_sum_rewards():
    game = env(size=6)
    for seed in range(3):
        game.reset(seed=seed)
        rng = np.random.default_rng(seed)
        selected = []
        totals = {agent: 0.0 for agent in game.possible_agents}
        for agent in game.agent_iter():
            observation, reward, termination, truncation, info = game.last()
            totals[agent] += reward
            if termination:
                game.step(None)
                continue
            other = game.possible_agents[1 - game.possible_agents.index(agent)]
            assert not game.observe(other)["action_mask"].any()
            assert observation["observation"][3].all() == (info["phase"] == 1)
            selected.append(agent)
            game.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        assert sorted(totals.values()) == [-1.0, 1.0]
        assert all(selected[k] == selected[k + 1] for k in range(0, len(selected), 2))
        assert all(selected[k] != selected[k + 2] for k in range(0, len(selected) - 2, 2))


def test_illegal_action_costs_the_taker():
    game = env(size=6)
    game.reset()
    game.step(parse_action("a1-a2", 6))  # no queen on a1
    assert game.terminations == {"player_0": True, "player_1": True}
    assert game.rewards == {"player_0": -1, "player_1": 0}


def test_reset_options_must_be_a_dict():
    import pytest

    game = raw_env(size=6)
    for bad in ("x", 3, ["position"]):
        with pytest.raises(ValueError, match="reset options must be a dict"):
            game.reset(options=bad)


def test_both_agents_get_their_rewards_on_the_last_step():
    game = raw_env(size=4)
    rng = np.random.default_rng(1)
    for seed in range(4):
        game.reset(seed=seed)
        while not any(game.terminations.values()):
            mask = game.observe(game.agent_selection)["action_mask"]
            game.step(int(rng.choice(np.flatnonzero(mask))))
        winner = game.game.board.winner
        assert game.rewards[f"player_{int(winner)}"] == 1.0 and game.rewards[f"player_{1 - int(winner)}"] == -1.0
