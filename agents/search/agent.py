"""``SearchAgent``: the one base of every agent that searches, so callers drive all of them alike.

It owns what the searches used to repeat: the refusal to search a finished game
(``GameOverError``), the limit of a move (the agent's own default, built from its options, or a
``Limit`` passed to ``search``, its game clocks turned into the move's time by the time manager:
``agents.time.manager.move_limit``), the margin (``agents.time.margin.Margin``: when a timed search
must stop, learnt from how late it came back), the filling-phase shortcut (a separated position is
played by ``endgame.filling_move`` without searching, for searches built with an ``endgame``
budget), the proven-move shortcut (in a small endgame a df-pn proof within ``prove`` nodes, and a
proven win played at once: ``agents.search.solver.shortcut``; ``prove=0`` turns it off),
``last_result``, and ``select_move``. A search implements one method,
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
agents.time.limit.LimitError: first-move: cannot honour Limit depth=2 (it honours time, nodes)
>>> agent.search(Board.from_text("Q*q1/****/****/**** w"))
Traceback (most recent call last):
...
agents.search.agent.GameOverError: first-move: no move to search in a finished game: 'Q*q1/****/****/**** w'

Why a search ended is its result's ``stopped`` stat, where the search says (``uct`` always):
``"time"`` (its deadline), ``"time_max"`` (it went on past ``Limit.time`` while unsure),
``"simulations"`` (its budget), ``"proven"`` (a solved root), ``"settled"`` (the move could no
longer change before the deadline, under a game clock: ``Limit.time_max``), and for every search
``"decided"``: the filling-phase shortcut, played without searching, and ``"proven"`` for the
proven-move shortcut too.

>>> walled = Board.from_text("Q1*3/**4/6/******/3*1q/6 w")  # a wall of arrows: the filling phase
>>> FirstMove(Limit(time=1.0), endgame=100).search(walled).stopped
'decided'

A ponder search (``PONDERS``: ``uct``) runs on the caller's ``Deadline`` (``search(board,
deadline=...)``), which the caller moves from another thread when its time starts: the expected
reply is ``stats["ponder"]`` of the result before.

Callers that set one move's limit (``amazons engine``'s ``go``, Botzone's time per move, the
arena) call ``think(agent, board, limit)``: ``agent.search(board, limit.only(agent.LIMITS))`` for
a ``SearchAgent``, ``select_move`` for any other agent.
"""

from __future__ import annotations

import time
from abc import abstractmethod
from dataclasses import replace
from typing import ClassVar, Optional

from amazons_env import Board, Move
from amazons_env.errors import InvalidArgumentError

from agents.base import Agent
from agents.search import endgame
from agents.search.result import SearchResult
from agents.search.solver.shortcut import Shortcut
from agents.time.deadline import Deadline
from agents.time.limit import CLOCK_FIELDS, Limit, LimitError
from agents.time.manager import move_limit
from agents.time.margin import Margin

__all__ = ["SearchAgent", "GameOverError", "think", "PROVE_NODES"]

PROVE_NODES = 2_000  # df-pn nodes a move may spend proving a small endgame (``prove``)


class GameOverError(InvalidArgumentError):
    """A search was asked for a move in a finished game (the side to move has none); the message
    names the agent and the position."""


class SearchAgent(Agent):
    """An agent that searches (module docstring). ``limit``: the default ``Limit`` of a move,
    from the agent's options; ``endgame``: a fill-search budget, non-zero to play a separated
    position by its filling move (0: search it like any other); ``prove``: df-pn nodes for the
    proven-move shortcut (0: off)."""

    #: the ``Limit`` fields this search honours
    LIMITS: ClassVar[tuple[str, ...]] = ("time",)
    #: the ``stats`` every result of this search carries (zeros in a filling-phase result)
    STATS: ClassVar[tuple[str, ...]] = ()
    #: a proven win's ``value`` in this search's results (the filling shortcut reports +-it)
    WIN_VALUE: ClassVar[float] = 1.0
    #: whether the search notices a ``Deadline`` moved while it runs (``Deadline.move``: pondering)
    #: and reports the reply it expects in ``stats["ponder"]`` (a ``Move``, or None)
    PONDERS: ClassVar[bool] = False

    def __init__(self, limit: Limit, seed: Optional[int] = None, endgame: int = 0, prove: int = PROVE_NODES) -> None:
        super().__init__(seed)
        self.limit = self.accepted(limit)
        self.endgame = int(endgame)
        self.prove = int(prove)
        self._shortcut: Optional[Shortcut] = None
        self.margin = Margin()
        self.last_result: Optional[SearchResult] = None

    def accepted(self, limit: Limit) -> Limit:
        """``limit`` if this search can honour it: a ``Limit`` that sets at least one field, and
        only fields in ``LIMITS`` (``time_max`` and the game clocks go with ``time``); else
        ``LimitError`` naming what it cannot honour."""
        if not isinstance(limit, Limit):
            raise LimitError(f"{self.spec}: limit must be a Limit, got {type(limit).__name__}")
        for name in limit.bounds():
            if name not in self.LIMITS and not (name in ("time_max", *CLOCK_FIELDS) and "time" in self.LIMITS):
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

    def search(
        self, board: Board, limit: Optional[Limit] = None, *, deadline: Optional[Deadline] = None
    ) -> SearchResult:
        """Search ``board`` for its side to move within ``limit`` (default: the agent's own) and
        keep the result in ``last_result``. The board is left unchanged. A limit with game clocks
        gets its ``time`` from the side to move's clock (``agents.time.manager.move_limit``); one
        left with no bound (only the other side's clock) is the agent's own.

        ``deadline``: a caller's own deadline (a ponder search's, which the caller ``move``s
        when the opponent plays; one from ``timed``, which the caller may ``halt``), used as
        given: ``limit``'s ``time`` and ``time_max`` are then the caller's business (its other
        fields still bound the search), and the margin learns only from a deadline it set
        (``timed``). Only a search with ``PONDERS`` notices a deadline moved while it runs;
        ``halt`` ends those and alpha-beta's kernel search."""
        if board.is_game_over():
            raise GameOverError(f"{self.spec}: no move to search in a finished game: {board.text()!r}")
        limit = move_limit(board, self.limit if limit is None else self.accepted(limit)) or self.limit
        if deadline is not None and not isinstance(deadline, Deadline):
            raise InvalidArgumentError(f"{self.spec}: deadline must be a Deadline, got {type(deadline).__name__}")
        if deadline is None:
            deadline = self.timed(limit)
        filling = endgame.filling_move(board) if self.endgame else None
        proven = self._proven_move(board) if filling is None else None
        if filling is not None or proven is not None:
            stats: dict[str, object] = {**dict.fromkeys(self.STATS, 0)}
            stats["stopped"] = "decided" if filling is not None else "proven"
            if self.PONDERS:
                stats["ponder"] = None
            move, value = (filling[0], filling[1] * self.WIN_VALUE) if filling is not None else (proven, self.WIN_VALUE)
            result = SearchResult(move, value, stats=stats)
        else:
            result = self._search(board, limit, deadline)
            if deadline.margin is self.margin and limit.time is not None:  # after the work: lateness covers it
                went_on = result.stats.get("stopped") == "time_max"
                self.margin.returned(deadline.last if went_on else deadline.stop, deadline.held_from)
        self.last_result = replace(result, seconds=time.perf_counter() - deadline.start)
        return self.last_result

    def _proven_move(self, board: Board) -> Optional[Move]:
        """A win proved within ``prove`` nodes in a small endgame (``solver.shortcut``), or None."""
        if self.prove <= 0:
            return None
        if self._shortcut is None:
            self._shortcut = Shortcut(self.prove)
        self._shortcut.nodes = self.prove
        return self._shortcut.move(board)

    def timed(self, limit: Limit, start: Optional[float] = None) -> Deadline:
        """The deadline of a move within ``limit`` started at ``start`` (default: now), as
        ``search`` sets it when given none: the margin's stop for ``time`` and ``time_max`` (no
        stop without a time), learning from how late the search returns. A caller that may
        want the move early (the engine protocol's ``stop``) makes it, passes it to ``search``
        and ``halt``s it; a limit with game clocks is the side to move's first
        (``agents.time.manager.move_limit``).

        >>> from agents import make
        >>> agent = make("alphabeta:time=1")
        >>> deadline = agent.timed(Limit(time=1.0), start=100.0)
        >>> round(deadline.stop, 3), deadline.margin is agent.margin, agent.timed(Limit(depth=2)).stop
        (100.99, True, inf)
        """
        if limit.clocked:
            raise LimitError(f"{self.spec}: {limit!r} holds game clocks: give the move's (move_limit)")
        start = time.perf_counter() if start is None else start
        if limit.time is None:
            return Deadline(start)
        most = limit.time if limit.time_max is None else limit.time_max
        return Deadline(start, self._stop(start, limit.time), self._stop(start, most), margin=self.margin)

    def _stop(self, start: float, seconds: float) -> float:
        """When a search started at ``start`` with ``seconds`` to think must stop: the margin's
        deadline, which keeps back what returning the move takes."""
        return self.margin.stop(start, seconds)

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
    >>> think(make("alphabeta"), Board(6), Limit(white_clock=0.5, black_clock=0.5))[1].seconds < 0.5
    True
    """
    if isinstance(agent, SearchAgent):
        kept = None if limit is None else limit.only(agent.LIMITS)
        result = agent.search(board, kept or None)
        assert result.move is not None  # only a cut iteration inside a search has none
        return result.move, result
    return agent.select_move(board), None
