"""Simulations per CPU second of the MCTS core against another checkout of the package, interleaved.

Each spec (by default ``uct`` and ``uct-net`` at their defaults, the latter with the committed
weights) searches the same seeded positions of each board size at ``--time`` seconds a move, in two
worker processes: one importing this checkout, one importing ``--before`` (a ``git worktree`` of an
earlier commit). The workers take turns, round by round (the order alternating), so that the load
of a shared machine falls on both alike; each reports the simulations its searches played and the
CPU seconds they took (``time.process_time``, every thread of the process). The figure is
simulations per CPU second of each and the ratio now / before, per spec and size.

    git worktree add /tmp/before HEAD~1
    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python3 benchmarks/search/search_core_speed.py --before /tmp/before
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve()
NOW = HERE.parents[2]


def positions(size: int, count: int, seed: int) -> list:
    """The start, then positions after 2, 4, ... seeded random plies (skipping finished games)."""
    import numpy as np

    from amazons_env import Board, Move

    rng, out, plies = np.random.default_rng(seed), [Board(size)], 2
    while len(out) < count:
        board = Board(size)
        for _ in range(plies):
            moves = board.legal_moves_array()
            if len(moves) == 0:
                break
            frm, to, arrow = (int(x) for x in moves[rng.integers(len(moves))])
            board.push_unchecked(Move(frm, to, arrow, size))
        if not board.is_game_over():
            out.append(board)
        plies += 2
    return out


def worker(spec: str, size: int, count: int, seed: int) -> None:
    """Serve rounds on stdin: each line ``go`` searches every position once with a fresh tree and
    prints ``{"sims": ..., "cpu": ...}``; the first (a warm-up: numba's compilation, the net's
    loading) is run before the first line is read."""
    import time

    from agents import make
    from agents.search.agent import SearchAgent

    agent, boards = make(spec, seed=seed), positions(size, count, seed)
    assert isinstance(agent, SearchAgent)  # its result counts the simulations

    def round_() -> tuple[int, float]:
        sims, cpu = 0, 0.0
        for board in boards:
            agent.reset()
            begun = time.process_time()
            result = agent.search(board)
            cpu += time.process_time() - begun
            sims += int(result.simulations)
        return sims, cpu

    round_()
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() != "go":
            break
        sims, cpu = round_()
        print(json.dumps({"sims": sims, "cpu": cpu}), flush=True)


def start(root: Path, spec: str, size: int, args: argparse.Namespace) -> subprocess.Popen:
    """A worker importing the package of the checkout ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    command = [sys.executable, str(HERE), "--worker", spec, "--size", str(size)]
    command += ["--positions", str(args.positions), "--seed", str(args.seed)]
    process = subprocess.Popen(command, cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    if process.stdout.readline().strip() != "ready":
        raise SystemExit(f"the worker for {spec} in {root} failed")
    return process


def ask(process: subprocess.Popen) -> tuple[int, float]:
    """One round of a worker: its simulations and CPU seconds."""
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("go\n")
    process.stdin.flush()
    answer = json.loads(process.stdout.readline())
    return int(answer["sims"]), float(answer["cpu"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="the checkout to compare against (a git worktree)")
    parser.add_argument("--specs", nargs="+", default=["uct", "uct-net"], help="agent specs, at their defaults")
    parser.add_argument("--sizes", nargs="+", type=int, default=[8, 10])
    parser.add_argument("--time", type=float, default=0.25, help="seconds a move")
    parser.add_argument("--positions", type=int, default=4, help="positions per round")
    parser.add_argument("--rounds", type=int, default=6, help="rounds per side, interleaved")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker, args.size, args.positions, args.seed)
    if args.before is None:
        parser.error("--before PATH: the checkout to compare against")
    print(f"{args.time:g} s a move, {args.positions} positions x {args.rounds} rounds a side, interleaved")
    print(f"{'spec':<10}{'size':>6}{'before sims/CPU s':>20}{'now sims/CPU s':>18}{'now/before':>12}")
    for spec in args.specs:
        for size in args.sizes:
            timed = f"{spec}:time={args.time:g}"
            sides = {"before": start(args.before.resolve(), timed, size, args), "now": start(NOW, timed, size, args)}
            totals = {name: [0, 0.0] for name in sides}
            for r in range(args.rounds):
                for name in sorted(sides, reverse=r % 2 == 1):  # the order alternates
                    sims, cpu = ask(sides[name])
                    totals[name][0] += sims
                    totals[name][1] += cpu
            for process in sides.values():
                assert process.stdin is not None
                process.stdin.close()
                process.wait()
            before, now = (totals[name][0] / totals[name][1] for name in ("before", "now"))
            print(f"{spec:<10}{size:>6}{before:>20.0f}{now:>18.0f}{now / before:>12.3f}", flush=True)


if __name__ == "__main__":
    main()
