"""The value-net evaluator in search: batched values, colour handling, the searches, committed weights."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from amazons_env import Board

import agents
from agents.evaluation.evaluator import make_evaluator
from agents.evaluation.value_net import ValueNetEvaluator
from agents.nets.export import load_model, save_model
from agents.nets.inference import inference_module
from agents.nets.models import ResValueNet, StudyCNN
from agents.nets.store import VALUE_WEIGHTS, weights_path
from agents.search.study.agent import batch_two_iteration


def play(board: Board, plies: int, seed: int) -> Board:
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        moves = board.legal_moves()
        board.push_unchecked(moves[rng.integers(len(moves))])
    return board


@pytest.fixture(scope="module")
def nets(tmp_path_factory):
    folder = tmp_path_factory.mktemp("nets")
    torch.manual_seed(1)
    return {
        "res": str(save_model(ResValueNet(channels=8, blocks=1), folder / "res", board_size=6)),
        "study": str(save_model(StudyCNN(6), folder / "study", board_size=6)),
    }


def frontier(board: Board, limit: "int | None" = 50) -> tuple[np.ndarray, np.ndarray]:
    """The cells after each of the first ``limit`` legal moves, and the side to move there."""
    cells = []
    for move in board.legal_moves()[:limit]:
        board.push_unchecked(move)
        cells.append(board.cells.copy())
        board.pop()
    return np.array(cells), np.full(len(cells), 1 - int(board.turn))


@pytest.mark.parametrize("net", ["res", "study"])
def test_batch_equals_single_and_in_range(nets, net):
    evaluator = make_evaluator("value-net", weights=nets[net], threads=0)
    board = play(Board(6), 3, 0)
    cells, sides = frontier(board)
    batch = evaluator.evaluate_batch(cells, sides)
    assert batch.shape == (len(cells),) and batch.dtype == np.float64
    assert (np.abs(batch) <= 1).all()
    single = [evaluator.evaluate_batch(cells[i : i + 1], sides[i : i + 1])[0] for i in range(len(cells))]
    np.testing.assert_allclose(batch, single, atol=1e-5)


@pytest.mark.parametrize(
    "model", [StudyCNN(6), StudyCNN(10), ResValueNet(channels=8, blocks=2)], ids=["study6", "study10", "res"]
)
def test_inference_module_equals_model(model):
    torch.manual_seed(2)
    for module in model.modules():  # batch norms with non-trivial statistics, so folding them shows
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-1, 1)
            module.running_var.uniform_(0.5, 2)
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.5, 0.5)
    model.eval()
    size = getattr(model, "size", 8)
    x = (torch.rand(40, 4 if isinstance(model, StudyCNN) else 6, size, size) < 0.3).float()
    before = [t.clone() for t in model.state_dict().values()]
    fast = inference_module(model)
    with torch.inference_mode():
        expected = model(x)
        torch.testing.assert_close(fast(x.contiguous(memory_format=torch.channels_last)), expected)
        torch.testing.assert_close(fast(x), expected)  # any layout
        torch.testing.assert_close(fast(x[:1]), expected[:1])
    assert all(torch.equal(a, b) for a, b in zip(before, model.state_dict().values()))  # model untouched


@pytest.mark.parametrize("net", ["res", "study"])
def test_chunks_equal_one_pass(nets, net):
    cells, sides = frontier(play(Board(6), 2, 6))
    one = ValueNetEvaluator(nets[net], threads=0, chunk=1000).evaluate_batch(cells, sides)
    np.testing.assert_allclose(
        ValueNetEvaluator(nets[net], threads=0, chunk=7).evaluate_batch(cells, sides), one, atol=1e-6
    )
    with pytest.raises(ValueError, match="chunk"):
        ValueNetEvaluator(nets[net], chunk=0)


def test_study_cnn_value_flips_with_side(nets):
    evaluator = ValueNetEvaluator(nets["study"], threads=0)
    board = play(Board(6), 4, 1)
    cells = np.stack([board.cells, board.cells])
    white, black = evaluator.evaluate_batch(cells, np.array([0, 1]))
    assert white == pytest.approx(-black)


def test_model_matches_evaluator(nets):
    model, _ = load_model(nets["res"])
    board = play(Board(6), 2, 2)
    from agents.nets.planes import make_planes

    with torch.inference_mode():
        expected = float(model(torch.from_numpy(make_planes(board.cells[None], [int(board.turn)], "relative")))[0])
    assert ValueNetEvaluator(nets["res"], threads=0).evaluate(board) == pytest.approx(expected, abs=1e-6)


def test_fixed_size_model_refuses_other_sizes(nets):
    with pytest.raises(ValueError, match="6x6"):
        ValueNetEvaluator(nets["study"], threads=0).evaluate(Board(8))


@pytest.mark.parametrize("search", ["two-iteration:depth=2", "alphabeta:depth=2,k=3"])
def test_searches_take_the_value_net(nets, search):
    agent = agents.make(search, eval="value-net", weights=nets["res"], threads=0)
    board = play(Board(6), 2, 3)
    before = board.text()
    move = agent.select_move(board)
    assert board.is_legal(move) and board.text() == before


def test_batch_two_iteration_is_exact_minimax(nets):
    """Depth 2 with the CNN: the batched search's root value equals brute-force minimax."""
    evaluator = ValueNetEvaluator(nets["res"], threads=0)
    board = play(Board(6), 20, 4)
    _, value, _ = batch_two_iteration(board, 2, evaluator)
    best = -2.0
    for move in board.legal_moves():
        board.push_unchecked(move)
        if board.is_game_over():
            v = 1.0
        else:
            cells, sides = frontier(board, limit=None)
            child = -evaluator.evaluate_batch(cells, sides)
            child[[b for b in range(len(cells)) if over(cells[b], board)]] = 1.0
            v = -child.max()
        board.pop()
        best = max(best, v)
    assert value == pytest.approx(best, abs=1e-6)


def over(cells: np.ndarray, board: Board) -> bool:
    """Whether the side to move after a reply (``board``'s side) has no move in ``cells``."""
    from amazons_env import core

    from agents.evaluation.evaluator import queens_from_cells

    queens = np.zeros((2, core.MAX_QUEENS), dtype=np.int64)
    nq = np.zeros(2, dtype=np.int64)
    c = cells.copy()
    queens_from_cells(c, queens, nq)
    return not core.has_move(c, queens, nq, int(board.turn), board.dirs)


def test_value_net_with_committed_weights():
    if not weights_path("default", 10, VALUE_WEIGHTS).with_suffix(".json").exists():
        pytest.fail("the committed default weights agents/nets/weights/ are missing")
    agent = agents.make("two-iteration:depth=1,eval=value-net", threads=0)
    board = play(Board(8), 3, 5)
    assert board.is_legal(agent.select_move(board))
    study = make_evaluator("value-net:weights=study", threads=0)
    assert -1 <= study.evaluate(Board(8)) <= 1


def test_bad_weights_are_refused(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        make_evaluator("value-net", weights=str(tmp_path / "none"))
