"""``amazons match A B``: a match between two agents (see ``agents.arena.matches``)."""

from __future__ import annotations

import argparse
import math
from typing import Any, Callable, Optional, Sequence

from amazons_env import Board

from agents.arena import format_match, match
from agents.arena.backends import add_backend_arguments
from agents.arena.files import RECORD_FORMATS, check_paths, save_pages
from agents.registry import AGENT_HOMES, DEFAULT_OPPONENT, parse_spec
from agents.search.agent import think
from agents.time.limit import Limit
from agents.ui.opponent import make_player

HELP = "play a match between two agents: alternating colours, score with 95% CI, Elo, resumable"


def number(kind: type, low: float, strict: bool = False) -> Callable[[str], Any]:
    """An argparse type: a finite ``kind`` that is ``>= low`` (``> low`` if ``strict``)."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {'whole ' if kind is int else ''}number") from None
        if not math.isfinite(value) or value < low or (strict and value == low):
            raise argparse.ArgumentTypeError(f"{text!r}: must be a finite number {'>' if strict else '>='} {low}")
        return value

    return parse


def add_common(parser: argparse.ArgumentParser, games: int) -> None:
    """Options shared with ``amazons tournament``."""
    parser.add_argument("--games", type=number(int, 1), default=games, help="games per pairing (default %(default)s)")
    parser.add_argument("--size", type=int, default=10, help="board size (default %(default)s)")
    parser.add_argument(
        "--time",
        type=number(float, 0, strict=True),
        default=None,
        metavar="SECONDS",
        help="seconds per move: every move's limit, for every agent that searches within a time (in place of its own)",
    )
    parser.add_argument(
        "--tc",
        default=None,
        metavar="MINUTES+INC",
        help="game clocks instead of --time: MINUTES per game and INC seconds added per move, e.g. 1+0.1 or 0.5; "
        "each move's time from the time manager, a side whose clock runs out loses on time",
    )
    parser.add_argument(
        "--ponder",
        action="store_true",
        help="engines that can (uct, uci: engines) think on the opponent's time; best with --workers 1",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of openings and agents (default 0)")
    parser.add_argument(
        "--opening",
        type=number(int, 0),
        default=0,
        help="random plies before each pair of games, so deterministic agents vary (default %(default)s)",
    )
    parser.add_argument("--workers", type=number(int, 1), default=None, help="processes (default: up to 2 cores)")
    parser.add_argument(
        "--json",
        default=None,
        metavar="PATH",
        help="results file (with a checksum, verified on read): written after every game; "
        "rerunning completes an interrupted run",
    )
    parser.add_argument(
        "--records",
        default=None,
        metavar="DIR",
        help="save every game (players, result, moves) here, one file per game",
    )
    parser.add_argument(
        "--records-format",
        choices=RECORD_FORMATS,
        default="txt",
        help="record files as move lists (txt, default) or SGF",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_backend_arguments(parser)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "a",
        help="first agent spec, e.g. 'two-iteration:depth=2,eval=improved' or "
        "'my_agent.py:MyAgent' (amazons agents lists them)",
    )
    parser.add_argument(
        "b", nargs="?", default=DEFAULT_OPPONENT, help=f"second agent spec (default {DEFAULT_OPPONENT}, our strongest)"
    )
    add_common(parser, games=20)
    parser.add_argument(
        "--html",
        default=None,
        metavar="DIR",
        help="after the match, write every game here as a web page (board, moves, values; opens in any browser)",
    )


def compile_here(specs: Sequence[str], size: int, workers: Optional[int], backend: str = "local") -> None:
    """A first move of each of our agents in this process before the games go to worker processes
    (``workers`` not 1, on this machine): on a first run numba compiles their kernels here, once
    and with the notice (``amazons_cli.compile_notice``), and the workers load them from the cache
    instead of each compiling them in silence. Your own agents and external engines are left to
    the games."""
    if workers == 1 or backend != "local":
        return  # the games run here (their compiling is reported), or on other machines
    board = Board(size)
    for spec in specs:
        if parse_spec(spec)[0] in AGENT_HOMES.keys() - {"uci"}:
            think(make_player(spec, seed=0), board, Limit(time=0.01))


def common_options(args: argparse.Namespace) -> dict:
    return dict(
        games=args.games,
        size=args.size,
        seed=args.seed,
        opening=args.opening,
        time=args.time,
        tc=args.tc,
        ponder=args.ponder,
        workers=args.workers,
        json_path=args.json,
        records_dir=args.records,
        progress=not args.quiet,
        records_format=args.records_format,
        backend=args.backend,
        address=args.ray_address,
    )


def run(args: argparse.Namespace) -> int:
    check_paths(None, None, args.records_format, pages_dir=args.html)  # refused before the games, not after
    compile_here((args.a, args.b), args.size, args.workers, args.backend)
    result = match(args.a, args.b, **common_options(args))
    print(format_match(result))
    if args.html is not None:
        print(f"{len(save_pages(args.html, result['results']))} game pages in {args.html}")
    return 0
