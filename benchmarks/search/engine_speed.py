"""Search speed of every engine: simulations (MCTS) or nodes (alpha-beta) per second, from the
start position and at move 20 (after 20 plies of ``alphabeta:depth=1`` self-play), on 8x8 and
10x10, one numba thread.

    NUMBA_NUM_THREADS=1 python3 benchmarks/search/engine_speed.py                 # 1 s per search
    NUMBA_NUM_THREADS=1 python3 benchmarks/search/engine_speed.py --sizes 8 --time 0.5 --json out.json

Each row also gives the territory kernel's calls per second on the same position, measured in the
same run just before, and the engine's rate as a ratio to it: the machine is shared and noisy, so
the ratio is the figure to compare between runs. The reference is the mailbox kernel
(``territory:kernel=mailbox``), which does not change, so ratios stay comparable with runs made
before the engines moved to the bitboard kernel (``benchmarks/search/territory_speed.py`` compares the
two). ``evals/s`` counts the engine's evaluator calls
where it reports them. Every engine is warmed up (numba loads) on a small search first.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Callable, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from engines import evaluator_rate, position_at  # noqa: E402  (this folder's engine benchmarks)

from amazons_env import Board, core  # noqa: E402

from agents import make  # noqa: E402
from agents.search.agent import SearchAgent  # noqa: E402

REFERENCE = "territory:kernel=mailbox"  # the yardstick of every row
ENGINES = ("uct:prior=eval", "uct:prior=mixed", "uct:prior=fast", "mcts", "alphabeta", "two-iteration:eval=improved")


def measure(spec: str, board: Board, seconds: float) -> dict[str, Any]:
    """One timed search of ``board`` by a fresh ``spec`` agent: its rate and the time it took."""
    agent = make(spec, time=seconds)
    assert isinstance(agent, SearchAgent)
    start = time.perf_counter()
    agent.select_move(board)
    spent = time.perf_counter() - start
    result = agent.last_result
    assert result is not None  # select_move keeps its search's result
    count = getattr(result, "simulations", None)
    unit = "sims"
    if count is None:
        count, unit = result.nodes, "nodes"
    evals = getattr(result, "evals", None)
    return {
        "engine": spec,
        "unit": unit,
        "count": int(count),
        "seconds": spent,
        "rate": count / spent,
        "evals_per_second": None if evals is None else evals / spent,
    }


def run(sizes: list[int], seconds: float, engines: list[str]) -> list[dict[str, Any]]:
    rows = []
    for engine in engines:  # warm-up: numba loads every kernel once
        make(engine, time=0.05).select_move(Board(6))
    for size in sizes:
        for label, board in (("start", Board(size)), ("move 20", position_at(size, 20))):
            for engine in engines:
                kernel = evaluator_rate(REFERENCE, board, 0.5)
                row = measure(engine, board, seconds)
                row.update(size=size, position=label, kernel_evals_per_second=kernel, ratio=row["rate"] / kernel)
                rows.append(row)
                print(_line(row), flush=True)
    return rows


def _line(row: dict[str, Any]) -> str:
    evals = "-" if row["evals_per_second"] is None else f"{row['evals_per_second']:,.0f}"
    return (
        f"| {row['size']}x{row['size']} | {row['position']} | {row['engine']} | {row['rate']:,.0f} "
        f"{row['unit']}/s | {evals} | {row['kernel_evals_per_second']:,.0f} | {row['ratio']:.3f} "
        f"| {row['seconds']:.3f} |"
    )


def speed_parser(description: str) -> argparse.ArgumentParser:
    """The options every speed benchmark here shares: ``--sizes`` and ``--json``."""
    parser = argparse.ArgumentParser(description=description.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 10], help="board sizes (default 8 10)")
    parser.add_argument("--json", default=None, metavar="PATH", help="also write the rows here")
    return parser


def parse_speed_args(parser: argparse.ArgumentParser, argv: Optional[list[str]]) -> argparse.Namespace:
    """``parser.parse_args(argv)``, refusing a size that is not a board size."""
    args = parser.parse_args(argv)
    for size in args.sizes:
        if not core.MIN_SIZE <= size <= core.MAX_SIZE:
            parser.error(f"--sizes: {size} is not a board size ({core.MIN_SIZE}-{core.MAX_SIZE})")
    return args


def main(argv: Optional[list[str]] = None) -> int:
    parser = speed_parser(__doc__)
    parser.add_argument("--time", type=float, default=1.0, help="seconds per search (default 1)")
    parser.add_argument("--engines", nargs="+", default=list(ENGINES), help="agent specs (default: all engines)")
    args = parse_speed_args(parser, argv)
    columns = [
        "board",
        "position",
        "engine",
        "rate",
        "evals/s",
        "mailbox kernel evals/s (same position)",
        "rate / kernel",
        "seconds",
    ]
    return print_table(columns, lambda: run(args.sizes, args.time, args.engines), args.json)


def print_table(columns: list[str], rows: Callable[[], list[dict[str, Any]]], json_path: Optional[str]) -> int:
    """The end of every speed benchmark here: a note unless numba has one thread, the header of a
    markdown table of ``columns``, then ``rows()``, which prints its rows as it goes (Ctrl-C stops
    it cleanly: exit status 130), and the rows written to ``json_path`` (if given) with the command
    and the machine's load. Returns the exit status."""
    if os.environ.get("NUMBA_NUM_THREADS") != "1":
        print("note: NUMBA_NUM_THREADS is not 1; the figures are meant for one thread", file=sys.stderr)
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    try:
        result = rows()
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    if json_path:
        with open(json_path, "w", encoding="utf-8") as handle:
            json.dump({"command": " ".join(sys.argv), "load": os.getloadavg(), "rows": result}, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
