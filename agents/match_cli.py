"""``amazons match A B``: a match between two agents (see ``agents.arena``)."""

from __future__ import annotations

import argparse

from .arena import format_match, match
from .registry import DEFAULT_OPPONENT

HELP = "play a match between two agents: alternating colours, score with 95% CI, Elo, resumable"


def add_common(parser: argparse.ArgumentParser, games: int) -> None:
    """Options shared with ``amazons tournament``."""
    parser.add_argument("--games", type=int, default=games, help=f"games per pairing (default {games})")
    parser.add_argument("--size", type=int, default=10, help="board size (default 10)")
    parser.add_argument("--time", type=float, default=None,
                        help="seconds per move for every agent that takes a time (else the depth in its spec)")
    parser.add_argument("--seed", type=int, default=0, help="seed of openings and agents (default 0)")
    parser.add_argument("--opening", type=int, default=0,
                        help="random plies before each pair of games, so deterministic agents vary (default 0)")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: up to 2 cores)")
    parser.add_argument("--json", default=None, metavar="PATH",
                        help="results file: written after every game; rerunning completes an interrupted run")
    parser.add_argument("--records", default=None, metavar="DIR", help="save every game's move list here")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", help="first agent spec, e.g. 'two-iteration:depth=2,eval=improved'")
    parser.add_argument("b", nargs="?", default=DEFAULT_OPPONENT,
                        help=f"second agent spec (default {DEFAULT_OPPONENT}, our strongest)")
    add_common(parser, games=20)


def common_options(args: argparse.Namespace) -> dict:
    return dict(games=args.games, size=args.size, seed=args.seed, opening=args.opening, time=args.time,
                workers=args.workers, json_path=args.json, records_dir=args.records, progress=not args.quiet)


def run(args: argparse.Namespace) -> int:
    print(format_match(match(args.a, args.b, **common_options(args))))
    return 0
