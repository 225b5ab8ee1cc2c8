"""Random masked play in games/s: our single env, our vector env, and OpenSpiel's C++ and Python
loops, all in one run (machines are noisy: read the ratios).

    python3 benchmarks/env_throughput.py                 # 10x10, 3 s per row
    python3 benchmarks/env_throughput.py --size 8 --seconds 5

Rows:
* single env: ``AmazonsEnv.step`` with a uniformly random legal action read from
  ``info["action_mask"]`` (a numba scan of the whole mask); also the median ``step`` time.
* vector env, B games: ``AmazonsVectorEnv(B, copy=False)``; actions from
  ``envs.sample_legal_actions()`` (uniform over the legal actions, reading the mask rows of the
  pieces that can move). Observations (9 planes) and masks are produced for every game every step.
  One row scans the full ``N**4`` mask instead, one uses ``copy=True``.
* OpenSpiel C++: ``pyspiel.evaluate_bots`` with two uniform random bots (uniform per phase, like
  ours), no observations. OpenSpiel Python: ``state.apply_action(random.choice(legal_actions()))``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np
from numba import njit

from amazons_env.env import AmazonsEnv
from amazons_env.vector import AmazonsVectorEnv


@njit(cache=True)
def scan_sample(masks, uniforms, out):
    """Uniform legal action per row, scanning every entry of the mask (the generic way)."""
    for i in range(masks.shape[0]):
        row = masks[i]
        total = 0
        for j in range(row.shape[0]):
            total += row[j]
        out[i] = 0
        k = int(uniforms[i] * total)
        for j in range(row.shape[0]):
            if row[j]:
                if k == 0:
                    out[i] = j
                    break
                k -= 1


def bench_single(size: int, seconds: float) -> dict:
    env = AmazonsEnv(size=size)
    rng = np.random.default_rng(0)
    action = np.zeros(1, np.int64)
    obs, info = env.reset(seed=0)
    times: list[float] = []
    games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        scan_sample(info["action_mask"][None, :], rng.random(1), action)
        t0 = time.perf_counter()
        obs, reward, terminated, truncated, info = env.step(int(action[0]))
        times.append(time.perf_counter() - t0)
        if terminated:
            games += 1
            obs, info = env.reset()
    elapsed = time.perf_counter() - start
    return {"games/s": games / elapsed, "steps/s": len(times) / elapsed,
            "step median us": statistics.median(times) * 1e6}


def bench_vector(size: int, num_envs: int, seconds: float, sampler: str = "rows", copy: bool = False) -> dict:
    envs = AmazonsVectorEnv(num_envs, size=size, copy=copy)
    obs, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = np.zeros(num_envs, np.int64)

    def choose() -> np.ndarray:
        if sampler == "rows":
            return envs.sample_legal_actions()
        scan_sample(infos["action_mask"], rng.random(num_envs), actions)
        return actions

    for _ in range(2 * size * size):  # warm up until games are at all stages
        obs, rewards, terminated, truncated, infos = envs.step(choose())
    games = steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, rewards, terminated, truncated, infos = envs.step(choose())
        games += int(np.count_nonzero(terminated))
        steps += 1
    elapsed = time.perf_counter() - start
    return {"games/s": games / elapsed, "steps/s": steps * num_envs / elapsed}


def bench_openspiel_cpp(size: int, seconds: float) -> dict:
    import pyspiel
    game = pyspiel.load_game("amazons", {"board_size": size})
    bots = [pyspiel.make_uniform_random_bot(p, 1234 + p) for p in range(2)]
    games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        pyspiel.evaluate_bots(game.new_initial_state(), bots, games)
        games += 1
    return {"games/s": games / (time.perf_counter() - start)}


def bench_openspiel_python(size: int, seconds: float) -> dict:
    import pyspiel
    game = pyspiel.load_game("amazons", {"board_size": size})
    rng = random.Random(0)
    games = actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {"games/s": games / elapsed, "steps/s": actions / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10, choices=(6, 8, 10))
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per row")
    parser.add_argument("--envs", type=int, nargs="+", default=[256, 1024])
    args = parser.parse_args()
    size, seconds = args.size, args.seconds
    AmazonsVectorEnv(2, size=size).reset()  # compile (cached after the first run)
    bench_single(size, 0.2)
    bench_vector(size, 8, 0.2)
    bench_vector(size, 8, 0.2, sampler="scan")

    rows: list[tuple[str, dict]] = [("OpenSpiel C++ loop (evaluate_bots)", bench_openspiel_cpp(size, seconds)),
                                    ("OpenSpiel Python loop", bench_openspiel_python(size, seconds)),
                                    ("single env (AmazonsEnv)", bench_single(size, seconds))]
    for num_envs in args.envs:
        rows.append((f"vector env, {num_envs} games", bench_vector(size, num_envs, seconds)))
    first = args.envs[0]
    rows.append((f"vector env, {first} games, full-mask scan sampler",
                 bench_vector(size, first, seconds, sampler="scan")))
    rows.append((f"vector env, {first} games, copy=True", bench_vector(size, first, seconds, copy=True)))

    reference = rows[0][1]["games/s"]
    print(f"\nRandom masked play on {size}x{size}, {seconds:g} s per row (one run)\n")
    print(f"| {'what':<52} | {'games/s':>9} | {'steps/s':>10} | {'vs OpenSpiel C++':>16} |")
    print(f"|{'-' * 54}|{'-' * 11}|{'-' * 12}|{'-' * 18}|")
    for name, result in rows:
        steps = f"{result['steps/s']:,.0f}" if "steps/s" in result else "-"
        print(f"| {name:<52} | {result['games/s']:>9,.0f} | {steps:>10} | {result['games/s'] / reference:>15.2f}x |")
    single = rows[2][1]
    print(f"\nsingle env step median: {single['step median us']:.1f} us (target <= 30 us)")
    best = max(result["games/s"] for name, result in rows if name.startswith("vector env") and "," in name)
    print(f"vector env best / OpenSpiel C++ loop: {best / reference:.2f}x (target >= 2x)")


if __name__ == "__main__":
    main()
