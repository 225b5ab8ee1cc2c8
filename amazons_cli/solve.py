"""``amazons solve [POSITION] [--size N]``: prove who wins a position with perfect play.

The start of a small board (default 5x5) or any position text; the answer for the side to move
(won with a proof move, or lost), the nodes searched and the wall and CPU seconds (on a shared
machine the CPU time is the figure that compares). A position is proved move by move, the most
promising first, and ``--threads N`` proves a move's replies N at a time (one table; a line on
the terminal says which move and reply are being proved). ``--check MOVE`` proves given moves
instead of stopping at the first win, ``--all`` every legal move. ``--state FILE`` makes a long proof
resumable: Ctrl-C (or ``--limit``) saves the search's table there, and the same command run again
goes on from it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from typing import Optional

from amazons_env import Board, Color, Move
from amazons_env.errors import InvalidArgumentError
from amazons_env.files import check_writable

from agents.search.solver import Solver
from agents.search.solver.prover import DEFAULT_TABLE_BITS, MAX_THREADS

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
    parser.add_argument(
        "--threads", type=int, default=1, help="threads proving a move's replies side by side (one table; default 1)"
    )
    parser.add_argument("--state", metavar="FILE", help="resume from FILE if it exists; save the table there on stop")


def _side(board: Board) -> str:
    return "White" if board.turn == Color.WHITE else "Black"


def _moves_done(done: int, total: int) -> None:
    if sys.stderr.isatty():
        print(f"\r{done}/{total} moves proved", end="" if done < total else "\n", file=sys.stderr, flush=True)


def _search_progress(started: float):
    def show(nodes: int, status: str) -> None:
        if sys.stderr.isatty():
            seconds = time.perf_counter() - started
            line = f"nodes {nodes:,}  {seconds:.0f} s  {status}"[: shutil.get_terminal_size().columns - 1]
            print(f"\r\033[K{line}", end="", file=sys.stderr, flush=True)

    return show


def _prove(solver: Solver, board: Board, args: argparse.Namespace, moves: list[Move]) -> None:
    if not moves and not args.all:
        proof = solver.solve(board, args.limit, progress=_search_progress(time.perf_counter()))
        if sys.stderr.isatty():
            print(file=sys.stderr)
        verdict = {"won": f"{_side(board)} wins", "lost": f"{_side(board)} loses", "unknown": "unknown"}[proof.value]
        line = f"{verdict} (side to move: {proof.value})"
        if proof.move is not None:
            line += f"; proof move {proof.move}"
        print(line)
        return
    checked = solver.classify(board, args.limit, progress=_moves_done, only=set(moves) if moves else None)
    won = [str(move) for move, value in checked if value == "won"]
    for move, value in checked:
        if moves or value != "lost":
            print(f"{move}: {value} for {_side(board)}")
    if args.all:
        counts = {v: sum(1 for _, value in checked if value == v) for v in ("won", "lost", "unknown")}
        print(f"{len(checked)} moves: {counts['won']} won, {counts['lost']} lost, {counts['unknown']} unknown")
        if won:
            print("winning moves: " + " ".join(won))


def run(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 1:
        raise InvalidArgumentError(f"--limit {args.limit}: must be a positive number of nodes")
    if not 1 <= args.threads <= MAX_THREADS:
        raise InvalidArgumentError(f"--threads {args.threads}: must be from 1 to {MAX_THREADS}")
    board = Board(size=5 if args.size is None and args.position is None else args.size, position=args.position)
    moves = [Move.parse(text, size=board.size) for text in args.check]
    for move in moves:
        if not board.is_legal(move):
            raise InvalidArgumentError(f"--check {move}: not a legal move here")
    solver = Solver(args.table_bits, threads=args.threads)
    state: Optional[str] = args.state
    if state is not None:
        if os.path.exists(state):
            solver.resume(state, board)
            print(f"resuming from {state}: {solver.nodes:,} nodes searched before")
        else:
            check_writable(state)
    print(board)
    wall, cpu, before = time.perf_counter(), time.process_time(), solver.nodes
    try:
        _prove(solver, board, args, moves)
    except KeyboardInterrupt:
        if state is None:
            raise
        print(f"\nstopped: {solver.nodes:,} nodes; saving the table to {state} (run the command again to resume)")
    finally:
        if state is not None:
            solver.save(state, board)
    print(
        f"nodes {solver.nodes - before:,} (in all {solver.nodes:,}); {time.perf_counter() - wall:.1f} s wall, "
        f"{time.process_time() - cpu:.1f} s CPU"
    )
    return 0
