"""Training pipeline: models, planes, symmetries, safe export, self-play shards, the ``selfplay`` and
``train`` commands (the train loop, its checkpoints and resuming: ``optimize/test_train_resume.py``)."""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest
import torch

from amazons_env import Board

from agents.arena import opening_board
from agents.nets.export import FORMAT_VERSION, ModelFileError, load_model, save_model
from agents.nets.models import ResValueNet, StudyCNN, parameter_count
from agents.nets.planes import make_planes

from training.data.shards import load_dataset, read_manifest
from training.optimize.value import symmetry
from training.selfplay.value import selfplay

from amazons_cli.main import main as cli_main

from tests.helpers.training import SELFPLAY_SPEC


def tiny_train(data, out) -> list[str]:
    """The ``train`` command line of one epoch of a tiny net on ``data``, written to ``out``."""
    return ["train", str(data), "--out", str(out), "--kwargs", '{"channels": 4, "blocks": 1}', "--epochs", "1"]


def test_study_cnn_is_the_study_network():
    model = StudyCNN(10)
    assert parameter_count(model) == 905_185
    layers = [m for m in model.modules() if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear))]
    assert [parameter_count(m) for m in layers] == [1184, 9248, 9248, 819456, 65792, 257]
    assert sum(isinstance(m, torch.nn.Dropout) for m in model.modules()) == 2
    out = model.eval()(torch.rand(3, 4, 10, 10))
    assert out.shape == (3,) and bool(((out > 0) & (out < 1)).all())


def test_resvaluenet_any_size_and_range():
    model = ResValueNet(channels=8, blocks=1).eval()
    for size in (6, 8, 10):
        out = model(torch.rand(2, 6, size, size) * 4)
        assert out.shape == (2,) and bool((out.abs() <= 1).all())


def slow_relative_planes(board: Board) -> np.ndarray:
    """The relative planes from the public Board API and legal moves (obviously right, slow)."""
    n, side = board.size, int(board.turn)
    out = np.zeros((6, n, n), dtype=np.float32)
    for sq in range(n * n):
        piece = board.piece_at(sq)
        r, f = divmod(sq, n)
        if piece is None:
            out[3, r, f] = 1
        elif piece == "*":
            out[2, r, f] = 1
        else:
            out[0 if (piece == "Q") == (side == 0) else 1, r, f] = 1
    for plane, who in ((4, side), (5, 1 - side)):
        view = Board.from_squares(n, *board.layout(), turn=who)
        for move in view.legal_moves():
            r, f = divmod(move.to_square, n)
            out[plane, r, f] = 1
    return out


@pytest.mark.parametrize("seed", range(6))
def test_relative_planes_match_reference(seed):
    board = opening_board(6, 3 + 3 * seed, [seed])
    fast = make_planes(board.cells[None, :], [int(board.turn)], "relative")[0]
    np.testing.assert_array_equal(fast, slow_relative_planes(board))


def test_study_planes_absolute_colours():
    board = opening_board(8, 5, [1])
    x = make_planes(np.stack([board.cells, board.cells]), [0, 1], "study")
    np.testing.assert_array_equal(x[0], x[1])  # no side to move in the study's planes
    assert x[0, 0].sum() == 4 and x[0, 1].sum() == 4 and x[0, 2].sum() == 5
    np.testing.assert_array_equal(x[0, 3], x[0, :3].sum(axis=0))


def test_relative_planes_swap_with_side():
    board = opening_board(8, 4, [2])
    x = make_planes(np.stack([board.cells, board.cells]), [0, 1], "relative")
    np.testing.assert_array_equal(x[0, [1, 0, 2, 3, 5, 4]], x[1])


@pytest.mark.parametrize("k", range(8))
def test_symmetry_matches_board_transform(k):
    board = opening_board(8, 6, [k])
    for planes in ("study", "relative"):
        x = torch.from_numpy(make_planes(board.cells[None, :], [int(board.turn)], planes))
        image = board.transform(k)
        y = make_planes(image.cells[None, :], [int(image.turn)], planes)
        np.testing.assert_array_equal(symmetry(x, k).numpy(), y)


def test_planes_reject_bad_input():
    with pytest.raises(ValueError, match="plane set"):
        make_planes(Board(6).cells[None, :], [0], "nope")
    with pytest.raises(ValueError, match="padded square"):
        make_planes(np.zeros((1, 50), dtype=np.uint8), [0], "study")
    with pytest.raises(ValueError, match="sides"):
        make_planes(Board(6).cells[None, :], [0, 1], "study")


@pytest.fixture
def exported(tmp_path):
    torch.manual_seed(0)
    model = ResValueNet(channels=8, blocks=1).eval()
    base = save_model(model, tmp_path / "net", board_size=8, recipe={"epochs": 1}, data_hash="abc")
    return model, base


def test_export_round_trip(exported):
    model, base = exported
    loaded, config = load_model(base)
    x = torch.rand(4, 6, 8, 8)
    with torch.inference_mode():
        torch.testing.assert_close(loaded(x), model(x))
    assert config["format_version"] == FORMAT_VERSION and config["data_hash"] == "abc"
    assert config["recipe"] == {"epochs": 1} and config["kwargs"]["channels"] == 8
    raw = base.with_suffix(".safetensors").read_bytes()
    header = int.from_bytes(raw[:8], "little")
    assert raw[8:9] == b"{" and json.loads(raw[8 : 8 + header])  # a safetensors header, not a pickle


def test_export_refuses_truncated(exported):
    _, base = exported
    weights = base.with_suffix(".safetensors")
    weights.write_bytes(weights.read_bytes()[:-100])
    with pytest.raises(ModelFileError, match="bytes, its header describes"):
        load_model(base)


def test_export_refuses_tampered_weights(exported):
    _, base = exported
    weights = base.with_suffix(".safetensors")
    raw = bytearray(weights.read_bytes())
    raw[-5] ^= 0xFF
    weights.write_bytes(bytes(raw))
    with pytest.raises(ModelFileError, match="SHA-256"):
        load_model(base)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda c: c.update(format_version=FORMAT_VERSION + 1), "format_version"),
        (lambda c: c["kwargs"].update(channels=16), "tensors do not fit"),
        (lambda c: c.update(data_hash="edited"), "differs"),
        (lambda c: c.update(arch="Nope"), "unknown architecture"),
        (lambda c: c.pop("tensors"), "lacks"),
    ],
)
def test_export_refuses_edited_config(exported, edit, message):
    _, base = exported
    path = base.with_suffix(".json")
    config = json.loads(path.read_text())
    edit(config)
    path.write_text(json.dumps(config))
    with pytest.raises(ModelFileError, match=message):
        load_model(base)


def test_export_refuses_truncated_json_and_missing(exported, tmp_path):
    _, base = exported
    path = base.with_suffix(".json")
    path.write_text(path.read_text()[:40])
    with pytest.raises(ModelFileError, match="not valid JSON"):
        load_model(base)
    with pytest.raises(ModelFileError, match="does not exist"):
        load_model(tmp_path / "missing")
    assert issubclass(ModelFileError, ValueError)


def test_export_refuses_mismatched_shapes(tmp_path):
    base = save_model(ResValueNet(channels=8, blocks=1), tmp_path / "a", board_size=8)
    other = save_model(ResValueNet(channels=4, blocks=1), tmp_path / "b", board_size=8)
    # a consistent pair of files whose tensors do not fit the architecture named in the config
    config = json.loads(other.with_suffix(".json").read_text())
    os.replace(other.with_suffix(".safetensors"), base.with_suffix(".safetensors"))
    base.with_suffix(".json").write_text(json.dumps(config))
    from safetensors.torch import load_file, save_file

    state = load_file(str(base.with_suffix(".safetensors")))
    good = {k: v for k, v in config.items() if k != "weights_sha256"}
    good["kwargs"] = {**good["kwargs"], "channels": 8}
    from amazons_env.files import canonical_json, file_sha256

    save_file(state, str(base.with_suffix(".safetensors")), metadata={"config": canonical_json(good)})
    good["weights_sha256"] = file_sha256(base.with_suffix(".safetensors"))
    base.with_suffix(".json").write_text(json.dumps(good))
    with pytest.raises(ModelFileError, match="do not fit"):
        load_model(base)


def test_selfplay_shards_labels_and_resume(tmp_path):
    manifest = selfplay(tmp_path, games=2, size=6, agent=SELFPLAY_SPEC, games_per_shard=1, workers=1, progress=False)
    assert manifest["games"] == 2 and [s["index"] for s in manifest["shards"]] == [0, 1]
    first = (tmp_path / "shard-00000.npz").stat().st_mtime_ns
    again = selfplay(tmp_path, games=3, size=6, agent=SELFPLAY_SPEC, games_per_shard=1, workers=1, progress=False)
    assert again["games"] == 3 and (tmp_path / "shard-00000.npz").stat().st_mtime_ns == first
    data, data_hash = load_dataset(tmp_path)
    assert data_hash == read_manifest(tmp_path)["data_hash"] and len(data["sides"]) == again["positions"]
    for game in np.unique(data["games"]):
        rows = data["games"] == game
        sides, results = data["sides"][rows], data["results"][rows]
        assert (np.diff(sides) != 0).all()  # sides alternate
        assert len(set(results[sides == 0])) == 1 and (results[sides == 0][0] == -results[sides == 1][0])
        assert (np.abs(data["values"][rows]) <= 1).all()
    with pytest.raises(ValueError, match="made with"):
        selfplay(tmp_path, games=3, size=8, agent=SELFPLAY_SPEC, games_per_shard=1, workers=1, progress=False)


def test_selfplay_detects_corrupt_shard(tmp_path):
    selfplay(tmp_path, games=1, size=6, agent=SELFPLAY_SPEC, workers=1, progress=False)
    shard = tmp_path / "shard-00000.npz"
    shard.write_bytes(shard.read_bytes()[:-10])
    with pytest.raises(ValueError, match="shard-00000.npz has .* bytes, its manifest says"):
        load_dataset(tmp_path)
    again = selfplay(tmp_path, games=1, size=6, agent=SELFPLAY_SPEC, workers=1, progress=False)  # played again
    assert load_dataset(tmp_path)[1] == again["data_hash"]


def test_cli_selfplay_and_train(tmp_path, capsys):
    data = tmp_path / "data"
    assert (
        cli_main(
            [
                "selfplay",
                str(data),
                "--games",
                "2",
                "--size",
                "6",
                "--agent",
                SELFPLAY_SPEC,
                "--workers",
                "1",
                "--random-plies",
                "1",
                "2",
            ]
        )
        == 0
    )
    assert cli_main(tiny_train(data, tmp_path / "run")) == 0
    assert "parameters on" in capsys.readouterr().out
    assert cli_main([*tiny_train(data, tmp_path / "run"), "--resume"]) == 0
    assert "resumed after epoch 1" in capsys.readouterr().out
    assert cli_main(["train", str(data), "--out", str(tmp_path / "run"), "--kwargs", "{bad"]) == 2
    assert cli_main(["selfplay", str(data), "--games", "0"]) == 2
    capsys.readouterr()
    for bad, message in [
        (["--kwargs", "[" * 100_000], "is not JSON"),
        (["--kwargs", '{"blocks": 100000}'], "blocks"),
        (["--epochs", "-1"], "epochs=-1"),
        (["--lr", "nan"], "lr=nan"),
        (["--val-fraction", "1"], "val_fraction=1.0"),
        (["--arch", "Nope"], "unknown architecture"),
    ]:
        assert cli_main(["train", str(data), "--out", str(tmp_path / "bad"), *bad]) == 2
        assert message in capsys.readouterr().err
    for bad, message in [
        (["--size", "99"], "size=99"),
        (["--workers", "0"], "workers=0"),
        (["--random-plies", "5", "1"], "LOW <= HIGH"),
        (["--agent", "nope"], "nope"),
    ]:
        assert cli_main(["selfplay", str(tmp_path / "bad"), "--games", "1", *bad]) == 2
        assert message in capsys.readouterr().err


def test_train_says_when_curves_are_skipped(tmp_path, capsys, monkeypatch):
    data = tmp_path / "data"
    selfplay(data, games=2, size=6, agent=SELFPLAY_SPEC, games_per_shard=1, workers=1, progress=False)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    assert cli_main(tiny_train(data, tmp_path / "run")) == 0
    assert "curves.png skipped: matplotlib is not installed" in capsys.readouterr().out
    assert not (tmp_path / "run" / "curves.png").exists() and (tmp_path / "run" / "metrics.csv").exists()
