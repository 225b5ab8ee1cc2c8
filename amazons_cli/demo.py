"""``amazons demo``: a small round robin of our engines; prints a results table.

Under a minute of games on two cores: 8x8, four agents (random, the study's best search, our
alpha-beta engine and our MCTS engine), ``--time`` seconds per move (default 0.2), two games per
pairing with colours swapped, each pair starting from the same two random plies. Then the final
position of the game between the two strongest. The first run compiles the engines' kernels
first, once (about 45 s of CPU; the README's "The first run" has the times measured).
"""

from __future__ import annotations

import argparse
import time

from amazons_env import GameRecord

from agents.arena import format_tournament, tournament

from amazons_cli.match import compile_here, number

HELP = "a short demo: our engines play a round robin on 8x8 (under a minute once compiled), results table"

AGENTS = ("random", "two-iteration:eval=improved", "alphabeta", "uct")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=2, help="games per pairing (default 2)")
    parser.add_argument("--size", type=int, default=8, help="board size (default 8)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    parser.add_argument(
        "--time", type=number(float, 0, strict=True), default=0.2, help="seconds per move (default 0.2)"
    )
    parser.add_argument("--workers", type=int, default=None, help="processes (default: up to 2 cores)")
    parser.add_argument("--json", default=None, metavar="PATH", help="also save the results here")


def run(args: argparse.Namespace) -> int:
    print(
        f"Round robin on {args.size}x{args.size}, {args.games} games per pairing, {args.time:g} s per move "
        "(colours alternate, 2 random opening plies per pair):"
    )
    for spec in AGENTS:
        print(f"  {spec}")
    start = time.perf_counter()
    compile_here(AGENTS, args.size, args.workers)
    result = tournament(
        list(AGENTS),
        games=args.games,
        size=args.size,
        seed=args.seed,
        opening=2,
        time=args.time,
        workers=args.workers,
        json_path=args.json,
    )
    print(f"\n{len(result['results'])} games in {time.perf_counter() - start:.0f} s\n")
    print(format_tournament(result))
    game = next(r for r in result["results"] if "alphabeta" in r["pair"] and "uct" in r["pair"])
    board = GameRecord(tuple(game["record"]), size=args.size).board()
    print(
        f"\nFinal position, {game['white']} (White) vs {game['black']} (Black), "
        f"{'White' if game['winner'] == 0 else 'Black'} won after {game['plies']} moves:"
    )
    print(board)
    print("\nMore: amazons match A B --games N, amazons tournament A B C ..., README 'Agents'.")
    return 0
