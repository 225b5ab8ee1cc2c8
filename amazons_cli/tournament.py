"""``amazons tournament A B C ...``: a round robin (see ``agents.arena.matches``)."""

from __future__ import annotations

import argparse

from agents.arena import format_tournament, tournament

from amazons_cli.match import add_common, common_options, compile_here

HELP = "round robin between agents: every pair plays --games games, alternating colours; resumable"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "agents",
        nargs="+",
        help="agent specs (at least two): NAME[:key=value,...] or your own "
        "FILE.py:CLASS[:key=value,...] (amazons agents lists them)",
    )
    add_common(parser, games=10)


def run(args: argparse.Namespace) -> int:
    compile_here(args.agents, args.size, args.workers, args.backend)
    print(format_tournament(tournament(args.agents, **common_options(args))))
    return 0
