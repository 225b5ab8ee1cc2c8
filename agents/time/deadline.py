"""One search's time: ``Deadline``, when it stops, which another thread may move or halt while
it runs, and which a numba search reads at each clock check (``Deadline.ns``).
"""

from __future__ import annotations

import math
import time
from numbers import Real
from typing import Callable, Optional

import numpy as np

from amazons_env.errors import InvalidArgumentError, describe

from agents.time.clock import NEVER, as_ns
from agents.time.margin import Margin

__all__ = ["Deadline", "DEADLINE_STOP", "DEADLINE_LAST"]

#: the slots of ``Deadline.ns``: where a sure search stops, and the latest it may go on to
DEADLINE_STOP, DEADLINE_LAST = 0, 1


class Deadline:
    """One search's time, in ``time.perf_counter()`` seconds: it started at ``start``, stops at
    ``stop`` where it is sure of its move, and at ``last`` at the latest (a search that honours
    ``Limit.time_max`` goes on past ``stop`` while it is unsure; ``last`` defaults to ``stop``;
    ``inf``: no time limit).

    Another thread may ``move`` the deadline while the search runs (a ponder search started with
    ``stop=inf`` gets its time when the opponent plays the expected move): ``ns`` holds
    ``(stop, last)`` in ``perf_counter_ns`` units (``agents.time.clock.as_ns``), the array that a numba
    search reads at each clock check, so a moved deadline takes effect within one check.

    A search whose first iteration runs unbounded, so that there is a move to play, calls
    ``hold()`` when the deadline comes into force: time spent before it (a slow first iteration,
    a net loading) is not lateness for the margin to learn (``Margin.returned``).

    ``halt()`` is the caller's "move now" (the engine protocol's ``stop``): the deadline moves to
    now and ``halted`` is set, so that even an iteration that otherwise runs unbounded ends at
    its next clock check and the search plays the best move it has. A search that copies the
    deadline into arrays of its own (alpha-beta's ``stats``) registers a ``watch`` callback,
    called after every move of the deadline. ``margin`` is the agent's margin that set the
    deadline (``SearchAgent.timed``), which learns from how late the search came back; ``None``
    for a caller's own deadline (a ponder search's).

    >>> deadline = Deadline(10.0)
    >>> deadline.stop, deadline.passed(), int(deadline.ns[DEADLINE_STOP]) == NEVER
    (inf, False, True)
    >>> deadline.move(11.5, 12.0)
    >>> deadline.stop, deadline.last, int(deadline.ns[DEADLINE_LAST])
    (11.5, 12.0, 12000000000)
    >>> deadline.move(11.0, 10.5)
    Traceback (most recent call last):
    ...
    amazons_env.errors.InvalidArgumentError: Deadline last=10.5: must be a number >= stop (11.0)
    >>> seen = []
    >>> deadline.watch(lambda: seen.append(deadline.halted))
    >>> deadline.halt()
    >>> seen, deadline.passed()
    ([True], True)
    """

    def __init__(
        self, start: float, stop: float = math.inf, last: Optional[float] = None, margin: Optional[Margin] = None
    ) -> None:
        self.start = start
        self.held_from = -math.inf
        self.ns = np.full(2, NEVER, dtype=np.int64)
        self.stop = self.last = math.inf
        self.halted = False
        self.margin = margin
        self._watchers: list[Callable[[], None]] = []
        self.move(stop, last)

    def move(self, stop: float, last: Optional[float] = None) -> None:
        """Stop at ``stop`` (``perf_counter`` seconds, ``inf``: no time limit) and at ``last`` at
        the latest (default: ``stop``); safe to call from another thread while a search runs.
        ``InvalidArgumentError`` naming the value for a NaN or non-number, or ``last < stop``
        (the deadline is then left as it was)."""
        for name, value in (("stop", stop), ("last", last)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, Real) or math.isnan(value)):
                raise InvalidArgumentError(f"Deadline {name}={describe(value)}: must be a number (inf: no limit)")
        last = stop if last is None else last
        if last < stop:
            raise InvalidArgumentError(f"Deadline last={describe(last)}: must be a number >= stop ({stop})")
        self.stop, self.last = float(stop), float(last)
        self.ns[DEADLINE_LAST] = as_ns(self.last)
        self.ns[DEADLINE_STOP] = as_ns(self.stop)
        for watcher in self._watchers:
            watcher()

    def halt(self) -> None:
        """Move now, whatever the search is doing (class docstring); safe from another thread."""
        self.halted = True  # before the move: a watcher, or a search reading it, sees both
        now = time.perf_counter()
        self.move(min(now, self.stop), min(now, self.last))

    def watch(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` after each later ``move`` (and ``halt``), on the moving thread."""
        self._watchers.append(callback)

    def hold(self) -> None:
        """The deadline holds from now on."""
        self.held_from = time.perf_counter()

    def passed(self) -> bool:
        """Whether the time is up (``stop`` has come)."""
        return time.perf_counter() >= self.stop

    def __repr__(self) -> str:
        return f"Deadline(start={self.start!r}, stop={self.stop!r}, last={self.last!r})"
