"""agents: players for the Game of the Amazons, behind one interface (``Agent.select_move``).

>>> from agents import make
>>> from amazons_env import Board
>>> board = Board(6)
>>> board.is_legal(make("random", seed=0).select_move(board))
True
"""

from .base import Agent
from .registry import DEFAULT_OPPONENT, available, make, parse_spec, register

__all__ = ["Agent", "make", "register", "parse_spec", "available", "DEFAULT_OPPONENT"]
