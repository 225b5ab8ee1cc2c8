"""The numba kernels against a slow, obviously-right pure-Python move generator (hypothesis).

Positions come two ways, on every size 4..12: random play from the start, and random custom
layouts (any number of queens per side, any arrows, either side to move).
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amazons_env import Board, Move, core, transform_move
from amazons_env.core import MAX_QUEENS, MAX_SIZE, MIN_SIZE

from tests.strategies import positions

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
RUNS: dict = {}  # scratch tables of count_moves_open, one per size
STEPS = [(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if (df, dr) != (0, 0)]


# -- the reference: a dict of occupied squares, walked square by square -------------------------


def occupied_squares(board):
    """Public square -> piece letter for every non-empty square."""
    return {sq: board.piece_at(sq) for sq in range(board.size**2) if board.piece_at(sq)}


def reach(size, occupied, square):
    """The squares a queen on ``square`` reaches over empty squares."""
    file, rank = square % size, square // size
    out = []
    for df, dr in STEPS:
        f, r = file + df, rank + dr
        while 0 <= f < size and 0 <= r < size and (r * size + f) not in occupied:
            out.append(r * size + f)
            f, r = f + df, r + dr
    return out


def reference_moves(board):
    """Every legal (from, to, arrow) of the side to move, as a list (duplicates would show)."""
    size, occupied = board.size, occupied_squares(board)
    own = "Q" if board.turn == 0 else "q"
    moves = []
    for frm in sorted(sq for sq, piece in occupied.items() if piece == own):
        without = {sq: p for sq, p in occupied.items() if sq != frm}
        for to in reach(size, without, frm):
            for arrow in reach(size, without, to):
                moves.append((frm, to, arrow))
    return moves


def kernel_args(board):
    return board.cells, board.queens, board.queen_counts, int(board.turn), board.dirs


# -- the tests ------------------------------------------------------------------------------------


@SETTINGS
@given(positions)
def test_generated_moves_equal_the_reference(board):
    expected = reference_moves(board)
    got = [tuple(row) for row in board.legal_moves_array().tolist()]
    assert len(got) == len(set(got)), "the kernel listed a move twice"
    assert sorted(got) == sorted(expected)
    assert board.count_legal_moves() == len(expected)
    runs = RUNS.setdefault(board.size, core.run_tables(board.size))  # reused, as perft does
    assert core.count_moves_open(*kernel_args(board), runs) == len(expected)
    buffer = np.empty((core.max_moves(board.size, MAX_QUEENS), 3), dtype=np.int64)
    n = core.generate_moves(*kernel_args(board), buffer)  # padded squares, same order
    assert core.public_index(board.size)[buffer[:n]].tolist() == [list(m) for m in got]
    assert bool(core.has_move(*kernel_args(board))) == bool(expected) == (not board.is_game_over())


@SETTINGS
@given(positions)
def test_mobility_counts_equal_the_reference(board):
    size, occupied = board.size, occupied_squares(board)
    own = "Q" if board.turn == 0 else "q"
    queens = [sq for sq, piece in occupied.items() if piece == own]
    assert core.count_queen_moves(*kernel_args(board)) == sum(len(reach(size, occupied, q)) for q in queens)
    neighbours = 0
    for q in queens:
        for df, dr in STEPS:
            f, r = q % size + df, q // size + dr
            neighbours += 0 <= f < size and 0 <= r < size and (r * size + f) not in occupied
    assert core.count_directions(*kernel_args(board)) == neighbours
    pad = core.padded_index(size)
    for sq in range(size * size):
        assert core.count_arrows(board.cells, board.dirs, pad[sq]) == len(reach(size, occupied, sq))


@SETTINGS
@given(positions, st.randoms(use_true_random=False))
def test_is_legal_agrees_with_membership(board, rng):
    legal = set(board.legal_moves())
    for move in legal:
        assert board.is_legal(move)
    n, size = board.size**2, board.size
    own = [sq for sq in range(n) if board.piece_at(sq) == ("Q" if board.turn == 0 else "q")]
    candidates = []
    for _ in range(200):  # near misses: a real queen, random squares; and fully random triples
        frm = rng.choice(own) if rng.random() < 0.7 else rng.randrange(n)
        to, arrow = rng.randrange(n), rng.randrange(n)
        if frm != to and to != arrow:
            candidates.append(Move(frm, to, arrow, size))
    for move in list(legal)[:50]:  # and legal moves with one square changed
        f, t, a = move.from_square, move.to_square, move.arrow
        for changed in ((f, t, rng.randrange(n)), (f, rng.randrange(n), a), (rng.randrange(n), t, a)):
            if changed[0] != changed[1] and changed[1] != changed[2]:
                candidates.append(Move(*changed, size))
    for move in candidates:
        assert board.is_legal(move) == (move in legal), move


def snapshot(board):
    return (
        board.cells.copy(),
        board.queens.copy(),
        board.queen_counts.copy(),
        board.turn,
        board.move_stack,
        board.text(),
    )


def assert_same(a, b):
    for x, y in zip(a, b):
        if isinstance(x, np.ndarray):
            assert np.array_equal(x, y)
        else:
            assert x == y


@SETTINGS
@given(positions, st.randoms(use_true_random=False))
def test_push_pop_restores_every_field(board, rng):
    before = snapshot(board)
    moves = board.legal_moves()
    for move in rng.sample(moves, min(len(moves), 40)):
        board.push(move)
        assert board.turn != before[3] and board.peek() == move
        assert board.pop() == move
        assert_same(snapshot(board), before)
        board.push_unchecked(move)
        board.pop()
        assert_same(snapshot(board), before)
    # a sequence of pushes popped in reverse order
    played = 0
    for _ in range(5):
        moves = board.legal_moves()
        if not moves:
            break
        board.push(rng.choice(moves))
        played += 1
    for _ in range(played):
        board.pop()
    assert_same(snapshot(board), before)


@SETTINGS
@given(positions)
def test_symmetries_preserve_counts_and_map_legal_moves(board):
    legal = board.legal_moves()
    for k in range(8):
        image = board.transform(k)
        assert image.count_legal_moves() == len(legal)
        assert {transform_move(m, k) for m in legal} == set(image.legal_moves())
        assert image.turn == board.turn
    assert board.transform(0) == board.copy(stack=False)


@pytest.mark.parametrize("size", range(MIN_SIZE, MAX_SIZE + 1))
def test_start_positions_against_the_reference(size):
    board = Board(size)
    assert sorted(map(tuple, board.legal_moves_array().tolist())) == sorted(reference_moves(board))
    # the start is symmetric under the left-right mirror
    assert board.transform(1) == board


def test_move_arrays_are_independent_of_the_shared_scratch():
    first, second = Board(8), Board(8)
    second.push(second.legal_moves()[5])
    rows = first.legal_moves_array()
    kept = rows.copy()
    other = second.legal_moves_array()
    assert np.array_equal(rows, kept) and not np.array_equal(rows[: len(other)], other)
    assert first.copy().legal_moves_array().tolist() == kept.tolist()
