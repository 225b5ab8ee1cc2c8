"""Simulations per second of ``uct`` against its ``threads`` (tree parallelism), from the start.

Each row is one board size and thread count: ``--repeats`` timed searches of ``uct:time=T,
threads=N`` from the start position (a fresh tree each: ``reset`` between them, one warm-up search
first), and the best of them: simulations per wall-clock second in total and per thread, the
ratio of the total to the first row's (one thread, by default), the CPU seconds the process used
per wall second (how many cores it really had: on a busy machine fewer than its threads),
simulations per CPU second (what threading costs: equal to one thread's if the threads search the
tree without getting in each other's way; the figure that a shared machine does not distort) and
the process's peak resident memory so far (the tree has its rows per thread).

On a Linux machine with ``sched_autogroup`` (the default of desktop kernels), all threads of one
session share one session's fair share of the cores: with other sessions busy, ``threads=2``
gets no more CPU than one thread, and only simulations per CPU second say what it would do on
free cores.

    python3 benchmarks/search/threads.py                                   # 1 and 2 threads, 8x8 and 10x10
    python3 benchmarks/search/threads.py --threads 1 2 4 8 --time 2 --sizes 10

``threads`` is the agent's own thread count, independent of ``NUMBA_NUM_THREADS`` (uct's kernels
run no numba-parallel code); set that to 1 to keep numba's own pool out of the way.
"""

from __future__ import annotations

import argparse
import resource
import time

from amazons_env import Board

from agents import make
from agents.search.agent import SearchAgent

__all__ = ["measure", "main"]


def measure(size: int, threads: int, seconds: float, repeats: int) -> dict[str, float]:
    """The best of ``repeats`` searches of ``seconds`` with ``threads`` from the ``size`` start:
    ``sims_per_s`` (total, wall clock), ``cpu_per_wall``, ``sims_per_cpu_s`` and ``rss_mb`` (the
    process's peak resident memory so far)."""
    agent = make(f"uct:time={seconds:g},threads={threads}", seed=1)
    assert isinstance(agent, SearchAgent)  # uct is a search
    agent.select_move(Board(size))  # compiled and warm
    best = {"sims_per_s": 0.0, "cpu_per_wall": 0.0, "sims_per_cpu_s": 0.0}
    for _ in range(repeats):
        agent.reset()
        wall, cpu = time.perf_counter(), time.process_time()
        result = agent.search(Board(size))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if result.simulations / wall > best["sims_per_s"]:
            best = {"sims_per_s": result.simulations / wall, "cpu_per_wall": cpu / wall}
            best["sims_per_cpu_s"] = result.simulations / cpu
    best["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2], help="thread counts (default 1 2)")
    parser.add_argument("--sizes", nargs="+", type=int, default=[8, 10])
    parser.add_argument("--time", type=float, default=1.0, help="seconds per search (default 1)")
    parser.add_argument("--repeats", type=int, default=3, help="searches per row, the best kept (default 3)")
    args = parser.parse_args()
    if min(args.threads) < 1 or args.time <= 0 or args.repeats < 1:
        parser.error("--threads and --repeats must be >= 1, --time > 0")
    print(f"uct from the start, {args.time:g} s per search, best of {args.repeats}\n")
    print(
        "| board | threads | sims/s total | sims/s per thread | total / first row | CPU s per s | sims per CPU s "
        "| per CPU s / first row | max RSS MB |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for size in args.sizes:
        first = None
        for threads in args.threads:
            row = measure(size, threads, args.time, args.repeats)
            first = row if first is None else first
            print(
                f"| {size}x{size} | {threads} | {row['sims_per_s']:,.0f} | {row['sims_per_s'] / threads:,.0f} | "
                f"{row['sims_per_s'] / first['sims_per_s']:.2f} | {row['cpu_per_wall']:.2f} | "
                f"{row['sims_per_cpu_s']:,.0f} | {row['sims_per_cpu_s'] / first['sims_per_cpu_s']:.2f} | "
                f"{row['rss_mb']:,.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
