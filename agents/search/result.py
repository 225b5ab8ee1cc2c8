"""What every search returns (``SearchResult``) and what bounds one move's thought (``Limit``).

All the searches (alpha-beta, the study's searches, UCT and the Monte Carlo trees, an external UCI
engine) answer with the same ``SearchResult``: the ``move``, its ``value`` for the side to move,
the ``depth`` completed (0 for a tree search), the ``nodes`` searched (simulations, for a tree
search), the ``seconds`` taken, and whatever else one search measures in ``stats`` (evaluator
calls, tree size, visit shares). A field of ``stats`` reads like an attribute, so
``result.simulations`` is ``result.stats["simulations"]``:

>>> from amazons_env import Move
>>> result = SearchResult(Move.parse("a1-a2/a3", 6), 0.25, nodes=200, seconds=0.5,
...                       stats={"simulations": 200, "tree": 4100})
>>> result.simulations, result.nodes_per_second
(200, 400.0)
>>> result.evals
Traceback (most recent call last):
...
AttributeError: SearchResult has no field or stat 'evals' (stats: simulations, tree)

A ``Limit`` is what a caller (the arena, ``amazons engine``'s ``go movetime``/``depth``/``nodes``,
Botzone's time per move) passes to ``SearchAgent.search`` for one move, instead of changing the
agent; any field left ``None`` does not bound the search. Every field is checked when the limit
is made, and a bad one is named:

>>> Limit(time=0.5, depth=3)
Limit(time=0.5, depth=3)
>>> Limit(depth=2.5)
Traceback (most recent call last):
...
agents.search.result.LimitError: Limit depth=2.5: must be a whole number >= 1
>>> Limit(time=1, nodes=10 ** 6).only(("time",))
Limit(time=1.0)
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, fields
from typing import Any, Iterable, Mapping, Optional

from amazons_env import Move
from amazons_env.errors import InvalidArgumentError, describe

__all__ = ["SearchResult", "Limit", "LimitError"]


class LimitError(InvalidArgumentError):
    """A ``Limit`` field that is not a valid bound (its name and value are in the message), or a
    limit that a search cannot honour."""


@dataclass(frozen=True)
class SearchResult:
    """One search's answer (module docstring). ``value`` is for the side to move: an evaluation
    in [-1, 1], or beyond it for a proven result in the searches that say so (alpha-beta's
    +-2). ``nodes`` counts all iterations of an iterative deepening; a tree search reports its
    simulations. ``stats`` holds the rest, readable as attributes: among them ``stopped``, why the
    search ended (``"time"``, ``"time_max"``, ``"simulations"``, ``"proven"``, ``"settled"``, or
    ``"decided"`` for a filling-phase move played without searching: ``agents.search.agent``), and
    for a search that ponders ``ponder``, the reply it expects. ``move`` is None only in the
    result of one iteration cut by its budget before it had a move
    (``batched_alphabeta``): ``SearchAgent.search`` always answers with a move."""

    move: Optional[Move]
    value: float
    depth: int = 0
    nodes: int = 0
    seconds: float = 0.0
    stats: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __getattr__(self, name: str) -> Any:
        # only called when ordinary lookup fails; ``vars`` avoids recursing while the object is
        # being built or unpickled (no ``stats`` yet)
        stats = vars(self).get("stats")
        if stats is not None and not name.startswith("__") and name in stats:
            return stats[name]
        known = ", ".join(stats) if stats else "none"
        raise AttributeError(f"SearchResult has no field or stat {name!r} (stats: {known})")

    @property
    def nodes_per_second(self) -> float:
        """``nodes / seconds`` (0 for a search that took no measurable time)."""
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


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

    >>> Limit(time=1, time_max=3)
    Limit(time=1.0, time_max=3.0)
    >>> Limit(time=1, time_max=3, depth=4).only(("time",))
    Limit(time=1.0, time_max=3.0)
    >>> Limit(time=1, time_max=3).only(("depth",))
    Limit()
    >>> Limit(time=2, time_max=1)
    Traceback (most recent call last):
    ...
    agents.search.result.LimitError: Limit time_max=1: seconds must be a finite number >= time (2.0)
    >>> Limit(time_max=1)
    Traceback (most recent call last):
    ...
    agents.search.result.LimitError: Limit time_max=1: needs time (the seconds a sure search thinks)
    """

    time: Optional[float] = None
    simulations: Optional[int] = None
    depth: Optional[int] = None
    nodes: Optional[int] = None
    time_max: Optional[float] = None

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
        for name in ("simulations", "depth", "nodes"):
            object.__setattr__(self, name, _whole(name, getattr(self, name)))

    def __repr__(self) -> str:
        return "Limit(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in self.bounds()) + ")"

    def __bool__(self) -> bool:
        """Whether any field bounds the search."""
        return any(getattr(self, f.name) is not None for f in fields(self))

    def bounds(self) -> tuple[str, ...]:
        """The names of the fields that are set, e.g. ``("time", "depth")``."""
        return tuple(f.name for f in fields(self) if getattr(self, f.name) is not None)

    def only(self, names: Iterable[str]) -> "Limit":
        """This limit with only the fields in ``names`` kept (what one search honours);
        ``time_max`` goes with ``time``."""
        keep = set(names)
        if "time" in keep:
            keep.add("time_max")
        return Limit(**{f.name: getattr(self, f.name) for f in fields(self) if f.name in keep})
