"""The policy-value net through ONNX Runtime (agents.nets.onnx_runtime): the same outputs as torch's
up to float rounding, on every board size and batch, and the runtime option validated."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from amazons_env import Board

import agents
from agents.nets import onnx_runtime
from agents.nets.inference import PVNet
from agents.nets.policy_value import PolicyValueNet

pytestmark = pytest.mark.skipif(not onnx_runtime.available(), reason="the onnx extra is not installed")


def positions(size: int, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` positions of random games on ``size`` x ``size`` boards (padded cells, side to move)."""
    rng = np.random.default_rng(seed)
    cells: list[np.ndarray] = []
    sides: list[int] = []
    board = Board(size)
    while len(cells) < count:
        if board.is_game_over():
            board = Board(size)
        moves = list(board.legal_moves())
        board.push(moves[int(rng.integers(len(moves)))])
        cells.append(board.cells.copy())
        sides.append(int(board.turn))
    return np.stack(cells), np.array(sides, np.int64)


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(1)
    net = PolicyValueNet(channels=8, blocks=2, head=4, hidden=8)
    with torch.no_grad():  # batch-norm statistics away from their initial values, so folding them matters
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
    return net.eval()


@pytest.mark.parametrize("size", [6, 8, 10])
def test_onnx_outputs_equal_torch(model, size):
    fast, reference = PVNet(model, runtime="onnx"), PVNet(model, runtime="torch")
    assert (fast.runtime, reference.runtime) == ("onnx", "torch")
    cells, sides = positions(size, 40, seed=size)
    for batch in (1, 7, 40):
        for got, want in zip(
            fast.evaluate(cells[:batch], sides[:batch]), reference.evaluate(cells[:batch], sides[:batch])
        ):
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_auto_picks_onnx_when_installed_and_torch_otherwise(model, monkeypatch):
    assert PVNet(model).runtime == "onnx"
    monkeypatch.setattr(onnx_runtime, "available", lambda: False)
    assert PVNet(model).runtime == "torch"
    with pytest.raises(ImportError, match="onnxruntime"):
        PVNet(model, runtime="onnx")


def test_runtime_is_validated(model):
    with pytest.raises(ValueError, match="runtime='tensorrt'"):
        PVNet(model, runtime="tensorrt")
    for spec in ("uct-net:runtime=tensorrt", "pvmcts:runtime=fast"):
        with pytest.raises(ValueError):
            agents.make(spec)


def test_agents_play_the_same_move_on_either_runtime():
    board = Board(8)
    moves = {
        agents.make(f"uct-net:sims=300,runtime={runtime}", seed=2).select_move(board) for runtime in ("torch", "onnx")
    }
    assert len(moves) == 1
