"""``amazons solve [POSITION] [--size N]``: prove who wins a position with perfect play.

The start of a small board (default 5x5) or any position text; the answer for the side to move
(won with a proof move, or lost), the nodes searched and the wall and CPU seconds (on a shared
machine the CPU time is the figure that compares). ``--check MOVE`` proves given moves instead of
stopping at the first win, ``--all`` every legal move.
"""

from __future__ import annotations

import argparse
import sys
import time

from amazons_env import Board, Color, Move
from amazons_env.errors import InvalidArgumentError

from agents.solver import Solver
from agents.solver.prover import DEFAULT_TABLE_BITS

HELP = __doc__.split("\n\n", 1)[1].replace("``", "'")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("position", nargs="?", help="position text, e.g. '1qq1/q2q/Q2Q/1QQ1 w' (default: the start)")
    parser.add_argument("--size", type=int, help="board size of the start position (default 5)")
    parser.add_argument("--limit", type=int, help="give up after this many nodes (per move with --check/--all)")
    parser.add_argument(
        "--check", action="append", default=[], metavar="MOVE", help="prove this first move (repeatable)"
    )
    parser.add_argument("--all", action="store_true", help="prove every legal move of the position")
    parser.add_argument(
        "--table-bits", type=int, default=DEFAULT_TABLE_BITS, help="log2 of the transposition table's entries"
    )


def _side(board: Board) -> str:
    return "White" if board.turn == Color.WHITE else "Black"


def _progress(done: int, total: int) -> None:
    if sys.stderr.isatty():
        print(f"\r{done}/{total} moves proved", end="" if done < total else "\n", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 1:
        raise InvalidArgumentError(f"--limit {args.limit}: must be a positive number of nodes")
    board = Board(size=5 if args.size is None and args.position is None else args.size, position=args.position)
    moves = [Move.parse(text, size=board.size) for text in args.check]
    for move in moves:
        if not board.is_legal(move):
            raise InvalidArgumentError(f"--check {move}: not a legal move here")
    solver = Solver(args.table_bits)
    print(board)
    wall, cpu = time.perf_counter(), time.process_time()
    if not moves and not args.all:
        proof = solver.solve(board, args.limit)
        verdict = {"won": f"{_side(board)} wins", "lost": f"{_side(board)} loses", "unknown": "unknown"}[proof.value]
        line = f"{verdict} (side to move: {proof.value})"
        if proof.move is not None:
            line += f"; proof move {proof.move}"
        print(line)
    else:
        chosen = set(moves)
        checked = solver.classify(board, args.limit, progress=_progress, only=chosen if moves else None)
        won = [str(move) for move, value in checked if value == "won"]
        for move, value in checked:
            if moves or value != "lost":
                print(f"{move}: {value} for {_side(board)}")
        if args.all:
            counts = {v: sum(1 for _, value in checked if value == v) for v in ("won", "lost", "unknown")}
            print(f"{len(checked)} moves: {counts['won']} won, {counts['lost']} lost, {counts['unknown']} unknown")
            if won:
                print("winning moves: " + " ".join(won))
    print(f"nodes {solver.nodes:,}; {time.perf_counter() - wall:.1f} s wall, {time.process_time() - cpu:.1f} s CPU")
    return 0
