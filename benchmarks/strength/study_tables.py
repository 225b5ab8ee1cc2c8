"""Re-run the study's Tables 3, 5 and 6 (and search speed) and print them beside the study's numbers.

The study ran 10x10 at depth 3 in C++; a full re-run here does not fit a 2-core machine, so every
size, depth and game count is an option, and the printout says exactly what ran:

    python benchmarks/strength/study_tables.py speed            # nodes/s, time to depth 2/3 from the 10x10 start
    python benchmarks/strength/study_tables.py table3 --size 8 --depth 1 --games 10 --cof1 0,0.3,0.45,0.6,1
    python benchmarks/strength/study_tables.py table5 --size 8 --depth 2 --games 3
    python benchmarks/strength/study_tables.py table6 --size 8 --depth 2 --games 1

``--games`` is per colour (the study: 100 per colour in Table 3, 20 in Table 5). Games use
``--opening`` random plies per pair (default 2) so that the deterministic agents play different
games. ``--out DIR`` keeps each table's games in resumable JSON files (see ``agents.arena.matches``).
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from amazons_env import Board

from agents import make
from agents.arena import match, tournament
from agents.search.study.agent import VARIANTS, StudySearch, search_kernel

STUDY_TABLE3 = {
    0.0: -29,
    0.3: 46,
    0.35: 58,
    0.4: 49,
    0.43: 60,
    0.45: 96,
    0.47: 88,
    0.5: 92,
    0.55: 56,
    0.6: -30,
    1.0: -4,
}
STUDY_TABLE5 = {  # row vs column: (wins, losses) over 20 games per colour; diagonal = self-play W-B
    ("random", "classic"): (0, 40),
    ("random", "move-then-arrow"): (0, 40),
    ("random", "two-iteration"): (0, 40),
    ("classic", "move-then-arrow"): (40, 0),
    ("classic", "two-iteration"): (36, 4),
    ("move-then-arrow", "two-iteration"): (12, 28),
}
STUDY_TABLE6 = {
    ("classic", "classic"): "413.30",
    ("classic", "move-then-arrow"): "154.22; 152.63",
    ("classic", "two-iteration"): "129.20; 95.49",
    ("move-then-arrow", "move-then-arrow"): "0.57",
    ("two-iteration", "two-iteration"): "0.47",
    ("move-then-arrow", "two-iteration"): "0.55; 0.53",
}


def _arena(args: argparse.Namespace, name: str) -> dict[str, Any]:
    """The games and arena options of every pairing of a table, its results in ``--out`` as ``name``."""
    json_path = None
    if args.out is not None:
        os.makedirs(args.out, exist_ok=True)
        json_path = os.path.join(args.out, f"{name}_{args.size}x{args.size}_d{args.depth}.json")
    return {
        "games": 2 * args.games,
        "size": args.size,
        "seed": args.seed,
        "opening": args.opening,
        "workers": args.workers,
        "json_path": json_path,
        "progress": not args.quiet,
    }


def _spec(variant: str, args: argparse.Namespace, eval_spec: str = "improved") -> str:
    return "random" if variant == "random" else f"{variant}:depth={args.depth},eval={eval_spec}"


def table3(args: argparse.Namespace) -> None:
    print(
        f"Table 3: improved(cof1) vs basic, two-iteration depth {args.depth}, {args.size}x{args.size}, "
        f"{args.games} games per colour (study: 10x10, depth 3, 100 per colour)"
    )
    print(f"{'cof1':>6} {'net wins':>9} {'score':>7} {'95% CI':>13} {'study net /200':>15}")
    basic = _spec("two-iteration", args, "basic")
    for cof1 in args.cof1:
        improved = _spec("two-iteration", args, f"improved,cof1={cof1}")
        m = match(improved, basic, **_arena(args, f"table3_cof1_{cof1}"))
        low, high = m["score_ci95"]
        study = STUDY_TABLE3.get(cof1)
        print(
            f"{cof1:>6} {m['a_wins'] - m['b_wins']:>+9} {m['score']:>7.3f} {low:>6.2f}-{high:<6.2f}"
            f" {'' if study is None else f'{study:+d}':>15}",
            flush=True,
        )


def table5(args: argparse.Namespace) -> None:
    names = ["random", *VARIANTS]
    specs = [_spec(v, args) for v in names]
    print(
        f"Table 5: search variants at depth {args.depth}, improved heuristic, {args.size}x{args.size}, "
        f"{args.games} games per colour (study: 10x10, depth 3, 20 per colour)"
    )
    t = tournament(specs, **_arena(args, "table5"))
    cell = {}
    for m in t["matches"]:
        a, b = names[specs.index(m["a"])], names[specs.index(m["b"])]
        cell[a, b], cell[b, a] = (m["a_wins"], m["b_wins"]), (m["b_wins"], m["a_wins"])
    print(f"{'row vs column: ours (study)':<18}" + "".join(f"{n:>22}" for n in names) + f"{'total':>14}")
    for a in names:
        row, total = [], [0, 0]
        for b in names:
            if a == b:
                row.append("-")
                continue
            wins, losses = cell[a, b]
            total[0] += wins
            total[1] += losses
            study = STUDY_TABLE5.get((a, b)) or tuple(reversed(STUDY_TABLE5.get((b, a), (0, 0))))
            row.append(f"{wins}/{losses} ({study[0]}/{study[1]})")
        print(f"{a:<18}" + "".join(f"{c:>22}" for c in row) + f"{total[0]:>7}/{total[1]}")


def table6(args: argparse.Namespace) -> None:
    print(
        f"Table 6: mean game seconds per pairing (as White; as Black), depth {args.depth}, "
        f"improved heuristic, {args.size}x{args.size}, {args.games} game(s) per colour "
        "(study: C++, 10x10, depth 3)"
    )
    print(f"{'pairing':<34} {'ours: seconds':>22} {'nodes/game':>12} {'nodes/s':>9} {'study (10x10, d3)':>18}")
    for i, a in enumerate(VARIANTS):
        for b in VARIANTS[i:]:
            sa, sb = _spec(a, args), _spec(b, args)
            if sa == sb:  # self-play: the same agent on both sides
                sb = sb + ",seed=1"
            m = match(sa, sb, **_arena(args, f"table6_{a}_{b}"))
            by_colour = []
            for colour in (0, 1):  # games where a was White, then a was Black
                games = [r for r in m["results"] if (r["white"] == sa) == (colour == 0)]
                by_colour.append(sum(sum(r["seconds"]) for r in games) / max(1, len(games)))
            nodes = sum(sum(r["nodes"]) for r in m["results"]) / len(m["results"])
            seconds = sum(sum(r["seconds"]) for r in m["results"])
            rate = sum(sum(r["nodes"]) for r in m["results"]) / seconds if seconds else 0.0
            ours = f"{by_colour[0]:.2f}" if a == b else f"{by_colour[0]:.2f}; {by_colour[1]:.2f}"
            print(f"{a + ' vs ' + b:<34} {ours:>22} {nodes:>12,.0f} {rate:>9,.0f} {STUDY_TABLE6[a, b]:>18}", flush=True)


def speed(args: argparse.Namespace) -> None:
    print(
        f"Search speed from the {args.size}x{args.size} start (single thread; the anchor: Fairy-Stockfish "
        "searches Amazons at 35k-230k nodes/s on this machine)"
    )
    print("nodes/s per CPU second of this process (robust when other jobs share the cores) and per wall second")
    print(
        f"{'search':<16} {'eval':<9} {'depth':>5} {'nodes':>12} {'wall s':>9} {'cpu s':>8} {'nodes/cpu s':>12}"
        f" {'nodes/wall s':>13}  move"
    )
    board = Board(args.size)
    for depth in range(1, args.depth + 1):
        for variant in VARIANTS:
            for eval_spec in ("basic", "improved"):
                searcher = make(f"two-iteration:eval={eval_spec}")
                assert isinstance(searcher, StudySearch)
                evaluator = searcher.evaluator
                start, cpu = time.perf_counter(), time.process_time()
                move, value, nodes = search_kernel(variant, board, depth, evaluator)
                seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
                print(
                    f"{variant:<16} {eval_spec:<9} {depth:>5} {nodes:>12,} {seconds:>9.3f} {cpu:>8.3f} "
                    f"{nodes / max(cpu, 1e-9):>12,.0f} {nodes / seconds:>13,.0f}  {move} ({value:+.4f})",
                    flush=True,
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("table", choices=["table3", "table5", "table6", "speed"])
    parser.add_argument("--size", type=int, default=None, help="board size (default 8; speed: 10)")
    parser.add_argument("--depth", type=int, default=None, help="search depth (default 2; table3: 1)")
    parser.add_argument("--games", type=int, default=3, help="games per colour per pairing (default 3)")
    parser.add_argument(
        "--cof1",
        type=lambda s: [float(x) for x in s.split(",")],
        default=[0.0, 0.3, 0.45, 0.6, 1.0],
        help="table3: comma-separated cof1 values",
    )
    parser.add_argument("--opening", type=int, default=2, help="random plies per pair of games (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--out", default=None, help="directory for resumable per-table JSON results")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    if args.size is None:
        args.size = 10 if args.table == "speed" else 8
    if args.depth is None:
        args.depth = 1 if args.table == "table3" else 2
    start = time.perf_counter()
    {"table3": table3, "table5": table5, "table6": table6, "speed": speed}[args.table](args)
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
