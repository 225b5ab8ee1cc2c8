"""The game window's game, without the window: a human clicking squares against an agent.

``WindowGame`` holds everything the window shows and nothing about pixels: the board, the
half-made move (``picked``, ``moved_to``, the ``targets`` that may be clicked next), the hint,
the engine's values, the status line, the move list. Its actions are what the window's clicks,
keys and buttons call: ``click(square)``, ``cancel``, ``undo``, ``ask_hint``, ``save``,
``resign``, ``new_game``. The engine thinks on a thread of its own (``agents.background``),
so the window stays responsive: ``poll()``, called once per frame, starts the engine when it is
its turn and plays its move once found. A result that comes back after an undo, a resignation or
a new game belongs to a position that is gone, and is dropped.

>>> from amazons_env import Board, Color, parse_square
>>> from agents.ui.opponent import make_player
>>> game = WindowGame(make_player("random", seed=1), Color.WHITE, Board(6))
>>> game.status()
'White (you) to move: click a queen'
>>> for name in ("b1", "b4", "b5"): game.click(parse_square(name, 6))
>>> game.status()
'Black (random) to move: random is thinking...'
>>> game.poll(), game.busy  # the engine starts thinking on its thread
(True, True)
>>> while game.busy: _ = game.poll()
>>> game.move_lines()[0], game.board.ply, game.board.turn
('1. b1-b4/b5', 2, Color.WHITE)
>>> game.resign(); game.status()
'Game over after 2 moves: White resigned. Black (random) wins. (u: undo, n: new game)'
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable, Optional, Union

import numpy as np

from amazons_env import Board, Color, Move, core
from amazons_env.errors import InvalidArgumentError, describe

from agents.background import Job
from agents.base import Agent
from agents.search.agent import SearchAgent
from agents.time.limit import Limit
from agents.ui.hints import Hint, hint, hint_line
from agents.ui.human_moves import arrow_targets, queen_targets, take_back
from agents.ui.opponent import engine_move, game_record, short_name, thinking_text

__all__ = ["WindowGame", "save_name"]

EngineReply = tuple[Move, Optional[float]]  # the engine's move, and its value for the side that moved


def save_name(folder: Path, now: Optional[time.struct_time] = None) -> Path:
    """A file name for a saved game in ``folder``, from the local time and unused so far:
    ``amazons-20240501-183005.sgf`` (then ``-2``, ``-3``... within the same second).

    >>> save_name(Path("games"), time.strptime("2024-05-01 18:30:05", "%Y-%m-%d %H:%M:%S")).as_posix()
    'games/amazons-20240501-183005.sgf'
    """
    stem = time.strftime("amazons-%Y%m%d-%H%M%S", now or time.localtime())
    path, copy = folder / f"{stem}.sgf", 1
    while path.exists():
        copy += 1
        path = folder / f"{stem}-{copy}.sgf"
    return path


def _engine_reply(agent: Agent, board: Board, limit: Optional[Limit]) -> EngineReply:
    """What the engine's thread computes: its move on ``board`` within ``limit`` and, for a search,
    its value."""
    move = engine_move(agent, board, limit)
    result = agent.last_result if isinstance(agent, SearchAgent) else None
    return move, None if result is None else result.value


class WindowGame:
    """A game between the human (``human``) and ``agent`` from ``board`` (module docstring);
    ``save`` writes into ``folder`` (default: the current directory); the agent's moves within
    ``limit`` (``None``: its own)."""

    def __init__(
        self,
        agent: Agent,
        human: Color,
        board: Board,
        folder: Union[str, "os.PathLike[str]"] = ".",
        limit: Optional[Limit] = None,
    ) -> None:
        if not isinstance(agent, Agent):
            raise InvalidArgumentError(f"the window's opponent must be an Agent, got {describe(agent)}")
        if not isinstance(human, Color) and human not in (0, 1):
            raise InvalidArgumentError(f"human={describe(human)}: must be Color.WHITE or Color.BLACK")
        if not isinstance(board, Board):
            raise InvalidArgumentError(f"board must be a Board, got {describe(board)}")
        if not isinstance(folder, (str, os.PathLike)):
            raise InvalidArgumentError(f"folder={describe(folder)}: must be the path of a folder to save games in")
        self.agent, self.human, self.board = agent, Color(human), board
        self.limit = limit
        self.folder = Path(folder)
        self.start = board.copy()  # what "new game" goes back to
        self.picked: Optional[int] = None
        self.moved_to: Optional[int] = None
        self.targets: list[int] = []
        self.resigned = False
        self.hint: Optional[Hint] = None  # for the current position only
        self.values: dict[int, float] = {}  # ply -> the engine's value for the side to move there
        self.notice = ""  # the answer to the last action, after the status
        self.job: Optional[Job[Union[EngineReply, Hint]]] = None
        self.job_kind = ""  # "engine" or "hint"
        self.job_position = 0  # the ``position`` the job was started in
        self.position = 0  # counts the changes of the game: a job's result is for one of them
        self.reset_agent = False  # a new game resets the agent once it is not thinking

    # -- what the window shows -------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.resigned or self.board.is_game_over()

    @property
    def busy(self) -> bool:
        """Whether the engine is thinking (a move or a hint)."""
        return self.job is not None

    @property
    def winner(self) -> Optional[Color]:
        if self.resigned:
            return self.human.other
        return self.board.winner

    def name_of(self, colour: Color) -> str:
        return "you" if colour == self.human else short_name(self.agent)

    def side(self, colour: Color) -> str:
        """``"White (you)"``, ``"Black (uct)"``."""
        return f"{colour.name.capitalize()} ({self.name_of(colour)})"

    def status(self) -> str:
        """The status line: whose turn and what happens now, or the result and why; then the
        answer to the last action."""
        board = self.board
        if self.over:
            winner = self.winner
            assert winner is not None  # the game is over
            why = (
                f"{self.human.name.capitalize()} resigned"
                if self.resigned
                else f"no move for {winner.other.name.capitalize()}"
            )
            text = f"Game over after {board.ply} moves: {why}. {self.side(winner)} wins. (u: undo, n: new game)"
        elif board.turn != self.human:
            text = f"{self.side(board.turn)} to move: {thinking_text(self.agent, self.limit)}"
        elif self.busy and self.job_kind == "hint" and self.job_position == self.position:
            text = f"{self.side(board.turn)} to move: hint: {thinking_text(self.agent)}"
        else:
            stage = (
                "click where it shoots"
                if self.moved_to is not None
                else "click where it goes"
                if self.picked is not None
                else "click a queen"
            )
            text = f"{self.side(board.turn)} to move: {stage}"
        return f"{text}  ·  {self.notice}" if self.notice else text

    def move_lines(self) -> list[str]:
        """The moves so far in the records' notation, one numbered ply a line."""
        return [f"{number}. {move}" for number, move in enumerate(self.board.move_stack, 1)]

    def value(self) -> Optional[float]:
        """The engine's value for the side to move in this position, in [-1, 1], when the
        engine's last move led here and the engine reports values (a search); else ``None``."""
        value = self.values.get(self.board.ply)
        return None if value is None else float(np.clip(value, -1.0, 1.0))

    def grid(self) -> np.ndarray:
        """The pieces as ``grid[rank, file]``, with a half-made move's queen on its new square."""
        n = self.board.size
        grid = self.board.cells[core.padded_index(n)].reshape(n, n).copy()
        if self.moved_to is not None and self.picked is not None:
            grid.flat[self.moved_to] = grid.flat[self.picked]
            grid.flat[self.picked] = core.EMPTY
        return grid

    def last_move(self) -> Optional[Move]:
        """The last move played, unless a half-made move is on show instead."""
        return self.board.peek() if self.board.ply and self.picked is None else None

    # -- the human's actions -------------------------------------------------------------------

    def click(self, square: int) -> None:
        """A left click on ``square``: pick a queen, its destination, or its arrow."""
        board = self.board
        if board.turn != self.human or self.over:
            return
        self.notice = ""
        if self.moved_to is not None:
            assert self.picked is not None  # a queen is picked before it moves
            if square in self.targets:
                move = Move(self.picked, self.moved_to, square, board.size)
                self.changed()
                board.push(move)
            return
        if self.picked is not None and square in self.targets:
            self.moved_to = square
            self.targets = arrow_targets(board, self.picked, square)
            return
        targets = queen_targets(board, square)  # a queen of the side to move with a legal move
        if targets:
            self.picked, self.targets = square, targets
        else:
            self.cancel()

    def cancel(self) -> None:
        """Drop the half-made move."""
        self.picked = self.moved_to = None
        self.targets = []

    def changed(self) -> None:
        """The game changes: the selection and the hint go, and a result being computed now is
        for a position that is gone."""
        self.cancel()
        self.hint = None
        self.position += 1

    def undo(self) -> None:
        """Take back a resignation, else the human's last move and the engine's reply."""
        if self.resigned:
            self.changed()
            self.resigned = False
            self.notice = "Resignation taken back."
            return
        taken = take_back(self.board, self.human)
        self.changed()
        for ply in [ply for ply in self.values if ply > self.board.ply]:
            del self.values[ply]
        self.notice = f"Took back {' '.join(map(str, taken))}." if taken else "Nothing to undo: you have not moved yet."

    def resign(self) -> None:
        if self.over:
            self.notice = "The game is already over."
            return
        self.changed()
        self.resigned = True
        self.notice = ""

    def new_game(self) -> None:
        """Start again from the first position, same sides."""
        self.changed()
        self.board = self.start.copy()
        self.resigned = False
        self.values.clear()
        self.reset_agent = True
        self.notice = "New game."

    def ask_hint(self) -> None:
        """Start the engine on the human's position; the hint shows once found."""
        if self.over:
            self.notice = "The game is over: no hint."
        elif self.board.turn != self.human or self.busy:
            self.notice = f"Wait: {short_name(self.agent)} is thinking."
        else:
            self.notice = ""
            self.start_job("hint", lambda board: hint(self.agent.spec, board))

    def save(self) -> Optional[Path]:
        """Save the game as SGF in ``folder`` under a new name (``save_name``) and say where;
        ``None`` (and the reason in the notice) if it cannot be written."""
        path, record = save_name(self.folder), game_record(self.board, self.human, self.agent, self.resigned)
        try:
            record.save(path)
        except OSError as error:
            self.notice = f"Cannot save to {path}: {error.strerror or error}"
            return None
        self.notice = f"Saved {len(record.moves)} moves to {path.resolve()}"  # where, not only the name
        return path

    # -- the engine ------------------------------------------------------------------------------

    def start_job(self, kind: str, work: Callable[[Board], Union[EngineReply, Hint]]) -> None:
        board = self.board.copy()  # the thread's own: the window keeps reading and changing its board
        self.job, self.job_kind, self.job_position = Job(lambda: work(board)), kind, self.position

    def poll(self) -> bool:
        """Take a finished job's result (if its position still stands), then start the engine
        if it is its turn; whether anything changed that the window shows."""
        changed = False
        if self.job is not None and self.job.done():
            job, self.job, changed = self.job, None, True
            if self.job_position != self.position:
                pass  # an answer for a position that is gone (its errors included)
            elif self.job_kind == "engine":
                reply = job.result()  # an engine's error is raised here, in the window's thread
                assert isinstance(reply, tuple)  # an engine job answers with (move, value)
                self.play_reply(*reply)
            else:
                self.show_hint(job)
        if self.job is None and self.reset_agent:
            self.agent.reset()
            self.reset_agent = False
        if self.job is None and not self.over and self.board.turn != self.human:
            self.start_job("engine", lambda board: _engine_reply(self.agent, board, self.limit))
            changed = True
        return changed

    def show_hint(self, job: Job[Union[EngineReply, Hint]]) -> None:
        try:
            answer = job.result()
        except ValueError as error:  # an engine that gives no hint (random does not search) says why
            self.notice = str(error)
            return
        assert isinstance(answer, Hint)
        self.hint = answer
        self.notice = hint_line(answer, self.board.turn)

    def play_reply(self, move: Move, value: Optional[float]) -> None:
        self.changed()
        self.board.push(move)
        if value is not None:
            self.values[self.board.ply] = -value  # the engine's value was for itself, before its move
