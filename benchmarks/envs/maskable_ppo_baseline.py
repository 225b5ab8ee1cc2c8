"""MaskablePPO with the shipped SB3 adapter against the targets of issue 39: at least 95% against
``random`` on 6x6 and 80% on 8x8 within 15 CPU minutes of training, then scored against
``alphabeta:depth=1`` and ``uct:sims=100``.

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python3 benchmarks/envs/maskable_ppo_baseline.py \\
        --out experiments/rl-baselines
    python3 benchmarks/envs/maskable_ppo_baseline.py --sizes 6 --cpu-minutes 10 --out /tmp/mppo --images ""

Runs ``examples/maskable_ppo.py`` (its defaults: ``AmazonsVecEnv`` over 64 games against the
batched random opponent in the queen-line action encoding, ``AmazonsPlanesPolicy``:
``PlanesExtractor``'s per-square features and a 1x1 convolution as the action layer, one torch
thread) once per board size, the sizes side by side in child processes (``--one-by-one`` runs
them in turn), each to ``--cpu-minutes`` of its own training CPU time; any other option after ``--`` goes
to the example. SIGTERM to a run's process ends its training early (it then scores and writes
its files as at the end of its budget). Each run writes ``DIR/maskable-ppo-NxN/`` (``curve.png``, ``results.md``,
``results.json``); this script prints one table of every size (wins out of the games with 95%
Wilson intervals; the final games are 200 against the arena's ``random`` agent, 100 against each
other opponent, half as White) and copies the curves to ``--images`` (``docs/images`` by default,
where ``docs/rl-baselines.md`` shows them).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "maskable_ppo.py"
TARGETS = {6: 0.95, 8: 0.80}


def cell(row: dict) -> str:
    wins = row["white"] + row["black"]
    return f"{wins}/{row['games']} ({row['low']:.0%}-{row['high']:.0%})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[6, 8])
    parser.add_argument("--cpu-minutes", type=float, default=15.0, help="training CPU budget of each run")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--images", default="docs/images", help="folder for the curves ('' for none)")
    parser.add_argument("--one-by-one", action="store_true", help="run the sizes in turn, not side by side")
    parser.add_argument("extra", nargs="*", help="options for examples/maskable_ppo.py (after --)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    runs = {}
    for size in args.sizes:
        out = args.out / f"maskable-ppo-{size}x{size}"
        command = [sys.executable, str(EXAMPLE), "--size", str(size), "--cpu-minutes", str(args.cpu_minutes)]
        command += ["--out", str(out), *args.extra]
        print("$", " ".join(command[1:]), flush=True)
        with open(args.out / f"maskable-ppo-{size}x{size}.log", "w") as log:  # the child keeps its own copy
            runs[size] = (subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT), out)
        if args.one_by_one:
            runs[size][0].wait()
    failed = [size for size, (process, _) in runs.items() if process.wait() != 0]
    if failed:
        raise SystemExit(f"the run of size {failed} failed: see {args.out}/maskable-ppo-*.log")
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"\nCPU time of the runs, all together: {(children.ru_utime + children.ru_stime) / 60:.1f} min")
    print("\n| board | training CPU min | steps | vs `random` (target) | vs `alphabeta:depth=1` | vs `uct:sims=100` |")
    print("|---|---:|---:|---|---|---|")
    for size, (_, out) in runs.items():
        results = json.loads((out / "results.json").read_text())
        final, times = results["final"], results["times"]
        others = [cell(row) for name, row in final.items() if name != "random-agent"]
        target = TARGETS.get(size)
        met = target is not None and final["random-agent"]["score"] >= target
        reached = "" if target is None else f" ({'met' if met else 'missed'}: {target:.0%})"
        print(
            f"| {size}x{size} | {times['train'] / 60:.1f}{' (stopped)' * results['stopped']} | "
            f"{results['curve'][-1]['steps']:,} | "
            f"{cell(final['random-agent'])}{reached} | {' | '.join(others)} |"
        )
        if args.images:
            shutil.copyfile(out / "curve.png", Path(args.images) / f"maskable-ppo-{size}x{size}.png")


if __name__ == "__main__":
    main()
