"""The searches' clock (``agents.search.clock``): options, tiny budgets, and the predicting manager kept exact.

No test here asserts on wall time (the machine is shared); ``benchmarks/clock.py`` measures how
much of ``time=T`` each agent uses."""

from __future__ import annotations

import gc
import math
import time

import numpy as np
import pytest

from amazons_env import Board

from agents import Limit, make
from agents.arena import opening_board, play_game
from agents.search.clock import (
    FEWEST_MOVES,
    LEAST_TIME,
    MOST_OF_LEFT,
    MOVES_PER_EMPTY,
    NEVER,
    Clock,
    GameClocks,
    TimeControlError,
    allot,
    as_ns,
    contested_squares,
    expected_moves,
    freeze_survivors,
    frozen_heap,
    now_ns,
)

from tests.agents.test_engines import BatchOnly  # the territory values behind evaluate_batch only, as the CNN's

# (size, depth, opening plies) -> (move, value, nodes, evals) of alphabeta at a fixed depth, recorded
# before the full clock existed: a fixed-depth search must give them under either time manager
PINNED = {
    (6, 3, 4): ("b1-b4/c5", 0.9621671919199146, 50, 4896),
    (8, 2, 6): ("f1-c4/b3", 0.5362435674776922, 12, 2667),
    (8, 3, 10): ("c1-c3/g3", 0.9507377434685498, 52, 7793),
}


def test_clock_reads_the_perf_counter():
    before = time.perf_counter_ns()
    assert before <= now_ns() <= time.perf_counter_ns()
    start = time.perf_counter()
    clock = Clock()
    assert start < clock.stop(start, 0.5) < start + 0.5
    assert as_ns(start) < as_ns(clock.stop(start, 0.5)) < as_ns(float("inf")) == NEVER


def test_clock_keeps_back_how_late_searches_return():
    clock = Clock()
    clock.returned(time.perf_counter() - 0.1)  # a search that returned 0.1 s after its stop
    assert clock.late >= 0.1
    assert clock.stop(0.0, 1.0) <= 0.99 - 0.1
    assert clock.stop(0.0, 0.1) > 0.075  # lateness keeps back at most a fifth of the time
    clock.returned(time.perf_counter() + 5)  # finished early: the lateness fades
    assert 0.09 <= clock.late < 0.1


def test_time_before_the_deadline_holds_is_not_lateness():
    clock = Clock()
    stop = time.perf_counter() - 2.0  # the deadline passed during an unbounded first iteration
    clock.returned(stop, bounded_from=time.perf_counter())
    assert clock.late < 0.5  # only the return after the iteration counts
    clock.returned(stop)  # told nothing, the whole overrun counts
    assert clock.late >= 2.0


@pytest.mark.parametrize(
    ("spec", "options"),
    [("alphabeta:time=0.001", {}), ("two-iteration:time=0.001", {}), ("alphabeta:time=0.001", {"eval": BatchOnly()})],
)
def test_searches_say_when_their_deadline_holds(spec, options, monkeypatch):
    """A first iteration runs to its end whatever the time (a move to play): the searches tell
    their clock when the deadline came into force, so that a slow first iteration (a cold start)
    does not cut the next moves short (seen: 0.79 s moves after a 3.25 s first move)."""
    seen = []
    monkeypatch.setattr(
        Clock, "returned", lambda self, stop, bounded_from=float("-inf"): seen.append((stop, bounded_from))
    )
    before = time.perf_counter()
    make(spec, **options).search(Board(6))
    assert len(seen) == 1 and before < seen[0][1] <= time.perf_counter()


@pytest.mark.parametrize("spec", ["alphabeta:clock=fast", "alphabeta:clock=1", "alphabeta:clock=true"])
def test_unknown_clock_is_refused(spec):
    with pytest.raises(ValueError, match="clock="):
        make(spec)


def test_the_former_name_of_the_predicting_clock_still_works_with_a_warning():
    with pytest.warns(DeprecationWarning, match="clock=predict"):
        agent = make("alphabeta:depth=2,clock=legacy")
    assert agent.clock_mode == "predict"


@pytest.mark.parametrize(("size", "depth", "plies"), sorted(PINNED))
@pytest.mark.parametrize("clock", ["full", "predict"])
def test_fixed_depth_search_matches_the_pinned_results(size, depth, plies, clock):
    board = opening_board(size, plies, [7, size])
    result = make(f"alphabeta:depth={depth},clock={clock}").search(board)
    move, value, nodes, evals = PINNED[size, depth, plies]
    # the value to 1e-12: the bitboard territory kernel sums in another order than the pinned run's
    assert (str(result.move), result.nodes, result.evals) == (move, nodes, evals)
    assert result.value == pytest.approx(value, rel=1e-12, abs=1e-12)
    assert result.depth == depth


@pytest.mark.parametrize(
    "spec", ["alphabeta:time=0.05", "alphabeta:time=0.05,clock=predict", "alphabeta:time=0.05,depth=3"]
)
def test_tiny_budget_gives_a_legal_move(spec):
    board = opening_board(8, 2, [1, 8])
    agent = make(spec)
    move = agent.select_move(board)
    assert board.is_legal(move)
    # how deep 0.05 s reaches depends on the machine (the bitboard kernel reaches depth 4 on a
    # free core): only an explicit depth cap is a bound the test can hold the search to
    assert agent.last_result.depth >= 1
    if "depth=3" in spec:
        assert agent.last_result.depth <= 3


@pytest.mark.parametrize(
    "spec", ["mcts:time=0.05", "two-iteration:time=0.05", "classic:time=0.05", "move-then-arrow:time=0.05"]
)
def test_tiny_budget_gives_a_legal_move_for_every_search(spec):
    board = opening_board(8, 2, [2, 8])
    assert board.is_legal(make(spec).select_move(board))


@pytest.mark.parametrize("variant", ["two-iteration", "classic", "move-then-arrow"])
def test_study_searches_default_to_one_second(variant):
    assert make(variant).limit == Limit(time=1.0)
    assert make(f"{variant}:depth=3").limit == Limit(depth=3)
    assert make(f"{variant}:depth=3,time=2").limit == Limit(time=2, depth=3)


# A budget that has passed before the search starts: the first iteration still finishes (a move
# to play) and the next is aborted at once, so the result is exactly the depth-1 search's.
@pytest.mark.parametrize("name", ["alphabeta", "two-iteration", "classic", "move-then-arrow"])
def test_a_spent_budget_plays_the_first_iteration(name):
    board = opening_board(8, 4, [3, 8])
    timed = make(f"{name}:time=1e-9").search(board)
    fixed = make(f"{name}:depth=1").search(board)
    assert (timed.move, timed.value, timed.depth) == (fixed.move, fixed.value, 1)


def test_mcts_with_a_spent_budget_plays_its_best_scored_move():
    board = opening_board(8, 4, [3, 8])
    agent = make("mcts:time=1e-9")
    result = agent.search(board)
    assert result.simulations == 0 and board.is_legal(result.move)
    assert result.value == agent.root.first_move.max() == agent.root.first_move[0]


def test_kernel_search_past_its_deadline_gives_no_move():
    from agents.evaluation.evaluator import make_evaluator
    from agents.search.study import search_kernel

    board = opening_board(8, 2, [4, 8])
    for variant in ("classic", "two-iteration", "move-then-arrow"):
        assert search_kernel(variant, board, 2, make_evaluator("improved"), deadline=0.0)[0] is None
        assert search_kernel(variant, board, 1, make_evaluator("improved"))[0] is not None


def test_pace_stops_before_a_forward_pass_that_would_overrun():
    from agents.evaluation.evaluator import make_evaluator
    from agents.search.batched_alphabeta import Pace, batched_alphabeta

    board = opening_board(6, 2, [5, 6])
    slow = Pace()
    slow.record(1000, 1000.0)  # one second per position: no batch fits in the next minute
    evaluator = make_evaluator("basic")
    in_a_minute = time.perf_counter() + 60
    assert batched_alphabeta(board, 1, evaluator, deadline=in_a_minute, pace=slow).move is None
    fast = Pace()
    assert batched_alphabeta(board, 1, evaluator, deadline=in_a_minute, pace=fast).move is not None
    assert fast.per_position > 0  # learnt from the call


@pytest.fixture(scope="module")
def tiny_net(tmp_path_factory):
    torch = pytest.importorskip("torch")
    from agents.nets.export import save_model
    from agents.nets.models import ResValueNet

    torch.manual_seed(2)
    return str(save_model(ResValueNet(channels=8, blocks=1), tmp_path_factory.mktemp("clock") / "res", board_size=6))


@pytest.mark.parametrize("search", ["alphabeta", "two-iteration"])
def test_value_net_search_with_a_spent_budget_plays_the_first_iteration(tiny_net, search):
    board = opening_board(6, 2, [6, 6])
    timed = make(f"{search}:eval=value-net,weights={tiny_net},time=1e-9").search(board)
    fixed = make(f"{search}:eval=value-net,weights={tiny_net},depth=1").search(board)
    assert (timed.move, timed.depth) == (fixed.move, 1)
    assert timed.value == pytest.approx(fixed.value)


def test_batched_search_cut_after_its_first_root_move_keeps_the_best_so_far():
    from agents.evaluation.evaluator import make_evaluator
    from agents.search.batched_alphabeta import batched_alphabeta

    board = opening_board(6, 2, [7, 6])
    evaluator = make_evaluator("basic")
    full = batched_alphabeta(board, 2, evaluator, k=4)
    first = batched_alphabeta(board, 1, evaluator).move  # what iterative deepening would search first
    cut = [
        batched_alphabeta(board, 2, evaluator, k=4, node_limit=limit, first=first) for limit in range(1, full.nodes + 2)
    ]
    partial = [r for r in cut if r.move is not None and not r.complete]
    assert partial and all(r.move is None for r in cut[: cut.index(partial[0])])
    assert all(board.is_legal(r.move) and r.value <= full.value + 1e-12 for r in partial)
    assert cut[-1].complete and (cut[-1].move, cut[-1].value) == (full.move, full.value)
    assert batched_alphabeta(board, 2, evaluator, k=4, node_limit=partial[0].nodes).move is None  # no first


def test_batched_search_reuses_the_root_scores_of_its_last_iteration() -> None:
    from agents.evaluation.evaluator import make_evaluator
    from agents.search.batched_alphabeta import batched_alphabeta

    board = opening_board(6, 2, [8, 6])
    evaluator = make_evaluator("basic")
    memo: list = []
    first = batched_alphabeta(board, 1, evaluator, root_memo=memo)
    assert len(memo[0]) == first.evals  # the root's moves, scored once
    again = batched_alphabeta(board, 2, evaluator, k=3, root_memo=memo)
    plain = batched_alphabeta(board, 2, evaluator, k=3)
    assert (again.move, again.value) == (plain.move, plain.value)
    assert again.evals == plain.evals - first.evals


def test_frozen_heap_freezes_for_the_block_only():
    """A nested block neither freezes what is new nor unfreezes. The count is read as at most what
    was frozen, never equal to it: a frozen object that another thread releases leaves the count."""
    assert gc.get_freeze_count() == 0
    with frozen_heap():
        frozen = gc.get_freeze_count()
        assert frozen > 0
        new = [[i] for i in range(1000)]  # a nested freeze would take these in
        with frozen_heap():  # nested: left as it is
            assert 0 < gc.get_freeze_count() <= frozen
        assert 0 < gc.get_freeze_count() <= frozen and len(new) == 1000
    assert gc.get_freeze_count() == 0


def test_freeze_survivors_adds_to_a_frozen_heap_only():
    freeze_survivors()  # outside a frozen block: nothing
    assert gc.get_freeze_count() == 0
    with frozen_heap():
        before = gc.get_freeze_count()
        kept = [[i] for i in range(1000)]  # what a move loaded and keeps
        freeze_survivors()
        assert gc.get_freeze_count() >= before + len(kept)
    assert gc.get_freeze_count() == 0


def test_arena_games_are_played_with_the_heap_frozen():
    seen = []

    class Spy(type(make("random"))):
        def select_move(self, board):
            seen.append(gc.get_freeze_count())
            return super().select_move(board)

    play_game(Spy(seed=1), Spy(seed=2), Board(5))
    assert seen and min(seen) > 0 and gc.get_freeze_count() == 0


# -- the time manager of game clocks -----------------------------------------------------------------


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


def test_game_clocks_allot_the_side_to_move_and_check_both():
    board = opening_board(8, 1, [1, 8])  # Black to move
    clocks = GameClocks((100.0, 2.0), (0.0, 0.5), moves_to_go=3)
    assert clocks.limit(board) == allot(board, 2.0, 0.5, 3)
    assert clocks.limit(board, overhead=0.0) == allot(board, 2.0, 0.5, 3, overhead=0.0)
    with pytest.raises(TimeControlError, match="Black's left -1"):
        GameClocks((1.0, -1.0))
    with pytest.raises(TimeControlError, match="White's increment nan"):
        GameClocks((1.0, 1.0), (float("nan"), 0.0))
    with pytest.raises(TimeControlError, match="give White's and Black's"):
        GameClocks((1.0,))
    with pytest.raises(TimeControlError, match="moves to go -2"):
        GameClocks((1.0, 1.0), moves_to_go=-2)
