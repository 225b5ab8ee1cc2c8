"""The searches' clock: a wall-clock deadline that numba searches check while they run.

``time=T`` means about T seconds of thought per move. A search cannot know in advance how long
its next iteration will take (the tree grows by a factor of 5-30 per whole move, and the machine
may be shared), so instead of predicting, the timed searches keep deepening and **abort on the
deadline**. Inside numba the clock is read through ``now_ns`` (an ``objmode`` call to
``time.perf_counter_ns``, about 1 us), every ``CHECK_EVERY`` evaluator calls or nodes, so the
search stops within one node's work of the deadline.

``deadline_ns(start, seconds)`` is the moment to stop: ``seconds`` after ``start``
(``time.perf_counter()``) less ``RESERVE``, the share kept back for the work between the abort
and the move reaching the caller (unwinding, building the ``Move``) and for the last node's
overrun.

>>> import time
>>> start = time.perf_counter()
>>> now_ns() >= int(start * 1e9), round((deadline_ns(start, 1.0) - start * 1e9) / 1e6)
(True, 980)
"""

from __future__ import annotations

import time

from numba import njit, objmode, types

__all__ = ["now_ns", "deadline_ns", "seconds_left", "RESERVE", "CHECK_EVERY", "NEVER", "CLOCKS"]

#: the share of a move's time kept back for returning the move (see the module docstring)
RESERVE = 0.02
#: evaluator calls (or nodes) between two readings of the clock inside a search
CHECK_EVERY = 64
#: a deadline that never comes
NEVER = 1 << 62
#: the time managers an agent's ``clock`` option names: ``full`` (deepen until the deadline and
#: abort there) and ``legacy`` (the round-one managers, which predict and stop early)
CLOCKS = ("full", "legacy")


@njit(types.int64(), cache=True)
def now_ns():
    """``time.perf_counter_ns()``, callable from numba code."""
    with objmode(t="int64"):
        t = time.perf_counter_ns()
    return t


def deadline_ns(start: float, seconds: float) -> int:
    """The ``perf_counter_ns`` value at which a search started at ``start`` with ``seconds`` to
    think must stop (``RESERVE`` of it kept back)."""
    return int((start + seconds * (1.0 - RESERVE)) * 1e9)


def seconds_left(deadline: int) -> float:
    """Seconds until ``deadline`` (a ``deadline_ns`` value); negative once it has passed."""
    return (deadline - time.perf_counter_ns()) / 1e9
