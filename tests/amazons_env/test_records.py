"""Game records: move lists and SGF round trips, the colour convention, and bad records."""

import random

import pytest

from amazons_env import Board, Color, GameRecord, IllegalMoveError, InvalidMoveError, Move


def random_board(size, seed, plies=None, start=None):
    rng = random.Random(seed)
    board = Board.from_text(start) if start else Board(size)
    while not board.is_game_over() and (plies is None or board.ply < plies):
        board.push(rng.choice(board.legal_moves()))
    return board


HEADERS = {
    "White": "alphabeta:depth=2",
    "Black": "mcts; v2 [test] {x} #1",
    "Event": 'a "quoted"\nline',
    "Round": "3",
    "my-key": "k=v\\w",
}


@pytest.mark.parametrize("size", [4, 6, 8, 10, 12])
@pytest.mark.parametrize("fmt", ["movelist", "sgf"])
def test_round_trip_finished_games(size, fmt, tmp_path):
    board = random_board(size, seed=size)
    record = GameRecord.from_board(board, headers=HEADERS)
    assert record.result == board.outcome().result()
    assert record.winner == board.winner
    text = record.to_sgf() if fmt == "sgf" else record.to_movelist()
    again = GameRecord.from_sgf(text) if fmt == "sgf" else GameRecord.from_movelist(text)
    assert again == record
    assert again.board() == board and again.board().move_stack == board.move_stack
    path = tmp_path / ("game.sgf" if fmt == "sgf" else "game.txt")
    record.save(path)
    assert path.read_text().startswith("(;") == (fmt == "sgf")
    assert GameRecord.load(path) == record


@pytest.mark.parametrize("fmt", ["movelist", "sgf"])
def test_round_trip_custom_start_black_to_move_unfinished(fmt):
    start = "q5/**4/6/2*3/6/3Q1Q b"
    board = random_board(6, seed=3, plies=5, start=start)
    record = GameRecord.from_board(board)
    assert record.start == start and not record.is_standard_start() and record.result is None
    text = record.to_sgf() if fmt == "sgf" else record.to_movelist()
    assert (f'[Start "{start}"]' in text) if fmt == "movelist" else ("PL[B]" in text and "AA[" in text)
    again = GameRecord.parse(text)
    assert again == record and again.board() == board
    assert again.board(0) == Board.from_text(start)
    assert again.board(2).ply == 2


def test_record_constructor_accepts_text_and_checks_the_game():
    record = GameRecord(["b1-b4/b5", "a5a4,a4a3"], size=6, result=None)
    assert record.moves == (Move.parse("b1-b4/b5", 6), Move.parse("a5-a4/a3", 6))
    assert record.start == Board(6).text() and record.size == 6
    with pytest.raises(IllegalMoveError, match=r"move 2 \(black\).*b1-b4/b5"):
        GameRecord(["b1-b4/b5", "b1-b4/b5"], size=6)
    with pytest.raises(InvalidMoveError, match="result"):
        GameRecord([], size=6, result="1/2-1/2")
    with pytest.raises(InvalidMoveError, match="disagrees"):
        GameRecord([], size=8, start=Board(6).text())
    with pytest.raises(InvalidMoveError, match="header name"):
        GameRecord([], headers={"bad key": "x"})
    with pytest.raises(InvalidMoveError, match="header name"):
        GameRecord([], headers={"Result": "1-0"})


def test_result_must_agree_with_a_finished_game():
    board = random_board(6, seed=1)
    wrong = "0-1" if board.winner == Color.WHITE else "1-0"
    with pytest.raises(InvalidMoveError, match="contradicts"):
        GameRecord.from_board(board, result=wrong)
    unfinished = random_board(6, seed=1, plies=4)
    assert GameRecord.from_board(unfinished, result="0-1").result == "0-1"  # e.g. a resignation


def test_movelist_reading_is_liberal():
    text = """# a 6x6 game, tags then moves
[Size "6"]
[White "me"]
1. b1-b4/b5 {a comment
over two lines} 2. a5a4,a4a3 ; the rest of a line is a comment
3.e1-e4/e3
4... E6-E5/E6 0-1
"""
    record = GameRecord.from_movelist(text)
    assert [str(m) for m in record.moves] == ["b1-b4/b5", "a5-a4/a3", "e1-e4/e3", "e6-e5/e6"]
    assert record.result == "0-1" and record.headers == {"White": "me"} and record.size == 6
    assert GameRecord.from_movelist("b1-b4/b5 a5-a4/a3", size=6).moves == record.moves[:2]
    assert GameRecord.from_movelist("").moves == () and GameRecord.from_movelist("").size == 10
    assert GameRecord.from_movelist('[Result "*"]\nd1-d7/g7 *').result is None


def test_sgf_colour_convention_black_first_is_our_white():
    """Amazons SGF in the wild: Black moves first from a4 d1 g1 j4. That player is our White."""
    sgf = "(;FF[4]GM[18]SZ[10]PB[Alice]PW[Bob]RE[B+Resign];B[djddgd];W[adaeaf];B[gjgegg])"
    record = GameRecord.from_sgf(sgf)
    assert [str(m) for m in record.moves] == ["d1-d7/g7", "a7-a6/a5", "g1-g6/g4"]
    assert record.headers == {"White": "Alice", "Black": "Bob"}
    assert record.result == "1-0"
    assert record.board().turn == Color.BLACK
    ours = record.to_sgf()
    assert ";W[djddgd];B[adaeaf];W[gjgegg]" in ours and "PW[Alice]" in ours and "RE[W+]" in ours
    assert GameRecord.from_sgf(ours) == record


def test_sgf_reading_details():
    # no SZ (default 10), an empty SZ[], SZ[8:8], moves in our notation, variations, lowercase-free idents
    assert GameRecord.from_sgf("(;GM[18];W[djddgd])").size == 10
    assert GameRecord.from_sgf("(;GM[18]SZ[];W[djddgd])").moves == (Move.parse("d1-d7/g7"),)
    eight = GameRecord.from_sgf("(;FF[4]GM[18]SZ[8:8];B[chcdfd])")
    assert eight.moves == (Move.parse("c1-c5/f5", 8),)
    assert GameRecord.from_sgf("(;GM[18] ; W[d1-d7/g7] )").moves == (Move.parse("d1-d7/g7"),)
    main_line = "(;GM[18](;W[djddgd](;B[adaeaf])(;B[jdjejf]))(;W[gjgegg]))"
    assert [str(m) for m in GameRecord.from_sgf(main_line).moves] == ["d1-d7/g7", "a7-a6/a5"]
    escaped = GameRecord.from_sgf(r"(;GM[18]PW[a\]b\\c]C[note];W[djddgd])")
    assert escaped.headers == {"White": "a]b\\c"}


@pytest.mark.parametrize(
    ("text", "error", "match"),
    [
        ("1. d1-d7/g7 d1-d8/d9", IllegalMoveError, r"rec\.txt: move 2 \(black\).*d1-d8/d9.*q2Q2\*2q"),
        ("d1-d7/g7\nd10-d8/zz", InvalidMoveError, r"rec\.txt, line 2: 'd10-d8/zz'"),
        ('[Size "3"]', InvalidMoveError, r"rec\.txt.*size '3'"),
        ('[Size "8"]\nc1-c9/c2', InvalidMoveError, r"rec\.txt, line 2.*off a 8x8"),
        ("[Size 10]", InvalidMoveError, r"rec\.txt, line 1: .*not a tag"),
        ('[Start "q5/6 w"]', InvalidMoveError, r"rec\.txt.*position 'q5/6 w'"),
        ("d1-d7/g7 {unclosed", InvalidMoveError, r"rec\.txt, line 1.*never closed"),
        ("d1-d7/g7 }", InvalidMoveError, r"rec\.txt, line 1"),
        ("d1-d7/g7 1-0 a7-a6/a5", InvalidMoveError, "after the result"),
        ('[Result "1-0"]\nd1-d7/g7 0-1', InvalidMoveError, "disagrees"),
        ("(;GM[1];B[djddgd])", InvalidMoveError, r"rec\.txt, line 1: GM\[1\]"),
        ("(;GM[18]\n;B[djddgd]\n;B[adaeaf])", InvalidMoveError, "alternate"),
        ("(;GM[18]\n;W[djddgz])", InvalidMoveError, r"rec\.txt, line 2: 'gz'"),
        ("(;GM[18]\n;W[djddgd]\n;B[djddgd])", IllegalMoveError, r"move 2 \(black\)"),
        ("(;GM[18]SZ[12:10])", InvalidMoveError, "square size"),
        ("(;GM[18]AW[aa][aa]AB[bb])", InvalidMoveError, "holds both"),
        ("(;GM[18]AW[aa]AB[bb]PL[X])", InvalidMoveError, r"PL\[X\]"),
        ("(;GM[18];W[djddgd];AB[aa])", InvalidMoveError, "set-up"),
        ("(;GM[18];W[djddgd]", InvalidMoveError, "expected"),
        ("(;GM[18];W[djddgd", InvalidMoveError, "never closed"),
        ("(;GM[18];W)", InvalidMoveError, "no value"),
        ("()", InvalidMoveError, "no nodes"),
        ("(;GM[18];W[])", InvalidMoveError, "not a move"),
    ],
)
def test_bad_records(text, error, match):
    with pytest.raises(error, match=match):
        GameRecord.parse(text, source="rec.txt")


def test_load_names_the_file(tmp_path):
    path = tmp_path / "broken.sgf"
    path.write_text("(;GM[18]\n;W[djddgd]\n;B[djddgd])\n")
    with pytest.raises(IllegalMoveError, match="broken.sgf: move 2"):
        GameRecord.load(path)
    with pytest.raises(InvalidMoveError, match="expected record text"):
        GameRecord.parse(None)


def test_sgf_collections(tmp_path):
    records = [
        GameRecord.from_board(random_board(size, seed=seed), headers={"Round": str(seed)})
        for seed, size in enumerate([6, 8, 6])
    ]
    path = tmp_path / "games.sgf"
    GameRecord.save_all(records, path)
    assert GameRecord.load_all(path) == records
    assert len({*records, *GameRecord.load_all(path)}) == 3  # hashable, equal records hash alike
    with pytest.raises(InvalidMoveError, match="holds 3 games"):
        GameRecord.load(path)
    with pytest.raises(InvalidMoveError, match="another game"):
        GameRecord.sgf_collection(path.read_text() + "junk")
