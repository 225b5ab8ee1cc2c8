"""``amazons watch A B``: agent ``A`` (White) against agent ``B`` (Black), move by move, with the
position after each move; the result at the end, and the record with ``--save``."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Optional, TextIO

from amazons_env import Board, GameRecord
from amazons_env.errors import InvalidArgumentError

from agents.arena import opening_board
from agents.base import Agent
from agents.time.limit import Limit
from agents.ui.opponent import engine_move, make_player, thinking_text

from amazons_cli.play import add_game_arguments, seconds_type, time_limit

__all__ = ["watch"]

HELP = "watch two agents play one game move by move (the position after each move, --delay between)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("white", help="the agent playing White (moves first), e.g. 'alphabeta'")
    parser.add_argument("black", help="the agent playing Black, e.g. 'mcts:time=0.5'")
    add_game_arguments(parser)
    parser.add_argument(
        "--delay", type=seconds_type(zero=True), default=0.5, help="seconds to wait after each move (default 0.5)"
    )
    parser.add_argument("--opening", type=int, default=0, help="random plies played first (default 0)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the opening and the agents (default 0)")
    parser.add_argument(
        "--save", default=None, metavar="FILE", help="save the game: FILE.sgf as SGF, any other name as a move list"
    )


def watch(
    white: Agent,
    black: Agent,
    board: Board,
    delay: float = 0.0,
    out: Optional[TextIO] = None,
    limit: Optional[Limit] = None,
) -> Board:
    """Play ``board`` to the end between ``white`` and ``black``, each move within ``limit``
    (``None``: the agent's own), printing every position."""
    out = out or sys.stdout
    players = (white, black)
    out.write(f"{white.spec} (White) vs {black.spec} (Black) on {board.size}x{board.size}\n{board}\n")
    while not board.is_game_over():
        side = board.turn
        out.write(f"{board.ply + 1}. {side.name.capitalize()}: {thinking_text(players[side], limit)} ")
        out.flush()
        start = time.perf_counter()
        move = engine_move(players[side], board, limit)
        board.push(move)
        out.write(f"{move} ({time.perf_counter() - start:.1f} s)\n{board}\n")
        out.flush()
        if delay and not board.is_game_over():
            time.sleep(delay)
    winner = board.winner
    assert winner is not None  # the game is over
    out.write(
        f"{winner.other.name.capitalize()} has no move after {board.ply} moves: "
        f"{winner.name.capitalize()} ({players[winner].spec}) won.\n"
    )
    return board


def run(args: argparse.Namespace) -> int:
    if args.opening < 0:
        raise InvalidArgumentError(f"--opening {args.opening}: the number of random plies must be >= 0")
    board = opening_board(args.size, args.opening, (args.seed,))
    white = make_player(args.white, args.seed)
    black = make_player(args.black, args.seed + 1)
    limit = time_limit(args)
    try:
        board = watch(white, black, board, args.delay, limit=limit)
    except KeyboardInterrupt:
        print("\ninterrupted")
        return 130
    if args.save:
        record = GameRecord.from_board(board, headers={"White": white.spec, "Black": black.spec})
        try:
            record.save(args.save)
        except OSError as error:
            raise InvalidArgumentError(f"cannot save to {args.save!r}: {error.strerror or error}") from None
        print(f"Saved {board.ply} moves to {args.save}.")
    return 0
