"""Prove the 5x5 start (or the position after the given moves) with a progress line per slice.

    PYTHONPATH=. NUMBA_NUM_THREADS=1 python3 experiments/solver-5x5/prove_start.py DEPTH_FIRST [MOVE ...]

``DEPTH_FIRST``: ``Solver``'s ``depth_first`` (the empty squares at or below which df-pn hands a
position to the depth-first search). One table of 2**24 entries; a line every 2M nodes with the
the move, reply and df-pn numbers being proved, then the answer. Stop it with a CPU limit (``ulimit -t``) or Ctrl-C.
"""

from __future__ import annotations

import sys
import time

from amazons_env import Board, Move

from agents.search.solver import Solver, prover

board = Board(size=5)
for text in sys.argv[2:]:
    board.push(Move.parse(text, size=5))
solver = Solver(table_bits=24, depth_first=int(sys.argv[1]))
cpu, wall = time.process_time(), time.perf_counter()


def progress(nodes: int, status: str) -> None:
    seconds = f"cpu {time.process_time() - cpu:.0f} wall {time.perf_counter() - wall:.0f}"
    print(f"nodes {nodes:,} {status} {seconds}", flush=True)


prover.SLICE = 2_000_000
proof = solver.solve(board, progress=progress)
seconds = f"{proof.cpu_seconds:.1f} CPU s {proof.seconds:.1f} wall"
print(board.text(), proof.value, proof.move, f"{proof.nodes:,} nodes {seconds}")
