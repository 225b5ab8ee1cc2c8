"""``Outcome``: how a finished game ended (who made the last move, after how many plies).

>>> from amazons_env.squares import Color
>>> outcome = Outcome(Color.BLACK, plies=41)
>>> outcome.loser, outcome.result()
(Color.WHITE, '0-1')
"""

from __future__ import annotations

from dataclasses import dataclass

from amazons_env.errors import InvalidArgumentError, describe
from amazons_env.squares import Color, as_int

__all__ = ["Outcome"]


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: ``winner`` made the last move; ``loser`` had no move left."""

    winner: Color
    plies: int

    def __post_init__(self) -> None:
        winner, plies = as_int(self.winner), as_int(self.plies)
        if winner not in (0, 1) or winner is None or plies is None or plies < 0:
            raise InvalidArgumentError(
                f"Outcome(winner={describe(self.winner)}, plies={describe(self.plies)}): "
                "winner must be a Color and plies an integer >= 0"
            )
        object.__setattr__(self, "winner", Color(winner))
        object.__setattr__(self, "plies", plies)

    @property
    def loser(self) -> Color:
        return self.winner.other

    def result(self) -> str:
        """``"1-0"`` if White won, ``"0-1"`` if Black won."""
        return "1-0" if self.winner == Color.WHITE else "0-1"
