"""A game's time control: ``TimeControl``, a Fischer clock, written ``MINUTES+INC`` as ``amazons
match --tc`` takes it: ``seconds`` for the game and ``increment`` seconds added after each move
(``"1+0.1"``: a minute and 0.1 s a move; ``"0.5"``: 30 seconds, no increment).

>>> TimeControl.parse("1+0.1"), str(TimeControl.parse("0.5"))
(TimeControl(seconds=60.0, increment=0.1), '0.5+0')
>>> TimeControl.parse("1+fast")
Traceback (most recent call last):
...
agents.time.manager.TimeControlError: time control '1+fast': give MINUTES+INC, e.g. '1+0.1' or '0.5'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from amazons_env.errors import describe

from agents.time.manager import TimeControlError

__all__ = ["TimeControl"]


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
