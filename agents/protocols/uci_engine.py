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
[binc MS] [movestogo N] | depth N | infinite] [nodes N] [ponder]``, ``stop``, ``ponderhit``,
``quit``, and ``d`` (show the board and its FEN, as Stockfish does). Options: ``UCI_Variant``
(``amazons``), ``Agent`` (the agent spec that thinks, see ``amazons agents``), ``MoveTime`` (ms
per move when ``go`` gives no limit; 0 = the agent's own default), ``Move Overhead`` (ms kept
back from every move's time for the pipe and the process), ``Ponder`` (the GUI says whether it
will send ``go ponder``; nothing changes here: the engine ponders when asked to).

``go`` passes its limits to the agent as a ``Limit`` (``agents.protocols.uci_go.go_limit``) and
never changes the agent.

The search runs on a thread of its own (``agents.pondering.Thinking``), for every agent, so the
command loop answers ``isready`` at once while it thinks and acts on ``stop``, ``quit`` and
``ponderhit`` at once: ``stop`` halts the search (``Deadline.halt``: ``uct``, ``uct-net`` and
alpha-beta end at their next clock check and answer their best move) and its ``bestmove`` goes
out within ``STOP_WAIT`` seconds; a search that does not notice a halt (an agent outside those)
is answered with its first legal move, an ``info string`` saying so, and its own answer is
dropped when it comes. ``quit`` is a ``stop`` that then ends the loop. ``go``, ``ucinewgame`` and
``setoption`` halt the running search and wait for it to end (an ordinary ``go``'s ``bestmove``
is sent, a held one's dropped). ``bestmove X ponder Y`` names the reply the search expects,
when it names one (``uct``). **Pondering:** ``go ponder`` searches the position given (the one
after the expected reply) with no deadline, for a search that notices a moved deadline
(``SearchAgent.PONDERS``); ``ponderhit`` gives it the time of this move from then on (the
clocks sent with the ``go ponder``) and the ``bestmove`` follows when it ends; ``stop`` ends it
at once with its ``bestmove`` (which the GUI ignores). ``go infinite`` is the same search,
answered on ``stop`` only, as UCI requires. An agent that cannot ponder thinks its move's
limit at once and holds its ``bestmove`` until ``ponderhit`` or ``stop``. A held search that
the GUI abandons with a new ``go`` (no ``stop``) is ended without an answer. A bad command never
ends the engine: it gets an ``info string error: ...`` line and the loop goes on.

**Numbers from the GUI** are held to what a move can use (``agents.protocols.uci_go``): a ``go``
number out of range is clamped, with an ``info string`` saying so, and the ``go`` is still
answered; an option's value outside the range that ``uci`` lists is refused (``info string
error``, the old value kept).

**No code from the wire** (``agents.protocols.uci_options``): the ``Agent`` option takes
registered agent specs only, unless the engine is started with ``--allow-agent-files``.

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
import threading
import time
from dataclasses import dataclass
from typing import IO, Iterable, Optional

from amazons_env import Board, Move
from amazons_env.errors import IllegalMoveError, InvalidArgumentError, describe

from agents.base import Agent
from agents.pondering import Thinking, can_ponder, expected_reply
from agents.protocols.uci_go import go_limit, parse_go
from agents.protocols.uci_options import SPINS, VARIANT, option_lines, parse_setoption, spin_value, wire_spec
from agents.registry import AGENTS, DEFAULT_OPPONENT, make
from agents.search.result import SearchResult
from agents.time.heap import freeze_survivors

__all__ = ["UCIEngine", "fen", "FEN_10", "STOP_WAIT"]

#: Fairy-Stockfish's start position of its ``amazons`` variant (our ``Board(10)``)
FEN_10 = "3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 w - - 0 1"
#: seconds a ``stop`` waits for the halted search's own answer before it answers for it
STOP_WAIT = 0.04


def fen(board: Board) -> str:
    """``board``'s position as Fairy-Stockfish's FEN (our position text plus ``- - 0 1``)."""
    return board.text() + " - - 0 1"


@dataclass
class _Thought:
    """The engine's current search: its ``go`` limits and position, whether its ``bestmove`` is
    ``held`` until ``stop``/``ponderhit`` (``go ponder``, ``go infinite``), the ``line`` once found
    and whether it was ``sent`` (or dropped)."""

    limits: dict[str, int]
    board: Board
    held: bool
    thinking: Optional[Thinking] = None
    line: Optional[str] = None
    sent: bool = False


class UCIEngine:
    """The UCI loop around one agent (module docstring). ``handle(line)`` answers one command on
    ``out`` and returns ``False`` after ``quit``; ``run(lines)`` handles lines until ``quit`` or
    the end of input; ``wait()`` waits until the running search has answered. ``allow_files``:
    the ``Agent`` option may name files and programs (module docstring; ``agent``, from whoever
    starts the engine, always may)."""

    def __init__(
        self,
        agent: str = DEFAULT_OPPONENT,
        out: IO[str] = sys.stdout,
        movetime_ms: int = 0,
        overhead_ms: int = 50,
        allow_files: bool = False,
    ) -> None:
        AGENTS.validate(agent)  # a bad spec fails here, before the loop starts; built on `isready`
        self.allow_files = allow_files
        self.spec = agent
        self.out = out
        self.movetime_ms = movetime_ms
        self.overhead_ms = overhead_ms
        self.agent: Optional[Agent] = None
        self.board: Optional[Board] = Board(10)
        self.thought: Optional[_Thought] = None
        # the search's thread answers too: one line at a time, and the thought's state with it
        self._lock = threading.RLock()

    def send(self, line: str) -> None:
        with self._lock:
            self.out.write(line + "\n")
            self.out.flush()

    def error(self, text: str) -> None:
        self.send(f"info string error: {text}")

    def run(self, lines: Iterable[str]) -> int:
        """Handle ``lines`` until ``quit`` or their end (a ``stop``: the search is answered)."""
        for line in lines:
            if not self.handle(line):
                break
        else:
            self.cmd_stop([])
        return 0

    def handle(self, line: str) -> bool:
        """Answer one command line; ``False`` after ``quit``. Never raises on bad input."""
        tokens = line.split()
        if not tokens:
            return True
        command, args = tokens[0], tokens[1:]
        if command == "quit":  # the search is answered (``stop``), not waited for
            self.cmd_stop([])
            return False
        method = getattr(self, "cmd_" + command, None)
        if method is None:
            self.error(f"unknown command {describe(line.strip(), 80)}")
            return True
        try:
            method(args)
        except Exception as error:  # noqa: BLE001 - a GUI's bad line must not end the engine
            self.error(f"{command}: {error}")
        return True

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait up to ``timeout`` seconds (``None``: as long as it takes) until the running search
        (if any) has ended and answered; whether it has."""
        thought = self.thought
        if thought is not None and thought.thinking is not None:
            return thought.thinking.wait(timeout)
        return True

    def _idle(self) -> None:
        """Before a command that changes what the search uses: halt the running search and wait
        for it to end (an agent that ignores the halt: until its own limit); a held one's answer
        (``go ponder``/``infinite`` never stopped) is dropped, an ordinary one's is sent."""
        with self._lock:
            thought = self.thought
            if thought is not None and thought.thinking is not None:
                if thought.held:
                    thought.held, thought.sent = False, True
                thought.thinking.stop()
        self.wait()

    def _agent(self) -> Agent:
        if self.agent is None:
            self.agent = make(self.spec)
        return self.agent

    # -- commands -------------------------------------------------------------------------------

    def cmd_uci(self, args: list[str]) -> None:
        self.send(f"id name amazons ({self.spec})")
        self.send("id author the amazons authors")
        for line in option_lines(self.spec, self.movetime_ms, self.overhead_ms):
            self.send(line)
        self.send("uciok")

    def cmd_debug(self, args: list[str]) -> None:
        pass  # nothing extra to say in debug mode

    def cmd_isready(self, args: list[str]) -> None:
        try:
            self._agent()  # build it now (weights, compilation), not inside the first `go`
        finally:
            self.send("readyok")

    def cmd_setoption(self, args: list[str]) -> None:
        name, value = parse_setoption(args)
        self._idle()
        if name == "uci_variant":
            if value != VARIANT:
                raise InvalidArgumentError(f"variant {value!r} is not supported: only {VARIANT!r}")
        elif name == "agent":
            if not self.allow_files:
                wire_spec(value)  # before validating: that imports a file that a spec names
            AGENTS.validate(value)  # raises on a bad spec: the old agent stays
            self.spec, self.agent = value, None  # built on the next `isready` or `go`
        elif name in SPINS:
            number = spin_value(name, value)
            if name == "movetime":
                self.movetime_ms = number
            else:
                self.overhead_ms = number
        elif name == "ponder":
            if value not in ("true", "false"):
                raise InvalidArgumentError(f"ponder {value!r}: use true or false")
        else:
            raise InvalidArgumentError(f"unknown option {name!r}")

    def cmd_ucinewgame(self, args: list[str]) -> None:
        self._idle()
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
        self._idle()
        clamped: list[str] = []
        try:
            limits = parse_go(args, clamped)
        except ValueError as error:  # still answer: a GUI waits for its bestmove
            self.error(f"go: {error}; thinking with the default limits")
            limits = {}
        for note in clamped:
            self.send(f"info string go: {note}")
        board = self.board
        if board is None:
            self.error("go: no valid position (the last 'position' command failed)")
            self.send("bestmove (none)")
            return
        if board.is_game_over():
            self.send("info string the side to move has no move: the game is over")
            self.send("bestmove (none)")
            return
        agent = self._agent()
        held = "infinite" in limits or "ponder" in limits
        thought = _Thought(limits, board.copy(), held)
        limit = go_limit(limits, board, self.movetime_ms, self.overhead_ms)
        with self._lock:  # the thread may answer before `thinking` is set: it reads it under the lock
            self.thought = thought
            thought.thinking = Thinking(
                agent, board, limit, ponder=held and can_ponder(agent), then=lambda: self._answer(thought)
            )

    def _answer(self, thought: _Thought) -> None:
        """On the search's thread, once it has ended: the ``info`` and ``bestmove`` lines (the
        latter held for ``stop``/``ponderhit``); a search that failed plays the first legal move."""
        board = thought.board
        with self._lock:
            thinking = thought.thinking
        assert thinking is not None  # set under the lock before this thread could take it
        result = None
        try:
            move, result = thinking.result()
            if not board.is_legal(move):
                raise IllegalMoveError(f"the agent chose the illegal move {move}")
        except Exception as error:  # noqa: BLE001 - still answer with a legal move
            self.error(f"{self.spec}: {error}; playing the first legal move")
            move, result = board.legal_moves()[0], None
        after = board.copy()
        after.push(move)
        line = f"bestmove {move.fsf()}"
        if expected_reply(after, result) is not None:
            assert result is not None  # expected_reply names a reply only from a result
            line += f" ponder {result.stats['ponder'].fsf()}"
        with self._lock:
            if not thought.sent:  # dropped when a new `go` abandoned it
                self.send(self._info(time.perf_counter() - thinking.started, move, result))
            thought.line = line
            if not thought.held and not thought.sent:
                thought.sent = True
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

    def _release(self, hit: bool) -> None:
        """``stop`` (``hit=False``) or ``ponderhit``: the held ``bestmove`` goes out once found;
        on a hit a ponder search gets this move's time from now on. A stop halts the search
        and answers within ``STOP_WAIT`` (module docstring)."""
        with self._lock:
            thought = self.thought
            if thought is None or thought.sent:
                return
            thought.held = False
            thinking = thought.thinking
            assert thinking is not None  # set with the thought, under this lock
            if hit:  # this move's time, from the clocks sent with `go ponder` (else the agent's own)
                thinking.hit(go_limit(thought.limits, thought.board, self.movetime_ms, self.overhead_ms))
            else:
                thinking.stop()
            if thought.line is not None:
                thought.sent = True
                self.send(thought.line)
        if hit:
            return
        thinking.wait(STOP_WAIT)  # its own answer, sent by its thread (not under the lock)
        with self._lock:
            if thought.sent:
                return
            if thought.line is None:  # still thinking: answer for it, drop its answer when it comes
                move = thought.board.legal_moves()[0]
                self.send(f"info string {self.spec}: the search did not stop within {STOP_WAIT:g} s: first legal move")
                thought.line = f"bestmove {move.fsf()}"
            thought.sent = True
            self.send(thought.line)

    def cmd_stop(self, args: list[str]) -> None:
        self._release(hit=False)

    def cmd_ponderhit(self, args: list[str]) -> None:
        with self._lock:
            pondering = self.thought is not None and "ponder" in self.thought.limits
        if not pondering:
            raise InvalidArgumentError("no 'go ponder' to hit")
        self._release(hit=True)

    def cmd_d(self, args: list[str]) -> None:
        if self.board is None:
            raise InvalidArgumentError("no valid position")
        for row in str(self.board).splitlines():
            self.send(row)
        self.send(f"Fen: {fen(self.board)}")
