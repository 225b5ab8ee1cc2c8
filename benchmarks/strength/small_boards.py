"""The solved small boards, reproduced with ``amazons solve``'s proof search, and the start layouts.

    NUMBA_NUM_THREADS=1 python3 benchmarks/strength/small_boards.py [--boards 4x4,4x5,5x4,6x4] [--limit NODES]
        [--depth-first N[,M...]] [--threads N] [--table-bits B]

Boards W x H (W files, H ranks; Müller's and Song & Müller's convention, their 6x5 page shows 6
files) use the published layout: White on files b and W-1 of rank 1 and on the edge files of
rank 2, Black mirrored top to bottom (on 5x5 this is our start, on 4x4 too). A rectangular board
is played on the square board of its longer side with the extra files or ranks filled with
arrows, which the rules treat as any other arrow. Prints each board's result beside the
published one, with nodes, wall and CPU seconds (on a shared machine the CPU seconds compare),
for each ``--depth-first`` setting (``Solver``'s ``depth_first``: the empty squares at or below
which df-pn hands a position to the depth-first search; 0 is df-pn alone, the reference), on
``--threads`` threads (``Solver``'s: a move's replies proved side by side).

``--layouts`` prints the evidence on the first-move counts instead: our 5x5 start's count, the
count of every start with Black mirroring White top to bottom (or rotating it), every placement of
White on ranks 1-2 and Black on ranks 4-5 (how many have 262 moves, and whether any of those is
symmetric), the starts one queen away from ours that have 262 moves, and our count of Black's
replies in the position of Müller's 6x5 page.
"""

from __future__ import annotations

import argparse
import itertools
import time

from amazons_env import Board, Move

from agents.search.solver import Solver
from agents.search.solver.prover import DEPTH_FIRST_EMPTIES

PUBLISHED = {  # W x H: the side to move at the start wins ("first") or loses ("second")
    "4x4": "second",
    "4x5": "first",
    "5x4": "first",
    "4x6": "first",
    "6x4": "second",
    "5x5": "first",
    "5x6": "first",
    "4x7": "first",
}
FILES = "abcdefghijkl"


def start(width: int, height: int) -> Board:
    """The published start of a W x H board, on the square board of its longer side."""
    n = max(width, height)
    spots = [(1, 0), (width - 2, 0), (0, 1), (width - 1, 1)]
    white = [r * n + f for f, r in spots]
    black = [(height - 1 - r) * n + f for f, r in spots]
    arrows = [r * n + f for r in range(n) for f in range(n) if f >= width or r >= height]
    return Board.from_squares(n, white, black, arrows)


def prove(boards: list[str], limit: int, depth_first: list[int], threads: int, table_bits: int) -> None:
    print(
        f"{'board':<6} {'depth-first':>11} {'published':<10} {'proved':<10} {'move':<12} {'nodes':>13} "
        f"{'wall s':>8} {'CPU s':>8}"
    )
    for name in boards:
        width, height = (int(x) for x in name.split("x"))
        for empties in depth_first:
            solver = Solver(table_bits=table_bits, depth_first=empties, threads=threads)
            proof = solver.solve(start(width, height), limit=limit)
            proved = {"won": "first", "lost": "second", "unknown": "unknown"}[proof.value]
            move = str(proof.move) if proof.move is not None else "-"
            print(
                f"{name:<6} {empties:>11} {PUBLISHED.get(name, '?'):<10} {proved:<10} {move:<12} "
                f"{proof.nodes:>13,} {proof.seconds:>8.1f} {proof.cpu_seconds:>8.1f}",
                flush=True,
            )


def layouts() -> None:
    n = 5
    ours = Board(n)
    print(f"our 5x5 start: {ours.count_legal_moves()} first moves (White b1 d1 a2 e2, Black a4 e4 b5 d5)")
    for how, image in (("mirroring", lambda s: (n - 1 - s // n) * n + s % n), ("rotating", lambda s: n * n - 1 - s)):
        counts: dict[int, int] = {}
        for first in itertools.combinations(range(2 * n), 4):  # White anywhere on ranks 1-2
            count = Board.from_squares(n, first, [image(s) for s in first]).count_legal_moves()
            counts[count] = counts.get(count, 0) + 1
        print(
            f"starts with Black {how} White (White on ranks 1-2): {sum(counts.values())}; "
            f"with 262 first moves: {counts.get(262, 0)}; with 260: {counts.get(260, 0)}"
        )
    low, high = range(2 * n), range(3 * n, n * n)
    placements = hits = symmetric = 0
    for first in itertools.combinations(low, 4):
        for second in itertools.combinations(high, 4):
            placements += 1
            if Board.from_squares(n, first, second).count_legal_moves() == 262:
                hits += 1
                mirrored = sorted((n - 1 - s // n) * n + s % n for s in first) == list(second)
                rotated = sorted(n * n - 1 - s for s in first) == list(second)
                symmetric += mirrored or rotated
    print(
        f"every placement of White on ranks 1-2 and Black on ranks 4-5: {placements}; with 262 first moves: "
        f"{hits}, of which Black mirrors or rotates White: {symmetric}"
    )
    layout = ours.layout()
    near = []
    for side, queens in ((0, layout.white), (1, layout.black)):
        for i, queen in enumerate(queens):
            for square in range(n * n):
                if square in layout.white or square in layout.black:
                    continue
                moved = list(queens)
                moved[i] = square
                white, black = (moved, list(layout.black)) if side == 0 else (list(layout.white), moved)
                if Board.from_squares(n, white, black).count_legal_moves() == 262:
                    name = f"{'White' if side == 0 else 'Black'} {FILES[queen % n]}{queen // n + 1}"
                    near.append(f"{name}->{FILES[square % n]}{square // n + 1}")
    print("starts one queen away from ours with 262 first moves: " + (", ".join(near) or "none"))
    board = start(6, 5)
    board.push(Move.parse("b1-b4/b3", size=6))
    print(f"6x5 after b1-b4/b3 (Müller's 6x5 page: 238 replies): {board.count_legal_moves()} Black replies")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", default="4x4,4x5,5x4,6x4,4x6", help="comma-separated W x H boards")
    parser.add_argument("--limit", type=int, default=200_000_000, help="nodes per board before giving up")
    parser.add_argument("--layouts", action="store_true", help="the first-move counts instead of proofs")
    parser.add_argument(
        "--depth-first",
        default=f"{DEPTH_FIRST_EMPTIES},0",
        help="comma-separated Solver depth_first settings to run each board with (0: df-pn alone)",
    )
    parser.add_argument("--threads", type=int, default=1, help="Solver threads (default 1)")
    parser.add_argument("--table-bits", type=int, default=23, help="log2 of the table's entries (default 23)")
    args = parser.parse_args()
    wall, cpu = time.perf_counter(), time.process_time()
    if args.layouts:
        layouts()
    else:
        depth_first = [int(x) for x in args.depth_first.split(",")]
        prove(args.boards.split(","), args.limit, depth_first, args.threads, args.table_bits)
    print(f"total: {time.perf_counter() - wall:.1f} s wall, {time.process_time() - cpu:.1f} s CPU")


if __name__ == "__main__":
    main()
