"""Rules-core speed, each figure beside its reference in the same run (report the ratios).

1. perft(depth) from the 10x10 start: ours (numba) vs the plain C mailbox reference
   ``benchmarks/rules/perft_ref.c`` compiled with ``gcc -O3 -march=native`` (skipped without gcc).
2. Full legal-move-list generation in moves/s on positions from seeded random games: our kernel
   writing (from, to, arrow) rows into a buffer, and ``Board.legal_moves_array`` (public squares),
   vs OpenSpiel enumerating the same positions through its three action phases (the best of
   ``child`` clones and ``apply_action``/``undo_action``; skipped without ``pyspiel``).
3. Import + first call in fresh interpreters: cold (numba cache in an empty temp dir, so every
   kernel compiles) and warm (the same cache, second run).

    python3 benchmarks/rules/perft.py                 # perft(3): about 25 s each for ours and C
    python3 benchmarks/rules/perft.py --depth 2 --games 10 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from amazons_env import Board, core
from amazons_env.perft import perft

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_C_SOURCE = Path(__file__).with_name("perft_ref.c")
PERFT_10X10 = {1: 2176, 2: 4_307_152, 3: 8_350_439_170}


def bench_perft(depth: int, c_source: Path) -> None:
    print(f"== perft({depth}), 10x10 start ==")
    board = Board(10)
    perft(board, 1)  # compile or load outside the timing
    start = time.perf_counter()
    ours = perft(board, depth)
    ours_s = time.perf_counter() - start
    check = "" if PERFT_10X10.get(depth, ours) == ours else "  WRONG COUNT"
    print(f"ours (numba): {ours:>15,} leaves  {ours_s:8.3f} s  {ours / ours_s / 1e6:7.1f} M leaves/s{check}")
    gcc = shutil.which("gcc")
    if gcc is None or not c_source.is_file():
        why = "no gcc on PATH" if gcc is None else f"{c_source} not found (use --c-source)"
        print(f"C reference: skipped ({why})")
        return
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "perft_ref"
        subprocess.run([gcc, "-O3", "-march=native", str(c_source), "-o", str(exe)], check=True)
        out = subprocess.run([str(exe), str(depth)], check=True, capture_output=True, text=True).stdout
    m = re.search(r"=\s*(\d+)\s+([\d.]+) s", out)
    if m is None:
        print(f"C reference: could not read its output {out!r}")
        return
    c_leaves, c_s = int(m.group(1)), float(m.group(2))
    agree = "counts agree" if c_leaves == ours else "COUNTS DIFFER"
    print(f"C (gcc -O3):  {c_leaves:>15,} leaves  {c_s:8.3f} s  {c_leaves / c_s / 1e6:7.1f} M leaves/s")
    print(f"ratio ours/C time: {ours_s / c_s:.2f}x (target <= 1.3x; {agree})")


def random_positions(games: int, seed: int) -> list[Board]:
    """Every position (with its move stack, so OpenSpiel can replay it) of seeded random games."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        board = Board(10)
        while not board.is_game_over():
            out.append(board.copy())
            board.push(rng.choice(board.legal_moves()))
    return out


def best_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_move_lists(games: int, repeats: int, seed: int) -> None:
    positions = random_positions(games, seed)
    total = sum(b.count_legal_moves() for b in positions)
    print(
        f"\n== full move-list generation: {len(positions)} positions from {games} random 10x10 "
        f"games (seed {seed}), {total:,} moves, best of {repeats} =="
    )
    buffer = np.empty((core.max_moves(10, core.MAX_QUEENS), 3), dtype=np.int64)
    args = [(b.cells, b.queens, b.queen_counts, int(b.turn), b.dirs) for b in positions]

    def kernel() -> None:
        n = 0
        for a in args:
            n += core.generate_moves(*a, buffer)
        assert n == total

    def board_arrays() -> None:
        assert sum(len(b.legal_moves_array()) for b in positions) == total

    kernel()
    rates = {}
    for name, fn in (("ours: kernel into a buffer", kernel), ("ours: Board.legal_moves_array", board_arrays)):
        rates[name] = total / best_time(fn, repeats)
        print(
            f"{name:<36} {rates[name] / 1e6:8.1f} M moves/s  {len(positions) / total * rates[name]:>10,.0f} positions/s"
        )
    try:
        import pyspiel
    except ImportError:
        print("OpenSpiel: skipped (pyspiel not installed)")
        return
    from amazons_env.openspiel import state_from_board

    game = pyspiel.load_game("amazons", {"board_size": 10})
    states = [state_from_board(board, game) for board in positions]

    def spiel_child() -> None:
        n = 0
        for s in states:
            for a in s.legal_actions():
                s1 = s.child(a)
                for b in s1.legal_actions():
                    n += len(s1.child(b).legal_actions())
        assert n == total, (n, total)

    def spiel_undo() -> None:
        n = 0
        for s in states:
            player = s.current_player()
            for a in s.legal_actions():
                s.apply_action(a)
                for b in s.legal_actions():
                    s.apply_action(b)
                    n += len(s.legal_actions())
                    s.undo_action(player, b)
                s.undo_action(player, a)
        assert n == total, (n, total)

    spiel = {name: total / best_time(fn, repeats) for name, fn in (("child", spiel_child), ("apply/undo", spiel_undo))}
    best = max(spiel, key=lambda name: spiel[name])
    for name, rate in spiel.items():
        print(
            f"{'OpenSpiel: legal_actions, ' + name:<36} {rate / 1e6:8.1f} M moves/s  "
            f"{len(positions) / total * rate:>10,.0f} positions/s"
        )
    for name, rate in rates.items():
        print(f"ratio {name} / OpenSpiel ({best}): {rate / spiel[best]:.1f}x (target >= 10x)")


FIRST_CALL = """
import time
start = time.perf_counter()
from amazons_env import Board
from amazons_env.perft import perft
imported = time.perf_counter()
board = Board(10)
board.legal_moves(); board.count_legal_moves(); board.is_legal("d1-d7/g7")
board.push("d1-d7/g7"); board.is_game_over(); board.pop(); perft(board, 1)
done = time.perf_counter()
print(imported - start, done - imported)
"""


def bench_compile(runs: int) -> None:
    print("\n== import + first call in a fresh interpreter (numba cache in an empty temp dir) ==")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for label in ["cold"] + ["warm"] * runs:
            start = time.perf_counter()
            out = subprocess.run(
                [sys.executable, "-c", FIRST_CALL], env=env, check=True, capture_output=True, text=True
            ).stdout
            wall = time.perf_counter() - start
            imported, first = (float(x) for x in out.split())
            print(f"{label}: import {imported:6.2f} s, first calls {first:6.2f} s, process wall {wall:6.2f} s")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=3, help="perft depth (default 3: ~25 s each)")
    parser.add_argument(
        "--c-source", type=Path, default=DEFAULT_C_SOURCE, help=f"the C reference (default {DEFAULT_C_SOURCE})"
    )
    parser.add_argument("--games", type=int, default=20, help="random games for the move-list positions")
    parser.add_argument("--repeats", type=int, default=3, help="timing repeats (best is kept)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip", nargs="*", default=[], choices=["perft", "movelist", "compile"])
    args = parser.parse_args(argv)
    if "perft" not in args.skip:
        bench_perft(args.depth, args.c_source)
    if "movelist" not in args.skip:
        bench_move_lists(args.games, args.repeats, args.seed)
    if "compile" not in args.skip:
        bench_compile(max(1, args.repeats - 1))


if __name__ == "__main__":
    main()
