"""The ``amazons`` command line. Each subcommand lives beside the code it drives: a module listed
in ``COMMANDS`` provides ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``.

Its errors are one line on stderr, no traceback, and an exit code that tells them apart (see
``amazons_env.errors`` for the two families):

* bad input (``AmazonsError``, any ``ValueError``): ``amazons CMD: error: ...``, exit code 2, as
  argparse reports a bad command line;
* a run-time failure (``AmazonsRuntimeError``: an engine that died, a worker process lost), an
  operating-system error (``OSError``: a read-only folder, a full disk, a name too long; its
  message names the path) or memory refused (``MemoryError``): ``amazons CMD: failed: ...``,
  exit code 1;
* Ctrl-C: ``amazons CMD: interrupted``, exit code 130.

>>> main(["perft", "2", "--size", "0"])
2
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Optional, Sequence

from amazons_env.errors import AmazonsRuntimeError, InvalidArgumentError

__all__ = ["main", "command", "COMMANDS", "INPUT_ERROR", "FAILURE"]

INPUT_ERROR = 2  #: exit code of bad input (argparse's own for a bad command line)
FAILURE = 1  #: exit code of a run-time failure

COMMANDS = {
    "play": "amazons_cli.play",
    "watch": "amazons_cli.watch",
    "replay": "amazons_cli.replay",
    "perft": "amazons_cli.perft",
    "match": "amazons_cli.match",
    "tournament": "amazons_cli.tournament",
    "agents": "amazons_cli.list_agents",
    "engine": "amazons_cli.engine",
    "demo": "amazons_cli.demo",
    "selfplay": "amazons_cli.learning.selfplay",
    "train": "amazons_cli.learning.train",
    "train-loop": "amazons_cli.learning.train_loop",
    "train-policy": "amazons_cli.learning.train_policy",
    "tune-eval": "amazons_cli.learning.tune_eval",
}


def build_parser(names: Optional[Sequence[str]] = None) -> argparse.ArgumentParser:
    """The parser with the subcommands ``names`` (all by default). Each command's module is
    imported only when its subcommand is added, so ``amazons perft`` does not import torch."""
    parser = argparse.ArgumentParser(prog="amazons", description="The Game of the Amazons toolkit.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS if names is None else names:
        module = importlib.import_module(COMMANDS[name])
        # argparse %-formats help strings (so escape them), not descriptions
        command = sub.add_parser(name, help=module.HELP.replace("%", "%%"), description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = next((arg for arg in argv if not arg.startswith("-")), None)
    try:
        args = build_parser([chosen] if chosen in COMMANDS else None).parse_args(argv)
        seed = getattr(args, "seed", None)  # every command's --seed seeds numpy, which would not name it
        if isinstance(seed, int) and seed < 0:
            raise InvalidArgumentError(f"--seed {seed}: must be a whole number >= 0")
        return int(args._run(args) or 0)
    except ValueError as error:  # bad input (AmazonsError is a ValueError): say what was wrong, no traceback
        print(f"amazons {chosen}: error: {error}", file=sys.stderr)
        return INPUT_ERROR
    except AmazonsRuntimeError as error:  # not the input: what failed, in one line, no traceback
        print(f"amazons {chosen}: failed: {error}", file=sys.stderr)
        return FAILURE
    except KeyboardInterrupt:  # Ctrl-C: one line and the shell's code for SIGINT, no traceback
        print(f"\namazons {chosen}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and closed early
        sys.stderr.close()
        return 0
    except OSError as error:  # the machine refused (read-only, disk full, name too long): its message names the path
        print(f"amazons {chosen}: failed: {error}", file=sys.stderr)
        return FAILURE
    except MemoryError as error:  # an allocation the machine cannot give: one line, not a traceback
        print(f"amazons {chosen}: failed: out of memory{f' ({error})' if str(error) else ''}", file=sys.stderr)
        return FAILURE


def command() -> None:
    """The ``amazons`` executable and ``python -m amazons_cli``: exit with ``main``'s code.

    An interrupted command that ran tasks on Ray leaves at once, as a killed driver does (the
    cluster then ends the job's tasks; the tasks were cancelled already): Ray 2.60 can abort the
    process while it shuts down after a cancellation, a race in its task manager between the
    cancellation and a task's reply ("Tried to complete task that was not pending"; a sibling of
    the race ray-project/ray#54798 fixed), which turned about one in ten interrupted runs into a
    crash report and exit code 1 on a busy machine."""
    code = main()
    ray = sys.modules.get("ray")
    if code == 130 and ray is not None and ray.is_initialized():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    command()
