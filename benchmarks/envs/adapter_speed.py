"""Steps per second that SB3 sees: the vector env itself, SB3's ``VecEnv`` over it
(``amazons_env.adapters.sb3.AmazonsVecEnv``) and SB3's ``DummyVecEnv`` of one ``AmazonsEnv`` per
game (what SB3 users had before the adapter), in one run, with ratios to the vector env.

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python3 benchmarks/envs/adapter_speed.py [--games 64] [--size 6]

Self-play with random legal actions; only the ``step`` calls are timed (choosing the actions is
left out). Best of two rounds.
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Callable

import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv

from amazons_env.adapters.sb3 import AmazonsVecEnv
from amazons_env.envs.gym_env import AmazonsEnv
from amazons_env.envs.vector_env import AmazonsVectorEnv


def steps_per_second(step: Callable[[np.ndarray], Any], actions: Callable[[], np.ndarray], games: int, n: int) -> float:
    """Steps/s of ``step`` alone, over ``n`` calls after one warm-up call."""
    step(actions())
    spent = 0.0
    for _ in range(n):
        chosen = actions()
        start = time.perf_counter()
        step(chosen)
        spent += time.perf_counter() - start
    return games * n / spent


def random_legal(envs: DummyVecEnv, rng: np.random.Generator) -> Callable[[], np.ndarray]:
    """A random legal action per game of ``envs``, from their masks."""
    return lambda: np.array([rng.choice(np.flatnonzero(mask)) for mask in envs.env_method("action_masks")])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--size", type=int, default=6)
    parser.add_argument("--steps", type=int, default=300, help="step calls per measurement (a fifth for DummyVecEnv)")
    args = parser.parse_args()
    b, size, n = args.games, args.size, args.steps
    rates: dict[str, float] = {}
    for _ in range(2):
        vector_env = AmazonsVectorEnv(b, size=size)
        vector_env.reset(seed=0)
        rate = steps_per_second(vector_env.step, vector_env.sample_legal_actions, b, n)
        rates["AmazonsVectorEnv"] = max(rates.get("AmazonsVectorEnv", 0.0), rate)

        inner = AmazonsVectorEnv(b, size=size)
        adapter = AmazonsVecEnv(inner)
        adapter.seed(0)
        adapter.reset()
        rate = steps_per_second(adapter.step, inner.sample_legal_actions, b, n)
        rates["AmazonsVecEnv (SB3 VecEnv)"] = max(rates.get("AmazonsVecEnv (SB3 VecEnv)", 0.0), rate)

        dummy = DummyVecEnv([lambda: AmazonsEnv(size=size) for _ in range(b)])
        dummy.seed(0)
        dummy.reset()
        rate = steps_per_second(dummy.step, random_legal(dummy, np.random.default_rng(0)), b, max(1, n // 5))
        name = f"DummyVecEnv({b} x AmazonsEnv)"
        rates[name] = max(rates.get(name, 0.0), rate)
    base = rates["AmazonsVectorEnv"]
    print(f"{b} games, {size}x{size}, self-play, random legal actions")
    for name, rate in rates.items():
        print(f"{name:30s} {rate:12,.0f} steps/s  {rate / base:6.3f} x the vector env")


if __name__ == "__main__":
    main()
