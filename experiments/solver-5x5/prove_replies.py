"""Prove a 5x5 first move by proving every reply lost, one reply at a time (the progress shows).

    PYTHONPATH=. NUMBA_NUM_THREADS=1 python3 experiments/solver-5x5/prove_replies.py b1-b3/d3 [--depth-first 11]

Each reply is ``Solver.classify``'d with ``only={reply}`` in one solver (one table, 2**24 entries),
so what one reply's proof stored serves the next. Prints a line per reply (its value, nodes, CPU
seconds) and the totals.
"""

from __future__ import annotations

import argparse
import time

from amazons_env import Board, Move

from agents.search.solver import Solver
from agents.search.solver.prover import DEPTH_FIRST_EMPTIES

parser = argparse.ArgumentParser()
parser.add_argument("move")
parser.add_argument("--depth-first", type=int, default=DEPTH_FIRST_EMPTIES)
args = parser.parse_args()
board = Board(size=5)
board.push(Move.parse(args.move, size=5))
solver = Solver(table_bits=24, depth_first=args.depth_first)
cpu, wall = time.process_time(), time.perf_counter()
counts: dict[str, int] = {}
for i, reply in enumerate(board.legal_moves(), 1):
    before, started = solver.nodes, time.process_time()
    value = solver.classify(board, only={reply})[0][1]
    counts[value] = counts.get(value, 0) + 1
    print(
        f"{i} {reply} {value} nodes {solver.nodes - before:,} cpu {time.process_time() - started:.1f} | total nodes "
        f"{solver.nodes:,} cpu {time.process_time() - cpu:.0f} wall {time.perf_counter() - wall:.0f} {counts}",
        flush=True,
    )
seconds = f"cpu {time.process_time() - cpu:.1f} wall {time.perf_counter() - wall:.1f}"
print("done", counts, f"nodes {solver.nodes:,} {seconds}")
