"""The policy-value net through ONNX Runtime (agents.nets.onnx_runtime): the same outputs as torch's
up to float rounding, on every board size and batch; its 8-bit copy close to them; the runtime
option validated."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from amazons_env import Board, core

import agents
from agents.nets import onnx_runtime
from agents.nets.inference import PVNet
from agents.nets.onnx_runtime import calibration_positions as positions
from agents.nets.policy_value import PolicyValueNet

pytestmark = pytest.mark.skipif(not onnx_runtime.available(), reason="the onnx extra is not installed")


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


@pytest.mark.parametrize("size", [6, 8])
def test_int8_runs_a_quantised_copy_close_to_the_float_one(model, size):
    """``onnx-int8``: the same shapes and types as the float copy's, outputs that follow them
    closely but are not theirs (8 bits), and the same outputs from a second copy (a seeded
    calibration)."""
    int8, reference = PVNet(model, runtime="onnx-int8"), PVNet(model, runtime="onnx")
    assert int8.runtime == "onnx-int8"
    cells, sides = positions(size, 64, seed=size + 10)
    got, want = int8.evaluate(cells, sides), reference.evaluate(cells, sides)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype and np.all(np.isfinite(g))
        assert not np.array_equal(g, w) and np.corrcoef(g.ravel(), w.ravel())[0, 1] > 0.95
    assert np.abs(got[0] - want[0]).max() < 0.2
    for g, w in zip(PVNet(model, runtime="onnx-int8").evaluate(cells, sides), got):
        assert np.array_equal(g, w)


def test_calibration_positions_are_seeded_positions_of_legal_play():
    """Each position is one of a game of legal moves: its arrows are its plies, so their count's
    parity is the side to move; the same seed gives the same positions, another seed others."""
    cells, sides = positions(6, 30, seed=3)
    arrows = (cells == core.ARROW).sum(axis=1)
    assert np.array_equal(arrows % 2, sides) and arrows.max() > 20 and arrows.min() < 3
    assert np.all((cells == core.WHITE_QUEEN).sum(axis=1) == Board(6).queen_counts[0])
    again, other = positions(6, 30, seed=3), positions(6, 30, seed=4)
    assert np.array_equal(again[0], cells) and not np.array_equal(other[0], cells)


def test_auto_picks_onnx_when_installed_and_torch_otherwise(model, monkeypatch):
    assert PVNet(model).runtime == "onnx"
    monkeypatch.setattr(onnx_runtime, "available", lambda: False)
    assert PVNet(model).runtime == "torch"
    with pytest.raises(ImportError, match="onnxruntime"):
        PVNet(model, runtime="onnx")


def test_runtime_is_validated(model):
    with pytest.raises(ValueError, match="runtime='tensorrt'"):
        PVNet(model, runtime="tensorrt")
    for spec in ("uct-net:runtime=tensorrt", "pvmcts:runtime=fast", "uct-net:runtime=int8"):
        with pytest.raises(ValueError):
            agents.make(spec)


def test_agents_play_the_same_move_on_either_runtime():
    board = Board(8)
    moves = {
        agents.make(f"uct-net:sims=300,runtime={runtime}", seed=2).select_move(board) for runtime in ("torch", "onnx")
    }
    assert len(moves) == 1
    assert board.is_legal(agents.make("uct-net:sims=300,runtime=onnx-int8,leaves=8", seed=2).select_move(board))
