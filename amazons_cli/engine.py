"""``amazons engine``: one of our agents as an engine on stdin/stdout, for GUIs, match runners and
ladders: ``--protocol uci`` (Fairy-Stockfish's ``amazons`` notation, see ``agents.protocols.uci_engine``) or
``--protocol botzone`` (Botzone's 8x8 Amazons, see ``agents.protocols.botzone``).

    $ printf 'uci\\nposition startpos\\ngo movetime 500\\nquit\\n' | amazons engine --agent mcts
    $ amazons engine --protocol botzone --agent alphabeta --time 0.9

Over UCI the GUI may change the agent (``setoption name Agent``) to a registered one only: a spec
that names a Python file or module would run its code, ``uci:`` a program, on this machine, at
the word of whatever drives the engine (a GUI bridge, a remote service).
``--allow-agent-files`` lifts that for a GUI you trust; ``--agent`` is yours and takes any spec.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, Iterator

from amazons_env.errors import InvalidArgumentError

from agents.protocols.botzone import BotzoneBot
from agents.protocols.uci_engine import UCIEngine
from agents.registry import DEFAULT_OPPONENT, make
from agents.time.heap import frozen_heap

MAX_LINE = 1 << 16  # the longest command line read whole (a UCI command is far shorter)
SWITCH_INTERVAL = 0.001  # seconds a thread waits for the GIL before it asks for it (Python's default: 0.005)
HELP = "run an agent as an engine on stdin/stdout: UCI (Fairy-Stockfish's amazons notation) or Botzone's 8x8 protocol"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--protocol",
        choices=("uci", "botzone"),
        default="uci",
        help="uci (default): Fairy-Stockfish's amazons UCI; botzone: Botzone's 8x8 simple interaction",
    )
    parser.add_argument(
        "--agent",
        default=DEFAULT_OPPONENT,
        metavar="SPEC",
        help=f"the agent that thinks (default {DEFAULT_OPPONENT}; see 'amazons agents')",
    )
    parser.add_argument(
        "--time",
        type=float,
        default=None,
        metavar="SECONDS",
        help="seconds per move when the protocol gives no limit (default: the agent's own)",
    )
    parser.add_argument(
        "--allow-agent-files",
        action="store_true",
        help="uci: let 'setoption name Agent' name a Python file, module or uci: engine (runs its code)",
    )
    parser.add_argument("--size", type=int, default=8, help="botzone: board size (default 8, Botzone's)")
    parser.add_argument(
        "--no-keep-running",
        action="store_true",
        help="botzone: answer one turn and exit instead of Botzone's keep-running mode",
    )


def _lines(stream: IO[str]) -> Iterator[str]:
    """``stream``'s lines, a line longer than ``MAX_LINE`` characters read in pieces of that
    size (each then a bad command): a peer that never ends its line cannot fill the memory."""
    return iter(lambda: stream.readline(MAX_LINE), "")


def run(args: argparse.Namespace) -> int:
    if args.time is not None and not 0 < args.time < float("inf"):
        raise InvalidArgumentError(f"--time {args.time}: seconds per move must be a number > 0")
    # the command loop's thread asks a search that holds the GIL (alpha-beta's kernel hands it
    # over at its clock reads) for it after 1 ms, not Python's 5: stop and isready answered
    # sooner (benchmarks/search/engine_stop.py --switch, figures in benchmarks/README)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        with frozen_heap():  # no full garbage collection at a search's deadline (agents.time.heap)
            if args.protocol == "uci":
                movetime = 0 if args.time is None else max(1, round(args.time * 1000))
                engine = UCIEngine(args.agent, sys.stdout, movetime_ms=movetime, allow_files=args.allow_agent_files)
                return engine.run(_lines(sys.stdin))
            bot = BotzoneBot(make(args.agent), sys.stdout, args.size, args.time, not args.no_keep_running)
            return bot.run(_lines(sys.stdin))
    except KeyboardInterrupt:  # Ctrl-C ends the engine quietly
        return 130
    finally:
        sys.setswitchinterval(interval)
