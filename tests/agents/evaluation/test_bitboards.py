"""Bitboards (``agents.evaluation.bitboards``) and the bitboard territory kernel
(``agents.evaluation.territory_bitboard``): the primitives against Python integers, the kernel
against the mailbox kernel (the reference) on random games and on hypothesis' random boards of every
size, crowded ones included, both sides to move, with random weights."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from amazons_env import Board, Move, core

from agents.evaluation import bitboards as bb
from agents.evaluation.evaluator import make_evaluator
from agents.evaluation.territory_bitboard import BITBOARD_SIZES, territory_bb_kernel
from agents.evaluation.territory_mailbox import territory_kernel
from agents.options import OptionError

from tests.helpers.positions import random_position

SIZES = range(core.MIN_SIZE, core.MAX_SIZE + 1)  # 12x12 goes through the kernel's mailbox fallback
U64 = (1 << 64) - 1


def _as_int(value) -> int:
    """A bitboard returned by numba (a uint64 or a (lo, hi) pair) as a Python integer."""
    if isinstance(value, tuple):
        return int(value[0]) | int(value[1]) << 64
    return int(value)


def _zero(size: int):
    return np.uint64(0) if size <= bb.ONE_WORD_MAX else (np.uint64(0), np.uint64(0))


def _pack(value: int, size: int):
    if size <= bb.ONE_WORD_MAX:
        return np.uint64(value & U64)
    return np.uint64(value & U64), np.uint64(value >> 64)


@njit
def _ops(a, b, n, i):
    return (
        bb.band(a, b),
        bb.bor(a, b),
        bb.bxor(a, b),
        bb.bandnot(a, b),
        bb.count(a),
        bb.nonzero(a),
        bb.shl(a, n),
        bb.shr(a, n),
        bb.bor(a, bb.bit(a, i)),
        bb.words(a, np.uint64(i), np.uint64(n)),
    )


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from([8, 10]),
    st.integers(0, (1 << 128) - 1),
    st.integers(0, (1 << 128) - 1),
    st.integers(1, 63),
    st.integers(0, 127),
)
def test_primitives_match_python_integers(size, a, b, n, i):
    bits = 64 if size <= bb.ONE_WORD_MAX else 128
    a, b, i = a % (1 << bits), b % (1 << bits), i % bits
    mask = (1 << bits) - 1
    got = [
        _as_int(x) if not isinstance(x, (bool, np.bool_)) else bool(x)
        for x in _ops(_pack(a, size), _pack(b, size), n, i)
    ]
    assert got == [
        a & b,
        a | b,
        a ^ b,
        a & ~b & mask,
        bin(a).count("1"),
        a != 0,
        (a << n) & mask,
        a >> n,
        a | 1 << i,
        (i | n << 64) & mask,
    ]


@njit
def _zero_bytes(array, start, n):
    return bb.zero_bytes(array, start, n)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 255), min_size=24, max_size=24), st.integers(1, 16), st.integers(0, 8))
def test_zero_bytes_flags_the_zero_bytes(values, n, start):
    array = np.array(values, dtype=np.uint8)
    array[::3] = 0  # zeros next to non-zero bytes of every value
    assert _zero_bytes(array, start, n) == sum(1 << f for f in range(n) if array[start + f] == 0)


def test_tables_match_the_board_geometry():
    masks = bb.masks()
    for size in range(core.MIN_SIZE, bb.MAX_BITBOARD_SIZE + 1):
        words = [int(masks[size, row, 0]) | int(masks[size, row, 1]) << 64 for row in range(3)]
        squares = [(s // size, s % size) for s in range(size * size)]
        assert words[bb.BOARD] == (1 << size * size) - 1
        assert words[bb.NOT_FIRST_FILE] == sum(1 << s for s, (_, f) in enumerate(squares) if f != 0)
        assert words[bb.NOT_LAST_FILE] == sum(1 << s for s, (_, f) in enumerate(squares) if f != size - 1)


def test_calling_a_primitive_outside_numba_is_an_error():
    with pytest.raises(TypeError, match="only inside numba"):
        bb.band(np.uint64(1), np.uint64(2))


def _random_params(rng: np.random.Generator) -> np.ndarray:
    """Territory weights inside the evaluator's ranges, the mobility weight sometimes 0."""
    kappa, scale = rng.uniform(-0.2, 0.2), rng.uniform(0.02, 1.0)
    mob = 0.0 if rng.random() < 0.2 else rng.uniform(0, 20)
    return np.array([kappa, scale, mob, rng.uniform(0, 1), *rng.uniform(0, 2, 3)], dtype=np.float64)


def _check(board: Board, params: np.ndarray) -> None:
    for side in (0, 1):
        args = (board.cells, board.queens, board.queen_counts, side, board.dirs, params)
        reference, value = territory_kernel(*args), territory_bb_kernel(*args)
        assert abs(value - reference) <= 1e-12, (board.text(), side, params.tolist(), reference, value)


@pytest.mark.parametrize("size", SIZES)
def test_kernel_matches_mailbox_on_random_games(size):
    """Every position of seeded random games, from the start to the end."""
    rng = np.random.default_rng(size)
    default = make_evaluator("territory").params
    for game in range(3):
        board = Board(size)
        while True:
            _check(board, default if game == 0 else _random_params(rng))
            moves = board.legal_moves_array()
            if len(moves) == 0:
                break
            board.push(Move(*moves[rng.integers(len(moves))].tolist(), size))


@st.composite
def boards(draw) -> Board:
    """Any layout: 1-4 amazons a side anywhere, a random share of the other squares shot (up to all)."""
    size = draw(st.sampled_from(list(SIZES)))
    per_side = draw(st.integers(1, 4))
    squares = draw(st.permutations(range(size * size)))
    density = draw(st.sampled_from([0.0, 0.3, 0.6, 0.85, 0.95, 1.0]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    arrows = [s for s in squares[2 * per_side :] if rng.random() < density]
    return Board.from_squares(
        size, squares[:per_side], squares[per_side : 2 * per_side], arrows, turn=draw(st.integers(0, 1))
    )


@settings(max_examples=300, deadline=None)
@given(boards(), st.integers(0, 2**32 - 1))
def test_kernel_matches_mailbox_on_any_board(board, seed):
    _check(board, _random_params(np.random.default_rng(seed)))


def test_crowded_and_blocked_boards():
    """No move for the side to move (-1), a single empty square, no empty square at all."""
    for size in (4, 8, 10, 11):
        n = size * size
        everything = [s for s in range(n) if s not in (0, n - 1)]
        full = Board.from_squares(size, [0], [n - 1], everything)
        one_hole = Board.from_squares(size, [0], [n - 1], everything[1:])  # square 1 empty, by White
        for board in (full, one_hole):
            _check(board, make_evaluator("territory").params)
        args = (full.cells, full.queens, full.queen_counts, 0, full.dirs, make_evaluator("territory").params)
        assert territory_bb_kernel(*args) == -1.0


def test_territory_evaluator_uses_the_bitboard_kernel_by_default():
    assert make_evaluator("territory").kernel is territory_bb_kernel
    assert make_evaluator("territory:kernel=mailbox").kernel is territory_kernel
    board = random_position(3, size=10, max_moves=300)
    assert (
        abs(make_evaluator("territory").evaluate(board) - make_evaluator("territory:kernel=mailbox").evaluate(board))
        <= 1e-12
    )
    with pytest.raises(OptionError, match="kernel"):
        make_evaluator("territory:kernel=simd")
    assert list(BITBOARD_SIZES) == list(range(core.MIN_SIZE, 12))
