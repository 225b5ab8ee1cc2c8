"""A random game in the PettingZoo AEC env: the same agent acts twice per turn (queen, then arrow)."""

import numpy as np

from amazons_env.envs.pettingzoo_env import env

game = env(size=8, render_mode="ansi")
game.reset(seed=0)
rng = np.random.default_rng(0)
for agent in game.agent_iter():
    observation, reward, termination, truncation, info = game.last()
    if termination or truncation:
        print(f"{agent}: final reward {reward}")
        action = None
    else:
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
    game.step(action)
print(game.render())
game.close()
