"""The study's evaluators and searches: formulas, and search results against a slow Python
minimax on small boards (6x6, late positions where full minimax is affordable)."""

from __future__ import annotations

import numpy as np
import pytest

from amazons_env import Board, Move, core

import agents
from agents.evaluation import study as evaluators_study
from agents.evaluation.evaluator import Evaluator, make_evaluator
from agents.search.study import agent as study_search
from agents.search.study.agent import batch_two_iteration, search_kernel

from tests.helpers.evaluators import BatchOnly
from tests.helpers.positions import minimax, random_position


def queen_moves(board: Board) -> list[tuple[int, int]]:
    """(from, to) queen moves in the search order (unique, in generate_moves order)."""
    seen: dict[tuple[int, int], None] = {}
    for f, t, _ in board.legal_moves_array().tolist():
        seen.setdefault((f, t), None)
    return list(seen)


def move_then_arrow_reference(board: Board, depth: int, evaluator: Evaluator) -> float:
    """The docstring's definition of move-then-arrow, written plainly (no pruning)."""
    if board.is_game_over():
        return -1.0
    if depth == 0:
        return evaluator.evaluate(board)
    best_value, best_queen = -np.inf, None
    side = int(board.turn)
    for frm, to in queen_moves(board):
        # the position after the queen move with no arrow, the opponent to move; edited in place
        # on a copy so the queens keep their array order (ties go to the first queen move)
        half = board.copy(stack=False)
        index = core.find_queen(half.queens, half.queen_counts, side, half._to_padded[frm])
        half.cells[half._to_padded[frm]] = core.EMPTY
        half.cells[half._to_padded[to]] = side + 1
        half.queens[side, index] = half._to_padded[to]
        half._turn = 1 - side
        value = -move_then_arrow_reference(half, depth - 1, evaluator)
        if value > best_value:
            best_value, best_queen = value, (frm, to)
    best = -np.inf
    for f, t, a in board.legal_moves_array().tolist():
        if (f, t) == best_queen:
            board.push(Move(f, t, a, board.size))
            best = max(best, -move_then_arrow_reference(board, depth - 1, evaluator))
            board.pop()
    return best


def test_basic_and_improved_formulas():
    board = random_position(3, size=8, max_moves=300)
    side = int(board.turn)
    a, b = board.count_legal_moves(), None
    board_other = Board.from_squares(board.size, *board.layout(), 1 - side)
    b = board_other.count_legal_moves()
    assert make_evaluator("basic").evaluate(board) == pytest.approx((a - b - 0.4) / (a + b - 0.4))
    args = (board.cells, board.queens, board.queen_counts, board.dirs)
    da = core.count_directions(args[0], args[1], args[2], side, args[3])
    db = core.count_directions(args[0], args[1], args[2], 1 - side, args[3])
    expected = 0.3 * (a - b - 0.4) / (a + b - 0.4) + 0.7 * (da - db - 0.4) / (da + db - 0.4)
    assert make_evaluator("improved:cof1=0.3").evaluate(board) == pytest.approx(expected)
    assert make_evaluator("improved").params[evaluators_study.COF1] == 0.45


def test_evaluators_range_and_batch():
    boards = [random_position(s, size=6, max_moves=m) for s in range(4) for m in (3, 60)]
    for spec in ("basic", "improved", "improved:cof1=0,bias=0.2"):
        ev = make_evaluator(spec)
        single = np.array([ev.evaluate(b) for b in boards])
        batch = ev.evaluate_batch(np.stack([b.cells for b in boards]), np.array([int(b.turn) for b in boards]))
        assert np.allclose(single, batch)
        assert np.all(np.abs(single) <= 1.0)


def test_jitter_is_seeded_and_tiny():
    board = Board(8)
    ev = make_evaluator("basic:jitter=0.001")
    plain = make_evaluator("basic").evaluate(board)
    ev.seed(1)
    first = ev.evaluate(board)
    assert ev.evaluate(board) == first
    ev.seed(2)
    assert ev.evaluate(board) != first
    assert abs(first - plain) < 1e-5
    with pytest.raises(ValueError, match="jitter"):
        make_evaluator("basic:jitter=0.5")
    with pytest.raises(ValueError, match="cof1"):
        make_evaluator("improved:cof1=2")


@pytest.mark.parametrize("seed", range(4))
def test_classic_and_two_iteration_equal_minimax(seed):
    board = random_position(seed, size=6, max_moves=18)
    ev = make_evaluator("improved")
    for depth in (1, 2, 3):
        reference = minimax(board, depth, ev)
        c_move, c_value, c_nodes = search_kernel("classic", board, depth, ev)
        t_move, t_value, t_nodes = search_kernel("two-iteration", board, depth, ev)
        assert c_value == t_value == pytest.approx(reference)
        assert (c_move, c_nodes) == (t_move, t_nodes)  # the same tree, the same cutoffs
        board.push(c_move)
        assert -minimax(board, depth - 1, ev) == pytest.approx(reference)  # the move achieves it
        board.pop()


@pytest.mark.parametrize("seed", range(6))
def test_classic_and_two_iteration_agree_on_bigger_positions(seed):
    board = random_position(seed + 10, size=8, max_moves=400)
    ev = make_evaluator("basic")
    for depth in (1, 2):
        assert search_kernel("classic", board, depth, ev) == search_kernel("two-iteration", board, depth, ev)


@pytest.mark.parametrize("seed", range(3))
def test_move_then_arrow_matches_its_definition(seed):
    board = random_position(seed, size=6, max_moves=25)
    ev = make_evaluator("basic")
    for depth in (1, 2, 3):
        move, value, _ = search_kernel("move-then-arrow", board, depth, ev)
        assert value == pytest.approx(move_then_arrow_reference(board, depth, ev))
        assert board.is_legal(move)


@pytest.mark.parametrize("seed", range(3))
def test_batch_path_equals_kernel_search(seed):
    board = random_position(seed, size=6, max_moves=50)
    for depth in (1, 2):
        ev = BatchOnly("improved")
        move, value, _ = batch_two_iteration(board, depth, ev)
        k_move, k_value, _ = search_kernel("two-iteration", board, depth, ev.inner)
        assert value == pytest.approx(k_value)
        board.push(move)
        assert -minimax(board, depth - 1, ev.inner) == pytest.approx(k_value)
        board.pop()
    assert ev.calls < 60  # one call per depth-1 node, not one per position


def test_agents_registry_options_and_errors():
    agent = agents.make("two-iteration:depth=2,eval=improved,cof1=0.5")
    assert agent.evaluator.params[evaluators_study.COF1] == 0.5
    assert agent.spec == "two-iteration:depth=2,eval=improved,cof1=0.5"
    with pytest.raises(ValueError, match="depth"):
        agents.make("classic:depth=0")
    with pytest.raises(ValueError, match="kernel"):
        agents.make("classic", eval=BatchOnly("improved"))
    assert agents.make("two-iteration:depth=1", eval=BatchOnly("improved")).select_move(Board(6))
    finished = Board.from_text("q5/6/6/6/**4/Q*4 w")
    with pytest.raises(ValueError, match="finished"):
        agents.make("classic:depth=1").search(finished)


def test_time_limit_uses_iterative_deepening():
    board = Board(6)
    for variant in study_search.VARIANTS:
        result = agents.make(f"{variant}:time=0.2,eval=basic").search(board)
        assert board.is_legal(result.move)
        assert result.depth >= 1 and result.nodes > 0
        assert result.seconds < 2.0
    capped = agents.make("two-iteration:time=5,depth=1").search(board)
    assert capped.depth == 1


def test_search_leaves_board_unchanged_and_finds_the_win():
    # White to move; White can shut Black's last queen in: the only winning move must be found
    board = random_position(7, size=6, max_moves=6)
    before = board.text()
    for variant in study_search.VARIANTS:
        result = agents.make(f"{variant}:depth=3,eval=basic").search(board)
        assert board.text() == before and board.is_legal(result.move)
