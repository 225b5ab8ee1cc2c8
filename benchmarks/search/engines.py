"""Engine benchmarks: evaluator calls/s, search nodes/s and the depth reached in a given time,
from the start and at move 20 (the position after 20 plies of ``alphabeta:depth=1`` self-play).

    python3 benchmarks/search/engines.py                 # 10x10, 1 s per search
    python3 benchmarks/search/engines.py --size 8 --time 0.5
    python3 benchmarks/search/engines.py --table experiments/engine-matches/*.json   # README strength rows

Every figure of one run comes from the same process, so the ratios between rows are what to
compare (the machine is shared and noisy). numba compiles are warmed up first.
"""

from __future__ import annotations

import argparse
import json
import time
from itertools import combinations
from typing import Any, Callable

import numpy as np
from numba import njit, types

from amazons_env import Board

from agents import make
from agents.arena import summarize
from agents.evaluation.evaluator import KERNEL_TYPE, make_evaluator
from agents.search.agent import SearchAgent

#: stacked positions: cells, queens and queen counts, one row per position
Positions = tuple[np.ndarray, np.ndarray, np.ndarray]


@njit(
    types.float64(
        KERNEL_TYPE,
        types.uint8[:, ::1],
        types.int64[:, :, ::1],
        types.int64[:, ::1],
        types.int64,
        types.int64[::1],
        types.float64[::1],
        types.int64,
    ),
    cache=True,
)
def _sweep(kernel, cells, queens, nq, side, dirs, params, rounds):
    """``rounds`` passes of ``kernel`` over the positions ``cells[i]`` (``side`` to move)."""
    total = 0.0
    for _ in range(rounds):
        for i in range(cells.shape[0]):
            total += kernel(cells[i], queens[i], nq[i], side, dirs, params)
    return total


def sweep_rate(
    kernel: Any,
    positions: Positions,
    side: int,
    dirs: np.ndarray,
    params: np.ndarray,
    seconds: float = 0.2,
    clock: Callable[[], float] = time.process_time,
) -> float:
    """Evaluations per second of ``clock`` of the numba ``kernel`` with ``params`` over ``positions``
    (stacked cells, queens and queen counts; ``side`` to move), in a numba loop (no Python overhead),
    doubling the rounds until a sweep takes ``seconds``."""
    args = (kernel, *positions, side, dirs, params)
    _sweep(*args, 1)
    rounds, spent = 1, 0.0
    while spent < seconds:
        rounds *= 2
        start = clock()
        _sweep(*args, rounds)
        spent = clock() - start
    return rounds * len(positions[0]) / spent


def evaluator_rate(spec: str, board: Board, seconds: float = 1.0) -> float:
    """Calls per wall-clock second of ``spec``'s kernel on ``board`` alone."""
    evaluator = make_evaluator(spec)
    alone = (board.cells[None], board.queens[None], board.queen_counts[None])
    side = int(board.turn)
    return sweep_rate(evaluator.kernel, alone, side, board.dirs, evaluator.params, seconds, time.perf_counter)


def position_at(size: int, plies: int) -> Board:
    board = Board(size)
    player = make("alphabeta:depth=1")
    for _ in range(plies):
        board.push(player.select_move(board))
    return board


def strength_rows(paths: list[str]) -> None:
    """Markdown rows (score, 95% interval, Elo, per colour) for every pairing in arena JSON files;
    games of the same board size and time per move are pooled across files (independent seeds)."""
    groups: dict[tuple, list] = {}
    for path in paths:
        payload = json.load(open(path))
        config = payload["config"]
        groups.setdefault((config["size"], config.get("time")), []).extend(payload["results"])
    print("| board, time | A | B | games | A score (95% CI) | Elo (95% CI) | A wins as White / as Black |")
    print("|---|---|---|---|---|---|---|")
    for (size, seconds), results in sorted(groups.items(), key=lambda item: (item[0][0], item[0][1] or 0)):
        budget = "depth in spec" if seconds is None else f"{seconds} s"
        specs = sorted({r["white"] for r in results} | {r["black"] for r in results}, key=str)
        for a, b in combinations(specs, 2):
            m = summarize(results, a, b)
            if not m["games"]:
                continue
            if m["score"] < 0.5:
                a, b = b, a
                m = summarize(results, a, b)
            low, high = m["score_ci95"]
            elo_low, elo_high = m["elo_ci95"]
            per = m["per_colour"]
            print(
                f"| {size}x{size}, {budget} | `{a}` | `{b}` | {m['games']} | "
                f"{m['score']:.2f} ({low:.2f}-{high:.2f}) | {m['elo']:+.0f} ({elo_low:+.0f} to {elo_high:+.0f}) | "
                f"{per['a_white']['a_wins']}/{per['a_white']['games']}, "
                f"{per['a_black']['a_wins']}/{per['a_black']['games']} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10)
    parser.add_argument("--time", type=float, default=1.0, help="seconds per search (default 1)")
    parser.add_argument("--table", nargs="+", metavar="JSON", help="print strength rows from arena results instead")
    args = parser.parse_args()
    if args.table:
        strength_rows(args.table)
        return
    positions = {"start": Board(args.size), "move 20": position_at(args.size, 20)}
    print(f"{args.size}x{args.size}, searches of {args.time} s")
    print("\nevaluator calls/s (numba loop)")
    for spec in ("territory", "improved", "basic"):
        rates = ", ".join(f"{name} {evaluator_rate(spec, board, 0.5):,.0f}" for name, board in positions.items())
        print(f"  {spec:10s} {rates}")
    print("\nsearch in the given time: depth, nodes/s, evaluator calls/s")
    specs = [
        f"alphabeta:time={args.time}",
        f"alphabeta:time={args.time},k=0",
        f"mcts:time={args.time}",
        f"two-iteration:time={args.time},eval=improved",
    ]
    for spec in specs:
        for name, board in positions.items():
            agent = make(spec)
            assert isinstance(agent, SearchAgent)
            agent.search(board)  # warm-up (compiles)
            agent.reset()
            result = agent.search(board)
            if hasattr(result, "simulations"):
                print(
                    f"  {spec:42s} {name:8s} {result.simulations} simulations "
                    f"({result.simulations / result.seconds:,.0f}/s), tree {result.nodes} nodes"
                )
            else:
                evals = getattr(result, "evals", 0)
                print(
                    f"  {spec:42s} {name:8s} depth {result.depth}, {result.nodes / result.seconds:,.0f} nodes/s"
                    + (f", {evals / result.seconds:,.0f} evals/s" if evals else "")
                )


if __name__ == "__main__":
    main()
