"""``SearchAgent``: the one base of every agent that searches, so callers drive all of them alike.

It owns what the searches used to repeat: the refusal to search a finished game
(``GameOverError``), the limit of a move (the agent's own default, built from its options, or a
``Limit`` passed to ``search``), the clock (``agents.search.clock.Clock``: when a timed search must
stop, learnt from how late it came back), the filling-phase shortcut (a separated position is
played by ``endgame.filling_move`` without searching, for searches built with an ``endgame``
budget), ``last_result``, and ``select_move``. A search implements one method,
``_search(board, limit, deadline) -> SearchResult``, and declares the ``Limit`` fields it honours
(``LIMITS``) and the stats it reports (``STATS``, zeros in a filling-phase result):

>>> from amazons_env import Board
>>> class FirstMove(SearchAgent):
...     name = "first-move"
...     LIMITS = ("time", "nodes")
...     STATS = ("evals",)
...     def _search(self, board, limit, deadline):
...         return SearchResult(board.legal_moves()[0], 0.0, depth=1, nodes=1, stats={"evals": 0})
>>> agent, board = FirstMove(Limit(time=1.0)), Board(6)
>>> agent.select_move(board) == agent.last_result.move
True
>>> agent.search(board, Limit(nodes=5)).evals
0
>>> agent.search(board, Limit(depth=2))
Traceback (most recent call last):
...
agents.search.result.LimitError: first-move: cannot honour Limit depth=2 (it honours time, nodes)
>>> agent.search(Board.from_text("Q*q1/****/****/**** w"))
Traceback (most recent call last):
...
agents.search.agent.GameOverError: first-move: no move to search in a finished game: 'Q*q1/****/****/**** w'

Callers that set one move's limit (``amazons engine``'s ``go``, Botzone's time per move, the
arena) call ``think(agent, board, limit)``: ``agent.search(board, limit.only(agent.LIMITS))`` for
a ``SearchAgent``, ``select_move`` for any other agent.
"""

from __future__ import annotations

import math
import time
from abc import abstractmethod
from dataclasses import dataclass, replace
from typing import ClassVar, Optional

from amazons_env import Board, Move
from amazons_env.errors import InvalidArgumentError

from agents.base import Agent
from agents.search import endgame
from agents.search.clock import Clock
from agents.search.result import Limit, LimitError, SearchResult

__all__ = ["SearchAgent", "Deadline", "GameOverError", "think"]


class GameOverError(InvalidArgumentError):
    """A search was asked for a move in a finished game (the side to move has none); the message
    names the agent and the position."""


@dataclass
class Deadline:
    """One search's time, in ``time.perf_counter()`` seconds: it started at ``start`` and must
    stop at ``stop`` (``inf``: no time limit). A search whose first iteration runs unbounded, so
    that there is a move to play, calls ``hold()`` when the deadline comes into force: time
    spent before it (a slow first iteration, a net loading) is not lateness for the clock to
    learn (``Clock.returned``)."""

    start: float
    stop: float = math.inf
    held_from: float = -math.inf

    def hold(self) -> None:
        """The deadline holds from now on."""
        self.held_from = time.perf_counter()

    def passed(self) -> bool:
        """Whether the time is up."""
        return time.perf_counter() >= self.stop


class SearchAgent(Agent):
    """An agent that searches (module docstring). ``limit``: the default ``Limit`` of a move,
    from the agent's options; ``endgame``: a fill-search budget, non-zero to play a separated
    position by its filling move (0: search it like any other)."""

    #: the ``Limit`` fields this search honours
    LIMITS: ClassVar[tuple[str, ...]] = ("time",)
    #: the ``stats`` every result of this search carries (zeros in a filling-phase result)
    STATS: ClassVar[tuple[str, ...]] = ()
    #: a proven win's ``value`` in this search's results (the filling shortcut reports +-it)
    WIN_VALUE: ClassVar[float] = 1.0

    def __init__(self, limit: Limit, seed: Optional[int] = None, endgame: int = 0) -> None:
        super().__init__(seed)
        self.limit = self.accepted(limit)
        self.endgame = int(endgame)
        self.clock = Clock()
        self.last_result: Optional[SearchResult] = None

    def accepted(self, limit: Limit) -> Limit:
        """``limit`` if this search can honour it: a ``Limit`` that sets at least one field, and
        only fields in ``LIMITS``; else ``LimitError`` naming what it cannot honour."""
        if not isinstance(limit, Limit):
            raise LimitError(f"{self.spec}: limit must be a Limit, got {type(limit).__name__}")
        for name in limit.bounds():
            if name not in self.LIMITS:
                raise LimitError(
                    f"{self.spec}: cannot honour Limit {name}={getattr(limit, name)!r} "
                    f"(it honours {', '.join(self.LIMITS)})"
                )
        if not limit:
            raise LimitError(f"{self.spec}: Limit() bounds nothing; set one of {', '.join(self.LIMITS)}")
        return limit

    def select_move(self, board: Board) -> Move:
        """The move of ``search(board)`` with the agent's own limit."""
        move = self.search(board).move
        assert move is not None  # only a cut iteration inside a search has none
        return move

    def search(self, board: Board, limit: Optional[Limit] = None) -> SearchResult:
        """Search ``board`` for its side to move within ``limit`` (default: the agent's own) and
        keep the result in ``last_result``. The board is left unchanged."""
        if board.is_game_over():
            raise GameOverError(f"{self.spec}: no move to search in a finished game: {board.text()!r}")
        limit = self.limit if limit is None else self.accepted(limit)
        deadline = Deadline(time.perf_counter())
        filling = endgame.filling_move(board) if self.endgame else None
        if filling is not None:
            result = SearchResult(filling[0], filling[1] * self.WIN_VALUE, stats=dict.fromkeys(self.STATS, 0))
        elif limit.time is None:
            result = self._search(board, limit, deadline)
        else:
            deadline.stop = self._stop(deadline.start, limit.time)
            result = self._search(board, limit, deadline)
            self.clock.returned(deadline.stop, deadline.held_from)  # after the work: lateness covers it
        self.last_result = replace(result, seconds=time.perf_counter() - deadline.start)
        return self.last_result

    def _stop(self, start: float, seconds: float) -> float:
        """When a search started at ``start`` with ``seconds`` to think must stop: the clock's
        deadline, which keeps back what returning the move takes."""
        return self.clock.stop(start, seconds)

    @abstractmethod
    def _search(self, board: Board, limit: Limit, deadline: Deadline) -> SearchResult:
        """The search itself, within ``limit`` (one this search honours) and ``deadline.stop``,
        for a position with at least one move that is not played by the filling shortcut.
        ``seconds`` of the result is filled in by ``search``."""


def think(agent: Agent, board: Board, limit: Optional[Limit] = None) -> tuple[Move, Optional[SearchResult]]:
    """One move of any agent in ``board``, and the search's result if it searched: a
    ``SearchAgent`` searches within the fields of ``limit`` it honours (its own limit when no
    field is left, or without a ``limit``); any other agent selects its move (result None). What
    the arena and the protocol loops call, so that they never change an agent to set a move's
    limit.

    >>> from amazons_env import Board
    >>> from agents import make
    >>> move, result = think(make("alphabeta:time=1"), Board(6), Limit(depth=1, simulations=50))
    >>> result.depth, result.move == move
    (1, True)
    >>> think(make("random:seed=1"), Board(6))[1] is None
    True
    """
    if isinstance(agent, SearchAgent):
        kept = None if limit is None else limit.only(agent.LIMITS)
        result = agent.search(board, kept or None)
        assert result.move is not None  # only a cut iteration inside a search has none
        return result.move, result
    return agent.select_move(board), None
