"""``amazons replay FILE``: step through a game record (SGF, or the project's move list).

Enter shows the next position, ``b`` the one before, a number the position after that many
moves, ``q`` quits; ``--all`` prints every position without asking; ``--html OUT.html`` writes
the game as one self-contained web page instead (``amazons_env.drawing.html``: open it in any
browser). ``Replay`` does the stepping with injected input and output, so tests script it.

>>> import io
>>> out = io.StringIO()
>>> Replay(GameRecord(["b1-b4/b5"], size=6), out).print_all()
>>> print(out.getvalue().splitlines()[-2:])
['Move 1/1: b1-b4/b5 by White', 'Unfinished after 1 move.']
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, Optional, TextIO

from amazons_env.drawing.html import result_text, save_game_page
from amazons_env.errors import InvalidArgumentError
from amazons_env.records import GameRecord

__all__ = ["Replay", "load_game"]

HELP = "step through a game record (SGF or move list): Enter next, b back, a number to jump, q quit"
KEYS = "Enter: next, b: back, a number: jump to that move, q: quit"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the record: FILE.sgf (one game or a collection) or a move list")
    parser.add_argument("--game", type=int, default=1, help="which game of an SGF collection (default 1)")
    parser.add_argument(
        "--size", type=int, default=None, help="board size of a move list without a Size tag (default 10)"
    )
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--all", action="store_true", help="print every position, no questions")
    shown.add_argument(
        "--html",
        metavar="OUT.html",
        default=None,
        help="write the game as one web page (board, moves, value curve; no network needed) and exit",
    )


def load_game(path: str, game: int = 1, size: Optional[int] = None) -> tuple[GameRecord, int]:
    """Game number ``game`` (from 1) of the record file at ``path`` and how many games it holds:
    a ``.sgf`` file is read as an SGF collection, anything else as one record (SGF or move list)."""
    if not path.lower().endswith(".sgf"):
        records = [GameRecord.load(path, size)]
    else:
        records = GameRecord.load_all(path)
    if not 1 <= game <= len(records):
        raise InvalidArgumentError(
            f"--game {game}: {os.fspath(path)!r} holds {len(records)} game{'s' if len(records) != 1 else ''}"
        )
    return records[game - 1], len(records)


class Replay:
    """Shows the positions of ``record``; ``position`` is how many of its moves are played."""

    def __init__(
        self, record: GameRecord, out: Optional[TextIO] = None, read: Optional[Callable[[str], str]] = None
    ) -> None:
        self.record, self.out = record, out or sys.stdout
        self.read = read or input
        self.position = 0

    def say(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def header(self) -> str:
        record = self.record
        n = record.size
        names = " vs ".join(f"{record.headers.get(side, '?')} ({side})" for side in ("White", "Black"))
        return f"{names} on {n}x{n}, {len(record.moves)} moves"

    def show(self) -> None:
        """The diagram after ``position`` moves and the move that led there."""
        board = self.record.board(self.position)
        self.say(str(board))
        if self.position:
            mover = board.turn.other.name.capitalize()
            self.say(f"Move {self.position}/{len(self.record.moves)}: {board.peek()} by {mover}")
        if self.position == len(self.record.moves):
            self.say(self.ending())

    def ending(self) -> str:
        return result_text(self.record)

    def print_all(self) -> None:
        self.say(self.header())
        for position in range(len(self.record.moves) + 1):
            self.position = position  # show() draws self.position
            self.show()

    def run(self) -> int:
        """Step through the game until ``q`` or the end of input; returns 0 (130 on Ctrl-C)."""
        self.say(f"{self.header()}. {KEYS}.")
        self.show()
        last = len(self.record.moves)
        try:
            while True:
                try:
                    answer = self.read("> ").strip().lower()
                except EOFError:
                    return 0
                if answer in ("q", "quit"):
                    return 0
                if answer in ("", "n", "b"):
                    step = -1 if answer == "b" else 1
                    if not 0 <= self.position + step <= last:
                        self.say("Already at the start." if step < 0 else "That was the last move (b: back, q: quit).")
                        continue
                    self.position += step
                elif answer.isascii() and answer.isdigit() and len(answer) < 6 and int(answer) <= last:
                    self.position = int(answer)
                else:
                    self.say(f"{answer!r}: {KEYS} (0 to {last})")
                    continue
                self.show()
        except KeyboardInterrupt:
            self.say("")
            return 130


def run(args: argparse.Namespace) -> int:
    record, count = load_game(args.file, args.game, args.size)
    if args.html is not None:
        save_game_page(record, args.html, source=args.file)
        print(f"{args.html}: game {args.game} of {args.file}, {len(record.moves)} moves, as a web page")
        return 0
    replay = Replay(record)
    if count > 1:
        replay.say(f"Game {args.game} of {count} in {args.file} (--game N for another).")
    if args.all:
        replay.print_all()
        return 0
    return replay.run()
