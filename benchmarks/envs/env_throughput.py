"""Random masked play in games/s: our single env, our vector env, and OpenSpiel's C++ and Python
loops, all in one run (machines are noisy: read the ratios).

    python3 benchmarks/envs/env_throughput.py                 # 10x10, 3 s per row
    python3 benchmarks/envs/env_throughput.py --size 8 --seconds 5

Rows (each also in games per CPU-second of this process: per-core speed, which a machine busy
with other jobs distorts less than wall-clock rates):
* single env: ``AmazonsEnv.step`` with a uniformly random legal action read from
  ``info["action_mask"]`` (a numba scan of the whole mask); also the median ``step`` time.
* vector env, default: ``AmazonsVectorEnv(B)`` as constructed with no options (fresh arrays every
  step, one numba thread); actions from ``envs.sample_legal_actions()`` (uniform over the legal actions,
  from the list the step kernel writes). Observations (9 planes) and masks are produced for every
  game every step. Other rows: ``copy=False`` (read-only views, the opt-in); ``num_threads`` = all
  numba threads (the fastest wall-clock path on an idle machine); a sampler that scans the full ``N**4`` mask.
* OpenSpiel C++: ``pyspiel.evaluate_bots`` with two uniform random bots (uniform per phase, like
  ours), no observations. OpenSpiel Python: ``state.apply_action(random.choice(legal_actions()))``.

Rows run one after the other, so a load that changes during the run skews their ratios; the last
lines therefore also alternate the default vector env and OpenSpiel's C++ loop in short slices
and divide their games per CPU-second over the same stretch of time (the per-core target).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

import numba
import numpy as np
from numba import njit

from amazons_env.envs.gym_env import AmazonsEnv
from amazons_env.envs.vector_env import AmazonsVectorEnv


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


def _timed(seconds: float, run_once) -> dict:
    """Call ``run_once() -> (games, steps)`` for ``seconds``; rates per wall and per CPU second."""
    games = steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        g, s = run_once()
        games, steps = games + g, steps + s
    wall, used = time.perf_counter() - start, max(time.process_time() - cpu, 1e-9)
    return {
        "games/s": games / wall,
        "steps/s": steps / wall,
        "games/cpu-s": games / used,
        "games": games,
        "cpu-s": used,
    }


def bench_single(size: int, seconds: float) -> dict:
    env = AmazonsEnv(size=size)
    rng = np.random.default_rng(0)
    action = np.zeros(1, np.int64)
    state = {"info": env.reset(seed=0)[1]}
    times: list[float] = []

    def run_once():
        scan_sample(state["info"]["action_mask"][None, :], rng.random(1), action)
        t0 = time.perf_counter()
        _, _, terminated, _, state["info"] = env.step(int(action[0]))
        times.append(time.perf_counter() - t0)
        if terminated:
            state["info"] = env.reset()[1]
        return int(terminated), 1

    result = _timed(seconds, run_once)
    result["step median us"] = statistics.median(times) * 1e6
    return result


def bench_vector(size: int, num_envs: int, seconds: float, sampler: str = "rows", **options) -> dict:
    return _timed(seconds, vector_runner(size, num_envs, sampler, **options))


def vector_runner(size: int, num_envs: int, sampler: str = "rows", **options):
    """``run_once`` of random masked play in a warmed-up ``AmazonsVectorEnv``: one step of every game."""
    envs = AmazonsVectorEnv(num_envs, size=size, **options)
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

    def run_once():
        nonlocal infos
        _, _, terminated, _, infos = envs.step(choose())
        return int(np.count_nonzero(terminated)), num_envs

    return run_once


def bench_openspiel_cpp(size: int, seconds: float) -> dict:
    return _timed(seconds, openspiel_cpp_runner(size))


def openspiel_cpp_runner(size: int):
    """``run_once`` of one random game in OpenSpiel's C++ loop."""
    import pyspiel

    game = pyspiel.load_game("amazons", {"board_size": size})
    bots = [pyspiel.make_uniform_random_bot(p, 1234 + p) for p in range(2)]
    count = iter(range(10**12))

    def run_once():
        pyspiel.evaluate_bots(game.new_initial_state(), bots, next(count))
        return 1, 0

    return run_once


def bench_paired(size: int, num_envs: int, seconds: float, rounds: int = 10) -> float:
    """Games per CPU-second of the default vector env (one thread) over those of OpenSpiel's C++
    loop, the two run in alternating slices (``rounds`` each) so that both see the same load."""
    runners = {"vector": vector_runner(size, num_envs), "openspiel": openspiel_cpp_runner(size)}
    totals = {name: [0, 0.0] for name in runners}
    for _ in range(rounds):
        for name, run_once in runners.items():
            r = _timed(seconds / (2 * rounds), run_once)
            totals[name][0] += r["games"]
            totals[name][1] += r["cpu-s"]
    return (totals["vector"][0] / totals["vector"][1]) / (totals["openspiel"][0] / totals["openspiel"][1])


def bench_openspiel_python(size: int, seconds: float) -> dict:
    import pyspiel

    game = pyspiel.load_game("amazons", {"board_size": size})
    rng = random.Random(0)

    def run_once():
        state, actions = game.new_initial_state(), 0
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
        return 1, actions

    return _timed(seconds, run_once)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10, choices=(6, 8, 10))
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per row")
    parser.add_argument("--envs", type=int, nargs="+", default=[256, 1024])
    args = parser.parse_args()
    size, seconds = args.size, args.seconds
    threads = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]  # set at import, from the environment
    AmazonsVectorEnv(2, size=size).reset()  # compile (cached after the first run)
    bench_single(size, 0.2)
    bench_vector(size, 8, 0.2)
    bench_vector(size, 8, 0.2, sampler="scan")
    bench_vector(size, 8, 0.2, num_threads=threads)

    rows: list[tuple[str, dict]] = [
        ("OpenSpiel C++ loop (evaluate_bots)", bench_openspiel_cpp(size, seconds)),
        ("OpenSpiel Python loop", bench_openspiel_python(size, seconds)),
        ("single env (AmazonsEnv)", bench_single(size, seconds)),
    ]
    for num_envs in args.envs:
        rows.append((f"vector env, {num_envs} games, default (1 thread)", bench_vector(size, num_envs, seconds)))
    first = args.envs[0]
    rows.append((f"vector env, {first} games, copy=False", bench_vector(size, first, seconds, copy=False)))
    for num_envs in args.envs:
        rows.append(
            (
                f"vector env, {num_envs} games, num_threads={threads}",
                bench_vector(size, num_envs, seconds, num_threads=threads),
            )
        )
    rows.append(
        (f"vector env, {first} games, full-mask scan sampler", bench_vector(size, first, seconds, sampler="scan"))
    )

    reference = rows[0][1]
    load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"\nRandom masked play on {size}x{size}, {seconds:g} s per row (one run; load average {load}, "
        f"{os.cpu_count()} CPUs)\n"
    )
    print(
        f"| {'what':<48} | {'games/s':>9} | {'steps/s':>10} | {'vs OpenSpiel C++':>16} "
        f"| {'games/CPU-s':>11} | {'per core vs OpenSpiel':>21} |"
    )
    print(f"|{'-' * 50}|{'-' * 11}|{'-' * 12}|{'-' * 18}|{'-' * 13}|{'-' * 23}|")
    for name, r in rows:
        steps = f"{r['steps/s']:,.0f}" if r["steps/s"] else "-"
        print(
            f"| {name:<48} | {r['games/s']:>9,.0f} | {steps:>10} | {r['games/s'] / reference['games/s']:>15.2f}x "
            f"| {r['games/cpu-s']:>11,.0f} | {r['games/cpu-s'] / reference['games/cpu-s']:>20.2f}x |"
        )
    single = rows[2][1]
    print(f"\nsingle env step median: {single['step median us']:.1f} us (target <= 30 us)")
    vector = {name: r for name, r in rows if name.startswith("vector env") and "scan" not in name}
    default = max(r["games/s"] for name, r in vector.items() if "default" in name)
    fastest = max(r["games/s"] for r in vector.values())
    one_core = max(r["games/cpu-s"] for name, r in vector.items() if "default" in name)
    print(
        f"vector env: default path {default:,.0f} games/s, fastest {fastest:,.0f}: fastest/default "
        f"{fastest / default:.2f}x (target <= 1.5x)"
    )
    print(
        f"vector env, one thread, per core: {one_core / reference['games/cpu-s']:.2f}x OpenSpiel's C++ loop "
        "(target >= 2x)"
    )
    for num_envs in args.envs:
        print(
            f"  the same, {num_envs} games, alternating with OpenSpiel in {2 * seconds:g} s: "
            f"{bench_paired(size, num_envs, 2 * seconds):.2f}x"
        )


if __name__ == "__main__":
    main()
