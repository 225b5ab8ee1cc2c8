"""A random game in the gymnasium env: each turn is two steps (queen move, then arrow)."""

import gymnasium
import numpy as np

import amazons_env  # noqa: F401  (registers Amazons-v0)

env = gymnasium.make("Amazons-v0", size=8, render_mode="ansi")
obs, info = env.reset(seed=0)
rng, terminated = np.random.default_rng(0), False
while not terminated:
    action = rng.choice(np.flatnonzero(info["action_mask"]))
    obs, reward, terminated, truncated, info = env.step(action)
print(
    env.render(),
    f"\nreward {reward} to the last mover after {info['move_number']} turns; "
    f"both players' rewards [White, Black]: {info['rewards'].tolist()}",
)
