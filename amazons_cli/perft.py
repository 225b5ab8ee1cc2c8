"""``amazons perft N [--size S] [--position TEXT]``: leaf count and leaves per second."""

from __future__ import annotations

import argparse
import time

from amazons_env.board import Board
from amazons_env.perft import perft

HELP = "count the leaves of the move tree to depth N (rules check and speed test)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("depth", type=int, help="depth in full moves (queen move + arrow)")
    parser.add_argument("--size", type=int, help="board size (default 10, or the position's)")
    parser.add_argument("--position", help="position text instead of the start, e.g. '1q2q1/q4q/6/6/Q4Q/1Q2Q1 w'")


def run(args: argparse.Namespace) -> int:
    board = Board(size=args.size, position=args.position)
    perft(board, 1)  # compile (or load the cached kernel) outside the timing
    start = time.perf_counter()
    leaves = perft(board, args.depth)
    seconds = time.perf_counter() - start
    print(leaves)
    rate = leaves / seconds if seconds > 0 else float("inf")
    print(
        f"depth {args.depth}, {board.size}x{board.size}: {leaves:,} leaves in {seconds:.3f} s "
        f"({rate / 1e6:,.1f} M leaves/s)"
    )
    return 0
