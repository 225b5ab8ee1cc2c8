"""Perft: leaf counts of the full move tree from the start positions.

10x10 counts are the published ones. The 6x6 and 8x8 counts were cross-checked once against
OpenSpiel's `amazons` (replaying its three-phase actions, bulk-counting the last level): 6x6
544 / 238,532 / 91,074,224 and 8x8 1,232 / 1,331,198 / 1,358,441,750 agree. Sizes OpenSpiel lacks
were cross-checked once against Fairy-Stockfish (`pyffish` with an `amazons` variant of that size
loaded from a config, perft by enumerating its legal move lists): 4x4 to depth 3, 5x5, 7x7 and
9x9 to depth 2 agree. The rest (5x5 depth 3, 11x11, 12x12, beyond Fairy-Stockfish's board limit
or time) are pinned as regression values from our own kernel; the hypothesis reference test
checks the move generator on every size.
"""

import random

import pytest

from amazons_env import Board
from amazons_env.perft import perft

KNOWN = {
    (10, 1): 2176,
    (10, 2): 4_307_152,
    (8, 1): 1232,
    (8, 2): 1_331_198,
    (8, 3): 1_358_441_750,
    (6, 1): 544,
    (6, 2): 238_532,
    (6, 3): 91_074_224,
    (4, 1): 88,
    (4, 2): 4336,
    (4, 3): 139_500,
    (5, 1): 260,
    (5, 2): 50_422,
    (7, 1): 868,
    (7, 2): 634_702,
    (9, 1): 1700,
    (9, 2): 2_572_956,
}

REGRESSION = {(5, 3): 7_940_210, (11, 1): 2780, (11, 2): 7_070_254, (12, 1): 3376, (12, 2): 10_578_424}


@pytest.mark.parametrize(("size", "depth"), sorted(KNOWN))
def test_perft_known_counts(size, depth):
    assert perft(Board(size), depth) == KNOWN[size, depth]


@pytest.mark.parametrize(("size", "depth"), sorted(REGRESSION))
def test_perft_other_sizes(size, depth):
    assert perft(Board(size), depth) == REGRESSION[size, depth]


def test_perft_depth_zero_and_board_unchanged():
    board = Board(8)
    board.push("c1-c5/e3")
    before = (board.text(), board.cells.copy(), board.queens.copy(), board.move_stack)
    assert perft(board, 0) == 1
    assert perft(board, 2) > 0
    assert board.text() == before[0] and board.move_stack == before[3]
    assert (board.cells == before[1]).all() and (board.queens == before[2]).all()


def test_perft_depth_one_is_the_move_count_and_game_over_is_zero():
    board = Board.from_text("q5/**4/6/6/6/5Q w")
    assert perft(board, 1) == board.count_legal_moves() == len(board.legal_moves())
    lost = Board.from_text("q*4/**4/6/6/6/5Q b")
    assert lost.is_game_over() and perft(lost, 1) == 0 and perft(lost, 3) == 0


def test_perft_negative_depth_is_refused():
    with pytest.raises(ValueError, match="depth"):
        perft(Board(6), -1)


def test_perft_cli_prints_the_count(capsys):
    from amazons_cli.main import main

    assert main(["perft", "2", "--size", "6"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "238532"
    assert main(["perft", "1", "--position", "1q2q1/q4q/6/6/Q4Q/1Q2Q1 b"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "544"
    assert main(["perft", "1", "--size", "8", "--position", "1q2q1/q4q/6/6/Q4Q/1Q2Q1 w"]) == 2
    assert "disagrees" in capsys.readouterr().err


@pytest.mark.parametrize("size", [4, 5, 6, 7, 9, 12])
def test_perft_on_played_positions_matches_move_by_move_counts(size):
    """perft's bulk count (core.count_moves_open) against making each move and counting replies."""
    rng = random.Random(size)
    board = Board(size)
    while not board.is_game_over():
        assert perft(board, 1) == len(board.legal_moves())
        if board.ply % 3 == 0:
            expected = 0
            for move in board.legal_moves():
                board.push_unchecked(move)
                expected += board.count_legal_moves()
                board.pop()
            assert perft(board, 2) == expected, board.text()
        board.push(rng.choice(board.legal_moves()))
