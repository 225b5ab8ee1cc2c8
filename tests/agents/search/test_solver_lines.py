"""The proof searches' queen-move counts from line words (agents.search.solver.lines) against the
rules core's walk on random positions of every size with tables, and the solver on boards too
big for them (the walk) against brute-force minimax."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amazons_env import Board, core

from agents.arena import opening_board
from agents.search.solver import Solver
from agents.search.solver.lines import after, count, new_lines, occupancy

from tests.helpers.positions import wins


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(4, 8), st.integers(0, 30), st.integers(0, 10**6))
def test_words_and_counts_match_the_board_after_every_move(size, plies, seed):
    board = opening_board(size, min(plies, size * size // 2), [seed])
    lines = new_lines(board.cells.shape[0])
    assert lines.size == size
    cells, queens, nq, dirs = board.cells.copy(), board.queens.copy(), board.queen_counts.copy(), board.dirs
    occ = tuple(np.uint64(word) for word in occupancy(cells, lines))
    side = int(board.turn)
    rows = np.zeros((core.max_moves(size, int(nq.max())), 3), dtype=np.int64)
    n = core.generate_moves(cells, queens, nq, side, dirs, rows)
    for frm, to, arrow in rows[np.random.default_rng(seed).permutation(n)[:25]]:
        index = core.find_queen(queens, nq, side, frm)
        core.make_move(cells, queens, side, index, to, arrow)
        words = tuple(np.uint64(word) for word in after(occ, lines, frm, to, arrow))
        assert words == tuple(np.uint64(word) for word in occupancy(cells, lines))
        for counted in (0, 1):
            assert count(queens, nq, counted, lines, words) == core.count_queen_moves(cells, queens, nq, counted, dirs)
        core.unmake_move(cells, queens, side, index, frm, to, arrow)
    assert np.array_equal(cells, board.cells) and np.array_equal(queens, board.queens)


def test_boards_beyond_a_word_have_no_tables():
    assert new_lines(Board(size=9).cells.shape[0]).size == 0
    assert new_lines(Board(size=8).cells.shape[0]).size == 8


def _endgame(size: int, seed: int, empties: int) -> Board:
    """A ``size`` x ``size`` position with 4 amazons a side, ``empties`` empty squares and arrows
    on the rest, at random."""
    rng = np.random.default_rng(seed)
    squares = rng.permutation(size * size)
    marks = np.full(size * size, "*")
    marks[squares[:4]], marks[squares[4:8]], marks[squares[8 : 8 + empties]] = "Q", "q", "."
    rows = ["".join(marks[r * size : (r + 1) * size]) for r in range(size)]
    text = "/".join(_run_lengths(row) for row in rows)
    return Board.from_text(f"{text} {'wb'[seed % 2]}")


def _run_lengths(row: str) -> str:
    out, gap = "", 0
    for mark in row:
        if mark == ".":
            gap += 1
            continue
        out += (str(gap) if gap else "") + mark
        gap = 0
    return out + (str(gap) if gap else "")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.sampled_from([(16, 0), (16, 30), (16, 3)]))
def test_a_board_without_tables_is_proved_by_walking(seed, options):
    board = _endgame(10, seed, 7)
    assert Solver(*options).solve(board).value == ("won" if wins(board.text()) else "lost")
