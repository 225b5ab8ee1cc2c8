"""The 8 symmetries of the square board (the dihedral group D4), on squares and moves.

Symmetry ``k`` (0..7) first transposes files and ranks if ``k & 4``, then mirrors the files if
``k & 1`` and the ranks if ``k & 2``. Amazons rules are invariant under all eight, so a position
and its image have the same number of legal moves (but the start position maps to itself only
under 0 and 1: mirroring ranks swaps where the colours start).

>>> transform_square(3, 1)  # d1 mirrored left-right is g1
6
"""

from __future__ import annotations

from amazons_env.errors import InvalidArgumentError, InvalidMoveError, describe
from amazons_env.move import Move
from amazons_env.squares import as_int, as_square, check_size

__all__ = ["SYMMETRIES", "transform_square", "transform_move"]

SYMMETRIES = (
    "identity",
    "mirror_files",
    "mirror_ranks",
    "rotate_180",
    "transpose",
    "rotate_90",
    "rotate_270",
    "anti_transpose",
)


def _check_symmetry(symmetry: object) -> int:
    value = as_int(symmetry)
    if value is None or not 0 <= value < 8:
        raise InvalidArgumentError(f"symmetry must be an integer from 0 to 7, got {describe(symmetry)}")
    return value


def transform_square(square: int, symmetry: int, size: int = 10) -> int:
    """The image of ``square`` under symmetry number ``symmetry`` on a ``size`` board."""
    symmetry, size = _check_symmetry(symmetry), check_size(size)
    sq = as_square(square, size)
    if sq is None:
        raise InvalidMoveError(f"square {describe(square)} is off a {size}x{size} board")
    file, rank = sq % size, sq // size
    if symmetry & 4:
        file, rank = rank, file
    if symmetry & 1:
        file = size - 1 - file
    if symmetry & 2:
        rank = size - 1 - rank
    return rank * size + file


def transform_move(move: Move, symmetry: int) -> Move:
    """The image of ``move`` under symmetry number ``symmetry``."""
    if not isinstance(move, Move):
        raise InvalidMoveError(f"expected a Move, got {describe(move)}")
    n = move.size
    return Move(
        transform_square(move.from_square, symmetry, n),
        transform_square(move.to_square, symmetry, n),
        transform_square(move.arrow, symmetry, n),
        n,
    )
