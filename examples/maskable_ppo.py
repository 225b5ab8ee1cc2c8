"""Train MaskablePPO (sb3-contrib) on 6x6 Amazons against the random opponent, then print its win
rate over 100 evaluation games (50 as White, 50 as Black).

    pip install -c constraints.txt -e ".[rl]"
    python3 examples/maskable_ppo.py                      # conv features, a few minutes on 2 CPU cores
    python3 examples/maskable_ppo.py --policy mlp         # SB3's default MLP on the flattened planes
    python3 examples/maskable_ppo.py --timesteps 200000   # longer

The learner plays a random colour each game; the random opponent replies inside ``step``, so
rewards are +1/-1 from the learner's view. Actions are masked with ``env.action_masks()``.
``--policy cnn`` (default) reads the 9 planes with three 3x3 convolutions (``ConvExtractor``)
instead of flattening them: the planes are spatial, and a conv layer sees a queen's lines.
"""

from __future__ import annotations

import argparse
import math
import time

import torch
from torch import nn

try:
    from sb3_contrib import MaskablePPO
except ImportError as error:  # pragma: no cover - optional dependency
    raise SystemExit('this example needs sb3-contrib: pip install -c constraints.txt -e ".[rl]"') from error
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from amazons_env.envs.gym_env import AmazonsEnv


class ConvExtractor(BaseFeaturesExtractor):
    """Three 3x3 conv layers over the observation planes, then one dense layer."""

    def __init__(self, observation_space, channels: int = 32, features_dim: int = 256) -> None:
        super().__init__(observation_space, features_dim)
        planes, n, _ = observation_space.shape
        self.net = nn.Sequential(
            nn.Conv2d(planes, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(channels * n * n, features_dim),
            nn.ReLU(),
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net(observations.float())


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
    parser.add_argument("--policy", choices=("cnn", "mlp"), default="cnn")
    args = parser.parse_args()
    torch.set_num_threads(1)  # a small MLP: more threads only contend

    env = Monitor(AmazonsEnv(size=args.size, opponent="random", learner_color="random"))
    policy_kwargs = {"features_extractor_class": ConvExtractor} if args.policy == "cnn" else None
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=1024,
        batch_size=256,
        learning_rate=3e-4,
        gamma=0.99,
        ent_coef=0.01,
        seed=args.seed,
        verbose=0,
        device="cpu",
        policy_kwargs=policy_kwargs,
    )
    untrained = evaluate(model, args.size, args.games, seed=10_000)
    start, cpu = time.perf_counter(), time.process_time()
    model.learn(total_timesteps=args.timesteps)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    wins = evaluate(model, args.size, args.games, seed=10_000)
    total = wins["white"] + wins["black"]
    low, high = wilson(total, args.games)
    half = args.games // 2
    print(
        f"{args.policy} policy: trained {args.timesteps:,} steps in {elapsed:.0f} s "
        f"(CPU {cpu:.0f} s) on {args.size}x{args.size}"
    )
    print(f"untrained policy vs random: {untrained['white'] + untrained['black']}/{args.games} wins")
    print(
        f"trained policy vs random:   {total}/{args.games} wins = {total / args.games:.0%} "
        f"(95% CI {low:.0%}-{high:.0%}); as White {wins['white']}/{args.games - half}, "
        f"as Black {wins['black']}/{half}"
    )


if __name__ == "__main__":
    main()
