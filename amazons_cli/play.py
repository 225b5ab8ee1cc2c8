"""``amazons play [AGENT]``: play a game against an agent, in the terminal or (``--gui``) in a
pygame window. See ``agents.ui.terminal`` for what can be typed, ``agents.ui.window`` for the window."""

from __future__ import annotations

import argparse
import math
import random
from typing import Callable, Optional

from amazons_env import Board, Color
from amazons_env.errors import InvalidArgumentError

from agents.registry import DEFAULT_OPPONENT
from agents.time.limit import Limit
from agents.ui.opponent import make_player
from agents.ui.terminal import TerminalGame
from agents.ui.window import KEY_HELP, play_window

__all__ = ["seconds_type", "add_game_arguments", "time_limit", "opponent_spec"]

HELP = (
    "play a game against an agent in the terminal (moves like d1-d6/g9 or d1d6,d6g9, or in two "
    "halves; undo, hint, eval, resign, save FILE.sgf); --gui for a click-to-move window"
)


def seconds_type(zero: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number of seconds, > 0 (or >= 0 with ``zero``)."""

    def seconds(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < 0 or (value == 0 and not zero):
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds {'>=' if zero else '>'} 0")
        return value

    return seconds


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a game with agents (``play``, ``watch``): ``--size`` and the agents'
    ``--time`` per move (``time_limit`` reads it).

    >>> parser = argparse.ArgumentParser()
    >>> add_game_arguments(parser)
    >>> args = parser.parse_args(["--size", "8", "--time", "0.5"])
    >>> args.size, args.time
    (8, 0.5)
    """
    parser.add_argument("--size", type=int, default=10, help="board size, 4 to 12 (default 10)")
    parser.add_argument(
        "--time",
        type=seconds_type(),
        default=None,
        help="seconds per move of an agent that searches within a time (default: the agent's own, 1 s)",
    )


def time_limit(args: argparse.Namespace) -> Optional[Limit]:
    """The agents' ``Limit`` from ``--time`` (``add_game_arguments``); None: each agent's own.

    >>> time_limit(argparse.Namespace(time=0.5)).time
    0.5
    >>> time_limit(argparse.Namespace(time=None)) is None
    True
    """
    return None if args.time is None else Limit(time=args.time)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "agent",
        nargs="?",
        default=None,
        help=f"the agent to play against (default {DEFAULT_OPPONENT}); same as --opponent",
    )
    parser.add_argument("--opponent", default=None, metavar="AGENT", help="the agent to play against")
    parser.add_argument(
        "--color",
        "--colour",
        choices=("white", "black", "random"),
        default="white",
        help="your colour (default white; White moves first)",
    )
    add_game_arguments(parser)
    parser.add_argument("--seed", type=int, default=None, help="seed of the agent and of --color random")
    parser.add_argument(
        "--gui", action="store_true", help=f"play in a pygame window (needs pygame; resizable): {KEY_HELP}"
    )


def opponent_spec(args: argparse.Namespace) -> str:
    """The agent spec from the positional argument or ``--opponent`` (not two different ones)."""
    if args.agent and args.opponent and args.agent != args.opponent:
        raise InvalidArgumentError(f"two opponents given: {args.agent!r} and --opponent {args.opponent!r}")
    return args.agent or args.opponent or DEFAULT_OPPONENT


def human_colour(choice: str, seed: Optional[int]) -> Color:
    if choice == "random":
        return Color(random.Random(seed).randrange(2))
    return Color[choice.upper()]


def run(args: argparse.Namespace) -> int:
    board = Board(args.size)
    human = human_colour(args.color, args.seed)
    agent = make_player(opponent_spec(args), args.seed)
    limit = time_limit(args)
    if args.gui:
        return play_window(agent, human, board, limit)
    return TerminalGame(agent, human, board, limit=limit).run()
