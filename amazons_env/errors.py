"""The errors of the package. All subclass ``ValueError``, so ``except ValueError`` catches them."""

from __future__ import annotations

__all__ = ["InvalidMoveError", "IllegalMoveError", "InvalidPositionError"]


class InvalidMoveError(ValueError):
    """Malformed notation: a move, square or game record that cannot be read at all."""


class IllegalMoveError(ValueError):
    """A well-formed move that is not allowed in the position it was tried in."""


class InvalidPositionError(ValueError):
    """A board that cannot exist: wrong size, overlapping pieces, a side without queens, ..."""
