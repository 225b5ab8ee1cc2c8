"""The one search core (``agents.search.result``, ``agents.search.agent``): ``SearchResult`` and
``Limit`` as values, and what ``SearchAgent`` does for every search (refusing a finished game,
holding a search to the limits it honours, the filling-phase shortcut, ``last_result``)."""

import math
import pickle
import threading
import time

import pytest

from amazons_env import Board, Move
from amazons_env.errors import AmazonsError

from agents import Limit, SearchAgent, SearchResult, make
from agents.search.agent import GameOverError, think
from agents.time.clock import NEVER, as_ns
from agents.time.deadline import DEADLINE_LAST, DEADLINE_STOP, Deadline
from agents.time.limit import LimitError

FINISHED = "Q*q1/****/****/**** w"  # White's queen is walled in: White to move has no move
SEPARATED = "Q1*3/**4/6/******/3*1q/6 w"  # a wall of arrows: the filling phase, White wins 14 to 10


def test_result_reads_its_stats_as_attributes_and_names_a_missing_one():
    move = Move.parse("a1-a2/a3", 6)
    result = SearchResult(move, 0.5, depth=2, nodes=10, seconds=2.0, stats={"evals": 7})
    assert (result.evals, result.nodes_per_second) == (7, 5.0)
    with pytest.raises(AttributeError, match="'simulations'.*stats: evals"):
        _ = result.simulations
    with pytest.raises(AttributeError, match="stats: none"):
        _ = SearchResult(move, 0.0).tree
    assert pickle.loads(pickle.dumps(result)) == result


@pytest.mark.parametrize(
    ("field", "value", "why"),
    [
        ("time", 0, "finite number > 0"),
        ("time", -1.0, "finite number > 0"),
        ("time", math.inf, "finite number > 0"),
        ("time", math.nan, "finite number > 0"),
        ("time", "1", "finite number > 0"),
        ("time", True, "finite number > 0"),
        ("depth", 0, "whole number >= 1"),
        ("depth", 2.5, "whole number >= 1"),
        ("simulations", -3, "whole number >= 1"),
        ("nodes", True, "whole number >= 1"),
        ("nodes", "10", "whole number >= 1"),
        ("time_max", 1.0, "needs time"),
    ],
)
def test_limit_refuses_a_bad_field_naming_it_and_its_value(field, value, why):
    with pytest.raises(LimitError, match=f"Limit {field}=.*{why}") as info:
        Limit(**{field: value})
    assert isinstance(info.value, AmazonsError) and isinstance(info.value, ValueError)


def test_limit_normalises_its_numbers_and_keeps_the_fields_asked_for():
    limit = Limit(time=2, depth=3.0, nodes=100)
    assert (limit.time, limit.depth, limit.nodes) == (2.0, 3, 100) and isinstance(limit.depth, int)
    assert limit.bounds() == ("time", "depth", "nodes") and limit.only(("depth", "simulations")) == Limit(depth=3)
    assert not Limit() and not limit.only(()) and limit


class Counter(SearchAgent):
    """A search that plays the first legal move and counts its calls."""

    name = "counter"
    LIMITS = ("time", "depth")
    STATS = ("evals",)

    def __init__(self, endgame=0):
        super().__init__(Limit(time=1.0), endgame=endgame)
        self.calls = []

    def _search(self, board, limit, deadline):
        self.calls.append(limit)
        return SearchResult(board.legal_moves()[0], 0.0, depth=1, nodes=1, stats={"evals": 3})


def test_a_search_refuses_a_finished_game_with_a_specific_error():
    agent = Counter()
    with pytest.raises(GameOverError, match="counter: no move to search in a finished game: 'Q\\*q1"):
        agent.select_move(Board.from_text(FINISHED))
    assert agent.calls == [] and agent.last_result is None


@pytest.mark.parametrize("spec", ["alphabeta:depth=1", "uct:sims=10", "two-iteration:depth=1"])
def test_every_search_refuses_a_finished_game(spec):
    with pytest.raises(GameOverError):
        make(spec).search(Board.from_text(FINISHED))


def test_a_search_is_held_to_the_limits_it_honours():
    agent, board = Counter(), Board(6)
    assert agent.search(board).move == agent.last_result.move and agent.calls == [Limit(time=1.0)]
    agent.search(board, Limit(depth=2))
    assert agent.calls[-1] == Limit(depth=2) and agent.limit == Limit(time=1.0)
    with pytest.raises(LimitError, match="cannot honour Limit simulations=5"):
        agent.search(board, Limit(simulations=5))
    with pytest.raises(LimitError, match="bounds nothing"):
        agent.search(board, Limit())
    with pytest.raises(LimitError, match="must be a Limit"):
        agent.search(board, 0.5)
    move, result = think(agent, board, Limit(simulations=5, depth=4))  # think keeps what it honours
    assert agent.calls[-1] == Limit(depth=4) and result.move == move


def test_the_filling_shortcut_plays_without_searching_and_reports_zero_stats():
    board = Board.from_text(SEPARATED)
    agent = Counter(endgame=100)
    result = agent.search(board)
    assert agent.calls == [] and str(result.move) == "a6-b6/a6"
    assert (result.value, result.depth, result.nodes, result.evals) == (1.0, 0, 0, 0)
    assert make("alphabeta:depth=2").search(board).value == 2.0  # alpha-beta's proven win
    Counter(endgame=0).search(board)  # endgame=0: searched like any position


def test_the_search_results_are_one_class_with_each_search_s_stats():
    board = Board(6)
    for spec, stats in (
        ("alphabeta:depth=1", {"evals"}),
        ("uct:sims=20", {"simulations", "evals", "tree", "stopped", "ponder"}),
        ("classic:depth=1", set()),
    ):
        result = make(spec).search(board)
        assert type(result) is SearchResult and set(result.stats) == stats and result.seconds > 0


@pytest.mark.parametrize("most", [0.5, -1.0, math.inf, math.nan, "2", True])
def test_limit_time_max_is_seconds_no_fewer_than_time(most):
    with pytest.raises(LimitError, match="Limit time_max=.*finite number >= time"):
        Limit(time=1.0, time_max=most)


def test_time_max_goes_with_time_to_every_search_that_honours_time():
    limit = Limit(time=0.2, time_max=0.6, depth=3)
    assert limit.only(("time",)) == Limit(time=0.2, time_max=0.6) and limit.only(("depth",)) == Limit(depth=3)
    agent = Counter()
    agent.search(Board(6), Limit(time=0.2, time_max=0.6))
    assert agent.calls[-1] == Limit(time=0.2, time_max=0.6)


@pytest.mark.parametrize(("stop", "last"), [(math.nan, None), ("1", None), (True, None), (2.0, 1.0), (1.0, math.nan)])
def test_a_deadline_refuses_a_bad_move_and_is_left_as_it_was(stop, last):
    deadline = Deadline(0.0, 5.0)
    with pytest.raises(AmazonsError, match="Deadline"):
        deadline.move(stop, last)
    assert (deadline.stop, deadline.last) == (5.0, 5.0) and deadline.ns.tolist() == [5 * 10**9] * 2


def test_a_deadline_moved_by_another_thread_is_seen_through_its_array():
    deadline = Deadline(time.perf_counter())
    assert deadline.ns.tolist() == [NEVER, NEVER] and not deadline.passed()
    mover = threading.Thread(target=deadline.move, args=(deadline.start,))
    mover.start()
    mover.join()
    assert deadline.passed() and deadline.ns[DEADLINE_STOP] == as_ns(deadline.start) == deadline.ns[DEADLINE_LAST]


def test_the_filling_shortcut_says_the_move_was_decided():
    board = Board.from_text(SEPARATED)
    assert Counter(endgame=100).search(board).stopped == "decided"
    result = make("uct:sims=10").search(board)
    assert (result.stopped, result.ponder) == ("decided", None)
