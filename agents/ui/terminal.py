"""Playing against an agent in the terminal (``amazons play``).

``TerminalGame`` shows the position after every turn (a diagram with coordinates, the last move's
squares bracketed, whose turn it is) and reads the human's input one line at a time: a move in either notation
(``d1-d6/g9`` or Fairy-Stockfish's ``d1d6,d6g9``), a move in two halves (the slide ``d1-d6``,
then the arrow square ``g9``), a square (its queen's legal targets), or a command (``undo``,
``resign``, ``save FILE``, ``hint``, ``eval``, ``help``, ``quit``). ``hint`` and ``eval`` ask a
fresh instance of the game's engine (``agents.ui.hints``), so the opponent's kept tree and clock
are untouched. Bad input gets a one-line message and the prompt
again. Lines come from a ``read(prompt)`` function (``input`` by default) and text goes to any
stream, so tests script whole games.

The human's moves are ``agents.ui.human_moves``', the agent's ``agents.ui.opponent``' (the game
window shares both).

>>> print(help_text(6).splitlines()[1])
         e1-e2, then a6         the same move in two halves (the arrow's targets are listed)
"""

from __future__ import annotations

import re
import sys
import time
from typing import Callable, Optional, TextIO

import numpy as np

from amazons_env import Board, Color, GameRecord, Move, parse_square, square_name
from amazons_env.core import ARROW, BLACK_QUEEN, EMPTY, WHITE_QUEEN
from amazons_env.drawing.render import ansi
from amazons_env.errors import InvalidArgumentError, InvalidMoveError

from agents.base import Agent
from agents.registry import make
from agents.search.agent import SearchAgent
from agents.time.limit import Limit
from agents.ui.hints import eval_table, hint, hint_line
from agents.ui.human_moves import arrow_targets, queen_targets, take_back, why_illegal
from agents.ui.opponent import engine_move, game_record, short_name, thinking_text

__all__ = ["TerminalGame", "help_text", "diagram"]

_SQ = r"[a-l](?:1[0-2]|[1-9])"
_SQUARE_RE = re.compile(_SQ)
_SLIDE_RE = re.compile(rf"({_SQ})\s*[-x]?\s*({_SQ})")

COMMANDS_HELP = """\
Commands: undo (take back your last move and the reply; while a move is half made: cancel it),
         resign, save FILE (FILE.sgf is saved as SGF, any other name as a move list),
         hint (the engine's best move for you and its value, in the engine's time),
         eval (the value and, for uct, the most visited moves with their shares),
         hint ENGINE, eval ENGINE (ask another engine, e.g. hint uct:time=2),
         board (show the position again), help, quit"""


def help_text(size: int) -> str:
    """What to type, its examples a legal first move of a ``size`` x ``size`` board (a 10x10 square
    such as g9 is no square of 8x8).

    >>> print(help_text(6).splitlines()[0])
    Moves:   e1-e2/a6 or e1e2,e2a6  the queen on e1 moves to e2 and shoots an arrow to a6
    """
    moves = Board(size).legal_moves()
    move = moves[len(moves) // 3]
    frm, to, arrow = (square_name(square, size) for square in (move.from_square, move.to_square, move.arrow))
    examples = [
        (f"{move} or {move.fsf()}", f"the queen on {frm} moves to {to} and shoots an arrow to {arrow}"),
        (f"{frm}-{to}, then {arrow}", "the same move in two halves (the arrow's targets are listed)"),
        (frm, f"the squares the queen on {frm} can move to"),
    ]
    width = max(len(typed) for typed, _ in examples)
    lines = [f"{'' if i else 'Moves:':<9}{typed:<{width}}  {meaning}" for i, (typed, meaning) in enumerate(examples)]
    return "\n".join(lines) + "\n" + COMMANDS_HELP


def diagram(board: Board) -> str:
    """``str(board)`` with the last move's squares bracketed (``amazons_env.drawing.render.ansi``)."""
    n = board.size
    codes = {None: EMPTY, "Q": WHITE_QUEEN, "q": BLACK_QUEEN, "*": ARROW}
    grid = np.array([[codes[board.piece_at(rank * n + file)] for file in range(n)] for rank in range(n)], np.uint8)
    last = board.peek() if board.ply else None
    marked = () if last is None else (last.from_square, last.to_square, last.arrow)
    return ansi(grid, str(board).rpartition("\n")[2], marked)


def read_line(prompt: str) -> str:
    """``input(prompt)``, echoing the line when it does not come from a terminal (piped input
    then reads like a typed session)."""
    line = input(prompt)
    if not sys.stdin.isatty():
        print(line, flush=True)
    return line


class TerminalGame:
    """A game between a human (``human``, White or Black) and ``agent``, from ``board``.

    ``run()`` plays until ``quit`` or the end of input and returns the exit status (0, or 130
    after Ctrl-C); ``handle(line)`` processes one input line (what ``run`` calls per line).
    """

    def __init__(
        self,
        agent: Agent,
        human: Color,
        board: Board,
        out: Optional[TextIO] = None,
        read: Optional[Callable[[str], str]] = None,
        limit: Optional[Limit] = None,
    ) -> None:
        self.agent, self.human, self.board = agent, Color(human), board
        self.limit = limit  # each of the agent's moves (None: its own)
        self.out = out or sys.stdout  # looked up now, not at import: tests swap sys.stdout
        self.read = read or read_line
        self.slide: Optional[tuple[int, int]] = None  # the first half of a move typed in halves
        self.resigned = False

    # -- output --------------------------------------------------------------------------------

    def say(self, text: str = "", end: str = "\n") -> None:
        self.out.write(text + end)
        self.out.flush()

    def name_of(self, colour: Color) -> str:
        return "you" if colour == self.human else short_name(self.agent)

    def show(self) -> None:
        """The diagram, whose turn it is, and the last move."""
        self.say(diagram(self.board))
        if self.board.ply:
            mover = self.board.turn.other
            self.say(
                f"Last move: {self.board.ply}. {self.board.peek()} by {mover.name.capitalize()} ({self.name_of(mover)})"
            )

    def prompt(self) -> str:
        side = self.board.turn.name.capitalize()
        if self.over:
            return "game over> "
        if self.slide is not None:
            return f"{self.board.ply + 1}. {side}, arrow from {square_name(self.slide[1], self.board.size)}> "
        return f"{self.board.ply + 1}. {side} (you)> "

    # -- state ---------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.resigned or self.board.is_game_over()

    def record(self) -> GameRecord:
        return game_record(self.board, self.human, self.agent, self.resigned)

    # -- the loop --------------------------------------------------------------------------------

    def run(self) -> int:
        n, side = self.board.size, self.human.name.capitalize()
        self.say(
            f"You play {side} ({'Q' if self.human == Color.WHITE else 'q'}) against "
            f"{self.agent.spec} on {n}x{n}. Type a move, a queen's square, or help."
        )
        try:
            self.reply()
            self.show()
            while True:
                try:
                    line = self.read(self.prompt())
                except EOFError:
                    self.say()
                    return 0
                if not self.handle(line):
                    return 0
        except KeyboardInterrupt:
            self.say("\ninterrupted")
            return 130

    def handle(self, line: str) -> bool:
        """Process one line of input; ``False`` when the user quits."""
        text = line.strip()
        command, _, argument = text.partition(" ")
        command = command.lower()
        try:
            if command in ("quit", "exit", "q"):
                return False
            if not text:
                pass
            elif command in ("help", "?"):
                self.say(help_text(self.board.size))
            elif command in ("board", "show"):
                self.show()
            elif command in ("undo", "cancel"):
                self.undo()
            elif command == "resign":
                self.resign()
            elif command == "save":
                self.save(argument.strip())
            elif command in ("hint", "eval"):
                self.advise(argument.strip(), table=command == "eval")
            elif self.over:
                self.say("The game is over: undo, save FILE or quit.")
            else:
                self.move_input(text.lower())
        # bad input (AmazonsError, a ValueError): one line, then the prompt again; a run-time
        # failure (AmazonsRuntimeError: the engine died) is not caught, so it ends the session
        except ValueError as error:
            self.say(str(error))
        return True

    # -- moves -----------------------------------------------------------------------------------

    def move_input(self, text: str) -> None:
        """A square (a target list, or the arrow of a half-made move), a slide, or a whole move."""
        n = self.board.size
        if _SQUARE_RE.fullmatch(text):
            square = parse_square(text, n)
            if self.slide is None:
                self.list_targets(square)
            else:
                self.play(Move(*self.slide, square, size=n))
            return
        slide = _SLIDE_RE.fullmatch(text)
        if slide:
            self.start_slide(*(parse_square(name, n) for name in slide.groups()))
            return
        try:
            move = Move.parse(text, n)
        except InvalidMoveError as error:
            raise InvalidMoveError(f"{error} (help: what to type)") from None
        self.play(move)

    def list_targets(self, square: int) -> None:
        n, name = self.board.size, square_name(square, self.board.size)
        piece = self.board.piece_at(square)
        own = "Q" if self.board.turn == Color.WHITE else "q"
        if piece != own:
            what = {None: "empty", "*": "an arrow", "Q": "a White queen", "q": "a Black queen"}[piece]
            self.say(f"{name} is {what}; your queens are {own}")
            return
        targets = queen_targets(self.board, square)
        if not targets:
            self.say(f"the queen on {name} cannot move")
            return
        self.say(f"{name} can move to: {' '.join(square_name(s, n) for s in targets)}")

    def start_slide(self, frm: int, to: int) -> None:
        n = self.board.size
        if frm == to:
            raise InvalidMoveError(f"{square_name(frm, n)}-{square_name(to, n)}: a queen must move to another square")
        arrows = arrow_targets(self.board, frm, to)
        if not arrows:
            raise InvalidMoveError(why_illegal(self.board, Move(frm, to, frm, n)))
        self.slide = (frm, to)
        self.say(
            f"{square_name(frm, n)}-{square_name(to, n)}: the arrow can go to "
            f"{' '.join(square_name(s, n) for s in arrows)} (or undo)"
        )

    def play(self, move: Move) -> None:
        """Play the human's ``move`` if legal, then the agent's reply."""
        if not self.board.is_legal(move):
            raise InvalidMoveError(f"{move} is not legal: {why_illegal(self.board, move)}")
        self.slide = None
        self.board.push(move)
        self.reply()
        self.show()
        if self.over:
            self.announce()

    def reply(self) -> None:
        """The agent's move, if it is the agent's turn and the game goes on."""
        if self.board.turn == self.human or self.board.is_game_over():
            return
        self.say(thinking_text(self.agent, self.limit), end=" ")
        start = time.perf_counter()
        move = engine_move(self.agent, self.board, self.limit)
        self.board.push(move)
        self.say(f"{move} ({time.perf_counter() - start:.1f} s)")

    def announce(self) -> None:
        winner = self.board.winner if not self.resigned else self.human.other
        assert winner is not None  # announced once the game is over (``over``)
        verdict = "You win!" if winner == self.human else f"{short_name(self.agent)} wins."
        how = "you resigned" if self.resigned else f"{winner.other.name.capitalize()} has no move"
        self.say(f"Game over after {self.board.ply} moves: {how}. {verdict} (undo, save FILE or quit)")

    # -- commands ----------------------------------------------------------------------------------

    def undo(self) -> None:
        """Cancel a half-made move; else take back the human's last move and the agent's reply."""
        if self.slide is not None:
            self.slide = None
            self.say("Move cancelled.")
            return
        if self.resigned:
            self.resigned = False
            self.say("Resignation taken back.")
            return
        taken = take_back(self.board, self.human)
        if not taken:
            self.say("Nothing to undo: you have not moved yet.")
            return
        self.say(f"Took back {' '.join(map(str, taken))}.")
        self.show()

    def resign(self) -> None:
        if self.over:
            self.say("The game is already over.")
            return
        self.slide = None
        self.resigned = True
        self.announce()

    def save(self, path: str) -> None:
        if not path:
            raise InvalidArgumentError("save needs a file name: save FILE (FILE.sgf for SGF)")
        record = self.record()
        try:
            record.save(path)
        except OSError as error:
            raise InvalidArgumentError(f"cannot save to {path!r}: {error.strerror or error}") from None
        kind = "SGF" if path.lower().endswith(".sgf") else "a move list"
        self.say(f"Saved {len(record.moves)} moves to {path} ({kind}).")

    def advise(self, spec: str, table: bool) -> None:
        """``hint`` (``table`` False: the best move and its value for the side to move) or ``eval``
        (with ``uct``'s most visited moves): searched by a fresh instance of ``spec``, by default
        the game's engine with its time."""
        if self.over:
            self.say("The game is over: no hint (undo, save FILE or quit).")
            return
        adviser = make(spec or self.agent.spec)
        if isinstance(adviser, SearchAgent):  # any other agent is refused by ``hint``, at once
            self.say(thinking_text(adviser), end=" ")
        advice = hint(adviser, self.board)
        self.say(eval_table(advice, self.board.turn) if table else hint_line(advice, self.board.turn))
