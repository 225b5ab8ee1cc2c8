"""``amazons selfplay OUT --games N [--size S] [--agent SPEC] ...``: self-play data (resumable)."""

from __future__ import annotations

import argparse

from agents.arena.backends import add_backend_arguments

from training.selfplay.value import DEFAULT_AGENT, selfplay

HELP = "play self-play games into sharded .npz files plus a manifest (rerun to resume)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", help="output folder (shards + manifest.json)")
    parser.add_argument("--games", type=int, required=True, help="number of games in total")
    parser.add_argument("--size", type=int, default=8, help="board size (default 8)")
    parser.add_argument(
        "--agent", default=DEFAULT_AGENT, help=f"agent spec playing both sides (default {DEFAULT_AGENT})"
    )
    parser.add_argument("--games-per-shard", type=int, default=50, help="games per .npz shard (default 50)")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: CPU count)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    parser.add_argument(
        "--random-plies",
        type=int,
        nargs=2,
        default=(2, 6),
        metavar=("LOW", "HIGH"),
        help="random opening moves per game, drawn from LOW..HIGH (default 2 6)",
    )
    add_backend_arguments(parser)


def run(args: argparse.Namespace) -> int:
    manifest = selfplay(
        args.out,
        args.games,
        args.size,
        args.agent,
        args.games_per_shard,
        args.workers,
        args.seed,
        args.random_plies,
        backend=args.backend,
        address=args.ray_address,
    )
    print(
        f"{manifest['games']} games, {manifest['positions']} positions, data hash {manifest['data_hash']} in {args.out}"
    )
    return 0
