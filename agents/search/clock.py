"""The searches' clock: a wall-clock deadline that numba searches check while they run.

``time=T`` means about T seconds of thought per move. A search cannot know in advance how long
its next iteration will take (the tree grows by a factor of 5-30 per whole move, and the machine
may be shared), so instead of predicting, the timed searches keep deepening and **abort on the
deadline**. Inside numba the clock is read through ``now_ns`` (an ``objmode`` call to
``time.perf_counter_ns``, about 1 us), every ``CHECK_EVERY`` evaluator calls or nodes, so the
search stops within one node's work of the deadline.

Each agent keeps a ``Clock``. ``Clock.stop(start, seconds)`` is the moment to stop, in
``time.perf_counter()`` seconds as every Python-level ``deadline`` argument is: ``seconds`` after
``start`` less what is kept back for the work between the abort and the move reaching the caller
(unwinding, building the ``Move``): ``RESERVE`` of the time, plus how late the agent's recent
searches came back after their stop (``Clock.returned`` learns it). On a quiet machine that is a
few milliseconds; on a busy one the process is often descheduled right after the abort, and
keeping that lateness back keeps the move inside its time. ``as_ns`` turns a deadline into the
integer a numba search compares with ``now_ns()`` (``NEVER`` for no deadline).

``frozen_heap()`` is for whoever times moves (the arena, ``benchmarks/clock.py``, the engine
loops of ``amazons engine``): for a game it keeps Python's cyclic garbage collector off the
objects that already exist; ``freeze_survivors()``, called right after a move is answered (off
our clock), adds what the move loaded, e.g. an agent built at its first ``go``. A full collection
scans every object in the process, 0.07 s of CPU with numba's dispatchers loaded and 0.15 s with
torch's modules, and one that falls at a search's deadline overruns the move by that much; with
them frozen it takes well under a millisecond.

>>> clock = Clock()
>>> round(clock.stop(100.0, 1.0), 6), as_ns(float("inf")) == NEVER
(100.99, True)
>>> clock.late = 0.05                  # the last searches came back 50 ms after their stop
>>> round(clock.stop(100.0, 1.0), 6)
100.94
>>> now_ns() < as_ns(clock.stop(time.perf_counter(), 1.0)) < NEVER
True
>>> with frozen_heap():
...     gc.get_freeze_count() > 0
True

**Game clocks.** Under a game clock (UCI's ``wtime``/``btime``/``winc``/``binc``/``movestogo``,
``amazons match --tc MINUTES+INC``) ``allot`` is the one time manager: from the side to move's
time ``left``, its Fischer ``increment``, the moves to go until the clock is refilled (``None``:
the rest of the game) and the position, the ``Limit`` of the move. ``time`` is the time left,
less a safety margin and every remaining move's overhead, plus the increments still to come,
spread over the moves this side is expected still to think on: ``moves_to_go`` when it is
sooner than the game's end, else ``MOVES_PER_EMPTY`` of the empty squares where the game is still
fought (``contested_squares``: a region sealed off with one side's amazons only is filled later
without thought, as is the whole board once the amazons are separated). Each ply fills one,
so a side has at most half of them to play, and in ``uct`` games at 1 s on 8x8 and 10x10 a side
made 0.36-0.47 of them to the end (``experiments/layout-regression``, ``uct-net-8x8``); but the
moves once the game is decided or proven are played at once, and under a clock ``uct`` stops as
soon as it is sure of a settled move, so about half of them think. Time left at the end is lost: with
0.4 (every move thinking) ``uct`` self-play on 8x8 at 15 s + 0.05 s used 38% of its clock, with
0.25 45-47%, and on 10x10 at 30 s + 0.05 s 82% (``benchmarks/clock.py --tc``, a game each on a
loaded machine; 8x8 games are proven sooner). A side that thinks on every move (no early stop)
spends more early and less late, and never runs out. ``time_max`` lets a search that is still
unsure go on, ``STRETCH`` times as long, but never past ``MOST_OF_LEFT`` of what is usable (all
of it on the last move before a refill): after the move at least that much is left, whatever
the estimate of the moves to come got wrong, so a clock never runs out by the manager's choice.
``GameClocks`` is both sides' clocks at a move, as a UCI ``go`` sends them; ``GameClocks.limit``
allots the side to move's time.

>>> from amazons_env import Board
>>> allot(Board(10), 60.0, 0.1)              # one minute + 0.1 s, at the start of a 10x10 game
Limit(time=2.554, time_max=10.216)
>>> allot(Board(10), 60.0, moves_to_go=1)    # the clock is refilled after this move
Limit(time=56.98, time_max=56.98)
>>> allot(Board(10), 0.001)                  # nothing usable is left: the least time of a move
Limit(time=0.005, time_max=0.005)
>>> GameClocks((60.0, 0.5), (0.1, 0.1)).limit(Board(position="3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 b"))
Limit(time=0.096, time_max=0.114)
>>> allot(Board(10), -1.0)
Traceback (most recent call last):
...
agents.search.clock.TimeControlError: time left -1.0: must be a finite number of seconds >= 0
"""

from __future__ import annotations

import gc
import math
import numbers
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Optional

from numba import njit, objmode, types

from amazons_env import Board, core
from amazons_env.errors import InvalidArgumentError, describe

from agents.search.result import Limit

__all__ = [
    "Clock",
    "now_ns",
    "as_ns",
    "frozen_heap",
    "freeze_survivors",
    "clock_name",
    "RESERVE",
    "CHECK_EVERY",
    "NEVER",
    "CLOCKS",
    "RENAMED_CLOCKS",
    "TimeControlError",
    "GameClocks",
    "allot",
    "expected_moves",
    "contested_squares",
    "seconds",
    "MOVE_OVERHEAD",
    "MOVES_PER_EMPTY",
    "STRETCH",
    "MOST_OF_LEFT",
    "SAFETY",
    "LEAST_TIME",
]

#: the share of a move's time always kept back for returning the move
RESERVE = 0.01
#: the most of a move's time that lateness may keep back
MOST_KEPT = 0.2
#: how fast the remembered lateness fades, per search
FADE = 0.9
#: evaluator calls (or nodes) between two readings of the clock inside a search
CHECK_EVERY = 64
#: a deadline that never comes
NEVER = 1 << 62
#: the time managers an agent's ``clock`` option names: ``full`` (deepen until the deadline and
#: abort there) and ``predict`` (predict from the measured rate whether an iteration fits, and
#: stop early: about 0.6 of the time per move)
CLOCKS = ("full", "predict")
#: former names of time managers, still accepted for one version with a ``DeprecationWarning``
RENAMED_CLOCKS = {"legacy": "predict"}
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
    that are not a whole number >= 1); the message names it."""


@njit(types.int64(), cache=True)
def now_ns():
    """``time.perf_counter_ns()``, callable from numba code."""
    with objmode(t="int64"):
        t = time.perf_counter_ns()
    return t


def clock_name(name: str) -> str:
    """The time manager the ``clock`` option ``name`` stands for: one of ``CLOCKS``, or the
    current name of a renamed one (with a ``DeprecationWarning``); ``InvalidArgumentError``
    naming the value otherwise.

    >>> clock_name("full")
    'full'
    >>> clock_name("fast")
    Traceback (most recent call last):
    ...
    amazons_env.errors.InvalidArgumentError: clock='fast': use one of full, predict
    """
    if name in RENAMED_CLOCKS:
        warnings.warn(
            f"clock={name} is now called clock={RENAMED_CLOCKS[name]}; the old name will be removed",
            DeprecationWarning,
            stacklevel=3,
        )
        return RENAMED_CLOCKS[name]
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
    agents.search.clock.TimeControlError: increment nan: must be a finite number of seconds >= 0
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


@dataclass(frozen=True)
class GameClocks:
    """Both sides' game clocks when a side is to move: seconds ``left`` of White and Black, the
    ``increment`` each gets after its move (Fischer) and the ``moves_to_go`` until the clocks are
    refilled (``None``: not before the game ends). Checked when made (``TimeControlError``
    naming the reading)."""

    left: tuple[float, float]
    increment: tuple[float, float] = (0.0, 0.0)
    moves_to_go: Optional[int] = None

    def __post_init__(self) -> None:
        for name in ("left", "increment"):
            pair = getattr(self, name)
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TimeControlError(f"clocks' {name} {describe(pair)}: give White's and Black's seconds")
            object.__setattr__(
                self, name, tuple(seconds(v, f"{side}'s {name}") for v, side in zip(pair, ("White", "Black")))
            )
        object.__setattr__(self, "moves_to_go", _moves_to_go(self.moves_to_go))

    def limit(self, board: Board, overhead: float = MOVE_OVERHEAD) -> Limit:
        """The side to move's ``Limit`` in ``board`` (``allot``)."""
        side = int(board.turn)
        return allot(board, self.left[side], self.increment[side], self.moves_to_go, overhead)


def as_ns(deadline: float) -> int:
    """A ``perf_counter`` deadline in ``perf_counter_ns`` units (``NEVER`` if infinite)."""
    return NEVER if deadline == float("inf") else int(deadline * 1e9)


class Clock:
    """One agent's clock (module docstring): when to stop, learnt from how late it returned."""

    def __init__(self) -> None:
        self.late = 0.0  # seconds: a fading maximum of how long after its stop a search returned

    def stop(self, start: float, seconds: float) -> float:
        """The ``perf_counter`` time at which a search started at ``start`` with ``seconds`` to
        think must stop."""
        return start + seconds - RESERVE * seconds - min(self.late, MOST_KEPT * seconds)

    def returned(self, stop: float, bounded_from: float = float("-inf")) -> None:
        """Learn from a search that had to stop at ``stop`` and is returning now. ``bounded_from``:
        when the deadline came into force, for a search whose first iteration runs unbounded so
        that there is a move to play; time spent before it (a slow first iteration, a cold start
        loading a net) is not lateness, and learning it would cut the next moves short."""
        self.late = max(time.perf_counter() - max(stop, bounded_from), FADE * self.late, 0.0)


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Collect the garbage, then freeze the surviving objects for the ``with`` block (module
    docstring); they are unfrozen after it. Nothing is done inside a block that is already frozen
    (ours or the caller's ``gc.freeze()``)."""
    if gc.get_freeze_count():
        yield
        return
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def freeze_survivors() -> None:
    """Inside ``frozen_heap``: collect the garbage the last move left and freeze what survives,
    so that the next move starts with nothing for a full collection to scan. Call it between
    moves, off the clock: it scans only what is not frozen yet (after an agent's first move, the
    net it loaded: up to ~0.15 s; later moves, well under a millisecond). Outside a frozen block
    it does nothing."""
    if gc.get_freeze_count():
        gc.collect()
        gc.freeze()
