"""``random``: a uniformly random legal move."""

from __future__ import annotations

from typing import Optional

from amazons_env import Board, Move
from amazons_env.errors import InvalidArgumentError

from agents.base import Agent
from agents.registry import register

__all__ = ["RandomAgent"]


@register("random")
class RandomAgent(Agent):
    """Plays a legal move chosen uniformly at random (seeded)."""

    name = "random"

    def __init__(self, seed: Optional[int] = None) -> None:
        super().__init__(seed)

    def select_move(self, board: Board) -> Move:
        moves = board.legal_moves_array()
        if len(moves) == 0:
            raise InvalidArgumentError(f"random agent asked to move in a finished game: {board.text()!r}")
        f, t, a = moves[self.rng.integers(len(moves))].tolist()
        return Move(f, t, a, board.size)
