"""agents: players for the Game of the Amazons, behind one interface (``Agent.select_move``).

>>> from agents import make
>>> from amazons_env import Board
>>> board = Board(6)
>>> board.is_legal(make("random", seed=0).select_move(board))
True
"""

import importlib
from typing import TYPE_CHECKING

from amazons_env.moved import alias_moved_modules

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
_LAZY = {"SearchAgent": "agents.search.agent", "SearchResult": "agents.search.result", "Limit": "agents.search.result"}


if TYPE_CHECKING:  # type checkers see the lazy names as what they are
    from agents.search.agent import SearchAgent
    from agents.search.result import Limit, SearchResult


def __getattr__(name: str) -> object:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'agents' has no attribute {name!r}")


# the modules of the flat layout, moved into subpackages by concept
alias_moved_modules(
    {
        "agents.clock": "agents.search.clock",
        "agents.alphabeta": "agents.search.alphabeta",
        "agents.batched": "agents.search.batched_alphabeta",
        "agents.study_search": "agents.search.study",
        "agents.uct": "agents.search.uct",
        "agents.uct_tree": "agents.search.uct_tree",
        "agents.uct_net": "agents.search.uct_net",
        "agents.mcts": "agents.search.mcts",
        "agents.pvmcts": "agents.search.pvmcts",
        "agents.endgame": "agents.search.endgame",
        "agents.evaluator": "agents.evaluation.evaluator",
        "agents.evaluators_study": "agents.evaluation.study",
        "agents.territory": "agents.evaluation.territory",
        "agents.territory_bb": "agents.evaluation.territory_bitboard",
        "agents.bitboards": "agents.evaluation.bitboards",
        "agents.cnn": "agents.evaluation.cnn",
        "agents.arena_files": "agents.arena.files",
        "agents.backends": "agents.arena.backends",
        "agents.procs": "agents.arena.processes",
        "agents.uci": "agents.protocols.uci_engine",
        "agents.botzone": "agents.protocols.botzone",
        "agents.external": "agents.protocols.uci_client",
        "agents.play": "agents.ui.terminal",
        "agents.gui": "agents.ui.window",
    }
)
