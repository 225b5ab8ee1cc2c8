"""``amazons engine --protocol botzone``: an agent as a bot of Botzone's Amazons (8x8), speaking its
"simple interaction" on stdin/stdout, with its "keep running" mode.

**Coordinates.** Botzone writes a move as six integers ``x0 y0 x1 y1 x2 y2``: the queen's square,
its destination and the arrow's square, each as ``x`` (the column, 0-7 from the left) and ``y``
(the row, 0-7 from the top of Botzone's picture). Botzone's **Black moves first** and starts at
(2,0), (5,0), (0,2), (7,2); White at (0,5), (2,7), (5,7), (7,5). Our first mover is White, at c1,
f1, a3, h3. So Botzone's Black is our White, Botzone's White our Black, and
``(x, y)`` is our square ``y * 8 + x``: file ``x`` (a = 0), rank ``y + 1``. (Botzone draws row 0
at the top, we draw rank 1 at the bottom: the same game seen from the other side.)

**Interaction.** The bot's first input is the turn number ``n`` (at most the board's squares: no
game has more turns), then ``2n - 1`` lines: Botzone's
requests (the opponent's moves) alternating with the bot's own earlier responses, ending with the
newest request (any ``data``/``globaldata`` lines after them are ignored). The first request
``-1 -1 -1 -1 -1 -1`` means there was no opponent move: we are Botzone's Black and move first.
The bot answers one line, its move. Then it prints ``>>>BOTZONE_REQUEST_KEEP_RUNNING<<<`` (unless
``keep_running=False``) and stays alive: each later turn's input is only the new request (a lone
turn number before it is skipped). A game we are asked to move in but cannot is answered
``-1 -1 -1 -1 -1 -1``.

Example, one exchange (``<`` what the bot reads, ``>`` what it writes): we move first, then
Botzone's White answers ``0 5 0 3 3 3`` (a6-a4/d4 for us) and we move again::

    < 1
    < -1 -1 -1 -1 -1 -1
    > 2 0 2 4 5 4                          (c1-c5/f5)
    > >>>BOTZONE_REQUEST_KEEP_RUNNING<<<
    < 0 5 0 3 3 3
    > 5 0 5 3 5 1                          (f1-f4/f2)
    > >>>BOTZONE_REQUEST_KEEP_RUNNING<<<

>>> move_to_botzone(Move.parse("c1-c5/f5", size=8))
'2 0 2 4 5 4'
>>> str(botzone_to_move("0 5 0 3 3 3", 8))
'a6-a4/d4'
"""

from __future__ import annotations

import itertools
import sys
from typing import IO, Iterator, Optional

from amazons_env import Board, Move
from amazons_env.errors import InvalidMoveError

from agents.base import Agent
from agents.pondering import Thinking
from agents.time.heap import freeze_survivors
from agents.time.limit import Limit

__all__ = ["BotzoneBot", "botzone_to_move", "move_to_botzone", "NO_MOVE", "KEEP_RUNNING", "GRACE", "STOP_WAIT"]

NO_MOVE = "-1 -1 -1 -1 -1 -1"
#: seconds past the time per move before a search is halted, and then waited for
GRACE, STOP_WAIT = 0.5, 0.04
KEEP_RUNNING = ">>>BOTZONE_REQUEST_KEEP_RUNNING<<<"


def botzone_to_move(line: str, size: int = 8) -> Move:
    """The move of a Botzone line ``x0 y0 x1 y1 x2 y2``; ``InvalidMoveError`` naming the line."""
    try:
        x0, y0, x1, y1, x2, y2 = (int(word) for word in line.split())
    except ValueError:
        raise InvalidMoveError(f"Botzone move {line.strip()!r}: expected six integers 'x0 y0 x1 y1 x2 y2'") from None
    coords = ((x0, y0), (x1, y1), (x2, y2))
    if not all(0 <= c < size for pair in coords for c in pair):
        raise InvalidMoveError(f"Botzone move {line.strip()!r}: coordinates must be 0..{size - 1}")
    frm, to, arrow = (y * size + x for x, y in coords)
    return Move(frm, to, arrow, size=size)


def move_to_botzone(move: Move) -> str:
    """Botzone's line for ``move``: ``x y`` of its three squares (file, rank - 1)."""
    return " ".join(f"{sq % move.size} {sq // move.size}" for sq in (move.from_square, move.to_square, move.arrow))


class BotzoneBot:
    """The Botzone loop around one agent (module docstring). ``seconds``: thinking time per move,
    passed as a ``Limit`` to agents that search within a time (``None``: the agent's default),
    and the move is answered by then (``GRACE`` later at most, see ``_think``)."""

    def __init__(
        self,
        agent: Agent,
        out: IO[str] = sys.stdout,
        size: int = 8,
        seconds: Optional[float] = None,
        keep_running: bool = True,
    ) -> None:
        self.agent = agent
        self.out = out
        self.size = size
        self.seconds = seconds
        self.keep_running = keep_running
        self.board = Board(size)
        self._thinking: Optional[Thinking] = None  # the last move's thought (it may outlive its answer)

    def _apply(self, line: str, who: str) -> None:
        move = botzone_to_move(line, self.size)
        if not self.board.is_legal(move):
            raise InvalidMoveError(f"Botzone {who} move {line.strip()!r} ({move}) is illegal in {self.board.text()!r}")
        self.board.push(move)

    def _respond(self) -> None:
        if self.board.is_game_over():
            answer = NO_MOVE
        else:
            move = self._think()
            self.board.push(move)
            answer = move_to_botzone(move)
        self.out.write(answer + "\n")
        if self.keep_running:
            self.out.write(KEEP_RUNNING + "\n")
        self.out.flush()
        freeze_survivors()  # our clock has stopped: collect now, not at the next deadline

    def _think(self) -> Move:
        """The agent's move, thought on a thread of its own (``agents.pondering.Thinking``) and
        answered by the time per move plus ``GRACE``: a search still running then is halted, and
        if it is not back within ``STOP_WAIT`` its first legal move is played (Botzone ends a bot
        that overruns). The next move's thought waits for it to end (one agent, one search)."""
        if self._thinking is not None:
            self._thinking.wait()
        limit = None if self.seconds is None else Limit(time=self.seconds)
        thinking = self._thinking = Thinking(self.agent, self.board, limit)
        if self.seconds is not None and not thinking.wait(self.seconds + GRACE):
            thinking.stop()
            if not thinking.wait(STOP_WAIT):
                print(f"botzone: {self.agent.spec} did not stop in time: first legal move", file=sys.stderr)
                return self.board.legal_moves()[0]
        return thinking.result()[0]

    def run(self, lines: Iterator[str]) -> int:
        """Play from Botzone's input ``lines`` until they end (or after one turn without keep-running)."""
        lines = iter(lines)
        first = next(lines, "").strip()
        try:
            turns = int(first)
        except ValueError:
            raise InvalidMoveError(f"Botzone input must start with the turn number, got {first!r}") from None
        most = self.size * self.size  # more turns than a game has plies: no game gets there
        if not 1 <= turns <= most:
            raise InvalidMoveError(f"Botzone turn number {first[:40]!r} must be in 1..{most}")
        history = list(itertools.islice(lines, 2 * turns - 1))  # read as far as the input goes
        if len(history) < 2 * turns - 1 or not history[-1].strip():
            raise InvalidMoveError(f"Botzone input ended before its {2 * turns - 1} request/response lines")
        self.agent.reset()
        for i, line in enumerate(history):
            if i == 0 and line.split()[:1] == ["-1"]:
                continue  # no opponent move: we move first
            self._apply(line, "request" if i % 2 == 0 else "response")
        self._respond()
        if not self.keep_running:
            return 0
        for line in lines:
            if len(line.split()) < 2:
                continue  # a lone turn number (or an empty line) before the request
            self._apply(line, "request")
            self._respond()
        return 0
