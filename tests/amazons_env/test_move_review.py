"""An engine's review in a record's headers (``amazons_env.move_review``): both record formats
carry it unchanged, and malformed text is refused by name, not drawn."""

from __future__ import annotations

import pytest

from amazons_env import GameRecord, Move
from amazons_env.errors import InvalidArgumentError, InvalidMoveError
from amazons_env.move_review import BEST_HEADER, MARKS, MARKS_HEADER, format_best, format_marks, parse_best, parse_marks

MOVES = tuple(Move.parse(text, 6) for text in ("b1-b4/b5", "a5-a4/a3", "e1-e4/e2"))


def reviewed() -> GameRecord:
    best = [Move.parse("b1-b4/b5", 6), Move.parse("a5-a4/a2", 6), Move.parse("e1-e3/e5", 6), None]
    headers = {BEST_HEADER: format_best(best), MARKS_HEADER: format_marks(["", "?", "??"])}
    return GameRecord(MOVES, size=6, headers=headers)


def test_the_review_travels_in_both_record_formats():
    record = reviewed()
    for text in (record.to_sgf(), record.to_movelist()):
        again = GameRecord.parse(text)
        assert parse_best(again.headers[BEST_HEADER], 6, 4) == parse_best(record.headers[BEST_HEADER], 6, 4)
        assert parse_marks(again.headers[MARKS_HEADER], 3) == ["", "?", "??"]


@pytest.mark.parametrize(
    "header, text, why",
    [
        (BEST_HEADER, "b1-b4/b5 -", "Best holds 2 entries for 4 positions"),
        (BEST_HEADER, "b1-b4/b5 - - x", "Best entry 4: 'x' is not a move"),
        (BEST_HEADER, "b1-b4/b5 - - a1-a9/a2", "Best entry 4: 'a1-a9/a2'"),
        (MARKS_HEADER, "- ?", "Marks holds 2 entries for 3 moves"),
        (MARKS_HEADER, "- ? !", "Marks entry 3 is '!'"),
    ],
)
def test_malformed_review_headers_are_refused_naming_the_record(header, text, why):
    record = reviewed()
    plies = len(record.moves)
    with pytest.raises(InvalidMoveError, match=f"game.sgf: {why}"):
        if header == BEST_HEADER:
            parse_best(text, 6, plies + 1, "game.sgf")
        else:
            parse_marks(text, plies, "game.sgf")


@pytest.mark.parametrize("bad", [["?!", "!?"], [None], ["mistake"]])
def test_marks_that_are_no_glyphs_are_not_written(bad):
    with pytest.raises(InvalidArgumentError, match=r"marks\[\d\]"):
        format_marks(bad)
    assert set(MARKS) == {"inaccuracy", "mistake", "blunder"}


def test_best_moves_that_are_no_moves_are_not_written():
    with pytest.raises(InvalidArgumentError, match=r"best\[1\]: 'd1-d7/g7' is not a Move"):
        format_best([None, "d1-d7/g7"])
