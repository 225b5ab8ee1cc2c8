"""Perfect play as a test: in proven-won positions, how often does an agent pick a winning move?

    NUMBA_NUM_THREADS=1 python3 benchmarks/strength/perfect_play.py [--agent uct:time=0.1] [--positions 1000]

Positions come from random play from the start of a small board (``--size``, default 5) for
``--plies`` moves (a range, default 6-12; the solver proves them quickly there, and random play
reaches both balanced and lopsided ones). Each is proved with the solver (``agents.solver``;
positions it cannot prove within ``--limit`` nodes are skipped, and counted); the won ones are
kept until ``--positions``. The agent searches each, and its move is proved too. Prints the share
of positions where the agent's move keeps the win (with a 95% Wilson interval) beside the share
a random mover would get (the mean share of winning moves among the legal moves): the ratio of
errors says how much the search's choice beats chance. Timed agents are at the mercy of a loaded
machine; a simulation budget (``uct:sims=N``) is not. The searches' proven-move shortcut
(``SearchAgent.prove``) is off unless ``--prove N`` gives it nodes: with it on, a proven-won
position is mostly played by the prover, not by the search measured.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from amazons_env import Board, Move

from agents import make
from agents.search.agent import SearchAgent
from agents.search.solver import Solver


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", default="uct:time=0.1")
    parser.add_argument("--size", type=int, default=5)
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--plies", default="6-12", help="random opening plies, a range LOW-HIGH")
    parser.add_argument("--limit", type=int, default=2_000_000, help="solver nodes per position")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--prove", type=int, default=0, help="the agent's proven-move shortcut nodes (0: off)")
    args = parser.parse_args()
    low, high = (int(x) for x in args.plies.split("-"))
    rng = np.random.default_rng(args.seed)
    solver = Solver(table_bits=22)
    agent = make(args.agent)
    if not isinstance(agent, SearchAgent):
        parser.error(f"--agent {args.agent}: not a search")
    agent.seed(args.seed)
    agent.prove = args.prove
    kept = kept_right = skipped = lost = 0
    chance = 0.0
    wall, cpu = time.perf_counter(), time.process_time()
    search_wall = 0.0
    while kept < args.positions:
        board = Board(args.size)
        for _ in range(int(rng.integers(low, high + 1))):
            moves = board.legal_moves_array()
            if len(moves) == 0:
                break
            frm, to, arrow = moves[rng.integers(len(moves))].tolist()
            board.push(Move(frm, to, arrow, args.size))
        if board.is_game_over():
            continue
        proof = solver.solve(board, limit=args.limit)
        if proof.value != "won":
            skipped += proof.value == "unknown"
            lost += proof.value == "lost"
            continue
        values = solver.classify(board, limit=args.limit)
        known = [value for _, value in values if value != "unknown"]
        chance += sum(value == "won" for value in known) / len(known)
        start = time.perf_counter()
        move = agent.select_move(board)
        search_wall += time.perf_counter() - start
        kept += 1
        kept_right += dict(values).get(move) == "won"
    share = kept_right / kept
    low_ci, high_ci = wilson(kept_right, kept)
    random_share = chance / kept
    print(
        f"{args.agent} (prove={args.prove}) on {args.size}x{args.size}, {kept} proven-won positions after "
        f"{args.plies} random plies"
    )
    print(f"winning move chosen: {kept_right}/{kept} = {share:.1%} (95% CI {low_ci:.1%}-{high_ci:.1%})")
    print(
        f"a random mover: {random_share:.1%} (mean share of winning moves); errors {1 - share:.1%} vs "
        f"{1 - random_share:.1%}, ratio {(1 - share) / max(1e-9, 1 - random_share):.3f}"
    )
    print(f"sampled positions also lost: {lost}, unproved within {args.limit:,} nodes: {skipped}")
    print(
        f"{time.perf_counter() - wall:.0f} s wall ({search_wall:.0f} s in the agent), "
        f"{time.process_time() - cpu:.0f} s CPU"
    )


if __name__ == "__main__":
    main()
