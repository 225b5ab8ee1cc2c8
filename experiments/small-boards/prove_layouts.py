"""Prove small-board starts under named queen layouts, with either proof search of the repository's history.

    PYTHONPATH=<worktree> NUMBA_NUM_THREADS=1 python3 experiments/small-boards/prove_layouts.py \
        --prover depth-first --board 4x5 --layouts rule,swap --limit 30000000

``--prover depth-first`` imports ``agents.solver`` (the depth-first prover, last at commit a2ad76d: run
from a worktree of that commit); ``--prover dfpn`` imports ``agents.search.solver`` (df-pn, HEAD). Both
expose ``Solver(table_bits).solve(board, limit)``. Boards are W x H (W files, H ranks), played on the
square of the longer side with the rest filled with arrows, as ``benchmarks/strength/small_boards.py``.

A layout names White's four squares on ranks 1-2 as (file, rank) pairs, file 0 = a; Black mirrors White
top to bottom. ``rule`` is small_boards.py's layout (files b and W-1 of rank 1, edge files of rank 2);
``sym:<a1><b1><a2><b2>`` style names are the left-right symmetric placements on 4 files (see LAYOUTS_4).
"""

from __future__ import annotations

import argparse
import importlib
import time

from amazons_env import Board

FILES = "abcdefgh"


def rule(width: int) -> list[tuple[int, int]]:
    """small_boards.py's layout: files b and W-1 of rank 1, the edge files of rank 2."""
    return [(1, 0), (width - 2, 0), (0, 1), (width - 1, 1)]


# The six left-right symmetric placements of four White queens on ranks 1-2 of a 4-file board: two of
# the four mirror pairs (a+d or b+c, on rank 1 or rank 2). "rule" is b1 c1 a2 d2.
PAIRS_4 = {"ad1": [(0, 0), (3, 0)], "bc1": [(1, 0), (2, 0)], "ad2": [(0, 1), (3, 1)], "bc2": [(1, 1), (2, 1)]}
LAYOUTS_4 = {
    f"{first}+{second}": PAIRS_4[first] + PAIRS_4[second]
    for i, first in enumerate(PAIRS_4)
    for second in list(PAIRS_4)[i + 1 :]
}


def white_spots(layout: str, width: int) -> list[tuple[int, int]]:
    if layout == "rule":
        return rule(width)
    if width == 4 and layout in LAYOUTS_4:
        return LAYOUTS_4[layout]
    raise SystemExit(f"unknown layout {layout!r} for width {width}: rule or one of {sorted(LAYOUTS_4)}")


def start(width: int, height: int, spots: list[tuple[int, int]]) -> Board:
    n = max(width, height)
    white = [r * n + f for f, r in spots]
    black = [(height - 1 - r) * n + f for f, r in spots]
    arrows = [r * n + f for r in range(n) for f in range(n) if f >= width or r >= height]
    return Board.from_squares(n, white, black, arrows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prover", choices=("depth-first", "dfpn"), default="depth-first")
    parser.add_argument("--board", required=True, help="W x H, e.g. 4x5")
    parser.add_argument("--layouts", default="rule", help="comma-separated layout names")
    parser.add_argument("--limit", type=int, default=30_000_000, help="nodes per proof before giving up")
    parser.add_argument("--table-bits", type=int, default=23)
    args = parser.parse_args()
    module = importlib.import_module("agents.solver" if args.prover == "depth-first" else "agents.search.solver")
    width, height = (int(x) for x in args.board.split("x"))
    print(f"{args.prover} prover ({module.__file__}), board {args.board}, limit {args.limit:,} nodes", flush=True)
    print(f"{'layout':<10} {'White':<12} {'first moves':>11} {'result':<8} {'move':<12} {'nodes':>12} {'CPU s':>8}")
    for name in args.layouts.split(","):
        spots = white_spots(name, width)
        board = start(width, height, spots)
        squares = " ".join(f"{FILES[f]}{r + 1}" for f, r in sorted(spots, key=lambda s: (s[1], s[0])))
        cpu = time.process_time()
        proof = module.Solver(table_bits=args.table_bits).solve(board, limit=args.limit)
        result = {"won": "first", "lost": "second", "unknown": "unknown"}[proof.value]
        move = str(proof.move) if proof.move is not None else "-"
        print(
            f"{name:<10} {squares:<12} {board.count_legal_moves():>11} {result:<8} {move:<12} {proof.nodes:>12,} "
            f"{time.process_time() - cpu:>8.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
