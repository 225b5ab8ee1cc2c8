"""What bounds one move's thought: ``Limit``, as python-chess's ``chess.engine.Limit``.

A caller (the arena, ``amazons engine``'s ``go``, Botzone's time per move, a script) passes a
``Limit`` for one move to ``SearchAgent.search`` or ``agents.search.agent.think``, instead of
changing the agent; a field left ``None`` does not bound the search. It holds seconds (``time``,
and ``time_max`` for a game clock's manager), counts (``simulations``, ``depth``, ``nodes``) and
the game clocks (``white_clock``, ``black_clock`` with ``white_inc``, ``black_inc`` and
``remaining_moves``), which the time manager turns into the side to move's ``time`` and
``time_max`` (``agents.time.manager.move_limit``). Every field is checked when the limit is made,
and a bad one is named:

>>> Limit(time=0.5, depth=3)
Limit(time=0.5, depth=3)
>>> Limit(depth=2.5)
Traceback (most recent call last):
...
agents.time.limit.LimitError: Limit depth=2.5: must be a whole number >= 1
>>> Limit(time=1, nodes=10 ** 6).only(("time",))
Limit(time=1.0)
>>> Limit(white_clock=60, black_clock=55.5, white_inc=0.1, black_inc=0.1).clocked
True
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, fields
from typing import Any, Iterable, Optional

from amazons_env.errors import InvalidArgumentError, describe

__all__ = ["Limit", "LimitError", "CLOCK_FIELDS"]

#: the fields of a game clock, which go with ``time`` (``Limit.only``)
CLOCK_FIELDS = ("white_clock", "black_clock", "white_inc", "black_inc", "remaining_moves")


class LimitError(InvalidArgumentError):
    """A ``Limit`` field that is not a valid bound (its name and value are in the message), or a
    limit that a search cannot honour."""


def _seconds(value: Any) -> bool:
    """Whether ``value`` is a number of seconds a search can think: finite and > 0."""
    return not isinstance(value, bool) and isinstance(value, numbers.Real) and 0 < float(value) < math.inf


def _whole(name: str, value: Any) -> Optional[int]:
    if value is None:
        return None
    if not isinstance(value, bool) and isinstance(value, numbers.Integral) and int(value) >= 1:
        return int(value)
    if isinstance(value, float) and value.is_integer() and value >= 1:
        return int(value)
    raise LimitError(f"Limit {name}={describe(value)}: must be a whole number >= 1")


def _clock_seconds(name: str, value: Any) -> Optional[float]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= float(value) < math.inf:
        raise LimitError(f"Limit {name}={describe(value)}: must be a finite number of seconds >= 0")
    return float(value)


@dataclass(frozen=True)
class Limit:
    """Bounds on one move's search, all optional (module docstring): ``time`` seconds (a finite
    number > 0), ``simulations`` (tree searches), ``depth`` (whole moves) and ``nodes`` (whole
    numbers >= 1). A search stops at the first bound it reaches; ``SearchAgent.LIMITS`` says
    which fields a search honours.

    ``time_max`` (seconds, >= ``time``; only with ``time``) is for a game clock's time manager,
    which banks what a move does not use: a search that honours it (``uct``) thinks ``time``,
    stops sooner where its move can no longer change (``stopped="settled"``), and goes on up to
    ``time_max`` while it is unsure (``stopped="time_max"``). It goes with ``time``: a search
    that honours ``time`` accepts it, and one that cannot go on simply stops at ``time``.

    The game clocks: ``white_clock`` and ``black_clock`` the seconds left of each side (>= 0),
    ``white_inc`` and ``black_inc`` the seconds each gets after its move (Fischer), and
    ``remaining_moves`` the moves until the clocks are refilled (``None``: not before the game
    ends). They go with ``time`` too: where ``time`` is not given, the time manager sets it (and
    ``time_max``) from the side to move's clock (``agents.time.manager.move_limit``); a given
    ``time`` is kept.

    >>> Limit(time=1, time_max=3)
    Limit(time=1.0, time_max=3.0)
    >>> Limit(time=1, time_max=3, depth=4).only(("time",))
    Limit(time=1.0, time_max=3.0)
    >>> Limit(time=1, time_max=3).only(("depth",))
    Limit()
    >>> Limit(time=2, time_max=1)
    Traceback (most recent call last):
    ...
    agents.time.limit.LimitError: Limit time_max=1: seconds must be a finite number >= time (2.0)
    >>> Limit(time_max=1)
    Traceback (most recent call last):
    ...
    agents.time.limit.LimitError: Limit time_max=1: needs time (the seconds a sure search thinks)
    >>> Limit(white_inc=0.1)
    Traceback (most recent call last):
    ...
    agents.time.limit.LimitError: Limit white_inc=0.1: needs a clock (white_clock or black_clock)
    """

    time: Optional[float] = None
    simulations: Optional[int] = None
    depth: Optional[int] = None
    nodes: Optional[int] = None
    time_max: Optional[float] = None
    white_clock: Optional[float] = None
    black_clock: Optional[float] = None
    white_inc: Optional[float] = None
    black_inc: Optional[float] = None
    remaining_moves: Optional[int] = None

    def __post_init__(self) -> None:
        time, most = self.time, self.time_max
        if time is not None:
            if not _seconds(time):
                raise LimitError(f"Limit time={describe(time)}: seconds must be a finite number > 0")
            object.__setattr__(self, "time", float(time))
        if most is not None:
            if time is None:
                raise LimitError(f"Limit time_max={describe(most)}: needs time (the seconds a sure search thinks)")
            if not _seconds(most) or most < time:
                raise LimitError(
                    f"Limit time_max={describe(most)}: seconds must be a finite number >= time ({self.time!r})"
                )
            object.__setattr__(self, "time_max", float(most))
        for name in ("simulations", "depth", "nodes", "remaining_moves"):
            object.__setattr__(self, name, _whole(name, getattr(self, name)))
        for name in ("white_clock", "black_clock", "white_inc", "black_inc"):
            object.__setattr__(self, name, _clock_seconds(name, getattr(self, name)))
        if not self.clocked:
            for name in ("white_inc", "black_inc", "remaining_moves"):
                if getattr(self, name) is not None:
                    raise LimitError(
                        f"Limit {name}={describe(getattr(self, name))}: needs a clock (white_clock or black_clock)"
                    )

    def __repr__(self) -> str:
        return "Limit(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in self.bounds()) + ")"

    def __bool__(self) -> bool:
        """Whether any field bounds the search."""
        return any(getattr(self, f.name) is not None for f in fields(self))

    @property
    def clocked(self) -> bool:
        """Whether the limit holds a game clock (``white_clock`` or ``black_clock``)."""
        return self.white_clock is not None or self.black_clock is not None

    def bounds(self) -> tuple[str, ...]:
        """The names of the fields that are set, e.g. ``("time", "depth")``."""
        return tuple(f.name for f in fields(self) if getattr(self, f.name) is not None)

    def only(self, names: Iterable[str]) -> "Limit":
        """This limit with only the fields in ``names`` kept (what one search honours);
        ``time_max`` and the game clocks go with ``time``."""
        keep = set(names)
        if "time" in keep:
            keep.update(("time_max", *CLOCK_FIELDS))
        return Limit(**{f.name: getattr(self, f.name) for f in fields(self) if f.name in keep})
