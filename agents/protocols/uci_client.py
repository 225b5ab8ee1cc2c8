"""``uci``: an external UCI engine (Fairy-Stockfish, or our own ``amazons engine``) as an agent, so
``amazons match`` can measure us against it.

Spec: ``uci:PATH`` with options after commas, e.g. ``uci:./fairy-stockfish,time=0.5,Hash=64`` (the
bare first value is the ``engine`` option: ``uci:engine=PATH,...`` is the same agent). ``engine``
is an executable's path or name on ``PATH``, or a whole command line (split as a shell would,
without running a shell): ``uci:amazons engine --agent random``. ``time`` is seconds per move
(``go movetime``; default 1.0), ``depth`` a depth limit (``go depth``), ``variant`` the
``UCI_Variant`` it is set to (default ``amazons``; for other board sizes Fairy-Stockfish needs a
custom variant from its ``VariantPath``). Every other option is passed through as ``setoption
name KEY value VALUE``; it must be one the engine lists (matched ignoring case, ``_`` standing
for a space), else the agent fails naming the option and the engine's options.

A move's own ``Limit`` passed to ``search`` (``time``, ``depth``, ``nodes``) replaces ``time``
and ``depth`` for that move: ``go movetime``, ``go depth``, ``go nodes``.

**Game clocks and pondering** (``agents.pondering.ClockedPlayer``, what the arena's ``--tc`` and
``--ponder`` use): ``search_on_clock(board, limit)`` sends a limit's game clocks (``go wtime ..
btime .. winc .. binc ..``) and lets the engine manage its own time; ``ponder(board, limit)``,
after the engine's move, sends the position after the reply it named (``bestmove X ponder Y``)
and ``go ponder``; the next ``search_on_clock`` (or ``search``) then sends ``ponderhit`` if the
opponent played that reply, else ``stop`` (the engine's answer is read and dropped) and the new
position. The engine's ``Ponder`` option, if it lists one, is set to ``true`` before its first
``go ponder``.

The engine starts on ``reset`` (before each game) or the first move, not when the agent is built
(``amazons match`` builds agents to check their options); it is told ``ucinewgame`` on ``reset``
and ended on ``close()``, on garbage collection and at interpreter exit. It is sent ``position
startpos moves ...`` from the 10x10 start, else ``position fen FEN moves ...`` from the first
position of the game.

**Every wait has a deadline, every child dies with the engine**: the handshake, a move and the
engine's end are ``agents.protocols.engine_process``'s (its docstring: the ``handshake`` and
``grace`` seconds, and the ``EngineError`` each way an engine can fail raises). Building
Fairy-Stockfish with the ``amazons`` variant, and other board sizes: the API reference's
"Engine protocols" page (``docs/reference/agents.md``).
"""

from __future__ import annotations

import collections
import difflib
import math
import queue
import shlex
import shutil
import subprocess
import time as _time
import weakref
from typing import Any, Optional

from amazons_env import Board, Move
from amazons_env.errors import AmazonsRuntimeError, InvalidMoveError

from agents.options import TIME, OptionError, opt
from agents.pondering import expected_reply
from agents.protocols.engine_process import exit_note, start, terminate
from agents.protocols.uci_engine import fen
from agents.protocols.uci_go import info_fields
from agents.registry import register
from agents.search.agent import SearchAgent
from agents.search.result import SearchResult
from agents.time.deadline import Deadline
from agents.time.limit import Limit

__all__ = ["UCIAgent", "EngineError", "EngineOptionError"]


class EngineError(AmazonsRuntimeError):
    """The external engine failed: it could not start, exited, hung or answered an illegal move.
    A run-time failure, not bad input: the same engine may well work when run again."""


class EngineOptionError(OptionError):
    """An option passed through to the engine (``setoption``) that the engine does not list: bad
    input, found only once the engine has started and listed its options."""


def _option_key(name: str) -> str:
    return name.lower().replace("_", " ")


def _setoption_value(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


@register(
    "uci",
    bare="engine",
    passthrough="any other option is sent as setoption (one the engine lists)",
    options={
        "engine": opt("the engine: an executable's path or name on PATH, or a command line"),
        "time": TIME,
        "depth": opt("depth limit (go depth)", ge=1),
        "variant": opt("the UCI_Variant it is set to"),
        "grace": opt("seconds past time before the engine is stopped, then killed", gt=0),
        "handshake": opt("seconds the engine has for the handshake (uci to uciok, isready to readyok)", gt=0),
    },
)
class UCIAgent(SearchAgent):
    """An external UCI engine as a player (``uci:./fairy-stockfish,time=0.5``).

    It speaks Fairy-Stockfish's amazons notation; see the module docstring. Its result is what
    the engine's last ``info`` line said: ``depth``, ``nodes`` and ``value`` (``score cp`` / 100,
    for the side to move; NaN when it gave no score)."""

    name = "uci"
    LIMITS = ("time", "depth", "nodes")

    def __init__(
        self,
        engine: str = "",
        time: Optional[float] = None,
        depth: Optional[int] = None,
        variant: str = "amazons",
        grace: float = 5.0,
        handshake: float = 60.0,
        seed: Optional[int] = None,
        **options: Any,
    ) -> None:
        argv = shlex.split(engine) if isinstance(engine, str) else []
        if not argv:
            raise OptionError("agent 'uci': engine=PATH is required (the engine's executable or command line)")
        executable = shutil.which(argv[0])
        if executable is None:
            raise OptionError(f"agent 'uci': engine {argv[0]!r} is not an executable file or a command on PATH")
        if time is not None and not (isinstance(time, (int, float)) and 0 < time < float("inf")):
            raise OptionError(f"agent 'uci': time={time!r}: seconds per move must be a number > 0")
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
            raise OptionError(f"agent 'uci': depth={depth!r}: must be a whole number >= 1")
        if not (isinstance(grace, (int, float)) and 0 < grace < float("inf")):
            raise OptionError(f"agent 'uci': grace={grace!r}: must be a number of seconds > 0")
        if not (isinstance(handshake, (int, float)) and 0 < handshake < float("inf")):
            raise OptionError(f"agent 'uci': handshake={handshake!r}: must be a number of seconds > 0")
        # prove=0: the engine's moves are its own, never our prover's
        limit = Limit(time=1.0) if time is None and depth is None else Limit(time=time, depth=depth)
        super().__init__(limit, seed, prove=0)
        self.argv = [executable] + argv[1:]
        self.variant = str(variant)
        self.grace = float(grace)
        self.handshake = float(handshake)
        self._said = ""  # the last line the engine wrote, for the errors
        self.options = dict(options)
        command = shlex.join(argv)  # the errors name the whole command: a wrapper's argument tells engines apart
        # a long one loses its middle: the program and its last arguments (a script's name) tell engines apart
        self.engine_name = command if len(command) <= 320 else command[:100] + "..." + command[-217:]
        self._proc: Optional[subprocess.Popen] = None
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=10)
        self._finalizer: Optional[weakref.finalize] = None
        self._listed: dict[str, str] = {}  # the engine's options: key (``_option_key``) -> its name
        self._clocks: Optional[Limit] = None  # the limit with game clocks of the move being searched
        self._pondering: Optional[Board] = None  # the position of a running `go ponder`
        self._ponder_set = False  # whether this engine process was told `Ponder` is true

    # -- the process ------------------------------------------------------------------------------

    def _fail(self, why: str, error: type[Exception] = EngineError) -> Exception:
        """Kill the engine and make the error that says why (with the last line it said and its
        last stderr lines)."""
        self.close()
        said = f"; its last line: {self._said[:200]!r}" if self._said else "; it said nothing"
        tail = " | ".join(line[:200] for line in self._stderr)
        return error(f"engine {self.engine_name!r}: {why}{said}" + (f"; its stderr: {tail}" if tail else ""))

    def _start(self) -> None:
        try:
            proc, lines = start(self.argv, self._stderr.append)
        except OSError as error:
            raise EngineError(f"engine {self.engine_name!r} could not start: {error}") from None
        self._proc, self._pondering, self._ponder_set, self._said = proc, None, False, ""
        self._lines = lines
        self._finalizer = weakref.finalize(self, terminate, proc)
        by = _time.perf_counter() + self.handshake  # the whole handshake's deadline
        self._send("uci")
        listed = self._listed = {}
        while True:
            line = self._expect(by, "uciok")
            if line.startswith("option name "):
                name = line[len("option name ") :].split(" type ")[0].strip()
                listed[_option_key(name)] = name
            if line == "uciok":
                break
        for key, value in self.options.items():
            engine_name = listed.get(_option_key(key))
            if engine_name is None:
                close = difflib.get_close_matches(_option_key(key), list(listed), n=1)
                hint = f" (did you mean {listed[close[0]]!r}?)" if close else ""
                raise self._fail(
                    f"has no option {key!r}{hint} (agent 'uci'); its options: {', '.join(listed.values())}",
                    EngineOptionError,
                )
            self._send(f"setoption name {engine_name} value {_setoption_value(value)}")
        if "uci variant" in listed:  # after the options: a VariantPath may define the variant
            self._send(f"setoption name UCI_Variant value {self.variant}")
        self._ready(by)

    def _running(self) -> subprocess.Popen:
        """The engine's process: only called while one runs (``_start`` made it, ``close`` ends it)."""
        assert self._proc is not None
        return self._proc

    def _send(self, line: str) -> None:
        proc = self._running()
        assert proc.stdin is not None  # a pipe (``_start``)
        try:
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
        except (OSError, ValueError):
            raise self._fail(f"exited (code {proc.poll()}) before reading {line!r}") from None

    def _expect(self, by: float, what: str) -> str:
        """The engine's next line, waiting until ``by`` (``perf_counter``) at most; ``EngineError``
        on exit or when ``by`` passes (however many other lines came meanwhile)."""
        left = by - _time.perf_counter()  # checked at every line: a flood of them does not put it off
        try:
            if left <= 0:
                raise queue.Empty
            line = self._lines.get(timeout=left)
        except queue.Empty:
            raise self._fail(f"gave no {what!r} within the handshake's {self.handshake:g} s") from None
        if line is None:
            raise self._fail(f"{self._gone()} while we waited for {what!r}")
        self._said = line
        return line.strip()

    def _gone(self) -> str:
        return exit_note(self._running())

    def _ready(self, by: Optional[float] = None) -> None:
        """``isready``, then read up to ``readyok`` within ``by`` (default: ``handshake`` from now)."""
        self._send("isready")
        by = _time.perf_counter() + self.handshake if by is None else by
        while self._expect(by, "readyok") != "readyok":
            pass

    def close(self) -> None:
        """End the engine process (a later move starts a new one)."""
        if self._finalizer is not None:
            self._finalizer()  # runs terminate once
        self._proc, self._finalizer = None, None

    def __enter__(self) -> "UCIAgent":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- playing ----------------------------------------------------------------------------------

    def reset(self) -> None:
        """``ucinewgame`` (after ending a ponder search); a new game starts the engine if it is not
        running, so that its start-up is not counted as thinking time of the first move."""
        if self._proc is None or self._proc.poll() is not None:
            self._start()
        else:
            self.stop_pondering()
            self._send("ucinewgame")
            self._ready()

    def search_on_clock(self, board: Board, limit: Optional[Limit]) -> SearchResult:
        """The engine's move in ``board`` with ``limit``'s game clocks sent to it (``go wtime ..``),
        or within ``limit`` without clocks (``None``: the agent's own limit), ending or hitting a
        ponder search (module docstring)."""
        if limit is None or not limit.clocked:
            return self.search(board, None if limit is None else limit.only(self.LIMITS) or None)
        self._clocks = limit
        try:
            return self.search(board)
        finally:
            self._clocks = None

    def ponder(self, board: Board, limit: Optional[Limit]) -> bool:
        """After the engine's own move (``board`` is the position after it): ``go ponder`` in the
        position after the reply it named, with ``limit``'s clocks (or its own limit); whether it
        ponders."""
        self.stop_pondering()
        after = expected_reply(board, self.last_result)
        if after is None or self._proc is None or self._proc.poll() is not None:
            return False
        if "ponder" in self._listed and not self._ponder_set:
            self._send(f"setoption name {self._listed['ponder']} value true")
            self._ponder_set = True
        self._send(self._position(after))
        clocks = limit if limit is not None and limit.clocked else None
        self._send("go ponder " + " ".join(self._bounds(self.limit, clocks)))
        self._pondering = after
        return True

    def stop_pondering(self) -> None:
        """End a running ``go ponder`` (``stop``) and drop its answer."""
        pondered, self._pondering = self._pondering, None
        if pondered is not None:
            self._send("stop")
            self._bestmove(pondered, _time.perf_counter() + self.grace, "stop")

    def _bounds(self, limit: Limit, clocks: Optional[Limit]) -> list[str]:
        """The words of a ``go`` command: the game clocks of ``clocks`` (ms), or ``limit``'s depth,
        nodes and movetime."""
        if clocks is not None:
            readings = (clocks.white_clock, clocks.black_clock, clocks.white_inc, clocks.black_inc)
            words = [
                f"{name} {max(1, round(seconds * 1000))}"
                for name, seconds in zip(("wtime", "btime", "winc", "binc"), readings)
                if seconds is not None
            ]
            return words + ([f"movestogo {clocks.remaining_moves}"] if clocks.remaining_moves else [])
        return (
            ([f"depth {limit.depth}"] if limit.depth is not None else [])
            + ([f"nodes {limit.nodes}"] if limit.nodes is not None else [])
            + ([f"movetime {max(1, round(limit.time * 1000))}"] if limit.time is not None else [])
        )

    def _position(self, board: Board) -> str:
        start = board.copy()
        while start.ply:
            start.pop()
        moves = " ".join(m.fsf() for m in board.move_stack)
        root = "startpos" if self.variant == "amazons" and start == Board(10) else f"fen {fen(start)}"
        return f"position {root}" + (f" moves {moves}" if moves else "")

    def _search(self, board: Board, limit: Limit, deadline: Deadline) -> SearchResult:
        if self._proc is None or self._proc.poll() is not None:
            self._start()
        clocks = self._clocks
        # the engine may think its limit's time, or under a game clock all that is on its clock
        left = None if clocks is None else (clocks.white_clock, clocks.black_clock)[int(board.turn)]
        seconds = (limit.time or 0.0) if left is None else left
        pondered, self._pondering = self._pondering, None
        if pondered is not None and pondered == board:
            self._send("ponderhit")  # it has been thinking on this very position
        else:
            if pondered is not None:  # the opponent did not play the expected reply
                self._send("stop")
                self._bestmove(pondered, _time.perf_counter() + self.grace, "stop")
            self._send(self._position(board))
            self._send("go " + " ".join(self._bounds(limit, clocks)))
        return self._bestmove(board, _time.perf_counter() + seconds + self.grace, f"time {seconds:g}")

    def _bestmove(self, board: Board, answer_by: float, allowed: str) -> SearchResult:
        """Read the engine's lines up to its ``bestmove`` in ``board``, sending ``stop`` at
        ``answer_by`` and killing it a second later (``EngineError`` naming what it was
        ``allowed``); the result of its move and its last ``info`` line (``ponder``: the reply
        it named, if any)."""
        started = _time.perf_counter()
        info: dict[str, Any] = {}
        stopped = False
        while True:
            left = answer_by - _time.perf_counter()
            if left <= 0 and stopped:  # checked at every line: a flood of them does not put it off
                raise self._fail(
                    f"gave no bestmove within {answer_by - started:.1f} s "
                    f"({allowed}, grace {self.grace}) in {board.text()!r}"
                )
            if left <= 0:
                self._send("stop")  # over its time: ask for the move it has
                stopped, answer_by, left = True, answer_by + 1.0, 1.0
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise self._fail(f"{self._gone()} while thinking on {board.text()!r}")
            self._said = line
            words = line.split()
            if words[:1] == ["info"]:
                info.update(info_fields(words))
            elif words[:1] == ["bestmove"]:
                break
        move = self._parse(words[1] if len(words) > 1 else "(none)", board)
        if not board.is_legal(move):
            raise self._fail(f"answered the illegal move {words[1]!r} in {board.text()!r}")
        reply = None
        if len(words) > 3 and words[2] == "ponder":
            try:
                reply = Move.parse(words[3], board.size)
            except InvalidMoveError:
                pass  # a malformed ponder move is only a hint: nothing to ponder on
        stats = {"ponder": reply}
        return SearchResult(
            move, info.get("value", math.nan), int(info.get("depth", 0)), int(info.get("nodes", 0)), stats=stats
        )

    def _parse(self, text: str, board: Board) -> Move:
        try:
            return Move.parse(text, board.size)
        except InvalidMoveError:
            raise self._fail(f"answered {text!r}, not a move, in {board.text()!r}") from None
