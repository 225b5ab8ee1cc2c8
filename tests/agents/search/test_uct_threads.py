"""``uct``'s threads (tree parallelism: the threads search one tree, with virtual loss) and the
stops of its search loop under a game clock: settled moves, going on while unsure, a proof ending
every thread's search. The unit tests of the stop rules build small trees by hand; the rest run short searches."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from amazons_env import Board

from agents import Limit, make
from agents.search import uct_tree as T
from agents.search.uct import UCT, visit_policy
from agents.search.uct_tree.choice import pick
from agents.search.uct_tree.stopping import SURE_LEAD, settled, sure
from agents.time.deadline import Deadline

from tests.helpers.positions import random_position


def _tree(visits: list[int], means: list[float], arrows: tuple[int, ...] = ()) -> tuple[np.ndarray, np.ndarray]:
    """A root (row 0) whose children (rows 1..) have these visits and means; with ``arrows``,
    the children are queen moves and the first one has arrows with those visits."""
    n, m = len(visits), len(arrows)
    ni, nf, st = np.zeros((1 + n + m, T.NI), np.int32), np.zeros((1 + n + m, T.NF)), np.zeros(T.NST, np.int64)
    T.new_root(ni, nf, st)
    ni[0, T.FIRST], ni[0, T.NKIDS] = 1, n
    ni[1:, T.FIRST], ni[1:, T.KIND] = -1, T.KIND_ARROW if arrows else T.KIND_MOVE
    ni[1 : 1 + n, T.VISITS], nf[1 : 1 + n, T.WSUM] = visits, np.multiply(visits, means)
    if arrows:
        ni[1, T.FIRST], ni[1, T.NKIDS] = 1 + n, m
        ni[1 + n :, T.VISITS], ni[1 + n :, T.KIND] = arrows, T.KIND_MOVE
    return ni, nf


def test_a_move_is_settled_when_no_runner_up_can_overtake_it_at_any_level():
    ni, _ = _tree([10, 4, 1], [0.1, 0.2, 0.0])
    assert settled(ni, 0, 5.9) and not settled(ni, 0, 6.0)  # 10 - 4 visits: a lead of 6
    ni, _ = _tree([10, 4], [0.1, 0.2], arrows=(7, 5))
    assert not settled(ni, 0, 3.0) and settled(ni, 0, 1.5)  # the arrow leads by 2 only
    ni, _ = _tree([10, 4], [0.1, 0.2], arrows=())
    ni[1, T.KIND] = T.KIND_ARROW  # a queen move whose arrows were never expanded: not settled
    assert not settled(ni, 0, 0.0)
    ni, _ = _tree([10, 12], [0.1, 0.2])
    ni[2, T.SOLVED] = -1  # a proven loss never counts as the runner-up
    assert settled(ni, 0, 9.0)


def test_a_search_is_sure_of_a_move_that_leads_in_visits_and_mean():
    lead = int(np.ceil(SURE_LEAD * 10))
    ni, nf = _tree([lead, 10], [0.3, 0.2])
    assert sure(ni, nf, 0, SURE_LEAD) and not sure(ni, nf, 0, SURE_LEAD + 0.2)
    ni, nf = _tree([lead - 1, 10], [0.3, 0.2])
    assert not sure(ni, nf, 0, SURE_LEAD)  # not far enough ahead
    ni, nf = _tree([lead, 10], [0.1, 0.2])
    assert not sure(ni, nf, 0, SURE_LEAD)  # the runner-up has the better mean
    ni, nf = _tree([3], [0.0])
    assert sure(ni, nf, 0, 1e9)  # one move


@pytest.mark.parametrize("spec", ["uct:threads=0", "uct:threads=-1", "uct:threads=1.5", "uct:threads=nan"])
def test_bad_thread_counts_are_refused(spec):
    with pytest.raises(ValueError, match="threads"):
        make(spec)
    with pytest.raises(ValueError, match="threads"):
        UCT(threads=True)


def _visits_below(ni: np.ndarray, x: int) -> int:
    first, n = int(ni[x, T.FIRST]), int(ni[x, T.NKIDS])
    return int(ni[first : first + n, T.VISITS].sum()) if first >= 0 else 0


@pytest.mark.parametrize("tree", ["split", "move"])
def test_threads_share_the_simulations_on_one_tree(tree):
    """Three threads search one tree: each its share of the simulations, in rows of its own; every
    virtual loss is taken back (no node's mean below -1), and the counts add up but for the rare
    update lost between threads."""
    board = random_position(4, size=8, max_moves=300)
    agent = make(f"uct:sims=1001,threads=3,tree={tree},seed=2")
    assert isinstance(agent, UCT)
    result = agent.search(board)
    assert board.is_legal(result.move) and result.simulations == 1001 and result.stopped == "simulations"
    ni, nf, st = agent._tree
    root = int(st[T.ROOT])
    assert 990 <= ni[root, T.VISITS] <= 1001 and 980 <= _visits_below(ni, root) <= 1001
    used = slice(0, int(st[T.FREE]))
    visited = ni[used, T.VISITS] > 0
    assert (nf[used][visited, T.WSUM] / ni[used][visited, T.VISITS] >= -1.0 - 1e-9).all()
    assert result.stats["tree"] < st[T.FREE]  # three regions, each partly used
    levels = 2 if tree == "split" else 1
    chosen = pick(agent._tree, root, levels)
    assert chosen is not None and agent._move(chosen, board.size) == result.move
    if tree == "split":
        moves, shares = visit_policy(agent, board)
        assert abs(float(shares.sum()) - 1.0) < 1e-5 and len({tuple(m) for m in moves}) == len(moves)


def test_threads_keep_and_reuse_the_tree():
    agent, board = make("uct:sims=2000,threads=2,seed=4"), Board(6)
    assert isinstance(agent, UCT)
    result = agent.search(board)
    board.push(result.move)
    board.push(result.ponder)
    node = agent._reused_node(board)
    assert node is not None
    ni, _, _ = agent._tree
    before = int(ni[node, T.VISITS])
    assert before > 0
    agent.search(board)
    ni, _, st = agent._tree
    assert before + 1980 <= ni[int(st[T.ROOT]), T.VISITS] <= before + 2000


def test_one_thread_searches_as_ever():
    """threads=1: no virtual loss, the whole tree one region: a seeded search is repeated exactly."""
    board = random_position(5, size=8, max_moves=300)
    one, again = (make("uct:sims=800,threads=1", seed=9) for _ in range(2))
    first, second = one.search(board), again.search(board)
    assert first.move == second.move and first.stats["tree"] == second.stats["tree"]
    ni, nf, st = one._tree
    assert int(st[T.LIMIT]) == 0 and ni[int(st[T.ROOT]), T.VISITS] == 800


def test_a_timed_search_with_threads_keeps_its_time():
    agent, board = make("uct:time=0.3,threads=2", seed=1), Board(8)
    agent.search(board, Limit(simulations=50))  # compiled
    result = agent.search(board)
    assert 0.2 < result.seconds < 0.35 and result.stopped == "time"


def test_a_moved_deadline_stops_every_thread():
    agent, board = make("uct:threads=2", seed=3), Board(8)
    agent.search(board, Limit(simulations=50))
    deadline = Deadline(time.perf_counter())
    answer = []
    thread = threading.Thread(target=lambda: answer.append(agent.search(board, deadline=deadline)))
    thread.start()
    time.sleep(0.2)
    moved = time.perf_counter()
    deadline.move(moved)
    thread.join(5)
    assert not thread.is_alive() and time.perf_counter() - moved < 0.1 and answer[0].stopped == "time"


def test_a_proof_in_one_tree_ends_the_search_of_all():
    """A late 5x5 position that the trees prove within a fraction of a second: the search ends
    then, far before its time, and says so."""
    board = next(b for b in (random_position(seed, size=5, max_moves=14) for seed in range(40)) if not b.is_game_over())
    result = make("uct:time=20,threads=2,endgame=0", seed=1).search(board)
    assert result.stopped == "proven" and result.seconds < 10 and abs(result.value) == 1.0


def test_under_a_game_clock_a_settled_search_stops_early():
    """An 8x8 middle game whose best move takes nearly every simulation: it leads by more than the
    simulations left before the time once half of it has passed, whatever the machine's speed (the
    lead and the simulations left both scale with the rate), so the search stops at about half its
    time. The opening, whose best move is less clear, settled at 0.91-0.98 of its time: too close
    to the clock for a test on a loaded machine."""
    agent, board = make("uct", seed=5), random_position(6, size=8, max_moves=20)
    agent.search(board, Limit(simulations=50))  # compiled
    result = agent.search(board, Limit(time=1.0, time_max=2.0))
    assert result.stopped == "settled" and result.seconds < 0.8
    fixed = agent.search(board, Limit(time=0.2))  # fixed time per move: never settles
    assert fixed.stopped == "time" and fixed.seconds >= 0.15


def test_a_settled_move_that_the_search_is_unsure_of_is_not_settled():
    """``sure`` out of reach: however far the move leads, the search never settles, and at its time
    it goes on to ``time_max``."""
    agent, board = make("uct:sure=1000000", seed=5), Board(8)
    result = agent.search(board, Limit(time=0.2, time_max=0.5))
    assert result.stopped == "time_max" and 0.45 <= result.seconds < 0.55


def test_a_proof_at_the_queen_move_is_the_moves_value():
    """A queen move proven lost whose arrows carry no proof (their block's counts lost when two
    threads expanded it at once): the move's value is the proof, not its arrow's mean."""
    ni, nf = _tree([5, 3], [0.2, 0.1], arrows=(4, 1))
    ni[1:3, T.SOLVED] = -1
    chosen = pick((ni, nf, np.zeros(T.NST, np.int64)), 0, 2)
    assert chosen is not None and chosen.value == -1.0 and chosen.node == 3
