"""``python3 -m training.tuning FOLDER --size N ...``: ``training.tuning.command`` from the shell."""

from __future__ import annotations

import argparse
import sys

from training.tuning.command import HELP, add_arguments, run


def main() -> int:
    parser = argparse.ArgumentParser(prog="python3 -m training.tuning", description=HELP)
    add_arguments(parser)
    return run(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
