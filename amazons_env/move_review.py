"""An engine's review of a game, as a record carries it beside its ``Values``: the engine's move
in every position (the ``Best`` header) and a mark on every move it found wanting (``Marks``).

``Best`` holds one entry per position, from the start to the last (one more than the moves): the
move the engine would play there, in the project's notation, or ``-`` where it gave none (a
finished game). ``Marks`` holds one entry per move: the annotation glyph of chess and go records
for how much the move lost (``?!`` an inaccuracy, ``?`` a mistake, ``??`` a blunder; the
thresholds are the analysis's, ``agents.analysis.review``) or ``-``. Headers are text, so both
travel in the move list's tags and SGF's ``XH[...]`` unchanged; ``amazons analyse`` writes them
and the web page viewer draws them (``amazons_env.drawing.html``: the engine's move as an arrow
on the board, the marks in the move list).

>>> from amazons_env.move import Move
>>> text = format_best([Move.parse("d1-d7/g7"), None])
>>> text
'd1-d7/g7 -'
>>> parse_best(text, 10, 2)
[Move.parse('d1-d7/g7'), None]
>>> parse_marks(format_marks(["", "??"]), 2)
['', '??']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from amazons_env.errors import InvalidArgumentError, InvalidMoveError, describe
from amazons_env.move import Move

__all__ = ["BEST_HEADER", "MARKS_HEADER", "MARKS", "format_best", "parse_best", "format_marks", "parse_marks"]

BEST_HEADER = "Best"
MARKS_HEADER = "Marks"
#: the glyph of each label, the mildest first
MARKS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
_NONE = "-"


def format_best(moves: Sequence[Optional[Move]]) -> str:
    """The ``Best`` header text of ``moves`` (one per position, ``None`` where there is none)."""
    for index, move in enumerate(moves):
        if move is not None and not isinstance(move, Move):
            raise InvalidArgumentError(f"best[{index}]: {describe(move)} is not a Move or None")
    return " ".join(_NONE if move is None else str(move) for move in moves)


def parse_best(text: str, size: int, positions: int, source: str = "<record>") -> list[Optional[Move]]:
    """The moves of a ``Best`` header ``text`` for a game of ``positions`` positions on a
    ``size`` board; ``InvalidMoveError`` naming ``source`` for a wrong count or an entry that is
    not a move. (Whether each move is legal in its position is the reader's to check.)

    >>> parse_best("d1-d7/g7 z9", 10, 2, "game.sgf")
    Traceback (most recent call last):
    ...
    amazons_env.errors.InvalidMoveError: game.sgf: Best entry 2: 'z9' is not a move: expected 'd1-d7/g7' or \
Fairy-Stockfish's 'd1d7,d7g7'
    """
    words = text.split()
    if len(words) != positions:
        raise InvalidMoveError(f"{source}: Best holds {len(words)} entries for {positions} positions")
    moves: list[Optional[Move]] = []
    for number, word in enumerate(words, 1):
        try:
            moves.append(None if word == _NONE else Move.parse(word, size))
        except InvalidMoveError as error:
            raise InvalidMoveError(f"{source}: Best entry {number}: {error}") from None
    return moves


def format_marks(marks: Sequence[str]) -> str:
    """The ``Marks`` header text of ``marks`` (one per move: a glyph of ``MARKS`` or ``""``)."""
    for index, mark in enumerate(marks):
        if mark != "" and mark not in MARKS.values():
            raise InvalidArgumentError(f"marks[{index}]: {describe(mark)} is not one of {sorted(MARKS.values())}")
    return " ".join(mark or _NONE for mark in marks)


def parse_marks(text: str, plies: int, source: str = "<record>") -> list[str]:
    """The marks of a ``Marks`` header ``text`` for a game of ``plies`` moves (``""`` for none);
    ``InvalidMoveError`` naming ``source`` for a wrong count or an unknown glyph.

    >>> parse_marks("?! !!", 2)
    Traceback (most recent call last):
    ...
    amazons_env.errors.InvalidMoveError: <record>: Marks entry 2 is '!!', not one of ?! ? ?? -
    """
    words = text.split()
    if len(words) != plies:
        raise InvalidMoveError(f"{source}: Marks holds {len(words)} entries for {plies} moves")
    for number, word in enumerate(words, 1):
        if word != _NONE and word not in MARKS.values():
            known = " ".join((*MARKS.values(), _NONE))
            raise InvalidMoveError(f"{source}: Marks entry {number} is {describe(word)}, not one of {known}")
    return ["" if word == _NONE else word for word in words]
