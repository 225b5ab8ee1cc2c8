"""Nodes per CPU second of the alpha-beta kernels (``alphabeta`` and the study's ``classic``,
``two-iteration``, ``move-then-arrow``) at a fixed depth, beside a reference checkout of the
code (a git worktree), interleaved in one run: each round runs every search in a fresh process on
each tree, in turn, so that both see the same machine load.

    git worktree add /tmp/before <commit>
    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python3 benchmarks/search/alphabeta_speed.py --reference /tmp/before
    NUMBA_NUM_THREADS=1 python3 benchmarks/search/alphabeta_speed.py --reference /tmp/before --rounds 5 --only alphabeta

For each search it prints the nodes per CPU second on both trees (the median over the rounds of each run's
fastest search), their ratio (this tree over the reference: the median of each round's ratio, so
that the load's drift between rounds cancels) and whether the results agree (best move, value,
node count): a fixed-depth search is deterministic, so a change that only moves code must give
the same three. Every search is warmed up in its process first (numba loads from its cache; a
tree's first run compiles).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
TREE = os.path.dirname(os.path.dirname(HERE))

#: (label, agent spec, board size, plies played from the start by a seeded random choice)
SEARCHES = (
    ("alphabeta", "alphabeta:depth=6", 8, 4),
    ("alphabeta-10", "alphabeta:depth=5", 10, 4),
    ("classic", "classic:depth=3,eval=improved", 6, 4),
    ("two-iteration", "two-iteration:depth=3,eval=improved", 6, 4),
    ("move-then-arrow", "move-then-arrow:depth=3,eval=improved", 8, 4),
)


def position(size: int, plies: int) -> Any:
    """The board after ``plies`` moves chosen by a seeded generator (the same on every tree)."""
    import numpy as np

    from amazons_env import Board

    board = Board(size)
    rng = np.random.default_rng(size * 1000 + plies)
    for _ in range(plies):
        moves = board.legal_moves()
        board.push(moves[int(rng.integers(len(moves)))])
    return board


def run_child(labels: list[str], repeat: int) -> None:
    """In a process on one tree: each search warmed up once, then timed ``repeat`` times (the
    fastest counts: the machine's other load only ever slows a search down); one JSON line."""
    from agents import make
    from agents.search.agent import SearchAgent

    def searcher(spec: str) -> SearchAgent:
        agent = make(spec)
        assert isinstance(agent, SearchAgent)
        return agent

    out = {}
    for label, spec, size, plies in SEARCHES:
        if label not in labels:
            continue
        board = position(size, plies)
        searcher(spec).search(board)  # warm-up: numba loads (or compiles) the kernels
        spent = float("inf")
        for _ in range(repeat):
            agent = searcher(spec)
            start = time.process_time()  # CPU time: a loaded machine slices wall time unevenly
            result = agent.search(board)
            spent = min(spent, time.process_time() - start)
        out[label] = {"nodes": result.nodes, "seconds": spent, "move": str(result.move), "value": result.value}
    print(json.dumps(out))


def measure(tree: str, labels: list[str], repeat: int) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=tree)
    cmd = [sys.executable, os.path.abspath(__file__), "--child", ",".join(labels), "--repeat", str(repeat)]
    done = subprocess.run(cmd, env=env, cwd=tree, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", help="the reference tree (a git worktree of an earlier commit)")
    parser.add_argument("--rounds", type=int, default=5, help="runs per tree, interleaved (default 5)")
    parser.add_argument("--repeat", type=int, default=3, help="timed searches per run, the fastest kept (default 3)")
    parser.add_argument("--only", default=",".join(s[0] for s in SEARCHES), help="comma-separated search labels")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        run_child(args.child.split(","), args.repeat)
        return
    if args.reference is None:
        parser.error("--reference is required")
    labels = args.only.split(",")
    trees = {"reference": os.path.abspath(args.reference), "this": TREE}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    for r in range(args.rounds):
        for name, tree in trees.items() if r % 2 == 0 else reversed(list(trees.items())):
            runs[name].append(measure(tree, labels, args.repeat))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    threads = os.environ.get("NUMBA_NUM_THREADS", "unset")
    print(f"{args.rounds} rounds of {args.repeat} searches, NUMBA_NUM_THREADS={threads}")
    print(f"{'search':16} {'nodes':>9} {'reference n/s':>14} {'this n/s':>10} {'ratio':>6}  same result")
    for label in labels:
        rates = {name: [r[label]["nodes"] / r[label]["seconds"] for r in runs[name]] for name in trees}
        ratio = statistics.median(this / ref for this, ref in zip(rates["this"], rates["reference"]))
        first = {name: runs[name][0][label] for name in trees}
        same = all(first["reference"][key] == first["this"][key] for key in ("nodes", "move", "value"))
        print(
            f"{label:16} {first['this']['nodes']:9d} {statistics.median(rates['reference']):14.0f} "
            f"{statistics.median(rates['this']):10.0f} {ratio:6.3f}  {same}"
        )


if __name__ == "__main__":
    main()
