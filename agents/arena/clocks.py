"""Game clocks in the arena (``amazons match --tc MINUTES+INC``) and thinking on the opponent's
time (``--ponder``).

A ``TimeControl`` is a Fischer clock: ``seconds`` for the game and ``increment`` seconds added
after each move, written ``MINUTES+INC`` (``"1+0.1"``: a minute and 0.1 s a move; ``"0.5"``: 30
seconds, no increment). ``ClockedGame`` is the player of both sides of one game for
``agents.game.play_out``: each move's limit comes from the side's clock through the searches'
time manager (``agents.search.clock.allot``), the arena measures the time the move took and
charges it to the clock, then adds the increment; a side whose clock runs out during its move
loses on time (``OutOfTime``; the move it came back with is not played). An external UCI engine
(a ``ClockedPlayer``) is given both clocks (``go wtime .. btime .. winc .. binc ..``) and manages
its time itself; an agent that does not search simply plays, on the clock all the same.

With ``ponder=True`` a player that can think on its opponent's time does so after its move:
a ``uci:`` engine with ``go ponder``, an in-process search that notices a moved deadline
(``SearchAgent.PONDERS``) on a thread (``agents.pondering.Ponderer``); its next move is charged
from the opponent's move on. A ponder search takes a core while the opponent thinks: play such
games one at a time per two cores (``workers=1`` on this repository's two-core machine).

>>> TimeControl.parse("1+0.1"), str(TimeControl.parse("0.5"))
(TimeControl(seconds=60.0, increment=0.1), '0.5+0')
>>> TimeControl.parse("1+fast")
Traceback (most recent call last):
...
agents.search.clock.TimeControlError: time control '1+fast': give MINUTES+INC, e.g. '1+0.1' or '0.5'
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Optional, Sequence

from amazons_env import Board, Move
from amazons_env.errors import AmazonsRuntimeError, InvalidArgumentError, describe

from agents.base import Agent
from agents.pondering import ClockedPlayer, Ponderer, can_ponder
from agents.search.agent import SearchAgent, think
from agents.search.clock import MOVE_OVERHEAD, GameClocks, TimeControlError

__all__ = ["TimeControl", "ClockedGame", "OutOfTime", "ENDED"]

#: how a game ended, as its result says: the loser had no move, or ran out of time
ENDED = ("moves", "time")


@dataclass(frozen=True)
class TimeControl:
    """A Fischer time control: ``seconds`` per game (> 0) and ``increment`` seconds per move (>= 0)."""

    seconds: float
    increment: float = 0.0

    def __post_init__(self) -> None:
        for name, least in (("seconds", "> 0"), ("increment", ">= 0")):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or not (value > 0 if least == "> 0" else value >= 0)
            ):
                raise TimeControlError(f"time control {name}={describe(value)}: must be a finite number {least}")
            object.__setattr__(self, name, float(value))

    @classmethod
    def parse(cls, text: str) -> "TimeControl":
        """``MINUTES[+INCREMENT]`` (minutes per game, seconds per move) as a ``TimeControl``;
        ``TimeControlError`` naming the text and what is wrong with it."""
        if not isinstance(text, str):
            raise TimeControlError(f"time control {describe(text)}: give MINUTES+INC, e.g. '1+0.1'")
        minutes, _, increment = text.strip().partition("+")
        try:
            seconds, per_move = float(minutes) * 60.0, float(increment or "0")
        except ValueError:
            raise TimeControlError(f"time control {describe(text)}: give MINUTES+INC, e.g. '1+0.1' or '0.5'") from None
        if not 0 < seconds < math.inf:
            raise TimeControlError(f"time control {describe(text)}: the minutes must be a finite number > 0")
        if not 0 <= per_move < math.inf:
            raise TimeControlError(f"time control {describe(text)}: the increment must be a finite number >= 0")
        return cls(seconds, per_move)

    def __str__(self) -> str:
        return f"{self.seconds / 60:g}+{self.increment:g}"


class OutOfTime(AmazonsRuntimeError):
    """The side ``side`` (0 White, 1 Black) ran out of time: its move took ``spent`` seconds with
    less than that left on its clock. The arena's game loop catches it and ends the game on time;
    a caller driving ``ClockedGame`` itself sees it as a failure of that side's player."""

    def __init__(self, side: int, spent: float) -> None:
        super().__init__(f"{('White', 'Black')[side]} ran out of time ({spent:.3f} s spent)")
        self.side = side
        self.spent = spent


class ClockedGame:
    """Both players of one game on ``tc``'s clocks (``None``: each move within its agent's own
    limit) and, with ``ponder``, thinking on the opponent's time (module docstring). ``move`` is
    the player of either side; ``left`` the seconds on each clock; ``finish()`` ends any ponder
    search (call it when the game is over, however it ended). ``overhead``: the seconds of each
    move that the time manager keeps back for what happens outside the search."""

    def __init__(
        self, agents: Sequence[Agent], tc: Optional[TimeControl], ponder: bool = False, overhead: float = MOVE_OVERHEAD
    ) -> None:
        self.agents = tuple(agents)
        if ponder and self.agents[0] is self.agents[1]:
            raise InvalidArgumentError("an agent object cannot ponder against itself: give each side its own")
        self.tc = tc
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

    def clocks(self) -> Optional[GameClocks]:
        """Both clocks as they stand (``None`` without a time control)."""
        if self.tc is None:
            return None
        return GameClocks((self.left[0], self.left[1]), (self.tc.increment, self.tc.increment))

    def move(self, board: Board) -> Move:
        """The side to move's move in ``board``, on its clock; ``OutOfTime`` if the clock ran out."""
        side = int(board.turn)
        clocks, player = self.clocks(), self.players[side]
        start = time.perf_counter()
        if player is not None:
            result = player.search_on_clock(board, clocks)
            assert result.move is not None  # a search always answers with a move
            move = result.move
        else:
            move = think(self.agents[side], board, None if clocks is None else clocks.limit(board, self.overhead))[0]
        spent = time.perf_counter() - start
        if self.tc is not None:
            if spent > self.left[side]:
                self.left[side] = 0.0
                raise OutOfTime(side, spent)
            self.left[side] += self.tc.increment - spent
        if self.ponder and player is not None and board.is_legal(move):
            after = board.copy()
            after.push(move)
            player.ponder(after, self.clocks())
        return move

    def finish(self) -> None:
        """End the ponder searches still running (the game is over)."""
        for player in self.players:
            if player is not None:
                player.stop_pondering()
