"""``Move``: one full Amazons turn (a queen move and the arrow it shoots).

>>> move = Move.parse("d1-d7/g7")
>>> move
Move.parse('d1-d7/g7')
>>> str(move), move.fsf()
('d1-d7/g7', 'd1d7,d7g7')
>>> Move.parse("d1d7,d7g7") == move
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from amazons_env.errors import InvalidMoveError, describe
from amazons_env.squares import as_square, check_size, parse_square, square_name

__all__ = ["Move"]

_SQ = r"([a-l](?:1[0-2]|[1-9]))"
# Possessive ``\s*+``: the runs of spaces around the separators are taken whole, never given back,
# so matching is linear in the text (``\s*[-x]?\s*`` backtracks quadratically on "a1" + spaces).
_STANDARD_RE = re.compile(rf"{_SQ}\s*+[-x]?\s*+{_SQ}\s*+[/(]\s*+{_SQ}\)?\Z")
_FSF_RE = re.compile(rf"{_SQ}{_SQ},{_SQ}{_SQ}\Z")
NOT_A_MOVE = "a queen must leave its square, and its arrow the queen's new square"


@dataclass(frozen=True, order=True)
class Move:
    """A queen moves from ``from_square`` to ``to_square``, then shoots an arrow to ``arrow``.

    Squares are ints ``rank * size + file`` (a1 = 0); ``size`` is the board size they refer to.
    Moves are frozen, hashable and ordered, so they can be dictionary keys and sorted.
    """

    from_square: int
    to_square: int
    arrow: int
    size: int = 10

    def __post_init__(self) -> None:
        size = check_size(self.size)
        if type(self.size) is not int:
            object.__setattr__(self, "size", size)  # numpy ints become plain ints
        for name in ("from_square", "to_square", "arrow"):
            given = getattr(self, name)
            if type(given) is int and 0 <= given < size * size:
                continue  # the common case (Board.legal_moves builds thousands): nothing to convert
            value = as_square(given, size)
            if value is None:
                raise InvalidMoveError(f"{name}={describe(given)} is not a square of a {size}x{size} board")
            object.__setattr__(self, name, value)  # numpy ints become plain ints
        if self.from_square == self.to_square or self.to_square == self.arrow:
            squares = f"{self.from_square}, {self.to_square}, {self.arrow}"
            raise InvalidMoveError(f"{self} (squares {squares}) is not a move: {NOT_A_MOVE}")

    @classmethod
    def parse(cls, text: str, size: int = 10) -> "Move":
        """Read ``"d1-d7/g7"`` (also ``"d1d7/g7"``, ``"d1-d7(g7)"``) or Fairy-Stockfish's ``"d1d7,d7g7"``
        (ASCII only: a look-alike letter or digit from elsewhere in Unicode is refused)."""
        size = check_size(size)
        if not isinstance(text, str):
            raise InvalidMoveError(f"expected move text like 'd1-d7/g7', got {describe(text)}")
        cleaned = text.strip().lower() if text.isascii() else ""
        m = _STANDARD_RE.match(cleaned)
        if m:
            names = m.groups()
        else:
            m = _FSF_RE.match(cleaned)
            if m is None:
                raise InvalidMoveError(
                    f"{describe(text)} is not a move: expected 'd1-d7/g7' or Fairy-Stockfish's 'd1d7,d7g7'"
                )
            names = (m.group(1), m.group(2), m.group(4))
            if m.group(3) != m.group(2):
                raise InvalidMoveError(
                    f"{describe(text)}: the arrow must be shot from the queen's new square {m.group(2)}"
                )
        try:
            frm, to, arrow = (parse_square(name, size) for name in names)
        except InvalidMoveError as error:
            raise InvalidMoveError(f"{describe(text)}: {error}") from None
        if frm == to or to == arrow:  # said in the words typed
            raise InvalidMoveError(f"{describe(text)} is not a move: {NOT_A_MOVE}")
        return cls(frm, to, arrow, size)

    def __str__(self) -> str:
        f, t, a = (square_name(s, self.size) for s in (self.from_square, self.to_square, self.arrow))
        return f"{f}-{t}/{a}"

    def fsf(self) -> str:
        """Fairy-Stockfish (UCI) notation: ``"d1d7,d7g7"``."""
        f, t, a = (square_name(s, self.size) for s in (self.from_square, self.to_square, self.arrow))
        return f"{f}{t},{t}{a}"

    def __repr__(self) -> str:
        if self.size == 10:
            return f"Move.parse({str(self)!r})"
        return f"Move.parse({str(self)!r}, size={self.size})"
