"""``amazons_env.openspiel`` against ``pyspiel`` itself: random games of every board size OpenSpiel
has (6, 8, 10) replayed in both; at every ply the positions are equal (read independently from
OpenSpiel's own board string), the legal move sets are equal (whole moves, and OpenSpiel's
destination and arrow phases for each move played), and the conversions round-trip."""

import random

import pytest

from amazons_env import Board, IllegalMoveError, InvalidMoveError, InvalidPositionError, Move
from amazons_env.openspiel import (
    SIZES,
    actions_to_moves,
    board_from_actions,
    board_from_state,
    cell_to_square,
    legal_moves_of_state,
    load_game,
    move_to_actions,
    square_to_cell,
    state_from_board,
)

pyspiel = pytest.importorskip("pyspiel")


def board_of_string(text: str, turn: int) -> Board:
    """OpenSpiel's ``str(state)`` (rows from the top; X White, O Black, # arrow) read on its own."""
    rows = text.strip().splitlines()
    n = len(rows)
    squares: dict[str, list[int]] = {"X": [], "O": [], "#": []}
    for row, line in enumerate(rows):
        for col, char in enumerate(line):
            if char != ".":
                squares[char].append((n - 1 - row) * n + col)
    return Board.from_squares(n, squares["X"], squares["O"], squares["#"], turn)


@pytest.mark.parametrize(("size", "games", "plies"), [(6, 4, 999), (8, 2, 999), (10, 1, 30)])
def test_random_games_agree_with_pyspiel(size, games, plies):
    game = load_game(size)
    assert game.get_parameters() == {"board_size": size} and game.num_distinct_actions() == size * size
    checked = 0
    for seed in range(games):
        rng = random.Random(1000 * size + seed)
        board, state = Board(size), game.new_initial_state()
        while True:
            assert board_from_state(state) == board == board_of_string(str(state), int(board.turn))
            assert state_from_board(board, game).history() == state.history()
            assert actions_to_moves(state.history(), size) == board.move_stack
            ours = board.legal_moves()
            theirs = legal_moves_of_state(state)
            assert len(theirs) == len(set(theirs)) and set(theirs) == set(ours), board.text()
            assert state.is_terminal() == board.is_game_over()
            checked += 1
            if board.is_game_over() or board.ply >= plies:
                break
            assert state.current_player() == int(board.turn)
            move = rng.choice(ours)
            queen, destination, arrow = move_to_actions(move)
            assert queen in state.legal_actions()
            state.apply_action(queen)
            assert {square_to_cell(m.to_square, size) for m in ours if m.from_square == move.from_square} == set(
                state.legal_actions()
            )
            state.apply_action(destination)
            assert {
                square_to_cell(m.arrow, size)
                for m in ours
                if m.from_square == move.from_square and m.to_square == move.to_square
            } == set(state.legal_actions())
            with pytest.raises(InvalidPositionError, match="into a turn"):
                board_from_state(state)
            state.apply_action(arrow)
            board.push(move)
        if board.is_game_over():
            winner = int(board.winner)  # the side that cannot move loses, in both
            assert state.returns()[winner] == 1.0 and state.returns()[1 - winner] == -1.0
    assert checked >= 30


def test_cells_follow_openspiel_rows_from_the_top():
    for size in SIZES:
        assert square_to_cell(0, size) == (size - 1) * size  # a1: the bottom row, first column
        assert square_to_cell(size * size - 1, size) == size - 1  # the top-right corner
        assert all(cell_to_square(square_to_cell(sq, size), size) == sq for sq in range(size * size))
    start = load_game(10).new_initial_state()
    assert sorted(start.legal_actions()) == sorted(square_to_cell(sq, 10) for sq in Board(10).layout().white)


def test_bad_action_sequences_are_refused_naming_the_action():
    with pytest.raises(InvalidMoveError, match="middle of a turn"):
        actions_to_moves([93, 33], 10)
    with pytest.raises(InvalidMoveError, match="action 1: 100 is not a cell"):
        actions_to_moves([93, 100, 36], 10)
    with pytest.raises(InvalidMoveError, match="action 0: 'x' is not an integer"):
        actions_to_moves(["x", 1, 2], 10)
    with pytest.raises(InvalidMoveError, match="action 2: True"):
        actions_to_moves([93, 33, True], 10)
    with pytest.raises(IllegalMoveError):
        board_from_actions([0, 1, 2], 10)  # cell 0 is a10: no White queen there


def test_states_that_cannot_be_converted_are_refused():
    with pytest.raises(InvalidPositionError, match="sizes"):
        load_game(7)
    board = Board.from_text("1q2q1/q4q/6/6/Q4Q/1Q2Q1 b")  # the 6x6 start, but Black to move
    with pytest.raises(InvalidPositionError, match="cannot set up"):
        state_from_board(board)
    board = Board(8)
    board.push(Move.parse("c1-c5/f5", size=8))
    with pytest.raises(InvalidPositionError, match="game is"):
        state_from_board(board, load_game(6))
    state = state_from_board(board)
    assert board_from_state(state) == board and board_from_state(state).move_stack == board.move_stack
