"""Thinking on a thread of its own, and on the opponent's time.

``Thinking(agent, board, limit)`` runs one move's thought (``agents.search.agent.think``) on a
daemon thread, so that whoever waits for it (the UCI engine's command loop) stays free to read
``isready`` or ``stop`` meanwhile. A search runs on a deadline the thought holds
(``SearchAgent.timed``), so that ``stop()`` ends it now (``Deadline.halt``: a search with
``SearchAgent.PONDERS`` and alpha-beta's kernel search end at their next clock check; another
runs to its own limit). With ``ponder=True`` the search is a **ponder search**: it starts with
no deadline at all (``Deadline.move`` moves it later) and runs until ``hit(limit)`` gives it its
time, counted from the hit, or ``stop()`` ends it now. Only a search with
``SearchAgent.PONDERS`` notices its deadline moving (``can_ponder``).

``Ponderer(agent)`` is an in-process search as a ``ClockedPlayer``: what the arena calls for a
player that thinks on its opponent's time. After its own move, ``ponder(board, limit)`` searches
the position after the reply its search expects (``stats["ponder"]``); at its next move,
``search_on_clock`` gives that search its time if the opponent played the expected reply (a
ponder hit: the tree built meanwhile is kept), or stops it and searches afresh. The ``limit`` of
a move holds the game clocks (``Limit.clocked``, the side to move's time from the time manager)
or the move's own bounds. An external UCI
engine is a ``ClockedPlayer`` of its own (``agents.protocols.uci_client``: ``go ponder``,
``ponderhit``).

Whoever runs the threads shares the machine's cores with them: a ponder search takes a core
while the opponent thinks (numba's ``nogil`` searches run in parallel; others share the GIL).

>>> from agents import make
>>> thinking = Thinking(make("random:seed=1"), Board(6))
>>> move, result = thinking.result()
>>> Board(6).is_legal(move), result is None
(True, True)
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Optional, Protocol, runtime_checkable

from amazons_env import Board, Move
from amazons_env.errors import InvalidArgumentError

from agents.background import Job
from agents.base import Agent
from agents.search.agent import SearchAgent, think
from agents.search.result import SearchResult
from agents.time.deadline import Deadline
from agents.time.limit import Limit
from agents.time.manager import MOVE_OVERHEAD, move_limit

__all__ = ["Thinking", "Ponderer", "ClockedPlayer", "can_ponder", "expected_reply"]


def can_ponder(agent: Agent) -> bool:
    """Whether ``agent`` can think on the opponent's time: a search that notices a moved deadline.

    >>> from agents import make
    >>> can_ponder(make("uct")), can_ponder(make("random")), can_ponder(make("alphabeta:depth=1"))
    (True, False, False)
    """
    return isinstance(agent, SearchAgent) and agent.PONDERS


def expected_reply(board: Board, result: Optional[SearchResult]) -> Optional[Board]:
    """The position after the reply ``result``'s search expects to its own move in ``board``
    (the position after that move): ``None`` when it expects none, or the game ends first.

    >>> from agents import make
    >>> board, agent = Board(6), make("uct:sims=100,seed=1")
    >>> board.push(agent.search(board).move)
    >>> expected_reply(board, agent.last_result).ply, expected_reply(board, None)
    (2, None)
    """
    reply = None if result is None else result.stats.get("ponder")
    if not isinstance(reply, Move) or board.is_game_over() or not board.is_legal(reply):
        return None
    after = board.copy()
    after.push(reply)
    return None if after.is_game_over() else after


class Thinking:
    """One move's thought on a daemon thread (module docstring): ``think(agent, board, limit)``,
    or with ``ponder=True`` a search of ``agent`` (``can_ponder``) with no deadline until
    ``hit`` or ``stop``. ``result()`` waits for the move and re-raises the thought's error;
    ``then()``, if given, is called on the thread once the thought has ended (to answer it)."""

    def __init__(
        self,
        agent: Agent,
        board: Board,
        limit: Optional[Limit] = None,
        ponder: bool = False,
        then: Optional[Callable[[], None]] = None,
    ) -> None:
        if ponder and not can_ponder(agent):
            raise InvalidArgumentError(f"agent {agent.spec!r} cannot ponder: its search ignores a moved deadline")
        self.agent = agent
        self.board = board.copy()
        self.limit = limit
        self.ponders = ponder
        self.started = time.perf_counter()
        self.deadline: Optional[Deadline] = None  # a search's (module docstring); None: an agent that does not search
        self._kept: Optional[Limit] = None  # the fields of ``limit`` the search honours (None: its own limit)
        if isinstance(agent, SearchAgent):
            # game clocks become the move's time now: the deadline is set before the search starts
            self._kept = None if limit is None else move_limit(board, limit.only(agent.LIMITS)) or None
            own = agent.limit if self._kept is None else self._kept
            self.deadline = Deadline(self.started) if ponder else agent.timed(own, self.started)
        self._then = then
        self._started = threading.Event()  # ``_job`` is set: ``then`` may ask for the result
        self._job = Job(self._think, self._ended, name="amazons-thinking")
        self._started.set()

    @property
    def pondering(self) -> bool:
        """Whether this is a ponder search that has not been given its time (nor stopped) yet."""
        return self.ponders and self.deadline is not None and self.deadline.stop == float("inf")

    def _think(self) -> tuple[Move, Optional[SearchResult]]:
        if self.deadline is None:
            return think(self.agent, self.board, self.limit)
        agent = self.agent
        assert isinstance(agent, SearchAgent)  # the deadline is a search's (__init__)
        result = agent.search(self.board, self._kept, deadline=self.deadline)
        assert result.move is not None  # only a cut iteration inside a search has none
        return result.move, result

    def _ended(self) -> None:
        self._started.wait()
        if self._then is not None:
            self._then()

    def hit(self, limit: Optional[Limit] = None) -> None:
        """A ponder hit: the search gets ``limit``'s ``time`` (and ``time_max``, or those the time
        manager gives its game clocks; default: the agent's own limit) from now on, less what the
        agent's margin keeps back for returning the move (``Margin.stop``); a limit without a time
        ends it now. Nothing happens to a thought that is not a ponder search."""
        if not self.ponders or self.deadline is None:
            return
        agent = self.agent
        assert isinstance(agent, SearchAgent)  # a ponder search's agent (__init__)
        limit = move_limit(self.board, agent.limit if limit is None else limit)
        if limit.time is None:
            self.stop()
            return
        now = time.perf_counter()
        most = limit.time if limit.time_max is None else limit.time_max
        self.deadline.move(agent.margin.stop(now, limit.time), agent.margin.stop(now, most))

    def stop(self) -> None:
        """End the search now (``Deadline.halt``: its move comes within one clock check of a
        search that notices it); nothing for an agent that does not search."""
        if self.deadline is not None:
            self.deadline.halt()

    def done(self) -> bool:
        """Whether the thought has ended (answered or failed)."""
        return self._job.done()

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait up to ``timeout`` seconds (``None``: as long as it takes); whether it has ended."""
        return self._job.wait(timeout)

    def result(self) -> tuple[Move, Optional[SearchResult]]:
        """The move and the search's result (``None`` for an agent that does not search), waiting
        for them (except in ``then``, on the thread itself: it has them); the thought's error if it
        failed."""
        return self._job.result()


@runtime_checkable
class ClockedPlayer(Protocol):
    """A player that thinks on its opponent's time and may be given the game clocks in a move's
    limit: ``Ponderer`` for an in-process search, ``UCIAgent`` for an external engine.

    ``search_on_clock(board, limit)``: its move in ``board`` within ``limit`` (with game clocks:
    ``Limit.clocked``), or within its own limit if ``limit`` is ``None``; a ponder search of this
    position, if one runs, is used (a hit) or ended (a miss). ``ponder(board, limit)``: after its
    own move (``board`` is the position after it), think on the opponent's time if it expects a
    reply, within ``limit`` (the clocks after the move) once it is hit; whether it does.
    ``stop_pondering()``: end a ponder search and wait for it (the game is over)."""

    def search_on_clock(self, board: Board, limit: Optional[Limit]) -> SearchResult: ...

    def ponder(self, board: Board, limit: Optional[Limit]) -> bool: ...

    def stop_pondering(self) -> None: ...


class Ponderer:
    """An in-process search (``can_ponder``) as a ``ClockedPlayer`` (module docstring);
    ``overhead``: the seconds of each move that the time manager keeps back under a game clock
    (``agents.time.manager.move_limit``)."""

    def __init__(self, agent: SearchAgent, overhead: float = MOVE_OVERHEAD) -> None:
        if not can_ponder(agent):
            raise InvalidArgumentError(f"agent {agent.spec!r} cannot ponder: its search ignores a moved deadline")
        self.agent = agent
        self.overhead = overhead
        self.thinking: Optional[Thinking] = None

    def _limit(self, board: Board, limit: Optional[Limit]) -> Limit:
        """The move's limit in ``board``: ``limit``'s fields the search honours, its game clocks
        turned into the move's time; the agent's own where none is left."""
        return move_limit(board, (limit or self.agent.limit).only(self.agent.LIMITS), self.overhead) or self.agent.limit

    def search_on_clock(self, board: Board, limit: Optional[Limit]) -> SearchResult:
        limit = self._limit(board, limit)
        thinking, self.thinking = self.thinking, None
        if thinking is not None and thinking.board == board:
            thinking.hit(limit)
            result = thinking.result()[1]
            assert result is not None  # a ponder search's
            return result
        if thinking is not None:  # the opponent played another move: what was thought is no use
            thinking.stop()
            thinking.wait()
        result = think(self.agent, board, limit)[1]
        assert result is not None  # a SearchAgent searches
        return result

    def ponder(self, board: Board, limit: Optional[Limit]) -> bool:
        self.stop_pondering()
        after = expected_reply(board, self.agent.last_result)
        if after is None:
            return False  # nothing expected
        bound = self._limit(after, limit)
        if bound.time is None:
            return False  # no time for a hit to give: the move's limit is not in seconds
        self.thinking = Thinking(self.agent, after, bound, ponder=True)
        return True

    def stop_pondering(self) -> None:
        thinking, self.thinking = self.thinking, None
        if thinking is not None:
            thinking.stop()
            thinking.wait()
