"""The agent interface: one object that plays in board-level matches and (through
``agents.env_adapter``) in the two-phase gymnasium env.

An agent is anything with ``select_move(board) -> Move``; subclass ``Agent`` to get seeding and
a name. Agents must not leave the board changed (push/pop inside is fine).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Optional

import numpy as np

from amazons_env import Board, Move

__all__ = ["Agent"]


class Agent(ABC):
    """Base class for players.

    ``seed(k)`` makes every later random choice reproducible; ``reset()`` is called before each
    new game (drop trees, tables, clocks that belong to one game). ``spec`` is the registry string
    that rebuilds the agent, e.g. ``"two-iteration:depth=3,eval=improved"``.
    """

    name: str = "agent"

    def __init__(self, seed: Optional[int] = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.spec = self.name

    def seed(self, seed: Optional[int]) -> None:
        """Reseed the agent's random generator."""
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:  # noqa: B027 - optional: most agents keep nothing between games
        """Forget everything that belongs to the previous game."""

    @abstractmethod
    def select_move(self, board: Board) -> Move:
        """The move to play in ``board``'s position (the side to move has at least one move)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec!r}>"
