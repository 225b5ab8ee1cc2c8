"""Every kind of bad input raises its specific error, names the input, and leaves the board as it was."""

import numpy as np
import pytest

from amazons_env import Board, IllegalMoveError, InvalidMoveError, InvalidPositionError, Move, parse_square, square_name
from amazons_env.position import parse_position


def state(board):
    return (
        board.text(),
        board.cells.copy(),
        board.queens.copy(),
        board.queen_counts.copy(),
        board.turn,
        board.move_stack,
    )


def assert_unchanged(board, before):
    after = state(board)
    assert after[0] == before[0] and after[4] == before[4] and after[5] == before[5]
    for a, b in zip(after[1:4], before[1:4]):
        assert np.array_equal(a, b)


def test_errors_are_value_errors():
    for error in (InvalidMoveError, IllegalMoveError, InvalidPositionError):
        assert issubclass(error, ValueError)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "d1",
        "d1-d7",
        "d1-d7/",
        "d1-d7/g7/h8",
        "z1-d7/g7",
        "d0-d7/g7",
        "d1-d7-g7",
        "d1d7,e7g7",  # Fairy-Stockfish form must shoot from the queen's new square
        "d1d7",
        "d1-d1/g7",
        "d1-d7/d7",
        "1d-d7/g7",
        "d1-d7/g7 extra",
    ],
)
def test_malformed_move_text(text):
    board = Board(10)
    before = state(board)
    with pytest.raises(InvalidMoveError) as info:
        board.push(text)
    assert repr(text) in str(info.value) or "is not a move" in str(info.value)
    assert_unchanged(board, before)
    with pytest.raises(InvalidMoveError):
        Move.parse(text)


@pytest.mark.parametrize(
    ("text", "size"), [("k1-k2/k3", 10), ("d1-d11/d9", 10), ("g1-g2/g3", 6), ("a9-a8/a7", 8), ("m1-m2/m3", 12)]
)
def test_squares_off_the_board(text, size):
    board = Board(size)
    before = state(board)
    with pytest.raises(InvalidMoveError, match="off a|is not a"):
        board.push(text)
    assert_unchanged(board, before)


@pytest.mark.parametrize(
    "args", [(-1, 5, 6), (0, 100, 3), (0, 1, 2.0), (True, 1, 2), ("a1", 1, 2), (0, 0, 5), (0, 5, 5)]
)
def test_bad_move_objects(args):
    with pytest.raises(InvalidMoveError):
        Move(*args)


def test_bad_square_names_and_numbers():
    for name in ("", "a0", "a13", "m1", "1a", "aa", None, 3):
        with pytest.raises(InvalidMoveError):
            parse_square(name)
    with pytest.raises(InvalidMoveError, match="off a 6x6"):
        parse_square("g1", size=6)
    with pytest.raises(InvalidMoveError, match="off a 10x10"):
        square_name(100)


def test_move_of_another_board_size():
    board = Board(10)
    before = state(board)
    move = Move.parse("b1-b4/b5", size=6)
    with pytest.raises(IllegalMoveError, match="6x6"):
        board.push(move)
    assert not board.is_legal(move)
    assert_unchanged(board, before)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("d1-d10/d9", "blocked"),  # d10 holds a Black queen
        ("d1-d5/d10", "blocked"),  # the arrow's path ends on that queen
        ("a7-a6/a5", "no white queen"),  # Black's queen, White to move
        ("e1-e2/e3", "no white queen"),  # empty start square
        ("d1-e3/e4", "not a queen line"),  # knight jump
        ("a4-j4/j5", "blocked"),  # through the j4 queen
        ("d1-d5/d1", None),  # legal: shooting back to the start square
    ],
)
def test_illegal_moves_name_move_and_position(text, why):
    board = Board(10)
    before = state(board)
    if why is None:
        board.push(text)
        board.pop()
        assert_unchanged(board, before)
        return
    assert not board.is_legal(text)
    with pytest.raises(IllegalMoveError) as info:
        board.push(text)
    message = str(info.value)
    assert text in message and board.text() in message and why in message
    assert_unchanged(board, before)


def test_push_after_game_over():
    board = Board.from_text("q*4/**4/6/6/6/5Q b")
    assert board.is_game_over() and board.winner == 0 and board.outcome().result() == "1-0"
    before = state(board)
    with pytest.raises(IllegalMoveError, match="game is over"):
        board.push("a6-b5/a6")
    assert_unchanged(board, before)
    assert board.legal_moves() == []


def test_pop_and_peek_on_an_empty_stack():
    board = Board(6)
    with pytest.raises(IndexError):
        board.pop()
    with pytest.raises(IndexError):
        board.peek()


@pytest.mark.parametrize("size", [0, 3, 13, -10, 10.0, "10", True, None])
def test_bad_sizes(size):
    if size is None:
        assert Board(size).size == 10  # None means the default
        return
    with pytest.raises(InvalidPositionError, match="size"):
        Board(size)
    with pytest.raises(InvalidPositionError):
        Move(0, 1, 2, size=size)


@pytest.mark.parametrize(
    ("white", "black", "arrows", "match"),
    [
        ([], [1], [], "white has 0 queens"),
        ([0], [], [], "black has 0 queens"),
        ([0], [0], [], "holds both"),
        ([0], [1], [1], "holds both"),
        ([0, 0], [1], [], "holds both"),
        ([0], [36], [], "not a square"),
        ([0], [1], [-1], "not a square"),
        ([0.0], [1], [], "not a square"),
        (list(range(13)), [20], [], "13 queens"),
    ],
)
def test_impossible_custom_positions(white, black, arrows, match):
    with pytest.raises(InvalidPositionError, match=match):
        Board.from_squares(6, white, black, arrows)


def test_bad_turn_for_custom_positions():
    with pytest.raises(InvalidPositionError, match="turn"):
        Board.from_squares(6, [0], [1], [], turn=2)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "expected a position text"),
        ("1q2q1/q4q/6/6/Q4Q/1Q2Q1", "side to move"),
        ("1q2q1/q4q/6/6/Q4Q/1Q2Q1 x", "side to move"),
        ("1q2q1/q4q/6/6/Q4Q w", "rank 5 describes 6 squares, the board has 5"),
        ("1q2q1/q4q/6/6/Q4Q/1Q2Q w", "describes 5 squares"),
        ("1q2q1/q4q/6/6/Q4Q/1Q2Q1Q w", "more than 6 squares"),
        ("1q2q1/q4q/6/6/Q4Q/1Q2K1 w", "unknown piece 'K'"),
        ("6/6/6/6/6/6 w", "white has 0 queens"),
        ("q/Q/1/1 w", "describes 1 squares"),
        ("1/1/1 w", "size"),
        ("14/14/14/14/14/14/14/14/14/14/14/14/14/14 w", "size"),
    ],
)
def test_bad_position_text(text, match):
    with pytest.raises(InvalidPositionError, match=match) as info:
        Board.from_text(text)
    assert repr(text) in str(info.value)
    with pytest.raises(InvalidPositionError):
        parse_position(text)


def test_cells_that_are_no_position_are_refused_by_name():
    good = Board(6).cells
    wall_inside, no_white, frame_open = good.copy(), good.copy(), good.copy()
    wall_inside[9] = 4  # a1 padded
    no_white[no_white == 1] = 0
    frame_open[0] = 0
    for cells, match in (
        (good.astype(np.int64), "uint8 array of shape"),
        (good[:-1], "uint8 array of shape"),
        ([0] * 64, "uint8 array of shape"),
        (wall_inside, "WALL on the frame"),
        (frame_open, "WALL on the frame"),
        (no_white, "0 queens"),
    ):
        with pytest.raises(InvalidPositionError, match=match):
            Board.from_cells(6, cells, 0)
    with pytest.raises(InvalidPositionError, match="turn"):
        Board.from_cells(6, good, 2)
    assert Board.from_cells(6, good, 1) == Board(position=Board(6).text().replace(" w", " b"))


def test_position_text_size_must_agree():
    with pytest.raises(InvalidPositionError, match="disagrees"):
        Board(8, position="1q2q1/q4q/6/6/Q4Q/1Q2Q1 w")
    assert Board(6, position="1q2q1/q4q/6/6/Q4Q/1Q2Q1 w") == Board(6)


def test_wrong_types_for_push_and_is_legal():
    board = Board(6)
    before = state(board)
    for bad in (None, 3, ("b1", "b4", "b5"), b"b1-b4/b5"):
        with pytest.raises(InvalidMoveError):
            board.push(bad)
        with pytest.raises(InvalidMoveError):
            board.is_legal(bad)
    assert_unchanged(board, before)


def test_cli_reports_errors_without_traceback(capsys):
    from amazons_cli.main import main

    assert main(["perft", "1", "--position", "1q2q1/q4q/6/6/Q4Q/1Q2Q1Q w"]) == 2
    assert "more than 6 squares" in capsys.readouterr().err
    assert main(["perft", "-1"]) == 2
    assert main(["perft", "1", "--size", "3"]) == 2
