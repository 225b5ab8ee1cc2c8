"""The time manager: how much of a game clock one move may spend.

Under a game clock (UCI's ``wtime``/``btime``/``winc``/``binc``/``movestogo``, ``amazons match
--tc MINUTES+INC``, a ``Limit`` with ``white_clock``/``black_clock``) ``allot`` gives the side to
move's ``Limit(time, time_max)`` from its time ``left``, its Fischer ``increment``, the moves to
go until the clock is refilled (``None``: the rest of the game) and the position:

* ``time`` is the time left, less a ``SAFETY`` margin and every remaining move's ``overhead``
  (the seconds a move loses outside its search: ``MOVE_OVERHEAD``), plus the increments still to
  come, spread over the moves this side is expected still to think on: ``moves_to_go`` when it is
  sooner than the game's end, else ``expected_moves``, ``MOVES_PER_EMPTY`` of the empty squares
  where the game is still fought (``contested_squares``: a region sealed off with one side's
  amazons only is filled later without thought);
* ``time_max`` lets a search that is still unsure go on, ``STRETCH`` times as long, but never past
  ``MOST_OF_LEFT`` of what is usable (all of it on the last move before a refill), so a clock never
  runs out by the manager's choice;
* every move gets at least ``LEAST_TIME``. ``benchmarks/search/clock.py --tc`` measures how much of the
  clock games use.

``move_limit(board, limit)`` applies it to a ``Limit`` that holds the clocks (``Limit.clocked``):
the move's ``time`` and ``time_max`` from the side to move's clock, the clocks dropped.

>>> from amazons_env import Board
>>> allot(Board(10), 60.0, 0.1)              # one minute + 0.1 s, at the start of a 10x10 game
Limit(time=2.554, time_max=10.216)
>>> allot(Board(10), 60.0, moves_to_go=1)    # the clock is refilled after this move
Limit(time=56.98, time_max=56.98)
>>> allot(Board(10), 0.001)                  # nothing usable is left: the least time of a move
Limit(time=0.005, time_max=0.005)
>>> board = Board(position="3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 b")
>>> move_limit(board, Limit(white_clock=60.0, black_clock=0.5, black_inc=0.1, depth=3))
Limit(time=0.096, depth=3, time_max=0.114)
>>> allot(Board(10), -1.0)
Traceback (most recent call last):
...
agents.time.manager.TimeControlError: time left -1.0: must be a finite number of seconds >= 0

``CLOCKS`` are the managers of one move's ``time`` that an alpha-beta search's ``clock`` option
names (``clock_name`` checks it).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import fields
from typing import Any, Optional

from amazons_env import Board, core
from amazons_env.errors import InvalidArgumentError, describe

from agents.time.limit import CLOCK_FIELDS, Limit

__all__ = [
    "TimeControlError",
    "allot",
    "move_limit",
    "expected_moves",
    "contested_squares",
    "seconds",
    "clock_name",
    "CLOCKS",
    "MOVE_OVERHEAD",
    "MOVES_PER_EMPTY",
    "FEWEST_MOVES",
    "STRETCH",
    "MOST_OF_LEFT",
    "SAFETY",
    "LEAST_TIME",
]

#: the time managers an agent's ``clock`` option names: ``full`` (deepen until the deadline and
#: abort there) and ``predict`` (predict from the measured rate whether an iteration fits, and
#: stop early)
CLOCKS = ("full", "predict")
#: seconds each move of a game clock loses outside the search (returning the move, a pipe, the
#: arena's bookkeeping): kept back from the time of every move still to come
MOVE_OVERHEAD = 0.02
#: the moves a side is expected still to make, per empty square (``allot``)
MOVES_PER_EMPTY = 0.25
#: the fewest moves the time left is spread over when the game's end is estimated
FEWEST_MOVES = 4
#: how much longer than ``time`` an unsure search may go on (``time_max``)
STRETCH = 4.0
#: the most of the usable time one move may take at its longest, unless the clock is refilled after it
MOST_OF_LEFT = 0.25
#: the share of the time left kept back as a safety margin
SAFETY = 0.05
#: the least time a move is given, however little is left (a move must be played)
LEAST_TIME = 0.005
#: what a region is made of (``contested_squares``): empty squares and amazons
_REGION = (core.EMPTY, core.WHITE_QUEEN, core.BLACK_QUEEN)


class TimeControlError(InvalidArgumentError):
    """A game clock's reading that is not valid (negative, NaN or infinite seconds, moves to go
    that are not a whole number >= 1), or a time control that cannot be read; the message names it."""


def clock_name(name: str) -> str:
    """``name`` if it is one of ``CLOCKS``; ``InvalidArgumentError`` naming the value otherwise.

    >>> clock_name("full")
    'full'
    >>> clock_name("fast")
    Traceback (most recent call last):
    ...
    amazons_env.errors.InvalidArgumentError: clock='fast': use one of full, predict
    """
    if name not in CLOCKS:
        raise InvalidArgumentError(f"clock={describe(name)}: use one of {', '.join(CLOCKS)}")
    return name


def seconds(value: Any, what: str) -> float:
    """``value`` as seconds of a game clock: a finite real number >= 0, else ``TimeControlError``
    naming ``what`` and the value.

    >>> seconds(1, "increment")
    1.0
    >>> seconds(float("nan"), "increment")
    Traceback (most recent call last):
    ...
    agents.time.manager.TimeControlError: increment nan: must be a finite number of seconds >= 0
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= float(value) < math.inf:
        raise TimeControlError(f"{what} {describe(value)}: must be a finite number of seconds >= 0")
    return float(value)


def contested_squares(board: Board) -> int:
    """The empty squares of ``board`` where the game is still fought: in the regions (connected by
    king steps through empty squares and amazons, as ``agents.search.endgame`` counts them) that
    hold amazons of both sides. A region of one side's amazons only is filled later without a
    fight (its moves are the filling phase's, played at once).

    >>> contested_squares(Board(8)), contested_squares(Board.from_text("Q1*3/**4/6/******/3*1q/6 w"))
    (56, 0)
    """
    cells = board.cells.tolist()  # padded with walls: a king step never leaves the board
    width = board.size + 2
    steps = (-width - 1, -width, -width + 1, -1, 1, width - 1, width, width + 1)
    seen = [False] * len(cells)
    contested = 0
    for start, cell in enumerate(cells):
        if cell != core.EMPTY or seen[start]:
            continue
        seen[start], stack, empty, sides = True, [start], 0, 0
        while stack:
            square = stack.pop()
            if cells[square] == core.EMPTY:
                empty += 1
            else:
                sides |= cells[square]  # WHITE_QUEEN 1, BLACK_QUEEN 2: 3 once both are in
            for step in steps:
                near = square + step
                if not seen[near] and cells[near] in _REGION:
                    seen[near] = True
                    stack.append(near)
        if sides == core.WHITE_QUEEN | core.BLACK_QUEEN:
            contested += empty
    return contested


def expected_moves(board: Board) -> int:
    """The moves the side to move is expected still to think on in ``board`` (module docstring):
    ``MOVES_PER_EMPTY`` of the contested empty squares (``contested_squares``), at least
    ``FEWEST_MOVES``.

    >>> expected_moves(Board(10)), expected_moves(Board(8))
    (23, 14)
    """
    return max(FEWEST_MOVES, math.ceil(MOVES_PER_EMPTY * contested_squares(board)))


def allot(
    board: Board,
    left: float,
    increment: float = 0.0,
    moves_to_go: Optional[int] = None,
    overhead: float = MOVE_OVERHEAD,
) -> Limit:
    """The ``Limit(time, time_max)`` of the side to move in ``board`` with ``left`` seconds on its
    clock, ``increment`` seconds added after each of its moves, ``moves_to_go`` moves until the
    clock is refilled (``None``: none before the game ends) and ``overhead`` seconds lost by
    each move outside its search (module docstring). Every input is checked
    (``TimeControlError`` naming it); times are rounded to the millisecond."""
    left = seconds(left, "time left")
    increment = seconds(increment, "increment")
    overhead = seconds(overhead, "move overhead")
    moves_to_go = _moves_to_go(moves_to_go)
    horizon = expected_moves(board) if moves_to_go is None else min(expected_moves(board), moves_to_go)
    usable = max(left * (1 - SAFETY) - overhead, 0.0)
    share = usable / horizon + max(increment - overhead, 0.0) * (horizon - 1) / horizon
    most = usable if horizon == moves_to_go == 1 else MOST_OF_LEFT * usable
    time_max = max(round(min(STRETCH * share, most), 3), LEAST_TIME)
    return Limit(time=max(round(min(share, most), 3), LEAST_TIME), time_max=time_max)


def _moves_to_go(value: Any) -> Optional[int]:
    """``value`` as the moves until a clock is refilled: ``None`` or a whole number >= 1."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise TimeControlError(f"moves to go {describe(value)}: must be a whole number >= 1")
    return int(value)


def move_limit(board: Board, limit: Limit, overhead: float = MOVE_OVERHEAD) -> Limit:
    """``limit`` for the side to move in ``board``, without its game clocks: where it holds that
    side's clock and no ``time``, the ``time`` and ``time_max`` that ``allot`` gives that clock (its
    increment and ``remaining_moves`` with it, ``overhead`` seconds kept back per move); a given
    ``time`` is kept, and a limit without clocks is returned as it is.

    >>> move_limit(Board(10), Limit(time=1.0, white_clock=60.0))
    Limit(time=1.0)
    >>> move_limit(Board(10), Limit(black_clock=60.0, nodes=500))   # only Black's clock: no time
    Limit(nodes=500)
    """
    if not limit.clocked:
        return limit
    kept = {f.name: getattr(limit, f.name) for f in fields(limit) if f.name not in CLOCK_FIELDS}
    white = int(board.turn) == 0
    left = limit.white_clock if white else limit.black_clock
    if limit.time is None and left is not None:
        increment = (limit.white_inc if white else limit.black_inc) or 0.0
        allotted = allot(board, left, increment, limit.remaining_moves, overhead)
        kept.update(time=allotted.time, time_max=allotted.time_max)
    return Limit(**kept)
