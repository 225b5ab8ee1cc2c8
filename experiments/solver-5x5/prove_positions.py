"""Prove a few 5x5 positions two plies in (a first move and a reply), each with a fresh table and
df-pn on the whole position, and print nodes and CPU seconds: the yardstick of the solver's
speed changes (``order_weight.txt``, which has the handover figures too).

    NUMBA_NUM_THREADS=1 python3 experiments/solver-5x5/prove_positions.py [--depth-first 11] [--table-bits 22]

The positions are replies to b1-b3/d3 and b1-b4/d4 of a few to 70 CPU seconds each.
"""

from __future__ import annotations

import argparse

from amazons_env import Board, Move

from agents.search.solver import Solver

POSITIONS = ("b1-b3/d3 a4-b4/c4", "b1-b3/d3 a4-b4/a5", "b1-b3/d3 e4-b4/e1", "b1-b4/d4 a4-c2/d3")

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--depth-first", type=int, default=11, help="Solver's depth_first (default 11)")
parser.add_argument("--table-bits", type=int, default=22, help="log2 of the table's entries (default 22)")
args = parser.parse_args()
nodes = seconds = 0.0
for line in POSITIONS:
    board = Board(size=5)
    for text in line.split():
        board.push(Move.parse(text, size=5))
    # quick beyond any proof here: df-pn on the whole position, not move by move
    proof = Solver(table_bits=args.table_bits, depth_first=args.depth_first, quick=1 << 60).solve(board)
    nodes, seconds = nodes + proof.nodes, seconds + proof.cpu_seconds
    print(line, proof.value, f"{proof.nodes:,} nodes {proof.cpu_seconds:.2f} CPU s", flush=True)
print(f"depth_first {args.depth_first}: {nodes:,.0f} nodes {seconds:.2f} CPU s")
