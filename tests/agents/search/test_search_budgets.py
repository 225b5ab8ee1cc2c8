"""The searches on their deadline (``agents.time``): clock options, tiny budgets, the predicting manager kept exact.

No test here asserts on wall time (the machine is shared); ``benchmarks/search/clock.py`` measures how
much of ``time=T`` each agent uses."""

from __future__ import annotations

import time

import pytest

from amazons_env import Board

from agents import Limit, make
from agents.arena import opening_board
from agents.time.margin import Margin

from tests.helpers.evaluators import BatchOnly  # the territory values behind evaluate_batch only, as the CNN's

# (size, depth, opening plies) -> (move, value, nodes, evals) of alphabeta at a fixed depth, recorded
# before the full clock existed: a fixed-depth search must give them under either time manager
PINNED = {
    (6, 3, 4): ("b1-b4/c5", 0.9621671919199146, 50, 4896),
    (8, 2, 6): ("f1-c4/b3", 0.5362435674776922, 12, 2667),
    (8, 3, 10): ("c1-c3/g3", 0.9507377434685498, 52, 7793),
}


@pytest.mark.parametrize(
    ("spec", "options"),
    [("alphabeta:time=0.001", {}), ("two-iteration:time=0.001", {}), ("alphabeta:time=0.001", {"eval": BatchOnly()})],
)
def test_searches_say_when_their_deadline_holds(spec, options, monkeypatch):
    """A first iteration runs to its end whatever the time (a move to play): the searches tell
    their margin when the deadline came into force, so that a slow first iteration (a cold start)
    does not cut the next moves short (seen: 0.79 s moves after a 3.25 s first move)."""
    seen = []
    monkeypatch.setattr(
        Margin, "returned", lambda self, stop, bounded_from=float("-inf"): seen.append((stop, bounded_from))
    )
    before = time.perf_counter()
    make(spec, **options).search(Board(6))
    assert len(seen) == 1 and before < seen[0][1] <= time.perf_counter()


@pytest.mark.parametrize("spec", ["alphabeta:clock=fast", "alphabeta:clock=1", "alphabeta:clock=true"])
def test_unknown_clock_is_refused(spec):
    with pytest.raises(ValueError, match="clock="):
        make(spec)


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
    """One simulation at least (the root's expansion and its best child's score), then the clock."""
    from agents.search import uct_tree as T

    board = opening_board(8, 4, [3, 8])
    agent = make("mcts:time=1e-9")
    result = agent.search(board)
    ni, nf, st = agent._tree
    first, n = int(ni[int(st[T.ROOT]), T.FIRST]), int(ni[int(st[T.ROOT]), T.NKIDS])
    assert result.simulations == 1 and board.is_legal(result.move)
    assert result.value == nf[first, T.STATIC] == nf[first : first + n, T.STATIC].max()


def test_kernel_search_past_its_deadline_gives_no_move():
    from agents.evaluation.evaluator import make_evaluator
    from agents.search.study.agent import search_kernel

    board = opening_board(8, 2, [4, 8])
    for variant in ("classic", "two-iteration", "move-then-arrow"):
        assert search_kernel(variant, board, 2, make_evaluator("improved"), deadline=0.0)[0] is None
        assert search_kernel(variant, board, 1, make_evaluator("improved"))[0] is not None


def test_pace_stops_before_a_forward_pass_that_would_overrun():
    from agents.evaluation.evaluator import make_evaluator
    from agents.search.alphabeta.batched import Pace, batched_alphabeta

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
    from agents.search.alphabeta.batched import batched_alphabeta

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
    from agents.search.alphabeta.batched import batched_alphabeta

    board = opening_board(6, 2, [8, 6])
    evaluator = make_evaluator("basic")
    memo: list = []
    first = batched_alphabeta(board, 1, evaluator, root_memo=memo)
    assert len(memo[0]) == first.evals  # the root's moves, scored once
    again = batched_alphabeta(board, 2, evaluator, k=3, root_memo=memo)
    plain = batched_alphabeta(board, 2, evaluator, k=3)
    assert (again.move, again.value) == (plain.move, plain.value)
    assert again.evals == plain.evals - first.evals
