"""What reading a game record costs: an illegal move near the start fails in about the time of
reading those few moves alone, whatever follows, and a legal record costs time linear in its size.

    NUMBA_NUM_THREADS=1 python3 benchmarks/rules/record_reading.py            # 10 MB tails
    NUMBA_NUM_THREADS=1 python3 benchmarks/rules/record_reading.py --megabytes 1

Each row times (best of ``--repeat``) ``GameRecord.from_sgf`` or ``from_movelist`` on text whose
third move is illegal followed by ``--megabytes`` of further moves, beside the reference: the
same first three moves alone, in the same run. The ratio is the figure (1 means the tail is
never read). The last rows read legal text of two sizes (a tail of empty SGF nodes, or move-list
comments) to show the cost growing with the size, not faster. The rules kernels are loaded by a
first read before timing.
"""

from __future__ import annotations

import argparse
import functools
import time
from typing import Callable

from amazons_env import IllegalMoveError
from amazons_env.records import GameRecord

SGF_HEAD = "(;GM[18]SZ[10];W[djddgd];B[adaeaf];W[djddgd]"  # d1 is empty after the first move
LIST_HEAD = "1. d1-d7/g7 a7-a6/a5 d1-d2/d3 "


def best(read: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        try:
            read()
        except IllegalMoveError:
            pass
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=float, default=10.0)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    size = int(args.megabytes * 1e6)
    GameRecord.from_sgf("(;GM[18];W[djddgd])")  # load the rules kernels before timing
    sgf_text = SGF_HEAD + ";B[adaeaf]" * (size // 10) + ")"
    list_text = LIST_HEAD + "a6-a5/a4 " * (size // 9)
    rows = [("sgf, illegal 3rd move", sgf_text, SGF_HEAD + ")"), ("move list, illegal 3rd move", list_text, LIST_HEAD)]
    print(f"{'record':<30}{'tail MB':>9}{'seconds':>10}{'3 moves alone':>15}{'ratio':>8}")
    for name, text, head in rows:
        seconds = best(functools.partial(GameRecord.parse, text), args.repeat)
        alone = best(functools.partial(GameRecord.parse, head), args.repeat)
        print(f"{name:<30}{args.megabytes:>9g}{seconds:>10.4f}{alone:>15.4f}{seconds / alone:>8.2f}", flush=True)
    print(f"{'legal record':<30}{'MB':>9}{'seconds':>10}")
    for megabytes in (args.megabytes / 10, args.megabytes):
        nodes = int(megabytes * 1e6)
        text = "(;GM[18];W[djddgd]" + ";" * nodes + ")"
        seconds = best(functools.partial(GameRecord.from_sgf, text), 1)
        print(f"{'sgf, empty nodes':<30}{megabytes:>9g}{seconds:>10.4f}", flush=True)


if __name__ == "__main__":
    main()
