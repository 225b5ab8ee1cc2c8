"""The time manager, the game clocks in a ``Limit`` and time controls (``agents.time.manager``,
``agents.time.limit``, ``agents.time.control``): the allotment grows with what is left, a side
that always takes its longest time never runs out, and every bad reading is refused naming it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from amazons_env import Board

from agents.arena import opening_board
from agents.search.agent import SearchAgent, think
from agents.search.result import SearchResult
from agents.time.control import TimeControl
from agents.time.limit import Limit, LimitError
from agents.time.manager import (
    FEWEST_MOVES,
    LEAST_TIME,
    MOST_OF_LEFT,
    MOVES_PER_EMPTY,
    TimeControlError,
    allot,
    contested_squares,
    expected_moves,
    move_limit,
)


def test_allotment_grows_with_the_time_left_the_increment_and_fewer_moves_to_go():
    board = Board(10)
    small, large = allot(board, 10.0), allot(board, 100.0)
    assert small.time < large.time and small.time_max < large.time_max
    assert allot(board, 10.0, 1.0).time > small.time  # the increments still to come are spent too
    assert allot(board, 10.0, moves_to_go=5).time > small.time  # the clock is refilled after 5 moves
    late = opening_board(10, 30, [3, 10])  # fewer empty squares: fewer moves left to spread over
    assert expected_moves(late) < expected_moves(board) and allot(late, 10.0).time > small.time
    for limit in (small, large, allot(late, 10.0)):
        assert limit.time < limit.time_max <= MOST_OF_LEFT * 100.0  # an unsure search may go on


def test_only_the_squares_still_fought_over_count_as_moves_to_come():
    sealed = Board.from_text("Q1*3/**4/6/******/3*1q/6 w")  # a wall of arrows: each side in its region
    assert contested_squares(sealed) == 0 and expected_moves(sealed) == FEWEST_MOVES
    half = Board.from_text("Q1*3/**4/6/*****1/3*1q/6 w")  # a gap in the wall: one region again
    assert contested_squares(half) == 25 and expected_moves(half) == math.ceil(MOVES_PER_EMPTY * 25)
    board = opening_board(8, 6, [2, 8])
    assert contested_squares(board) == int(np.count_nonzero(board.cells == 0))  # one region at the start


@pytest.mark.parametrize("size", [6, 8, 10])
@pytest.mark.parametrize(("left", "increment"), [(0.05, 0.0), (1.0, 0.0), (6.0, 0.0), (60.0, 0.1), (3.0, 0.5)])
def test_a_side_that_always_takes_its_longest_time_never_runs_out(size, left, increment):
    """Each move takes all its ``time_max`` and the overhead on top: the clock never reaches zero
    over as many moves as the side could possibly make (half the empty squares), as long as the
    first allotment was above the least time of a move."""
    board = Board(size)
    clock = left
    for _ in range(size * size // 2):
        limit = allot(board, clock, increment)
        if limit.time_max <= LEAST_TIME:
            break  # too little left to play on: each move gets the least time, whatever it costs
        clock -= limit.time_max + 0.02  # the overhead the manager keeps back by default
        assert clock > 0, (clock, limit)
        clock += increment


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"left": -1.0}, "time left -1.0"),
        ({"left": float("nan")}, "time left nan"),
        ({"left": float("inf")}, "time left inf"),
        ({"left": "5"}, "time left '5'"),
        ({"left": 1.0, "increment": -0.1}, "increment -0.1"),
        ({"left": 1.0, "increment": float("inf")}, "increment inf"),
        ({"left": 1.0, "overhead": -0.01}, "move overhead -0.01"),
        ({"left": 1.0, "moves_to_go": 0}, "moves to go 0"),
        ({"left": 1.0, "moves_to_go": 2.5}, "moves to go 2.5"),
        ({"left": 1.0, "moves_to_go": True}, "moves to go True"),
    ],
)
def test_bad_clock_readings_are_refused_naming_them(arguments, words):
    with pytest.raises(TimeControlError, match=words):
        allot(Board(8), **arguments)


def test_game_clocks_in_a_limit_allot_the_side_to_move():
    board = opening_board(8, 1, [1, 8])  # Black to move
    clocks = Limit(white_clock=100.0, black_clock=2.0, black_inc=0.5, remaining_moves=3, depth=4)
    expected = allot(board, 2.0, 0.5, 3)
    assert move_limit(board, clocks) == Limit(time=expected.time, time_max=expected.time_max, depth=4)
    assert move_limit(board, clocks, overhead=0.0).time == allot(board, 2.0, 0.5, 3, overhead=0.0).time
    assert move_limit(board, Limit(white_clock=5.0)) == Limit()  # only White's clock: nothing for Black
    assert move_limit(board, Limit(time=0.5, black_clock=2.0)) == Limit(time=0.5)  # a given time is kept
    assert Limit(black_clock=2.0, depth=3).only(("time",)) == Limit(black_clock=2.0)  # the clocks go with time
    assert Limit(black_clock=2.0, depth=3).only(("depth",)) == Limit(depth=3)


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"white_clock": -1.0}, "white_clock=-1.0"),
        ({"black_clock": float("nan")}, "black_clock=nan"),
        ({"white_clock": float("inf")}, "white_clock=inf"),
        ({"white_clock": 1.0, "white_inc": -0.1}, "white_inc=-0.1"),
        ({"white_clock": 1.0, "remaining_moves": 0}, "remaining_moves=0"),
        ({"black_inc": 0.1}, "black_inc=0.1: needs a clock"),
        ({"remaining_moves": 3}, "remaining_moves=3: needs a clock"),
    ],
)
def test_bad_clocks_in_a_limit_are_refused_naming_them(fields, words):
    with pytest.raises(LimitError, match=words):
        Limit(**fields)


class Recorder(SearchAgent):
    """Plays the first legal move, keeping the limit and deadline it was searched with."""

    name = "recorder"
    LIMITS = ("time", "depth")

    def _search(self, board, limit, deadline):
        self.seen = (limit, deadline)
        return SearchResult(board.legal_moves()[0], 0.0)


def test_a_search_given_the_clocks_thinks_the_time_the_manager_allots():
    board = Board(6)
    agent = Recorder(Limit(depth=2))
    think(agent, board, Limit(white_clock=0.4, black_clock=0.4, depth=3, nodes=9))
    allotted = allot(board, 0.4)
    limit, deadline = agent.seen
    assert limit == Limit(time=allotted.time, time_max=allotted.time_max, depth=3)
    assert deadline.stop <= deadline.start + allotted.time and deadline.last <= deadline.start + allotted.time_max
    agent.search(board, Limit(black_clock=0.4))  # White to move: no clock of its own, its own limit
    assert agent.seen[0] == Limit(depth=2)
    with pytest.raises(LimitError, match="holds game clocks"):
        agent.timed(Limit(white_clock=0.4))  # a deadline needs the move's time, not the clocks


@pytest.mark.parametrize(
    ("text", "seconds", "increment"), [("1+0.1", 60.0, 0.1), ("0.5", 30.0, 0.0), (" 2+0 ", 120.0, 0.0)]
)
def test_time_controls_read_minutes_and_increment(text, seconds, increment):
    tc = TimeControl.parse(text)
    assert (tc.seconds, tc.increment) == (seconds, increment)
    assert TimeControl.parse(str(tc)) == tc


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("0", "'0': the minutes must be a finite number > 0"),
        ("-1+0", "the minutes must be"),
        ("nan", "the minutes must be"),
        ("1+inf", "the increment must be"),
        ("1+-0.5", "the increment must be"),
        ("1+fast", "'1\\+fast': give MINUTES\\+INC"),
        ("", "give MINUTES"),
        ("1+2+3", "give MINUTES"),
        (1.5, "time control 1.5: give MINUTES"),
    ],
)
def test_bad_time_controls_are_refused_naming_them(text, words):
    with pytest.raises(TimeControlError, match=words):
        TimeControl.parse(text)


def test_a_time_control_checks_its_fields():
    with pytest.raises(TimeControlError, match="seconds=0"):
        TimeControl(0.0)
    with pytest.raises(TimeControlError, match="increment=-1"):
        TimeControl(1.0, -1.0)
