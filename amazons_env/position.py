"""Setting up positions: start layouts, validation, and the text position format.

The text format is Fairy-Stockfish's FEN for its ``amazons`` variant, cut to what Amazons needs:
ranks from the top, separated by ``/``; ``Q`` a White queen, ``q`` a Black queen, ``*`` an arrow,
a number a run of empty squares; then ``w`` or ``b`` for the side to move. Any further FEN fields
(``- - 0 1``) are accepted and ignored, so Fairy-Stockfish FENs load as they are.

>>> format_position(6, *start_layout(6), 0)
'1q2q1/q4q/6/6/Q4Q/1Q2Q1 w'
"""

from __future__ import annotations

import re
from itertools import islice
from typing import Iterable, NamedTuple

from amazons_env.core import MAX_QUEENS
from amazons_env.errors import InvalidPositionError, describe
from amazons_env.squares import as_square, check_size, square_name

__all__ = ["Layout", "start_layout", "validate_layout", "parse_position", "format_position"]


class Layout(NamedTuple):
    """Where everything stands: public squares of White's and Black's queens and of the arrows."""

    white: tuple[int, ...]
    black: tuple[int, ...]
    arrows: tuple[int, ...]


def start_layout(size: int) -> Layout:
    """The start position of a ``size`` x ``size`` board.

    10x10: White a4 d1 g1 j4, Black a7 d10 g10 j7; 8x8: White c1 f1 a3 h3, Black a6 h6 c8 f8;
    6x6: White b1 e1 a2 f2, Black a5 f5 b6 e6 (OpenSpiel's layouts). Every size follows the same
    rule: with ``k = max(1, size // 2 - 2)``, White's queens stand on files ``k`` and ``size-1-k``
    of the first rank and on the edge files of rank ``k + 1``; Black's mirror them top to bottom.
    """
    check_size(size)
    k = max(1, size // 2 - 2)
    spots = [(0, k), (k, 0), (size - 1 - k, 0), (size - 1, k)]
    white = tuple(sorted(r * size + f for f, r in spots))
    black = tuple(sorted((size - 1 - r) * size + f for f, r in spots))
    return Layout(white, black, ())


def validate_layout(size: int, white: Iterable[int], black: Iterable[int], arrows: Iterable[int] = ()) -> Layout:
    """Check a custom position and return it as a sorted ``Layout``; raise ``InvalidPositionError``.

    Each group is read only as far as a board can hold (``size * size`` squares, one more to see
    that there are too many), so an endless iterable is refused rather than read forever."""
    size = check_size(size)
    given = {"white": white, "black": black, "arrows": arrows}
    groups: dict[str, tuple[int, ...]] = {}
    seen: dict[int, str] = {}
    for name, squares in given.items():
        if isinstance(squares, (str, bytes)):
            raise InvalidPositionError(f"{name} must be a list of squares (integers), not {describe(squares)}")
        try:
            squares = tuple(islice(squares, size * size + 1))
        except TypeError:
            raise InvalidPositionError(
                f"{name} must be an iterable of squares (integers), not {describe(squares)}"
            ) from None
        plain = []
        for value in squares:
            sq = as_square(value, size)
            if sq is None:
                raise InvalidPositionError(f"{name} square {describe(value)} is not a square of a {size}x{size} board")
            plain.append(sq)
            if sq in seen:
                raise InvalidPositionError(f"square {square_name(sq, size)} holds both {seen[sq]} and {name}")
            seen[sq] = name
        groups[name] = tuple(plain)  # more than size * size squares overlap somewhere: refused above
    for name in ("white", "black"):
        count = len(groups[name])
        if not 1 <= count <= MAX_QUEENS:
            raise InvalidPositionError(f"{name} has {count} queens: each side needs 1 to {MAX_QUEENS}")
    return Layout(*(tuple(sorted(groups[n])) for n in ("white", "black", "arrows")))


_TOKEN_RE = re.compile(r"[0-9]+|.", re.DOTALL)
_PIECES = {"Q": 0, "q": 1, "*": 2}


def parse_position(text: str) -> tuple[int, Layout, int]:
    """Read a position text; return ``(size, layout, turn)`` with turn 0 = White, 1 = Black.

    Refusals are ``InvalidPositionError`` naming the text (cut short if long) and, for a bad
    character, its rank and its offset in the text. Work is linear in the text's length.
    """
    if not isinstance(text, str) or text.isspace() or not text:
        raise InvalidPositionError(f"expected a position text like '1q2q1/q4q/6/6/Q4Q/1Q2Q1 w', got {describe(text)}")
    shown = describe(text)
    fields = text.split(maxsplit=2)
    if len(fields) < 2 or fields[1] not in ("w", "b"):
        raise InvalidPositionError(f"position {shown}: the side to move ('w' or 'b') must follow the board")
    board_field = fields[0]
    size = board_field.count("/") + 1
    try:
        check_size(size)
    except InvalidPositionError as error:
        raise InvalidPositionError(f"position {shown} has {size} ranks: {error}") from None
    groups: tuple[list[int], list[int], list[int]] = ([], [], [])
    offset = len(text) - len(text.lstrip())  # where the board starts in the text, for error positions
    for i, row in enumerate(board_field.split("/")):
        rank = size - 1 - i
        file = 0
        for token in _TOKEN_RE.finditer(row):
            piece = token.group()
            if piece[0] in "0123456789":
                if len(piece) <= 2:  # a run of up to 99 squares; more digits are too long anyway
                    file += int(piece)
                    continue
                raise InvalidPositionError(f"position {shown}: rank {rank + 1} describes more than {size} squares")
            group = _PIECES.get(piece)
            if group is None:
                raise InvalidPositionError(
                    f"position {shown}: unknown piece {describe(piece)} on rank {rank + 1} "
                    f"(character {offset + token.start() + 1})"
                )
            if file >= size:
                raise InvalidPositionError(f"position {shown}: rank {rank + 1} describes more than {size} squares")
            groups[group].append(rank * size + file)
            file += 1
        if file != size:
            raise InvalidPositionError(
                f"position {shown}: rank {rank + 1} describes {file} squares, the board has {size}"
            )
        offset += len(row) + 1
    try:
        layout = validate_layout(size, *groups)
    except InvalidPositionError as error:
        raise InvalidPositionError(f"position {shown}: {error}") from None
    return size, layout, 0 if fields[1] == "w" else 1


def format_position(size: int, white: Iterable[int], black: Iterable[int], arrows: Iterable[int], turn: int) -> str:
    """Write a position text (the inverse of ``parse_position``)."""
    symbol = {sq: "Q" for sq in white} | {sq: "q" for sq in black} | {sq: "*" for sq in arrows}
    rows = []
    for rank in range(size - 1, -1, -1):
        row, empty = "", 0
        for file in range(size):
            piece = symbol.get(rank * size + file)
            if piece is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + piece
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows) + (" w" if turn == 0 else " b")
