"""Squares as ints, with names.

A square is ``rank * size + file`` with a1 = 0 (python-chess's numbering, for any board size):
files are letters ``a``.. from White's left, ranks are numbers ``1``.. from White's side.

>>> parse_square("d1")
3
>>> square_name(63)
'd7'
>>> square_name(square(2, 7, size=8), size=8)
'c8'
"""

from __future__ import annotations

import numbers
import operator
import re
from enum import IntEnum
from typing import Optional

from amazons_env.core import MAX_SIZE, MIN_SIZE
from amazons_env.errors import InvalidMoveError, InvalidPositionError, describe

__all__ = [
    "Color",
    "WHITE",
    "BLACK",
    "FILE_NAMES",
    "square",
    "square_file",
    "square_rank",
    "square_name",
    "parse_square",
    "check_size",
    "as_square",
    "as_int",
]

FILE_NAMES = "abcdefghijkl"
_SQUARE_RE = re.compile(r"([a-l])(1[0-2]|[1-9])\Z")


class Color(IntEnum):
    """The two sides. White moves first. ``int(color)`` indexes per-side arrays."""

    WHITE = 0
    BLACK = 1

    @property
    def other(self) -> "Color":
        return Color(1 - self)

    def __repr__(self) -> str:
        return f"Color.{self.name}"


WHITE = Color.WHITE
BLACK = Color.BLACK


def check_size(size: object) -> int:
    """``size`` as a plain int if it is a supported board size (numpy ints too, not bools or
    floats), else raise ``InvalidPositionError``."""
    value = as_int(size)
    if value is None or not MIN_SIZE <= value <= MAX_SIZE:
        raise InvalidPositionError(
            f"board size {describe(size)} is not supported: use an integer from {MIN_SIZE} to {MAX_SIZE}"
        )
    return value


def as_int(value: object) -> Optional[int]:
    """``value`` as a plain int if it is an integer (numpy integer scalars too; not bools, floats,
    or arrays, even 0-d ones), else ``None``."""
    if type(value) is int:  # the common case, first: Board.legal_moves builds thousands of Moves
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    return operator.index(value)


def as_square(value: object, size: int) -> Optional[int]:
    """``value`` as a plain int if it is an integer (numpy ints too, not bools) naming a square of
    a ``size`` x ``size`` board, else ``None``."""
    sq = as_int(value)
    return sq if sq is not None and 0 <= sq < size * size else None


def _square_arg(sq: object, size: object) -> tuple[int, int]:
    """Check the ``(sq, size)`` arguments of the square functions; return them as plain ints."""
    size = check_size(size)
    value = as_square(sq, size)
    if value is None:
        raise InvalidMoveError(
            f"square {describe(sq)} is off a {size}x{size} board (squares are integers from 0 to {size * size - 1})"
        )
    return value, size


def square(file: int, rank: int, size: int = 10) -> int:
    """The square on ``file`` and ``rank`` (both counted from 0)."""
    size = check_size(size)
    f, r = as_int(file), as_int(rank)
    if f is None or r is None or not (0 <= f < size and 0 <= r < size):
        raise InvalidMoveError(f"file {describe(file)}, rank {describe(rank)} is off a {size}x{size} board")
    return r * size + f


def square_file(sq: int, size: int = 10) -> int:
    """The file of ``sq``, counted from 0 (a = 0)."""
    sq, size = _square_arg(sq, size)
    return sq % size


def square_rank(sq: int, size: int = 10) -> int:
    """The rank of ``sq``, counted from 0 (rank 1 = 0)."""
    sq, size = _square_arg(sq, size)
    return sq // size


def square_name(sq: int, size: int = 10) -> str:
    """The name of ``sq``, like ``"d1"``."""
    sq, size = _square_arg(sq, size)
    return f"{FILE_NAMES[sq % size]}{sq // size + 1}"


def parse_square(name: str, size: int = 10) -> int:
    """The square named ``name`` (like ``"d1"``, ASCII only) on a ``size`` x ``size`` board."""
    size = check_size(size)
    m = _SQUARE_RE.match(name.strip().lower()) if isinstance(name, str) and name.isascii() else None
    if m is None:
        raise InvalidMoveError(f"{describe(name)} is not a square name (expected a file letter and a rank, like 'd1')")
    file, rank = FILE_NAMES.index(m.group(1)), int(m.group(2)) - 1
    if file >= size or rank >= size:
        raise InvalidMoveError(f"square {describe(name)} is off a {size}x{size} board")
    return rank * size + file
