"""The ``amazons`` command line. Each subcommand lives beside the code it drives: a module listed
in ``COMMANDS`` provides ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Optional, Sequence

__all__ = ["main", "COMMANDS"]

COMMANDS = {
    "perft": "amazons_env.perft_cli",
    "match": "agents.match_cli",
    "tournament": "agents.tournament_cli",
    "demo": "agents.demo",
    "selfplay": "training.selfplay_cli",
    "train": "training.train_cli",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="amazons", description="The Game of the Amazons toolkit.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)
        command = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except ValueError as error:  # our errors all subclass ValueError: say what was wrong, no traceback
        print(f"amazons {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
