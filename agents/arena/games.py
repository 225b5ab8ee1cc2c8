"""One game in the arena: ``play_game(white, black, board)`` plays it to its end and returns a
``GameResult`` (the players, the winner and how the game ended, the moves, each side's thinking
time, nodes and moves, the value of every move); ``opening_board`` is the position a pair of
games starts from. Each move is bounded by a ``limit`` the caller gives (``agents.time.limit``:
``amazons match --time``), or by its agent's own.

**Game clocks** (``amazons match --tc MINUTES+INC``, an ``agents.time.control.TimeControl``):
``ClockedGame`` is the player of both sides of one game for ``agents.game.play_out``: each move's
limit holds both clocks, which the time manager turns into the side to move's time
(``agents.time.manager.move_limit``); the arena measures the time the move took and charges it to
the clock, then adds the increment; a side whose clock runs out during its move loses on time
(``OutOfTime``; the move it came back with is not played). An external UCI engine (a
``ClockedPlayer``) is given both clocks (``go wtime .. btime .. winc .. binc ..``) and manages its
time itself; an agent that does not search simply plays, on the clock all the same.

With ``ponder=True`` a player that can think on its opponent's time does so after its move: a
``uci:`` engine with ``go ponder``, an in-process search that notices a moved deadline
(``SearchAgent.PONDERS``) on a thread (``agents.pondering.Ponderer``); its next move is charged
from the opponent's move on. A ponder search takes a core while the opponent thinks: play such
games one at a time per two cores.

>>> from agents import make
>>> result = play_game(make("random", seed=1), make("random", seed=2), opening_board(6, 2, [1]), opening=2)
>>> result.winner in (0, 1), result.ended, result.plies == len(result.record), result.values[:2]
(True, 'moves', True, (None, None))
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import numpy as np

from amazons_env import Board, Move
from amazons_env.errors import AmazonsRuntimeError, InvalidArgumentError

from agents.base import Agent
from agents.game import play_out
from agents.pondering import ClockedPlayer, Ponderer, can_ponder
from agents.search.agent import SearchAgent, think
from agents.time.control import TimeControl
from agents.time.heap import frozen_heap
from agents.time.limit import Limit
from agents.time.manager import MOVE_OVERHEAD, move_limit

__all__ = ["GameResult", "play_game", "opening_board", "ClockedGame", "OutOfTime"]


@dataclass(frozen=True)
class GameResult:
    """One finished game. ``winner``: 0 White, 1 Black. ``seconds``/``max_seconds``/``nodes``/
    ``moves``: per colour (White, Black), the thinking time in all and for the longest move, the
    search nodes reported by the agent and the moves made. ``values``: per ply of ``record``, the
    value the mover's search gave its move, for White (``amazons_env.move_values``), or ``None``
    (an opening ply, an agent that does not search). ``ended``: ``"moves"`` (the loser had no
    move) or ``"time"`` (the loser, to move after ``record``, ran out of time: ``OutOfTime``)."""

    white: str
    black: str
    winner: int
    plies: int
    opening: int
    record: list[str]
    seconds: tuple[float, float]
    max_seconds: tuple[float, float]
    nodes: tuple[int, int]
    moves: tuple[int, int]
    size: int
    index: int = 0
    pair: str = ""
    values: tuple[Optional[float], ...] = ()
    ended: str = "moves"


def _nodes_of(agent: Agent) -> int:
    """The nodes (or simulations) of ``agent``'s last move: 0 for an agent that does not search."""
    return agent.last_result.nodes if isinstance(agent, SearchAgent) and agent.last_result is not None else 0


def _mover(agent: Agent, limit: Optional[Limit]) -> Callable[[Board], Move]:
    """``agent``'s moves within ``limit`` (``None``: its own)."""
    if limit is None:
        return agent.select_move
    return lambda board: think(agent, board, limit)[0]


def play_game(
    white: Agent,
    black: Agent,
    board: Board,
    opening: int = 0,
    index: int = 0,
    pair: str = "",
    tc: Optional[TimeControl] = None,
    ponder: bool = False,
    limit: Optional[Limit] = None,
) -> GameResult:
    """Play ``board`` (which may already hold opening moves, ``opening`` of them) to the end, the
    objects that exist before it frozen (``agents.time.heap.frozen_heap``: no full garbage
    collection in a timed move); each move within ``limit`` (``agents.search.agent.think``; ``None``:
    each agent's own), or on ``tc``'s game clocks; with ``ponder``, thinking on the opponent's time
    (module docstring)."""
    if limit is not None and not isinstance(limit, Limit):
        raise InvalidArgumentError(f"play_game: limit must be a Limit or None, got {type(limit).__name__}")
    if limit is not None and tc is not None:
        raise InvalidArgumentError(f"play_game: {limit!r} and tc={tc}: give a move's limit or game clocks, not both")
    with frozen_heap():
        return _play(white, black, board, opening, index, pair, tc, ponder, limit)


def _value_of(agent: Agent, move: Move, side: int) -> Optional[float]:
    """The value ``agent``'s search gave ``move`` (its last), for White; ``None`` for an agent that
    did not search for it or a value that is no finite number."""
    result = agent.last_result if isinstance(agent, SearchAgent) else None
    if result is None or result.move != move or not math.isfinite(result.value):
        return None
    return float(result.value) if side == 0 else -float(result.value)


def _play(
    white: Agent,
    black: Agent,
    board: Board,
    opening: int,
    index: int,
    pair: str,
    tc: Optional[TimeControl] = None,
    ponder: bool = False,
    limit: Optional[Limit] = None,
) -> GameResult:
    players = (white, black)
    values: list[Optional[float]] = [None] * board.ply  # the opening's random plies
    seconds = [0.0, 0.0]
    longest = [0.0, 0.0]
    nodes = [0, 0]
    moves = [0, 0]

    def count(side: int, move: Move, spent: float) -> None:
        seconds[side] += spent
        longest[side] = max(longest[side], spent)
        nodes[side] += _nodes_of(players[side])
        moves[side] += 1
        values.append(_value_of(players[side], move, side))

    flagged: Optional[int] = None  # the side that ran out of time
    if tc is None and not ponder:
        play_out(board, tuple(_mover(agent, limit) for agent in players), on_move=count)
    else:
        game = ClockedGame(players, tc, ponder, limit=limit)
        try:
            play_out(board, (game.move, game.move), on_move=count)
        except OutOfTime as flag:
            flagged = flag.side
        finally:
            game.finish()
    winner = board.winner if flagged is None else 1 - flagged
    assert winner is not None, "play_out plays the game to its end, unless a clock runs out"
    return GameResult(
        white.spec,
        black.spec,
        int(winner),
        board.ply,
        opening,
        [str(m) for m in board.move_stack],
        (seconds[0], seconds[1]),
        (longest[0], longest[1]),
        (nodes[0], nodes[1]),
        (moves[0], moves[1]),
        board.size,
        index,
        pair,
        tuple(values),
        "moves" if flagged is None else "time",
    )


def opening_board(size: int, plies: int, seed: Sequence[int]) -> Board:
    """The start position after ``plies`` uniformly random moves drawn from ``seed``."""
    rng = np.random.default_rng(list(seed))
    board = Board(size)
    for _ in range(plies):
        moves = board.legal_moves_array()
        if len(moves) == 0:
            break
        frm, to, arrow = moves[rng.integers(len(moves))].tolist()
        board.push_unchecked(Move(frm, to, arrow, size))
    return board


class OutOfTime(AmazonsRuntimeError):
    """The side ``side`` (0 White, 1 Black) ran out of time: its move took ``spent`` seconds with
    less than that left on its clock. The arena's game loop catches it and ends the game on time;
    a caller driving ``ClockedGame`` itself sees it as a failure of that side's player."""

    def __init__(self, side: int, spent: float) -> None:
        super().__init__(f"{('White', 'Black')[side]} ran out of time ({spent:.3f} s spent)")
        self.side = side
        self.spent = spent


class ClockedGame:
    """Both players of one game on ``tc``'s clocks (``None``: each move within ``limit``, or its
    agent's own limit) and, with ``ponder``, thinking on the opponent's time (module docstring).
    ``move`` is the player of either side; ``left`` the seconds on each clock; ``finish()`` ends
    any ponder search (call it when the game is over, however it ended). ``overhead``: the seconds
    of each move that the time manager keeps back for what happens outside the search."""

    def __init__(
        self,
        agents: Sequence[Agent],
        tc: Optional[TimeControl],
        ponder: bool = False,
        overhead: float = MOVE_OVERHEAD,
        limit: Optional[Limit] = None,
    ) -> None:
        self.agents = tuple(agents)
        if ponder and self.agents[0] is self.agents[1]:
            raise InvalidArgumentError("an agent object cannot ponder against itself: give each side its own")
        self.tc = tc
        self.limit = limit
        self.ponder = ponder
        self.overhead = overhead
        self.left = [tc.seconds, tc.seconds] if tc is not None else [math.inf, math.inf]
        self.players: list[Optional[ClockedPlayer]] = [self._clocked(agent) for agent in self.agents]

    def _clocked(self, agent: Agent) -> Optional[ClockedPlayer]:
        """How ``agent`` plays its moves: as a ``ClockedPlayer`` (an engine that manages its clocks,
        or a search that ponders here), or ``None`` (the arena gives it each move's limit)."""
        if isinstance(agent, ClockedPlayer):
            return agent
        if self.ponder and isinstance(agent, SearchAgent) and can_ponder(agent):
            return Ponderer(agent, self.overhead)
        return None

    def current_limit(self) -> Optional[Limit]:
        """The limit of a move: both clocks as they stand, or without a time control the game's
        ``limit`` (``None``: each agent's own)."""
        if self.tc is None:
            return self.limit
        increment = self.tc.increment
        return Limit(white_clock=self.left[0], black_clock=self.left[1], white_inc=increment, black_inc=increment)

    def move(self, board: Board) -> Move:
        """The side to move's move in ``board``, on its clock; ``OutOfTime`` if the clock ran out."""
        side = int(board.turn)
        limit, player = self.current_limit(), self.players[side]
        start = time.perf_counter()
        if player is not None:
            result = player.search_on_clock(board, limit)
            assert result.move is not None  # a search always answers with a move
            move = result.move
        else:
            move = think(self.agents[side], board, None if limit is None else move_limit(board, limit, self.overhead))[
                0
            ]
        spent = time.perf_counter() - start
        if self.tc is not None:
            if spent > self.left[side]:
                self.left[side] = 0.0
                raise OutOfTime(side, spent)
            self.left[side] += self.tc.increment - spent
        if self.ponder and player is not None and board.is_legal(move):
            after = board.copy()
            after.push(move)
            player.ponder(after, self.current_limit())
        return move

    def finish(self) -> None:
        """End the ponder searches still running (the game is over)."""
        for player in self.players:
            if player is not None:
                player.stop_pondering()
