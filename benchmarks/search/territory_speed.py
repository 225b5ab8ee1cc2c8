"""The territory kernels side by side: the bitboard kernel (``agents.evaluation.territory_bitboard``, the default)
against the mailbox reference (``territory:kernel=mailbox``), then ``uct`` with each, on 8x8 and
10x10, from the start position and at move 20 (after 20 plies of ``alphabeta:depth=1`` self-play).

    NUMBA_NUM_THREADS=1 nice -n 5 python3 benchmarks/search/territory_speed.py
    NUMBA_NUM_THREADS=1 python3 benchmarks/search/territory_speed.py --sizes 8 --rounds 3 --json out.json

Kernel rates are taken over the position's children (every legal move played; what a search
evaluates), not one position again and again, which would let the branch predictor learn the
mailbox kernel's searches by heart. ``uct`` runs a fixed number of simulations (``--sims``; the
default is 20,000 up to 8x8, 3,000 above) and is timed in CPU seconds of this process
(``time.process_time``), so other jobs on a shared machine count less than in wall time; its
searches are the same with either kernel (same values up to 1e-12, so the same tree, checked: the
rows report both moves). Every figure is the best of ``--rounds`` rounds, the two kernels taking
turns within a round, and the ratio bitboard / mailbox is the figure to compare between runs.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Optional

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from engine_speed import parse_speed_args, print_table, speed_parser  # noqa: E402  (this folder's benchmarks)
from engines import Positions, position_at, sweep_rate  # noqa: E402

from amazons_env import Board  # noqa: E402

from agents import make  # noqa: E402
from agents.evaluation.evaluator import make_evaluator  # noqa: E402
from agents.search.agent import SearchAgent  # noqa: E402

KERNELS = ("mailbox", "bitboard")


def children(board: Board) -> Positions:
    """The padded cells, queens and queen counts of every position one move after ``board``."""
    cells, queens, nq = [], [], []
    for move in board.legal_moves():
        board.push(move)
        cells.append(board.cells.copy())
        queens.append(board.queens.copy())
        nq.append(board.queen_counts.copy())
        board.pop()
    return np.stack(cells), np.stack(queens), np.stack(nq)


def kernel_rate(kernel: str, board: Board, positions: Positions) -> float:
    """Evaluations per CPU second of ``territory:kernel=KERNEL`` over ``positions``, the children of
    ``board``."""
    evaluator = make_evaluator("territory", kernel=kernel)
    return sweep_rate(evaluator.kernel, positions, 1 - int(board.turn), board.dirs, evaluator.params)


def uct_rate(kernel: str, board: Board, sims: int) -> tuple[float, str]:
    """``uct``'s simulations per CPU second with ``kernel``, and the move it chose."""
    agent = make("uct", sims=sims, seed=1, kernel=kernel)
    assert isinstance(agent, SearchAgent)
    start = time.process_time()
    move = agent.select_move(board)
    assert agent.last_result is not None  # select_move keeps its search's result
    return agent.last_result.simulations / (time.process_time() - start), str(move)


def run(sizes: list[int], rounds: int, sims: Optional[int]) -> list[dict[str, Any]]:
    for kernel in KERNELS:  # warm-up: numba loads every kernel and search once
        for size in sizes:
            make("uct", sims=20, kernel=kernel).select_move(Board(size))
    rows = []
    for size in sizes:
        budget = sims or (20000 if size <= 8 else 3000)
        try:
            boards = [("start", Board(size)), ("move 20", position_at(size, 20))]
        except ValueError:  # that self-play game ended before move 20 (small boards)
            boards = [("start", Board(size))]
        for label, board in boards:
            positions = children(board)
            row: dict[str, Any] = {"size": size, "position": label, "children": len(positions[0]), "sims": budget}
            for _ in range(rounds):
                for kernel in KERNELS:
                    rate = kernel_rate(kernel, board, positions)
                    row[f"{kernel}_evals_per_second"] = max(rate, row.get(f"{kernel}_evals_per_second", 0.0))
                    rate, move = uct_rate(kernel, board, budget)
                    row[f"uct_{kernel}_sims_per_second"] = max(rate, row.get(f"uct_{kernel}_sims_per_second", 0.0))
                    row[f"uct_{kernel}_move"] = move
            row["kernel_ratio"] = row["bitboard_evals_per_second"] / row["mailbox_evals_per_second"]
            row["uct_ratio"] = row["uct_bitboard_sims_per_second"] / row["uct_mailbox_sims_per_second"]
            rows.append(row)
            print(_line(row), flush=True)
    return rows


def _line(row: dict[str, Any]) -> str:
    return (
        f"| {row['size']}x{row['size']} | {row['position']} | {row['mailbox_evals_per_second']:,.0f} | "
        f"{row['bitboard_evals_per_second']:,.0f} | {row['kernel_ratio']:.2f} | "
        f"{row['uct_mailbox_sims_per_second']:,.0f} | {row['uct_bitboard_sims_per_second']:,.0f} | "
        f"{row['uct_ratio']:.2f} | {row['uct_mailbox_move']} / {row['uct_bitboard_move']} |"
    )


def main(argv: Optional[list[str]] = None) -> int:
    parser = speed_parser(__doc__)
    parser.add_argument("--rounds", type=int, default=3, help="rounds, best kept (default 3)")
    parser.add_argument(
        "--sims", type=int, default=None, help="uct simulations per search (default 20000 up to 8x8, 3000 above)"
    )
    args = parse_speed_args(parser, argv)
    if args.rounds < 1 or args.sims is not None and args.sims < 1:
        parser.error("--rounds and --sims must be >= 1")
    columns = [
        "board",
        "position",
        "mailbox evals/s",
        "bitboard evals/s",
        "ratio",
        "uct sims/s, mailbox",
        "uct sims/s, bitboard",
        "ratio",
        "uct's move (mailbox / bitboard)",
    ]
    return print_table(columns, lambda: run(args.sizes, args.rounds, args.sims), args.json)


if __name__ == "__main__":
    sys.exit(main())
