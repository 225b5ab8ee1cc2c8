"""SuperSuit's frame stacking on our channel-first planes: ``frame_stack_v2(env, k, stack_dim=0)``
(SuperSuit's own option; its default ``stack_dim=-1`` assumes channel-last images), then
MaskablePPO trains on the stacked planes with ``PlanesExtractor``, masked through the wrapper, and a
policy-gradient loop of PettingZoo's own ``agent_iter`` trains both agents on the stacked PettingZoo
env, masked by its infos.

Without SuperSuit or sb3-contrib (the ``rl`` extra) the root ``conftest.py`` skips this module.
"""

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from supersuit import frame_stack_v2  # a name: doctest collection trips over the module's __getattr__

from amazons_env.adapters.sb3 import PlanesExtractor
from amazons_env.envs import pettingzoo_env
from amazons_env.envs.gym_env import AmazonsEnv

SIZE = 4


def test_maskable_ppo_trains_on_stacked_planes_with_legal_actions_only():
    env = AmazonsEnv(size=SIZE, opponent="random", learner_color="random", illegal_action="raise")
    stacked = frame_stack_v2(env, 2, stack_dim=0)
    assert stacked.observation_space.shape == (18, SIZE, SIZE)
    model = MaskablePPO(
        "CnnPolicy",
        stacked,
        n_steps=64,
        batch_size=64,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={"features_extractor_class": PlanesExtractor, "features_extractor_kwargs": {"features_dim": 32}},
    )
    model.learn(256)  # illegal_action="raise": an unmasked choice would stop it
    assert model.num_timesteps >= 256


def test_the_planes_are_stacked_along_the_plane_axis_newest_last():
    env = frame_stack_v2(AmazonsEnv(size=SIZE), 2, stack_dim=0)
    first, info = env.reset(seed=0)
    first = first.copy()  # SuperSuit hands out its stack buffer, which the next step rewrites
    assert np.array_equal(first[:9], first[9:])  # v2 fills the stack with the first frame
    action = int(np.flatnonzero(info["action_mask"])[0])
    second, *_ = env.step(action)
    assert np.array_equal(second[:9], first[9:]) and np.array_equal(second[9:], env.unwrapped.observation())
    assert second[9 + 3].all() and not second[3].any()  # plane 3 (arrow phase) of the newest frame only
    channel_last = frame_stack_v2(AmazonsEnv(size=SIZE), 2)
    assert channel_last.observation_space.shape == (9, SIZE, 2 * SIZE)  # why stack_dim=0


def test_the_pettingzoo_env_in_planes_mode_stacks_and_keeps_its_masks_in_infos():
    game = frame_stack_v2(pettingzoo_env.env(size=SIZE, obs_mode="planes"), 3, stack_dim=0)
    game.reset(seed=0)
    for _ in range(4):  # two turns: each agent acts twice per turn
        obs, _, _, _, info = game.last()
        assert obs.shape == (27, SIZE, SIZE) and obs[18:].any()
        game.step(int(np.flatnonzero(info["action_mask"])[0]))


def test_a_masked_policy_gradient_loop_trains_on_the_stacked_pettingzoo_env():
    """PettingZoo's own loop (``agent_iter``, ``last``) over SuperSuit's stacked planes: a shared
    linear policy samples among the legal actions (``infos[agent]["action_mask"]``) for both agents
    and learns from each game's result (REINFORCE); every action is legal in the game itself."""
    torch.manual_seed(0)
    game = frame_stack_v2(pettingzoo_env.env(size=SIZE, obs_mode="planes"), 2, stack_dim=0)
    policy = torch.nn.Linear(18 * SIZE * SIZE, SIZE**4)
    optimizer = torch.optim.SGD(policy.parameters(), lr=0.1)
    before = policy.weight.detach().clone()
    for episode in range(2):
        game.reset(seed=episode)
        log_probs: dict[str, list[torch.Tensor]] = {agent: [] for agent in game.possible_agents}
        returns = dict.fromkeys(game.possible_agents, 0.0)
        for agent in game.agent_iter():
            obs, reward, terminated, truncated, info = game.last()
            returns[agent] += reward
            if terminated or truncated:
                game.step(None)
                continue
            logits = policy(torch.as_tensor(obs, dtype=torch.float32).flatten())
            legal = torch.as_tensor(info["action_mask"], dtype=torch.bool)
            dist = torch.distributions.Categorical(logits=logits.masked_fill(~legal, float("-inf")))
            action = dist.sample()
            assert game.unwrapped.game.action_masks()[int(action)], "the infos' mask let an illegal action through"
            log_probs[agent].append(dist.log_prob(action))
            game.step(int(action))
        assert sorted(returns.values()) == [-1.0, 1.0], returns
        loss = -sum(returns[agent] * torch.stack(log_probs[agent]).sum() for agent in log_probs)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert not torch.equal(policy.weight, before)
