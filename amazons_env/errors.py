"""The errors of the package. All subclass ``ValueError``, so ``except ValueError`` catches them.

Every refusal names the input it refused, through ``describe`` (so a 100,000-character text or a
4,300-digit number gives a short message, not a second error):

>>> describe("d1-d7/g7")
"'d1-d7/g7'"
>>> describe("d1-d7/g7 " * 100, limit=20)
"'d1-d7/g7 d1-d7/g7 d1'... (900 chars)"
>>> describe(10 ** 5000)
'<int of 16610 bits>'
"""

from __future__ import annotations

__all__ = ["InvalidMoveError", "IllegalMoveError", "InvalidPositionError", "InvalidArgumentError",
           "UnreadableFileError", "describe"]


class InvalidMoveError(ValueError):
    """Malformed notation: a move, square or game record that cannot be read at all."""


class IllegalMoveError(ValueError):
    """A well-formed move that is not allowed in the position it was tried in."""


class InvalidPositionError(ValueError):
    """A board that cannot exist: wrong size, overlapping pieces, a side without queens, ..."""


class InvalidArgumentError(ValueError):
    """Any other argument that is not a valid value of its parameter: a symmetry number, a perft
    depth, a winner that is not a colour, ..."""


class UnreadableFileError(OSError, ValueError):
    """A file that cannot be read at all: missing, a directory, a bad path, not UTF-8 text.

    It is both an ``OSError`` (what ``open`` raises) and a ``ValueError`` (what every refusal of
    this package is), so either ``except`` catches it. Its message names the file."""


def describe(value: object, limit: int = 60) -> str:
    """A short printable name of ``value`` for error messages: its ``repr``, cut to about
    ``limit`` characters with the full length noted. Never raises (a huge int, whose ``repr``
    would, or an object whose ``repr`` fails, gets a description of its type)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 192:
        return f"<int of {value.bit_length()} bits>"
    if isinstance(value, (str, bytes)) and len(value) > limit:
        return f"{value[:limit]!r}... ({len(value)} {'chars' if isinstance(value, str) else 'bytes'})"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - any user object: its repr may raise anything
        return f"<{type(value).__name__} object>"
    return text if len(text) <= limit + 20 else f"{text[:limit]}... ({type(value).__name__})"
