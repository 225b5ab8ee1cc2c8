"""When a timed search must stop: ``Margin``, what one agent keeps back from each move's time for
returning the move, learnt from how late its recent searches came back.

``time=T`` means about T seconds of thought per move. A search cannot know in advance how long
its next iteration will take, so instead of predicting, the timed searches keep deepening and
abort on the deadline (``agents.time.clock``). ``Margin.stop(start, seconds)`` is that deadline, in
``time.perf_counter()`` seconds: ``seconds`` after ``start`` less ``RESERVE`` of the time and less
the lateness of the agent's recent searches (how long after their stop they returned: unwinding,
building the ``Move``, being descheduled on a busy machine), at most ``MOST_KEPT`` of the time.
``Margin.returned`` learns that lateness, fading by ``FADE`` per search.

>>> margin = Margin()
>>> round(margin.stop(100.0, 1.0), 6)
100.99
>>> margin.late = 0.05                  # the last searches came back 50 ms after their stop
>>> round(margin.stop(100.0, 1.0), 6)
100.94
"""

from __future__ import annotations

import time

__all__ = ["Margin", "RESERVE", "MOST_KEPT", "FADE"]

#: the share of a move's time always kept back for returning the move
RESERVE = 0.01
#: the most of a move's time that lateness may keep back
MOST_KEPT = 0.2
#: how fast the remembered lateness fades, per search
FADE = 0.9


class Margin:
    """One agent's margin (module docstring): when to stop, learnt from how late it returned."""

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
