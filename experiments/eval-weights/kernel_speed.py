"""The territory kernels' evaluations per CPU second with the study set and with a phase-dependent
scale (``scale_phase`` != 0: one ``exp`` more per evaluation), in the same process, rounds taking
turns, best of ``--rounds``; over the children of the start and of move 20 (what a search evaluates).

    NUMBA_NUM_THREADS=1 python3 experiments/eval-weights/kernel_speed.py --rounds 5
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "search"))

from engines import position_at, sweep_rate  # noqa: E402
from territory_speed import children  # noqa: E402

from amazons_env import Board  # noqa: E402

from agents.evaluation.territory_bitboard import territory_bb_kernel  # noqa: E402
from agents.evaluation.territory_mailbox import territory_kernel  # noqa: E402
from agents.evaluation.territory_weights import STUDY, as_array  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sets = {"study": as_array(STUDY), "scale_phase=3.5": as_array(dict(STUDY, scale=0.01, scale_phase=3.5))}
    print("| board | position | kernel | study evals/s | scale_phase evals/s | ratio |")
    print("|---|---|---|---|---|---|")
    for size in (8, 10):
        for label, board in (("start", Board(size)), ("move 20", position_at(size, 20))):
            positions, side = children(board), 1 - int(board.turn)
            for name, kernel in (("bitboard", territory_bb_kernel), ("mailbox", territory_kernel)):
                best = dict.fromkeys(sets, 0.0)
                for _ in range(args.rounds):
                    for key, params in sets.items():
                        best[key] = max(best[key], sweep_rate(kernel, positions, side, board.dirs, params))
                study, phased = best["study"], best["scale_phase=3.5"]
                print(f"| {size}x{size} | {label} | {name} | {study:,.0f} | {phased:,.0f} | {phased / study:.3f} |")


if __name__ == "__main__":
    main()
