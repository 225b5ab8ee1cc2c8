"""``uct``: the numba MCTS engine. Legal moves, the board left alone, seeded determinism, proven
results against an exhaustive solver on tiny boards, the tree's bookkeeping, tree reuse and the
options' errors, and the pondering contract (a deadline moved by another thread). Simulation-limited,
except the ponder tests, which measure how soon a moved deadline stops a search."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from amazons_env import Board, Move

from agents import Limit, make
from agents.search import uct_tree as T
from agents.search.uct import UCT
from agents.time.deadline import Deadline

from tests.helpers.positions import random_position, wins

TREES = ("split", "move")


def _tree_of(agent: UCT) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    assert agent._tree is not None
    return agent._tree


@pytest.mark.parametrize("tree", TREES)
@pytest.mark.parametrize("size", [5, 6, 8])
def test_legal_move_and_board_unchanged(tree, size):
    for seed in range(3):
        board = random_position(seed, size=size, max_moves=10**9 if seed == 0 else 300)
        before = (board.text(), board.cells.copy(), board.queens.copy(), board.ply)
        result = make(f"uct:sims=150,tree={tree},seed={seed}").search(board)
        assert board.is_legal(result.move)
        assert (board.text(), board.ply) == (before[0], before[3])
        assert np.array_equal(board.cells, before[1]) and np.array_equal(board.queens, before[2])
        assert result.simulations == result.nodes <= 150 and -1.0 <= result.value <= 1.0


@pytest.mark.parametrize(
    "options", ["tree=split", "tree=move,kq=4", "tree=split,playout=3", "expand_at=3,pw=0", "prior=fast", "prior=mixed"]
)
def test_seeded_simulation_limited_search_is_deterministic(options):
    board = random_position(7, size=8, max_moves=600)
    runs = [make(f"uct:sims=300,seed=5,{options}").search(board) for _ in range(2)]
    assert runs[0].move == runs[1].move and runs[0].value == runs[1].value
    assert (runs[0].evals, runs[0].tree) == (runs[1].evals, runs[1].tree)


def test_auto_prior_is_mixed_up_to_8x8_then_eval():
    agent = make("uct:sims=50,seed=1")
    for size, mixed in ((6, True), (8, True), (10, False)):
        result = agent.search(Board(size))
        assert (result.evals < 50 * 10) == mixed, (size, result.evals)
    assert make("uct:tree=move")._prior(6) == "eval"


def test_playouts_use_the_seed():
    board = random_position(3, size=8, max_moves=600)
    values = {make(f"uct:sims=200,playout=4,seed={seed}").search(board).value for seed in range(4)}
    assert len(values) > 1


@pytest.mark.parametrize("tree,prior", [("split", "eval"), ("move", "eval"), ("split", "fast"), ("split", "mixed")])
def test_tree_bookkeeping(tree, prior):
    """Visits add up (a move node keeps ``expand_at`` leaf visits of its own, a queen move its
    first visit with fast priors), children are sorted by prior, priors sum to 1, means lie in
    [-1, 1], and only visited children were evaluated with fast priors."""
    expand_at = 2
    agent = make(f"uct:sims=800,tree={tree},prior={prior},expand_at={expand_at},seed=3")
    board = random_position(11, size=8, max_moves=400)
    agent.search(board)
    ni, nf, st = _tree_of(agent)
    root = int(st[T.ROOT])
    assert ni[root, T.VISITS] == 800
    for x in range(int(st[T.FREE])):
        first, n = ni[x, T.FIRST], ni[x, T.NKIDS]
        if first < 0 or n == 0:
            continue
        kids = slice(first, first + n)
        own = 0 if x == root else expand_at if ni[x, T.KIND] == T.KIND_MOVE else int(prior != "eval")
        if ni[x, T.SOLVED] == 0:
            assert ni[x, T.VISITS] - ni[kids, T.VISITS].sum() == own, x
        assert np.all(np.diff(nf[kids, T.PRIOR]) <= 1e-12)
        assert abs(nf[kids, T.PRIOR].sum() - 1.0) < 1e-9
        visited = ni[kids, T.VISITS] > 0
        means = nf[kids, T.WSUM][visited] / ni[kids, T.VISITS][visited]
        assert np.all(np.abs(means) <= 1.0 + 1e-12)
        if prior == "fast" or prior == "mixed" and ni[x, T.KIND] == T.KIND_MOVE:
            assert np.all(np.isnan(nf[kids, T.STATIC]) == ((ni[kids, T.VISITS] == 0) & (ni[kids, T.SOLVED] == 0)))
        assert np.all(
            ni[kids, T.KIND] == (T.KIND_ARROW if tree == "split" and ni[x, T.KIND] == T.KIND_MOVE else T.KIND_MOVE)
        )


def _tiny_positions(count: int) -> list[Board]:
    """Late 5x5 positions: a few moves each side, not separated (the tree has to prove them)."""
    boards: list[Board] = []
    seed = 0
    while len(boards) < count:
        board = random_position(seed, size=5, max_moves=14)
        seed += 1
        if not board.is_game_over():
            boards.append(board)
    return boards


@pytest.mark.parametrize("tree", TREES + ("split,prior=fast", "split,prior=mixed"))
def test_proven_results_match_an_exhaustive_solver(tree):
    proven = 0
    for board in _tiny_positions(8):
        won = wins(board.text())
        # endgame=0: no filling-phase shortcut, the tree proves by running games out
        result = make(f"uct:sims=4000,tree={tree},endgame=0,seed=1").search(board)
        assert board.is_legal(result.move)
        if abs(result.value) == 1.0:
            proven += 1
            assert (result.value == 1.0) == won, board.text()
        if won and result.value == 1.0:
            board.push(result.move)
            assert not wins(board.text()), board.text()
            board.pop()
    assert proven >= 6


def test_winning_move_found_with_the_filling_counts_in_the_tree():
    """Positions decided by the filling-phase counts one move ahead: the tree sees them solved."""
    for board in _tiny_positions(8):
        if not wins(board.text()):
            continue
        result = make("uct:sims=3000,seed=2").search(board)
        board.push(result.move)
        assert not wins(board.text()), board.text()
        board.pop()


def test_separated_root_plays_the_filling_move():
    board = Board.from_text("Q1*3/**4/6/******/3*1q/6 w")  # agents.search.endgame's example: White wins
    result = make("uct:sims=10").search(board)
    assert str(result.move) == "a6-b6/a6" and result.value == 1.0 and result.simulations == 0


@pytest.mark.parametrize("tree", TREES)
def test_tree_reuse_keeps_the_subtree(tree):
    agent = make(f"uct:sims=1500,tree={tree},seed=4")
    board = Board(6)
    board.push(agent.search(board).move)
    board.push(_most_visited_reply(agent, board))
    node = agent._reused_node(board)
    assert node is not None
    kept = int(agent._tree[0][node, T.VISITS])
    assert kept > 0
    agent.search(board)
    ni, _, st = _tree_of(agent)
    assert ni[int(st[T.ROOT]), T.VISITS] == kept + 1500


def _most_visited_reply(agent: UCT, board: Board) -> Move:
    """The reply the kept tree searched most, after our move ``board.move_stack[-1]``."""
    best = None
    for move in board.legal_moves():
        board.push(move)
        node = agent._reused_node(board)
        board.pop()
        if node is not None:
            assert agent._tree is not None  # a reused node lives in the kept tree
            visits = int(agent._tree[0][node, T.VISITS])
            if best is None or visits > best[0]:
                best = (visits, move)
    assert best is not None
    return best[1]


@pytest.mark.parametrize(
    "spec",
    [
        "uct:time=0",
        "uct:time=-1",
        "uct:sims=0",
        "uct:tree=diagonal",
        "uct:c=0",
        "uct:tau=nan",
        "uct:pw=-1",
        "uct:kq=-2",
        "uct:playout=1.5",
        "uct:endgame=-1",
        "uct:time=inf",
        "uct:eval=cnn",
        "uct:tree=move,prior=fast",
        "uct:tree=move,prior=mixed",
        "uct:prior=cheap",
    ],
)
def test_bad_options_are_refused(spec):
    with pytest.raises(ValueError):
        make(spec)


def test_finished_game_is_refused():
    board = Board.from_text("Q*2/**2/4/3q w")
    with pytest.raises(ValueError):
        make("uct:sims=5").search(board)


def test_a_ponder_search_stops_soon_after_its_deadline_is_moved():
    """A search on the caller's deadline without a time limit runs until another thread moves
    the deadline, then stops within one clock check; it names the reply it expects."""
    agent, board = make("uct", seed=2), Board(8)
    agent.search(board, Limit(simulations=50))  # compiled, off the clock
    deadline = Deadline(time.perf_counter())
    with ThreadPoolExecutor(1) as pool:
        pondering = pool.submit(agent.search, board, deadline=deadline)
        time.sleep(0.3)
        assert not pondering.done()
        moved = time.perf_counter()
        deadline.move(moved)
        result = pondering.result(timeout=5)
        returned = time.perf_counter()
    assert returned - moved < 0.05 and result.seconds >= 0.3 and result.stopped == "time"
    board.push(result.move)
    assert board.is_legal(result.ponder)


def test_a_caller_deadline_is_used_as_given():
    agent, board = make("uct:sims=10", seed=1), Board(6)
    start = time.perf_counter()
    result = agent.search(board, Limit(time=5.0), deadline=Deadline(start, start + 0.1))
    assert 0.1 <= result.seconds < 0.2 and result.stopped == "time" and agent.margin.late == 0.0
    with pytest.raises(ValueError, match="deadline must be a Deadline"):
        agent.search(board, deadline=start + 1)  # type: ignore[arg-type]
    assert UCT.PONDERS and not make("alphabeta:depth=1").PONDERS


def test_the_tree_of_a_ponder_search_is_kept_for_the_same_position():
    agent, board, other = make("uct:sims=300,seed=3"), Board(6), Board(6)
    for moves, position in ((board.legal_moves()[:2], board), (board.legal_moves()[-2:], other)):
        for move in moves:
            position.push(move if position.is_legal(move) else position.legal_moves()[0])
    agent.search(board)
    assert agent._reused_node(board) == int(_tree_of(agent)[2][T.ROOT])
    assert other.ply == board.ply and agent._reused_node(other) is None  # same ply, other cells
    agent.search(board)
    ni, _, st = _tree_of(agent)
    assert ni[int(st[T.ROOT]), T.VISITS] == 600


#: searches recorded from the commit before the search core took its typed arguments and presets
#: (``git worktree`` of 38c00b6): spec, board size, random plies (seed 7), the move, its value, the
#: evaluator calls, the tree's rows and the expected reply; the agent seeded with 3
RECORDED = [
    ("uct:sims=300", 6, 0, "b1-b5/c5", 0.881490466, 590, 3092, "a5-c3/e3"),
    ("uct:sims=300", 8, 6, "c1-g5/h5", 0.173801557, 881, 2572, "b8-e5/b2"),
    ("uct:sims=300,tree=move", 6, 0, "f2-c5/b5", 0.738712436, 40065, 40066, "a5-c3/a3"),
    ("uct:sims=300,prior=eval", 8, 6, "c5-c7/c8", 0.424079248, 6714, 6715, "a6-c4/a4"),
    ("uct:sims=200,prior=fast,playout=2", 6, 0, "b1-b5/e5", 0.703212438, 200, 1501, "e6-c4/e2"),
    ("uct:sims=200,pw=0,expand_at=2,kq=6", 8, 6, "c5-c7/c8", 0.205394722, 533, 564, "a6-a5/d2"),
]


@pytest.mark.parametrize("spec, size, plies, move, value, evals, rows, ponder", RECORDED)
def test_a_seeded_search_is_the_one_recorded_before(spec, size, plies, move, value, evals, rows, ponder):
    rng, board = np.random.default_rng(7), Board(size)
    for _ in range(plies):
        moves = board.legal_moves_array()
        board.push_unchecked(Move(*(int(x) for x in moves[rng.integers(len(moves))]), size))
    result = make(spec, seed=3).search(board)
    assert (str(result.move), result.stats["evals"], result.stats["tree"]) == (move, evals, rows)
    assert result.value == pytest.approx(value, abs=1e-9) and str(result.stats["ponder"]) == ponder
