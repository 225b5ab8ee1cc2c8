"""Records are read as far as needed and no further: an illegal move fails before the rest of the
text is read (a malformed tail after it is never reached), and a file over the size cap is
refused before it is parsed."""

import pytest

from amazons_env import IllegalMoveError, InvalidMoveError
from amazons_env.errors import UnreadableFileError
from amazons_env.records import GameRecord

TAIL = 200_000  # plies of a tail that no game has


def test_an_illegal_sgf_move_fails_before_the_rest_is_read():
    illegal = "(;GM[18]SZ[10];W[djddgd];B[adaeaf];W[djddgd]"  # d1 is empty after the first move
    with pytest.raises(IllegalMoveError, match=r"move 3 \(white\)"):
        GameRecord.from_sgf(illegal + ";B[adaeaf]" * TAIL + ";B[unclosed")
    with pytest.raises(InvalidMoveError, match="never closed"):  # the tail is bad: reached when the moves are legal
        GameRecord.from_sgf("(;GM[18]SZ[10];W[djddgd]" + ";B[unclosed")


def test_an_illegal_move_list_move_fails_before_the_rest_is_read():
    with pytest.raises(IllegalMoveError, match=r"move 3 \(white\)"):
        GameRecord.from_movelist("1. d1-d7/g7 a7-a6/a5 d1-d2/d3 " + "a6-a5/a4 " * TAIL + "}")
    with pytest.raises(InvalidMoveError, match="'}' without '{'"):
        GameRecord.from_movelist("1. d1-d7/g7 }")
    with pytest.raises(InvalidMoveError, match="Size tag must come before the moves"):
        GameRecord.from_movelist('d1-d7/g7\n[Size "8"]\n')


def test_the_size_tag_and_comments_still_read_as_before():
    record = GameRecord.from_movelist('[Size "6"]\n[White "x"]\n1. {a comment; # in braces} b1-b4/e4 ; to the end\n')
    assert record.size == 6 and len(record.moves) == 1 and record.headers == {"White": "x"}
    sgf = GameRecord.from_sgf("(;GM[18]SZ[6]PB[first];B[bfcfdf];W[abbbcb])")
    assert sgf.headers["White"] == "first" and len(sgf.moves) == 2  # SGF's Black moved first: our White
    with pytest.raises(InvalidMoveError, match="holds 3 games"):
        GameRecord.from_sgf("(;GM[18])(;GM[18])(;GM[18])")


def test_a_record_file_over_the_cap_is_refused_naming_it(tmp_path):
    path = tmp_path / "big.sgf"
    path.write_text(GameRecord(["d1-d7/g7"]).to_sgf())
    assert len(GameRecord.load(path).moves) == 1
    with pytest.raises(UnreadableFileError, match=r"big\.sgf.*larger than 10 bytes"):
        GameRecord.load(path, max_bytes=10)
    with pytest.raises(UnreadableFileError, match="larger than 10 bytes"):
        GameRecord.load_all(path, max_bytes=10)
