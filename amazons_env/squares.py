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

import operator
import re
from enum import IntEnum
from typing import Optional

from .core import MAX_SIZE, MIN_SIZE
from .errors import InvalidMoveError, InvalidPositionError

__all__ = ["Color", "WHITE", "BLACK", "FILE_NAMES", "square", "square_file", "square_rank",
           "square_name", "parse_square", "check_size", "as_square"]

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


def check_size(size: int) -> int:
    """Return ``size`` if it is a supported board size, else raise ``InvalidPositionError``."""
    if isinstance(size, bool) or not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise InvalidPositionError(
            f"board size {size!r} is not supported: use an integer from {MIN_SIZE} to {MAX_SIZE}")
    return size


def as_square(value: object, size: int) -> Optional[int]:
    """``value`` as a plain int if it is an integer (numpy ints too, not bools) naming a square of
    a ``size`` x ``size`` board, else ``None``."""
    if isinstance(value, bool):
        return None
    try:
        sq = operator.index(value)
    except TypeError:
        return None
    return sq if 0 <= sq < size * size else None


def square(file: int, rank: int, size: int = 10) -> int:
    """The square on ``file`` and ``rank`` (both counted from 0)."""
    if not (0 <= file < size and 0 <= rank < size):
        raise InvalidMoveError(f"file {file}, rank {rank} is off a {size}x{size} board")
    return rank * size + file


def square_file(sq: int, size: int = 10) -> int:
    """The file of ``sq``, counted from 0 (a = 0)."""
    return sq % size


def square_rank(sq: int, size: int = 10) -> int:
    """The rank of ``sq``, counted from 0 (rank 1 = 0)."""
    return sq // size


def square_name(sq: int, size: int = 10) -> str:
    """The name of ``sq``, like ``"d1"``."""
    if not 0 <= sq < size * size:
        raise InvalidMoveError(f"square {sq!r} is off a {size}x{size} board")
    return f"{FILE_NAMES[sq % size]}{sq // size + 1}"


def parse_square(name: str, size: int = 10) -> int:
    """The square named ``name`` (like ``"d1"``) on a ``size`` x ``size`` board."""
    m = _SQUARE_RE.match(name.strip().lower()) if isinstance(name, str) else None
    if m is None:
        raise InvalidMoveError(f"{name!r} is not a square name (expected a file letter and a rank, like 'd1')")
    file, rank = FILE_NAMES.index(m.group(1)), int(m.group(2)) - 1
    if file >= size or rank >= size:
        raise InvalidMoveError(f"square {name!r} is off a {size}x{size} board")
    return rank * size + file
