"""The 8 symmetries of the square board (the dihedral group D4), on squares and moves.

Symmetry ``k`` (0..7) first transposes files and ranks if ``k & 4``, then mirrors the files if
``k & 1`` and the ranks if ``k & 2``. Amazons rules are invariant under all eight, so a position
and its image have the same number of legal moves (but the start position maps to itself only
under 0 and 1: mirroring ranks swaps where the colours start).

>>> transform_square(3, 1)  # d1 mirrored left-right is g1
6
"""

from __future__ import annotations

from .move import Move

__all__ = ["SYMMETRIES", "transform_square", "transform_move"]

SYMMETRIES = ("identity", "mirror_files", "mirror_ranks", "rotate_180",
              "transpose", "rotate_90", "rotate_270", "anti_transpose")


def transform_square(square: int, symmetry: int, size: int = 10) -> int:
    """The image of ``square`` under symmetry number ``symmetry`` on a ``size`` board."""
    if not 0 <= symmetry < 8:
        raise ValueError(f"symmetry must be 0..7, got {symmetry!r}")
    file, rank = square % size, square // size
    if symmetry & 4:
        file, rank = rank, file
    if symmetry & 1:
        file = size - 1 - file
    if symmetry & 2:
        rank = size - 1 - rank
    return rank * size + file


def transform_move(move: Move, symmetry: int) -> Move:
    """The image of ``move`` under symmetry number ``symmetry``."""
    n = move.size
    return Move(transform_square(move.from_square, symmetry, n),
                transform_square(move.to_square, symmetry, n),
                transform_square(move.arrow, symmetry, n), n)
