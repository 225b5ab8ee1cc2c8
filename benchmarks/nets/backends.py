"""Self-play games per second on the local and the Ray backend, with 1 and 2 workers (agents.arena.backends).

Every configuration plays the same job (``training.selfplay.value``, one game per shard so that the
workers share it evenly) into a fresh folder, after one warm-up job per backend (Ray keeps its
worker processes between jobs; the local backend starts its pool for every job, as it does in
use). Printed per row: wall seconds, games per second, the CPU seconds the game-playing processes
used (local: this process or the pool's children; Ray: its ``ray::`` worker processes, read from
/proc) and the load average before the row; then the ratios 2 workers / 1 worker per backend
and Ray / local, and a check that every run wrote the same data hash. Run it with
``NUMBA_NUM_THREADS=1`` (one core per worker):

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python3 benchmarks/nets/backends.py --games 16 --size 8

Example:

>>> rows = bench(["local"], [1], games=2, size=6, agent="two-iteration:depth=1,eval=improved", quiet=True)
>>> rows[0]["backend"], rows[0]["games"]
('local', 2)
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

from agents.arena.backends import BACKENDS, ray_module

from training.selfplay.value import selfplay

__all__ = ["bench", "main"]

DEFAULT_AGENT = "two-iteration:depth=1,eval=improved"


def _ray_workers_cpu() -> float:
    """CPU seconds used so far by the live ``ray::`` worker processes (Linux /proc; 0 elsewhere)."""
    total = 0
    for entry in Path("/proc").iterdir() if Path("/proc/self/stat").exists() else []:
        if entry.name.isdigit():
            try:
                if not (entry / "cmdline").read_bytes().startswith(b"ray::"):
                    continue
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def _cpu(backend: str) -> float:
    """CPU seconds of this process, its reaped children and (Ray) the Ray workers."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return (
        own.ru_utime
        + own.ru_stime
        + children.ru_utime
        + children.ru_stime
        + (_ray_workers_cpu() if backend == "ray" else 0.0)
    )


def bench(
    backends: Sequence[str], workers: Sequence[int], games: int, size: int, agent: str, quiet: bool = False
) -> list[dict[str, Any]]:
    """One row per (backend, workers): see the module docstring."""
    if "ray" in backends:
        ray = ray_module()
        if not ray.is_initialized():
            ray.init(num_cpus=max(workers), include_dashboard=False, log_to_driver=False)
    job: dict[str, Any] = dict(games=games, size=size, agent=agent, games_per_shard=1, progress=False)
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for backend in backends:
            selfplay(
                Path(scratch, f"warm-{backend}"),
                workers=max(workers),
                backend=backend,
                **{**job, "games": max(workers)},
            )
            for count in workers:
                load = os.getloadavg()[0]
                cpu, start = _cpu(backend), time.perf_counter()
                manifest = selfplay(Path(scratch, f"{backend}-{count}"), workers=count, backend=backend, **job)
                wall, cpu = time.perf_counter() - start, _cpu(backend) - cpu
                rows.append(
                    {
                        "backend": backend,
                        "workers": count,
                        "games": manifest["games"],
                        "wall_s": wall,
                        "games_per_s": manifest["games"] / wall,
                        "cpu_s": cpu,
                        "load": load,
                        "data_hash": manifest["data_hash"],
                    }
                )
                if not quiet:
                    row = rows[-1]
                    print(
                        f"{backend:>6} {count:>7} {row['games']:>5} {wall:>8.2f} {row['games_per_s']:>8.3f} "
                        f"{cpu:>7.1f} {load:>6.2f}",
                        flush=True,
                    )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=16, help="games per run (default 16)")
    parser.add_argument("--size", type=int, default=8, help="board size (default 8)")
    parser.add_argument("--agent", default=DEFAULT_AGENT, help=f"self-play agent (default {DEFAULT_AGENT})")
    parser.add_argument("--backends", nargs="+", choices=BACKENDS, default=list(BACKENDS))
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts (default 1 2)")
    args = parser.parse_args(argv)
    print(
        f"self-play {args.games} games {args.size}x{args.size} of {args.agent}, one game per shard; "
        f"NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', 'unset')}, {os.cpu_count()} cores"
    )
    print(f"{'backend':>6} {'workers':>7} {'games':>5} {'wall s':>8} {'games/s':>8} {'CPU s':>7} {'load':>6}")
    rows = bench(args.backends, args.workers, args.games, args.size, args.agent)
    rate = {(r["backend"], r["workers"]): r["games_per_s"] for r in rows}
    low, high = min(args.workers), max(args.workers)
    for backend in args.backends:
        if low != high:
            print(f"{backend}: {high} workers / {low} worker = {rate[backend, high] / rate[backend, low]:.2f}x")
    if len(args.backends) == 2:
        for count in args.workers:
            print(f"{count} worker(s): ray / local = {rate['ray', count] / rate['local', count]:.2f}x")
    hashes = {r["data_hash"] for r in rows}
    print(f"data hash {'the same in every run: ' + hashes.pop() if len(hashes) == 1 else 'DIFFERS: ' + str(hashes)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
