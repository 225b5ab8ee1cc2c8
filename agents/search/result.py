"""What every search returns: ``SearchResult`` (what bounds one move's thought: ``agents.time.limit``).

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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from amazons_env import Move

__all__ = ["SearchResult"]


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
