"""``amazons tune-eval FOLDER --size N ...``: the territory weights fitted to uct games
(``training.tuning.pipeline``: data, then the fit, then the parameter file)."""

from __future__ import annotations

import argparse
from dataclasses import fields

from training.tuning.data import DataSettings
from training.tuning.pipeline import summary, tune

__all__ = ["HELP", "add_arguments", "run"]

HELP = "fit the territory evaluation's weights for one board size to uct games (data resumable)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    d = DataSettings()  # the defaults' one home
    parser.add_argument("folder", help="data folder (selfplay/ and labels/ shards; resumed when rerun)")
    parser.add_argument("--size", type=int, default=d.size, help=f"board size (default {d.size})")
    parser.add_argument("--games", type=int, default=d.games, help=f"self-play games (default {d.games})")
    parser.add_argument(
        "--sims", type=int, default=d.sims, help=f"uct simulations per self-play move (default {d.sims})"
    )
    parser.add_argument(
        "--deep-sims",
        type=int,
        default=d.deep_sims,
        help=f"uct simulations of the deeper search per label (default {d.deep_sims})",
    )
    parser.add_argument(
        "--per-game", type=int, default=d.per_game, help=f"positions labelled per game (default {d.per_game})"
    )
    parser.add_argument(
        "--seed", type=int, default=d.seed, help=f"seed of the games, the draws and the split (default {d.seed})"
    )
    parser.add_argument(
        "--random-plies",
        type=int,
        nargs=2,
        default=d.random_plies,
        metavar=("LOW", "HIGH"),
        help="random opening moves per game, drawn from LOW..HIGH (default %d %d)" % d.random_plies,
    )
    parser.add_argument(
        "--games-per-shard", type=int, default=d.games_per_shard, help=f"games per shard (default {d.games_per_shard})"
    )
    parser.add_argument(
        "--deep-weight", type=float, default=0.5, help="target: 0 the outcome, 1 the deeper value (default 0.5)"
    )
    parser.add_argument("--holdout", type=float, default=0.2, help="fraction of games held out (default 0.2)")
    parser.add_argument(
        "--buckets", type=int, default=1, help="phase ranges to fit a set each, for the report (default 1)"
    )
    parser.add_argument("--out", default=None, help="parameter file (default FOLDER/territory-NxN.json)")


def run(args: argparse.Namespace) -> int:
    report = tune(
        args.folder,
        args.deep_weight,
        args.holdout,
        args.buckets,
        args.out,
        **{f.name: getattr(args, f.name) for f in fields(DataSettings)},
    )
    print(summary(report))
    print(f"data {report['data']['data_hash']} ({report['data']['positions']} positions)")
    return 0
