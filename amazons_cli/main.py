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
import difflib
import importlib
import os
import sys
from typing import NamedTuple, Optional, Sequence

__all__ = ["main", "command", "build_parser", "Command", "COMMANDS", "INPUT_ERROR", "FAILURE"]

INPUT_ERROR = 2  #: exit code of bad input (argparse's own for a bad command line)
FAILURE = 1  #: exit code of a run-time failure


class Command(NamedTuple):
    """A subcommand: the module that provides ``HELP`` (its description), ``add_arguments(parser)`` and
    ``run(args) -> int``, and its line in ``amazons --help``, kept here so that the list needs no import."""

    module: str
    summary: str


COMMANDS = {
    "play": Command("amazons_cli.play", "play a game against an agent, in the terminal or a window (--gui)"),
    "watch": Command("amazons_cli.watch", "watch two agents play one game move by move"),
    "replay": Command("amazons_cli.replay", "step through a game record (SGF or move list); --html for a web page"),
    "perft": Command("amazons_cli.perft", "count the leaves of the move tree to depth N (rules check, speed test)"),
    "analyse": Command("amazons_cli.analyse", "review games with an engine: values, each move's loss, mistakes"),
    "solve": Command("amazons_cli.solve", "prove who wins a position of a small board with perfect play"),
    "match": Command("amazons_cli.match", "a match between two agents: score with 95% CI and Elo (resumable)"),
    "tournament": Command("amazons_cli.tournament", "a round robin between agents (resumable)"),
    "agents": Command("amazons_cli.list_agents", "the agents and evaluators, their options and defaults"),
    "engine": Command("amazons_cli.engine", "an agent as a UCI or Botzone engine on stdin/stdout"),
    "demo": Command("amazons_cli.demo", "a short demo: our engines play a round robin on 8x8"),
    "selfplay": Command("amazons_cli.learning.selfplay", "self-play games into shards (resumable)"),
    "train": Command("amazons_cli.learning.train", "train a value net on self-play data (needs the nn extra)"),
    "train-loop": Command(
        "amazons_cli.learning.train_loop", "expert iteration for a policy-value net (needs the nn extra)"
    ),
    "train-policy": Command(
        "amazons_cli.learning.train_policy", "a policy-value net fitted to an engine's games (needs the nn extra)"
    ),
    "tune-eval": Command(
        "amazons_cli.learning.tune_eval", "fit the territory evaluation's weights to uct games (needs the tune extra)"
    ),
}


def build_parser(names: Optional[Sequence[str]] = None) -> argparse.ArgumentParser:
    """The parser with the subcommands ``names`` in full (none by default: the list of commands).

    Only the modules of ``names`` are imported, so that ``amazons --help`` imports neither numba
    nor torch and ``amazons perft`` does not import torch:

    >>> "perft" in build_parser().format_help()
    True
    """
    parser = argparse.ArgumentParser(
        prog="amazons",
        description="The Game of the Amazons toolkit. `amazons COMMAND --help` says more about each command.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (path, summary) in COMMANDS.items():
        if names is None or name not in names:
            sub.add_parser(name, help=summary.replace("%", "%%"), add_help=False)
            continue
        module = importlib.import_module(path)
        # argparse %-formats help strings (so escape them), not descriptions
        command = sub.add_parser(name, help=summary.replace("%", "%%"), description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def list_commands(argv: Sequence[str], chosen: Optional[str]) -> int:
    """``amazons`` alone or with ``--help``: the commands, exit code 0; an unknown command: what it
    may have meant, exit code 2 (argparse's own)."""
    parser = build_parser()
    if chosen is not None:
        close = difflib.get_close_matches(chosen, COMMANDS, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        parser.error(f"unknown command {chosen!r}; {hint}choose from {', '.join(COMMANDS)}")
    if not argv:
        parser.print_help()
        return 0
    parser.parse_args(argv)  # --help exits with 0, a bad option with 2
    return INPUT_ERROR


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = next((arg for arg in argv if not arg.startswith("-")), None)
    if chosen not in COMMANDS:
        return list_commands(argv, chosen)
    # here, not at the top: amazons_env imports numba, which `amazons --help` does without
    from amazons_env.errors import AmazonsRuntimeError, InvalidArgumentError

    from amazons_cli.compile_notice import compile_notice

    try:
        args = build_parser([chosen] if chosen in COMMANDS else None).parse_args(argv)
        seed = getattr(args, "seed", None)  # every command's --seed seeds numpy, which would not name it
        if isinstance(seed, int) and seed < 0:
            raise InvalidArgumentError(f"--seed {seed}: must be a whole number >= 0")
        with compile_notice():  # the first run compiles numba kernels for minutes: say so, and why
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
