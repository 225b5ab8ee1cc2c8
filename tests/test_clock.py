"""The searches' clock (``agents.clock``): options, tiny budgets, and the legacy manager kept exact.

No test here asserts on wall time (the machine is shared); ``benchmarks/clock.py`` measures how
much of ``time=T`` each agent uses."""

from __future__ import annotations

import time

import pytest

from agents import make
from agents.arena import opening_board
from agents.clock import NEVER, deadline_ns, now_ns

# (size, depth, opening plies) -> (move, value, nodes, evals) of round one's alphabeta at a fixed
# depth, recorded before the clock changed: the legacy clock and the new one must both give them
PINNED = {
    (6, 3, 4): ("b1-b4/c5", 0.9621671919199146, 50, 4896),
    (8, 2, 6): ("f1-c4/b3", 0.5362435674776922, 12, 2667),
    (8, 3, 10): ("c1-c3/g3", 0.9507377434685498, 52, 7793),
}


def test_clock_reads_the_perf_counter():
    before = time.perf_counter_ns()
    assert before <= now_ns() <= time.perf_counter_ns()
    start = time.perf_counter()
    assert int(start * 1e9) < deadline_ns(start, 0.5) <= int((start + 0.5) * 1e9) < NEVER


@pytest.mark.parametrize("spec", ["alphabeta:clock=fast", "alphabeta:clock=1", "alphabeta:clock=true"])
def test_unknown_clock_is_refused(spec):
    with pytest.raises(ValueError, match="clock="):
        make(spec)


@pytest.mark.parametrize(("size", "depth", "plies"), sorted(PINNED))
@pytest.mark.parametrize("clock", ["full", "legacy"])
def test_fixed_depth_search_is_round_ones(size, depth, plies, clock):
    board = opening_board(size, plies, [7, size])
    result = make(f"alphabeta:depth={depth},clock={clock}").search(board)
    assert (str(result.move), result.value, result.nodes, result.evals) == PINNED[size, depth, plies]
    assert result.depth == depth


@pytest.mark.parametrize("spec", ["alphabeta:time=0.05", "alphabeta:time=0.05,clock=legacy",
                                  "alphabeta:time=0.05,depth=3"])
def test_tiny_budget_gives_a_legal_move(spec):
    board = opening_board(8, 2, [1, 8])
    agent = make(spec)
    move = agent.select_move(board)
    assert board.is_legal(move)
    assert 1 <= agent.last_result.depth <= 3
