"""``amazons engine --protocol uci``: any agent as a UCI engine, speaking UCI the way Fairy-Stockfish
does for its ``amazons`` variant, so UCI tools (cutechess-cli, GUIs, match runners) can drive it.

Notation: moves are Fairy-Stockfish's ``d1d6,d6g9`` (the queen's move, then the arrow shot from
its new square); positions are its FEN, e.g. the 10x10 start
``3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 w - - 0 1`` (``Q`` White, ``q`` Black, ``*`` an arrow;
the fields after the side to move are accepted and ignored). ``startpos`` is the 10x10 start
(the variant ``amazons``); a ``position fen`` of any board size from 4x4 to 12x12 is also
accepted (an extension: Fairy-Stockfish needs a custom variant for those).

Commands: ``uci``, ``isready``, ``setoption name N [value V]``, ``ucinewgame``,
``position startpos|fen FEN [moves M ...]``, ``go [movetime MS | wtime MS btime MS [winc MS]
[binc MS] [movestogo N] | depth N | infinite] [nodes N]``, ``stop``, ``ponderhit``, ``quit``, and ``d``
(show the board and its FEN, as Stockfish does). Options: ``UCI_Variant`` (``amazons``),
``Agent`` (the agent spec that thinks, see ``amazons agents``), ``MoveTime`` (ms per move when
``go`` gives no limit; 0 = the agent's own default), ``Move Overhead`` (ms kept back from every
budget for the pipe and the process).

``go`` passes its limits to the agent as a ``Limit`` (``go_limit``; a search keeps the fields it
honours: ``nodes`` only an external engine, ``depth`` the alpha-beta searches) and never changes
the agent. The loop is synchronous: ``go`` thinks for its budget, then answers ``bestmove``; commands sent
meanwhile are read afterwards (``stop`` cannot cut a search short, but every search ends at its
budget). After ``go infinite`` the move is held back until ``stop``, as UCI requires. A bad
command never ends the engine: it gets an ``info string error: ...`` line and the loop goes on.

>>> import io
>>> out = io.StringIO()
>>> engine = UCIEngine("random:seed=1", out)
>>> for line in ["uci", "position startpos moves d1d6,d6g9", "go movetime 50", "quit"]:
...     if not engine.handle(line):
...         break
>>> lines = out.getvalue().splitlines()
>>> lines[0], lines[-1].split()[0]
('id name amazons (random:seed=1)', 'bestmove')
>>> board = Board(position=FEN_10)
>>> board.push(Move.parse("d1d6,d6g9"))
>>> board.is_legal(Move.parse(lines[-1].split()[1]))
True
"""

from __future__ import annotations

import math
import sys
import time
from typing import IO, Iterable, Optional

import numpy as np

from amazons_env import Board, Move, core
from amazons_env.errors import IllegalMoveError, InvalidArgumentError

from agents.base import Agent
from agents.registry import AGENTS, DEFAULT_OPPONENT, make
from agents.search.agent import think
from agents.search.clock import freeze_survivors
from agents.search.result import Limit, SearchResult

__all__ = ["UCIEngine", "fen", "parse_go", "move_budget", "go_limit", "FEN_10", "VARIANT"]

VARIANT = "amazons"
#: Fairy-Stockfish's start position of its ``amazons`` variant (our ``Board(10)``)
FEN_10 = "3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 w - - 0 1"
_GO_NUMBERS = ("movetime", "wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate")


def fen(board: Board) -> str:
    """``board``'s position as Fairy-Stockfish's FEN (our position text plus ``- - 0 1``)."""
    return board.text() + " - - 0 1"


def parse_go(tokens: list[str]) -> dict[str, int]:
    """The limits of a ``go`` command's arguments: ``{"movetime": 500}``, ``{"infinite": 1}``, ...
    Raises ``ValueError`` naming a bad token."""
    limits: dict[str, int] = {}
    i = 0
    while i < len(tokens):
        word = tokens[i]
        if word in ("infinite", "ponder"):
            limits[word] = 1
            i += 1
        elif word in _GO_NUMBERS:
            if i + 1 >= len(tokens):
                raise InvalidArgumentError(f"{word} needs a number")
            try:
                value = int(tokens[i + 1])
            except ValueError:
                raise InvalidArgumentError(f"{word} {tokens[i + 1]!r} is not a whole number") from None
            if value < 0 and word not in ("wtime", "btime"):  # a clock may run below zero
                raise InvalidArgumentError(f"{word} {value} is negative")
            limits[word] = value
            i += 2
        elif word == "searchmoves":
            break  # not supported: every move is searched
        else:
            raise InvalidArgumentError(f"unknown argument {word!r}")
    return limits


def move_budget(limits: dict[str, int], board: Board, movetime_ms: int = 0, overhead_ms: int = 50) -> Optional[float]:
    """Seconds to think on this move, or ``None`` for the agent's own default.

    ``movetime`` is used as given; from a clock (``wtime``/``btime``), the share of the remaining
    time is ``1 / movestogo`` or, without it, one over an estimate of the moves this side still
    has (a third of the empty squares, at least 8: each move fills a square, and late moves
    are quick), plus three quarters of the increment, never more than a quarter of what is
    left. ``overhead_ms`` is kept back from either, and the budget is at least 10 ms.
    """
    if "movetime" in limits:
        ms = float(limits["movetime"])
    elif ("wtime" if board.turn == 0 else "btime") in limits:
        left = float(limits["wtime" if board.turn == 0 else "btime"])
        inc = float(limits.get("winc" if board.turn == 0 else "binc", 0))
        empties = int(np.count_nonzero(board.cells == core.EMPTY))
        moves_left = limits.get("movestogo") or max(8, empties // 3)
        ms = min(left / moves_left + 0.75 * inc, max(left, 0.0) / 4)
    elif movetime_ms > 0 and not {"depth", "infinite"} & set(limits):
        ms = float(movetime_ms)
    else:
        return None
    return max(ms - overhead_ms, 10.0) / 1000.0


def go_limit(limits: dict[str, int], board: Board, movetime_ms: int = 0, overhead_ms: int = 50) -> Optional[Limit]:
    """The ``Limit`` of a ``go`` command's ``limits`` (``parse_go``), or ``None`` for the agent's
    own: ``depth`` (a fixed-depth search: no time with it), else the seconds of ``move_budget``;
    ``nodes`` with either. A search is held to the fields it honours (``agents.search.agent.think``).

    >>> board = Board(10)
    >>> go_limit({"depth": 3}, board), go_limit({"movetime": 550, "nodes": 9000}, board)
    (Limit(depth=3), Limit(time=0.5, nodes=9000))
    >>> go_limit({"infinite": 1}, board) is None
    True
    """
    depth, nodes = limits.get("depth"), limits.get("nodes")
    seconds = None if depth is not None else move_budget(limits, board, movetime_ms, overhead_ms)
    limit = Limit(time=seconds, depth=depth or None, nodes=nodes or None)
    return limit or None


class UCIEngine:
    """The UCI loop around one agent (module docstring). ``handle(line)`` answers one command on
    ``out`` and returns ``False`` after ``quit``; ``run(lines)`` handles lines until ``quit`` or
    the end of input."""

    def __init__(
        self, agent: str = DEFAULT_OPPONENT, out: IO[str] = sys.stdout, movetime_ms: int = 0, overhead_ms: int = 50
    ) -> None:
        AGENTS.validate(agent)  # a bad spec fails here, before the loop starts; built on `isready`
        self.spec = agent
        self.out = out
        self.movetime_ms = movetime_ms
        self.overhead_ms = overhead_ms
        self.agent: Optional[Agent] = None
        self.board: Optional[Board] = Board(10)
        self.held: Optional[str] = None  # the bestmove of a `go infinite`, sent on `stop`

    def send(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def error(self, text: str) -> None:
        self.send(f"info string error: {text}")

    def run(self, lines: Iterable[str]) -> int:
        for line in lines:
            if not self.handle(line):
                break
        return 0

    def handle(self, line: str) -> bool:
        """Answer one command line; ``False`` after ``quit``. Never raises on bad input."""
        tokens = line.split()
        if not tokens:
            return True
        command, args = tokens[0], tokens[1:]
        if command == "quit":
            return False
        method = getattr(self, "cmd_" + command, None)
        if method is None:
            self.error(f"unknown command {line.strip()!r}")
            return True
        try:
            method(args)
        except Exception as error:  # noqa: BLE001 - a GUI's bad line must not end the engine
            self.error(f"{command}: {error}")
        return True

    def _agent(self) -> Agent:
        if self.agent is None:
            self.agent = make(self.spec)
        return self.agent

    # -- commands -------------------------------------------------------------------------------

    def cmd_uci(self, args: list[str]) -> None:
        self.send(f"id name amazons ({self.spec})")
        self.send("id author the amazons authors")
        self.send(f"option name UCI_Variant type combo default {VARIANT} var {VARIANT}")
        self.send(f"option name Agent type string default {self.spec}")
        self.send(f"option name MoveTime type spin default {self.movetime_ms} min 0 max 86400000")
        self.send(f"option name Move Overhead type spin default {self.overhead_ms} min 0 max 5000")
        self.send("uciok")

    def cmd_debug(self, args: list[str]) -> None:
        pass  # nothing extra to say in debug mode

    def cmd_isready(self, args: list[str]) -> None:
        try:
            self._agent()  # build it now (weights, compilation), not inside the first `go`
        finally:
            self.send("readyok")

    def cmd_setoption(self, args: list[str]) -> None:
        text = " ".join(args)
        if not text.startswith("name "):
            raise InvalidArgumentError("expected 'setoption name NAME [value VALUE]'")
        name, _, value = text[5:].partition(" value ")
        name, value = name.strip().lower(), value.strip()
        if name == "uci_variant":
            if value != VARIANT:
                raise InvalidArgumentError(f"variant {value!r} is not supported: only {VARIANT!r}")
        elif name == "agent":
            AGENTS.validate(value)  # raises on a bad spec: the old agent stays
            self.spec, self.agent = value, None  # built on the next `isready` or `go`
        elif name in ("movetime", "move overhead"):
            number = int(value)
            if number < 0:
                raise InvalidArgumentError(f"{name} {number} is negative")
            if name == "movetime":
                self.movetime_ms = number
            else:
                self.overhead_ms = number
        else:
            raise InvalidArgumentError(f"unknown option {name!r}")

    def cmd_ucinewgame(self, args: list[str]) -> None:
        self.board = Board(10)
        self._agent().reset()

    def cmd_position(self, args: list[str]) -> None:
        self.board = None  # a bad position leaves none, so a following `go` cannot play in a stale one
        if "moves" in args:
            cut = args.index("moves")
            args, moves = args[:cut], args[cut + 1 :]
        else:
            moves = []
        if args == ["startpos"]:
            board = Board(10)
        elif args[:1] == ["fen"] and len(args) > 1:
            board = Board(position=" ".join(args[1:]))
        else:
            raise InvalidArgumentError("expected 'position startpos|fen FEN [moves M ...]'")
        for text in moves:
            board.push(Move.parse(text, board.size))
        self.board = board

    def cmd_go(self, args: list[str]) -> None:
        self.held = None
        try:
            limits = parse_go(args)
        except ValueError as error:  # still answer: a GUI waits for its bestmove
            self.error(f"go: {error}; thinking with the default limits")
            limits = {}
        board = self.board
        if board is None:
            self.error("go: no valid position (the last 'position' command failed)")
            self.send("bestmove (none)")
            return
        if board.is_game_over():
            self.send("info string the side to move has no move: the game is over")
            self.send("bestmove (none)")
            return
        start = time.perf_counter()
        result = None
        try:
            move, result = think(
                self._agent(), board.copy(), go_limit(limits, board, self.movetime_ms, self.overhead_ms)
            )
            if not board.is_legal(move):
                raise IllegalMoveError(f"the agent chose the illegal move {move}")
        except Exception as error:  # noqa: BLE001 - still answer with a legal move
            self.error(f"{self.spec}: {error}; playing the first legal move")
            move, result = board.legal_moves()[0], None
        self.send(self._info(time.perf_counter() - start, move, result))
        line = f"bestmove {move.fsf()}"
        if "infinite" in limits or "ponder" in limits:
            self.held = line
        else:
            self.send(line)
        freeze_survivors()  # our clock has stopped: collect now, not at the next deadline

    def _info(self, seconds: float, move: Move, result: Optional[SearchResult]) -> str:
        """The ``info`` line of a move: what the search found (nothing for an agent that does
        not search, or one that failed), the time and the move."""
        parts = ["info"]
        if result is not None and result.depth:
            parts += ["depth", str(result.depth)]
        if result is not None and math.isfinite(result.value) and abs(result.value) < 1:
            parts += ["score", "cp", str(round(100 * result.value))]
        if result is not None and result.nodes:
            parts += ["nodes", str(result.nodes)]
        return " ".join(parts + ["time", str(round(seconds * 1000)), "pv", move.fsf()])

    def cmd_stop(self, args: list[str]) -> None:
        if self.held is not None:
            self.send(self.held)
            self.held = None

    cmd_ponderhit = cmd_stop

    def cmd_d(self, args: list[str]) -> None:
        if self.board is None:
            raise InvalidArgumentError("no valid position")
        for row in str(self.board).splitlines():
            self.send(row)
        self.send(f"Fen: {fen(self.board)}")
