"""agents: players for the Game of the Amazons, behind one interface (``Agent.select_move``).

>>> from agents import make
>>> from amazons_env import Board
>>> board = Board(6)
>>> board.is_legal(make("random", seed=0).select_move(board))
True
"""

import importlib
from typing import TYPE_CHECKING

from agents.base import Agent
from agents.registry import DEFAULT_OPPONENT, available, make, parse_spec, register

__all__ = [
    "Agent",
    "SearchAgent",
    "SearchResult",
    "Limit",
    "make",
    "register",
    "parse_spec",
    "available",
    "DEFAULT_OPPONENT",
]

# the search base loads numba's clock (about 0.4 s): imported on first use, not with ``agents``
_LAZY = {"SearchAgent": "agents.search.agent", "SearchResult": "agents.search.result", "Limit": "agents.time.limit"}


if TYPE_CHECKING:  # type checkers see the lazy names as what they are
    from agents.search.agent import SearchAgent
    from agents.search.result import SearchResult
    from agents.time.limit import Limit


def __getattr__(name: str) -> object:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'agents' has no attribute {name!r}")
