"""The vector env's opponents at env speed: learner steps per second of ``AmazonsVectorEnv`` with a
batched opponent beside self-play and beside one Python agent per game, all in one run.

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python3 benchmarks/envs/opponent_speed.py
    python3 benchmarks/envs/opponent_speed.py --sizes 6 --seconds 2 --threads 1 2 4

Rows (64 games unless ``--envs``; actions from ``sample_legal_actions()``, default ``copy=True``):
* ``self-play``: no opponent, every step a move of one side (the reference of the random rows).
* ``random`` (batched: ``UniformRandom``, a numba pick from the legal lists) and ``random agents``
  (a list of 64 ``random`` agents, one ``select_move(board)`` per game in Python).
* ``uct:sims=N`` batched (``uct_tree.forest``: every game's search in one numba call, on 1, 2, ...
  threads) and ``uct:sims=N agents`` (one ``uct`` agent per game, the per-game path; by default an
  agent keeps the subtree of the position two plies on, so its simulations expand fewer nodes:
  ``reuse=false agents`` run the batched opponent's own search, a fresh tree each move). The
  agents' proven-move shortcut (``prove``) is off: the batched search has none.

Each rate counts the learner's steps (an opponent's replies happen inside them). The rows of a
board size run in turns of ``--seconds`` slices, so that a load that changes during the run hits
them alike; the rates are per wall-clock second and per CPU second of this process (CPU time
counts every thread: for the thread rows, read the wall rate; on a machine shared with other jobs
the wall rates of several threads are bounded by the cores left free). The ratios the targets ask
for are printed last: batched random / self-play, batched uct / uct agents (one thread), and the
uct rate on K threads / on one.
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Callable

from amazons_env.envs.vector_env import AmazonsVectorEnv

from agents import make
from agents.search.agent import SearchAgent


def _runner(envs: AmazonsVectorEnv) -> Callable[[float], tuple[int, float, float]]:
    """Step ``envs`` for about ``seconds``; returns (steps, wall s, CPU s)."""
    envs.reset(seed=0)

    def run(seconds: float) -> tuple[int, float, float]:
        steps, wall0, cpu0 = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - wall0 < seconds:
            for _ in range(8):
                envs.step(envs.sample_legal_actions())
            steps += 8 * envs.num_envs
        return steps, time.perf_counter() - wall0, time.process_time() - cpu0

    return run


def measure(rows: dict[str, Callable], seconds: float, rounds: int) -> dict[str, dict[str, float]]:
    """Every row in turns, ``rounds`` slices of ``seconds`` each (after one warm-up slice each)."""
    for run in rows.values():
        run(min(seconds, 0.5))
    totals = {name: [0, 0.0, 0.0] for name in rows}
    for _ in range(rounds):
        for name, run in rows.items():
            for k, value in enumerate(run(seconds)):
                totals[name][k] += value
    return {name: {"wall": s / w, "cpu": s / c if c > 0 else float("nan")} for name, (s, w, c) in totals.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[6, 10])
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--sims", type=int, default=100)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one slice of a row")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    b, sims = args.envs, args.sims
    print(f"{b} games per env, learner steps per second (wall | CPU of this process), {args.rounds} x {args.seconds} s")
    for size in args.sizes:
        rows: dict[str, Any] = {
            "self-play": _runner(AmazonsVectorEnv(b, size)),
            "random (batched)": _runner(AmazonsVectorEnv(b, size, opponent="random")),
            "random agents": _runner(AmazonsVectorEnv(b, size, opponent=[make("random") for _ in range(b)])),
        }
        for threads in args.threads:
            spec = f"uct:sims={sims}" + (f",threads={threads}" if threads > 1 else "")
            rows[f"uct:sims={sims} (batched, {threads} thread{'s' * (threads > 1)})"] = _runner(
                AmazonsVectorEnv(b, size, opponent=spec)
            )
        for reuse in ("", ",reuse=false"):
            agents = [make(f"uct:sims={sims}{reuse}") for _ in range(b)]
            for agent in agents:  # the same search as the batched one, which has no proven-move shortcut
                assert isinstance(agent, SearchAgent)
                agent.prove = 0
            rows[f"uct:sims={sims}{reuse} agents"] = _runner(AmazonsVectorEnv(b, size, opponent=agents))
        rates = measure(rows, args.seconds, args.rounds)
        print(f"\n{size}x{size}")
        for name, rate in rates.items():
            print(f"  {name:34s} {rate['wall']:>12,.0f} | {rate['cpu']:>12,.0f}")
        uct = [name for name in rates if name.startswith("uct") and "batched" in name]
        print(
            f"  random (batched) / self-play: {rates['random (batched)']['cpu'] / rates['self-play']['cpu']:.2f} (CPU)"
        )
        one = rates[uct[0]]
        for reuse in ("", ",reuse=false"):
            per_game = rates[f"uct:sims={sims}{reuse} agents"]["cpu"]
            print(f"  uct batched (1 thread) / uct:sims={sims}{reuse} agents: {one['cpu'] / per_game:.2f} (CPU)")
        for name in uct[1:]:
            print(f"  {name} / 1 thread: {rates[name]['wall'] / one['wall']:.2f} (wall)")


if __name__ == "__main__":
    main()
