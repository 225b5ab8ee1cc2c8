"""The first five minutes, measured: how fast ``amazons --help`` answers, what it imports, and the
first run of ``demo``, ``play``, ``perft`` and an env's first step, cold and warm.

1. ``amazons --help`` and ``amazons COMMAND --help``: wall time of a fresh process (best and median
   of ``--repeats``), beside ``python3 -c pass`` (the interpreter's own start) and ``import numpy``;
   then ``-X importtime`` of each: the heavy modules it imported (torch, onnxruntime, ray, pygame,
   matplotlib, scipy; numba too), which must be none for help.
2. First runs: each command in a fresh process with ``NUMBA_CACHE_DIR`` an empty temporary folder
   (cold: every kernel it uses compiles), then again with that folder (warm: they load from it).
   ``demo-in-workers`` is the demo's reference: its tournament as the demo ran it before it made
   its agents' first moves in its own process (each worker compiling the same kernels, silently).
   Wall time and the CPU time of the process and its children (user + system): on a machine shared
   with other jobs the wall time stretches with the load, the CPU time much less, so both are given.

    python3 benchmarks/install/first_run.py                      # all: about 5 minutes on 2 quiet cores
    python3 benchmarks/install/first_run.py --only help          # part 1: seconds
    python3 benchmarks/install/first_run.py --only first --runs perft env

``NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1`` are set for the measured processes unless already set.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "onnxruntime", "ray", "pygame", "matplotlib", "scipy", "numba")
COMMANDS = (
    "play",
    "watch",
    "replay",
    "perft",
    "match",
    "tournament",
    "agents",
    "engine",
    "demo",
    "selfplay",
    "train",
    "train-loop",
    "train-policy",
    "tune-eval",
)
ENV_STEP = (
    "import gymnasium, numpy, amazons_env\n"
    "env = gymnasium.make('Amazons-v0', size=10)\n"
    "obs, info = env.reset(seed=0)\n"
    "action = int(numpy.flatnonzero(info['action_mask'])[0])\n"
    "env.step(action)\n"
)
# the reference for the demo: its games as it ran them before it compiled its agents' kernels in
# its own process first (each worker process compiling the same kernels, in silence)
DEMO_IN_WORKERS = (
    "from agents.arena import tournament\n"
    "from amazons_cli.demo import AGENTS\n"
    "tournament(list(AGENTS), games=2, size=8, seed=0, opening=2, time=0.2)\n"
)
#: the first runs: a label and the command line (``play``: the engine, the default opponent, opens;
#: then the human resigns)
FIRST_RUNS = {
    "demo": ([sys.executable, "-m", "amazons_cli", "demo"], ""),
    "demo-in-workers": ([sys.executable, "-c", DEMO_IN_WORKERS], ""),
    "play": ([sys.executable, "-m", "amazons_cli", "play", "--color", "black"], "resign\n"),
    "perft": ([sys.executable, "-m", "amazons_cli", "perft", "2"], ""),
    "env": ([sys.executable, "-c", ENV_STEP], ""),
}


def environment(**extra: str) -> dict[str, str]:
    env = dict(os.environ, **extra)
    env.setdefault("NUMBA_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def timed(command: Sequence[str], stdin: str = "", **extra: str) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall seconds, CPU seconds of the child and its children, and the finished process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, env=environment(**extra), cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return wall, cpu, done


def heavy_imports(argv: Sequence[str]) -> dict[str, float]:
    """The heavy top-level modules ``amazons ARGV`` imports, with their cumulative import seconds."""
    code = "import sys\nfrom amazons_cli.main import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code, *argv], capture_output=True, text=True, env=environment()
    )
    found = {}
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \|\s*(\S+)$", line)
        if match and match.group(2) in HEAVY:
            found[match.group(2)] = int(match.group(1)) / 1e6
    return found


def bench_help(repeats: int) -> None:
    print(f"== help: wall seconds of a fresh process, best and median of {repeats} ==")
    rows = {
        "python3 -c pass": [sys.executable, "-c", "pass"],
        "python3 -c 'import numpy'": [sys.executable, "-c", "import numpy"],
        "amazons --help": [sys.executable, "-m", "amazons_cli", "--help"],
        "amazons perft --help": [sys.executable, "-m", "amazons_cli", "perft", "--help"],
        "amazons play --help": [sys.executable, "-m", "amazons_cli", "play", "--help"],
        "amazons train-loop --help": [sys.executable, "-m", "amazons_cli", "train-loop", "--help"],
    }
    base = None
    for label, command in rows.items():
        walls = sorted(timed(command)[0] for _ in range(repeats))
        base = base or walls[0]
        median = statistics.median(walls)
        print(f"  {label:<28} best {walls[0]:5.2f} s  median {median:5.2f} s  ({walls[0] / base:4.1f}x the first row)")
    print("\n== help: the heavy modules each imports (-X importtime, cumulative seconds) ==")
    for argv in [["--help"]] + [[name, "--help"] for name in COMMANDS]:
        found = heavy_imports(argv)
        shown = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in found.items()) or "none"
        print(f"  amazons {' '.join(argv):<22} {shown}")


def bench_first(runs: Sequence[str]) -> None:
    print("\n== first runs: cold (empty NUMBA_CACHE_DIR) then warm (the same folder again) ==")
    for label in runs:
        command, stdin = FIRST_RUNS[label]
        with tempfile.TemporaryDirectory() as cache:
            cold_wall, cold_cpu, cold = timed(command, stdin, NUMBA_CACHE_DIR=cache)
            warm_wall, warm_cpu, _ = timed(command, stdin, NUMBA_CACHE_DIR=cache)
        notice = "notice shown" if "First run: numba compiles" in cold.stderr else "no notice"
        print(
            f"  {label:<6} cold {cold_wall:6.1f} s wall, {cold_cpu:6.1f} s CPU ({notice}); "
            f"warm {warm_wall:6.1f} s wall, {warm_cpu:6.1f} s CPU; cold/warm wall {cold_wall / warm_wall:4.1f}x"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("help", "first"), default=None, help="one part only")
    parser.add_argument("--repeats", type=int, default=5, help="help: processes timed per row (default 5)")
    parser.add_argument(
        "--runs", nargs="+", choices=tuple(FIRST_RUNS), default=tuple(FIRST_RUNS), help="the first runs measured"
    )
    args = parser.parse_args(argv)
    print(f"load average at the start: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    if args.only in (None, "help"):
        bench_help(args.repeats)
    if args.only in (None, "first"):
        bench_first(args.runs)
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
