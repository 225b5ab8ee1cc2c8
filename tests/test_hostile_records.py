"""Property tests (hypothesis) for ``amazons_env``'s game records: movelist and SGF texts, record
constructors, files and paths. Any input gives a record or one of the package's documented errors
(``amazons_env.errors``, all ValueErrors) whose message names the input; never another exception.
Pathological big records (20,000 nested variations) are checked for what made them crash or slow
before: recursion, and re-counting lines from the start of the text.
"""

import functools
import os
import tempfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

from amazons_env import GameRecord
from amazons_env.errors import InvalidMoveError, UnreadableFileError
from amazons_env.records import sgf

from tests.helpers.hostile import HOSTILE, RECORDS, attempt, mutated, names, sizes, values

# -- records -----------------------------------------------------------------------------------------


@HOSTILE
@given(
    mutated([r.to_movelist() for r in RECORDS], '[]"{};#.* abcdefghij0123456789-/\nSize'), st.one_of(st.none(), sizes)
)
def test_movelist(text, size):
    record = attempt(lambda: GameRecord.from_movelist(text, size, source="<hostile>"), "<hostile>")
    if record is not None:
        assert GameRecord.from_movelist(record.to_movelist()) == record


@HOSTILE
@given(mutated([r.to_sgf() for r in RECORDS], "()[];\\:WBAGMSZPL abcdefghijkl0123456789\n"))
def test_sgf(text):
    record = attempt(lambda: GameRecord.from_sgf(text, source="<hostile>"), "<hostile>")
    if record is not None:
        assert GameRecord.from_sgf(record.to_sgf()) == record
    attempt(lambda: GameRecord.sgf_collection(text, source="<hostile>"), "<hostile>")


@HOSTILE
@given(st.sampled_from(["moves", "size", "start", "result", "headers"]), values, st.sampled_from(RECORDS))
def test_record_constructor(field, value, record):
    fields = {"moves": record.moves, "size": record.size, "start": record.start, "result": None, "headers": {}}
    fields[field] = value
    attempt(lambda: GameRecord(**fields), "record")


@HOSTILE
@given(values, values, values, st.sampled_from(RECORDS))
def test_record_from_board_and_board(board, result, headers, record):
    attempt(lambda: GameRecord.from_board(board), board)
    attempt(lambda: GameRecord.from_board(record.board(), result, headers), "record")
    replayed = attempt(lambda: record.board(board), board)
    assert replayed is None or replayed.ply == (len(record.moves) if board is None else board)


@HOSTILE
@given(st.binary(max_size=60), st.sampled_from(RECORDS), st.booleans())
def test_record_files(junk, record, sgf_format):
    data = (record.to_sgf() if sgf_format else record.to_movelist()).encode() + junk
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "game.sgf")
        with open(path, "wb") as handle:
            handle.write(data)
        for load in (GameRecord.load, GameRecord.load_all):
            attempt(functools.partial(load, path), path)


@pytest.mark.parametrize("path", ["", "a\x00b", "missing.sgf", ".", 5, None, b"\xff"])
def test_unreadable_record_paths(path):
    with pytest.raises(UnreadableFileError) as info:
        GameRecord.load(path)
    assert isinstance(info.value, OSError) and isinstance(info.value, ValueError)
    assert names(str(info.value), path)


def test_records_that_are_not_utf8_name_the_file_and_the_byte(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes('[White "Jos\xe9"]\n1. d1-d7/g7\n'.encode("latin-1"))
    with pytest.raises(UnreadableFileError, match=r"latin1\.txt' is not UTF-8 text: byte 11 is b'\\xe9'"):
        GameRecord.load(path)


@pytest.mark.parametrize(
    "text",
    [
        "(;GM[18]SZ[²])",
        "(;GM[18]SZ[٨])",
        "(;GM[18]SZ[" + "9" * 5000 + "])",
        '[Size "' + "1" * 5000 + '"]',
        '[Size "８"]',
    ],
)
def test_sizes_are_ascii_numbers(text):
    with pytest.raises(InvalidMoveError, match="board size"):
        GameRecord.parse(text)


# -- big records: no recursion, no rescanning ------------------------------------------------------


def test_deep_sgf_nesting_is_read_without_recursion():
    depth = 20_000  # 20 times Python's recursion limit; 994 levels raised RecursionError before
    record = GameRecord.from_sgf("(;GM[18]SZ[6]" + "(;C[x]" * depth + ")" * depth + ")")
    assert record.size == 6 and record.moves == ()


def test_sgf_line_numbers_scan_each_character_once(monkeypatch):
    scanned = []
    original = sgf.SgfParser.line

    def counting(self):
        scanned.append(max(0, self.pos - self._line_pos))
        return original(self)

    monkeypatch.setattr(sgf.SgfParser, "line", counting)
    text = "(;GM[18]\n" + ";C[x]\n" * 20_000 + ";W[zz])"
    with pytest.raises(InvalidMoveError, match=r"line 20002: 'zz'"):
        GameRecord.from_sgf(text)
    assert len(scanned) > 20_000 and sum(scanned) <= len(text)
