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
"""

from __future__ import annotations

import gc
import time
import warnings
from contextlib import contextmanager
from typing import Iterator

from numba import njit, objmode, types

from amazons_env.errors import InvalidArgumentError, describe

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
