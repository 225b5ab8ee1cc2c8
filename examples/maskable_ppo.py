"""Train MaskablePPO (sb3-contrib) on 6x6 Amazons against the random opponent, then print its win
rate over 100 evaluation games (50 as White, 50 as Black).

    pip install -c constraints.txt -e ".[rl]"
    python3 examples/maskable_ppo.py                      # short run (a few minutes on 2 CPU cores)
    python3 examples/maskable_ppo.py --timesteps 200000   # longer

The learner plays a random colour each game; the random opponent replies inside ``step``, so
rewards are +1/-1 from the learner's view. Actions are masked with ``env.action_masks()``.
"""

from __future__ import annotations

import argparse
import math
import time

import torch

try:
    from sb3_contrib import MaskablePPO
except ImportError as error:  # pragma: no cover - optional dependency
    raise SystemExit('this example needs sb3-contrib: pip install -c constraints.txt -e ".[rl]"') from error
from stable_baselines3.common.monitor import Monitor

from amazons_env.env import AmazonsEnv


def evaluate(model: MaskablePPO, size: int, games: int, seed: int) -> dict:
    wins = {"white": 0, "black": 0}
    for game in range(games):
        color = "white" if game % 2 == 0 else "black"
        env = AmazonsEnv(size=size, opponent="random", learner_color=color)
        obs, info = env.reset(seed=seed + game)
        terminated, reward = False, 0.0
        while not terminated:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, terminated, truncated, info = env.step(int(action))
        wins[color] += reward > 0
    return wins


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timesteps", type=int, default=20_000)
    parser.add_argument("--size", type=int, default=6)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)  # a small MLP: more threads only contend

    env = Monitor(AmazonsEnv(size=args.size, opponent="random", learner_color="random"))
    model = MaskablePPO("MlpPolicy", env, n_steps=1024, batch_size=256, learning_rate=3e-4, gamma=0.99,
                        ent_coef=0.01, seed=args.seed, verbose=0, device="cpu")
    untrained = evaluate(model, args.size, args.games, seed=10_000)
    start = time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    elapsed = time.perf_counter() - start
    wins = evaluate(model, args.size, args.games, seed=10_000)
    total = wins["white"] + wins["black"]
    low, high = wilson(total, args.games)
    half = args.games // 2
    print(f"trained {args.timesteps:,} steps in {elapsed:.0f} s on {args.size}x{args.size}")
    print(f"untrained policy vs random: {untrained['white'] + untrained['black']}/{args.games} wins")
    print(f"trained policy vs random:   {total}/{args.games} wins = {total / args.games:.0%} "
          f"(95% CI {low:.0%}-{high:.0%}); as White {wins['white']}/{args.games - half}, "
          f"as Black {wins['black']}/{half}")


if __name__ == "__main__":
    main()
