"""Training pipeline: models, planes, symmetries, safe export, self-play shards, the train loop."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amazons_env import Board

from agents.nets.export import FORMAT_VERSION, ModelFileError, load_model, save_model
from agents.nets.models import ResValueNet, StudyCNN, parameter_count
from agents.nets.planes import make_planes
from agents.nets.safefiles import json_sha256

from training.data.shards import load_dataset, read_manifest
from training.optimize import value as train_module
from training.optimize.checkpoint import latest_state
from training.optimize.config import TrainConfig
from training.optimize.value import symmetry, train
from training.selfplay.value import selfplay

from amazons_cli.main import main as cli_main

SPEC = "two-iteration:depth=1,eval=improved"


def random_board(size: int, plies: int, seed: int) -> Board:
    rng = np.random.default_rng(seed)
    board = Board(size)
    for _ in range(plies):
        moves = board.legal_moves()
        if not moves:
            break
        board.push_unchecked(moves[rng.integers(len(moves))])
    return board


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
    board = random_board(6, 3 + 3 * seed, seed)
    fast = make_planes(board.cells[None, :], [int(board.turn)], "relative")[0]
    np.testing.assert_array_equal(fast, slow_relative_planes(board))


def test_study_planes_absolute_colours():
    board = random_board(8, 5, 1)
    x = make_planes(np.stack([board.cells, board.cells]), [0, 1], "study")
    np.testing.assert_array_equal(x[0], x[1])  # no side to move in the study's planes
    assert x[0, 0].sum() == 4 and x[0, 1].sum() == 4 and x[0, 2].sum() == 5
    np.testing.assert_array_equal(x[0, 3], x[0, :3].sum(axis=0))


def test_relative_planes_swap_with_side():
    board = random_board(8, 4, 2)
    x = make_planes(np.stack([board.cells, board.cells]), [0, 1], "relative")
    np.testing.assert_array_equal(x[0, [1, 0, 2, 3, 5, 4]], x[1])


@pytest.mark.parametrize("k", range(8))
def test_symmetry_matches_board_transform(k):
    board = random_board(8, 6, k)
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
    manifest = selfplay(tmp_path, games=2, size=6, agent=SPEC, games_per_shard=1, workers=1, progress=False)
    assert manifest["games"] == 2 and [s["index"] for s in manifest["shards"]] == [0, 1]
    first = (tmp_path / "shard-00000.npz").stat().st_mtime_ns
    again = selfplay(tmp_path, games=3, size=6, agent=SPEC, games_per_shard=1, workers=1, progress=False)
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
        selfplay(tmp_path, games=3, size=8, agent=SPEC, games_per_shard=1, workers=1, progress=False)


def test_selfplay_detects_corrupt_shard(tmp_path):
    selfplay(tmp_path, games=1, size=6, agent=SPEC, workers=1, progress=False)
    shard = tmp_path / "shard-00000.npz"
    shard.write_bytes(shard.read_bytes()[:-10])
    with pytest.raises(ValueError, match="shard-00000.npz has .* bytes, its manifest says"):
        load_dataset(tmp_path)
    again = selfplay(tmp_path, games=1, size=6, agent=SPEC, workers=1, progress=False)  # played again
    assert load_dataset(tmp_path)[1] == again["data_hash"]


@pytest.fixture(scope="module")
def tiny_data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("selfplay")
    selfplay(folder, games=4, size=6, agent=SPEC, games_per_shard=2, workers=1, progress=False)
    return folder


@pytest.mark.parametrize("arch, kwargs", [("ResValueNet", {"channels": 8, "blocks": 1}), ("StudyCNN", {})])
def test_train_tiny(tiny_data, tmp_path, arch, kwargs):
    config = TrainConfig(
        data=[str(tiny_data)],
        out=str(tmp_path),
        arch=arch,
        kwargs=kwargs,
        epochs=2,
        batch_size=32,
        progress=False,
        seed=3,
    )
    report = train(config)
    assert report["device"] == ("cuda" if torch.cuda.is_available() else "cpu")
    rows = (tmp_path / "metrics.csv").read_text().splitlines()
    assert rows[0].startswith("epoch,train_loss,val_loss") and len(rows) == 3
    assert (tmp_path / "checkpoints" / "epoch-002.safetensors").exists()
    model, saved = load_model(report["best"])
    assert saved["board_size"] == 6 and saved["recipe"]["arch"] == arch
    assert saved["data_hash"] == read_manifest(tiny_data)["data_hash"]
    assert all(np.isfinite(r["val_loss"]) for r in report["history"])
    repeat = train(TrainConfig(**{**config.__dict__, "out": str(tmp_path / "again")}))
    assert repeat["history"][-1]["train_loss"] == pytest.approx(report["history"][-1]["train_loss"], rel=1e-5)


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
                SPEC,
                "--workers",
                "1",
                "--random-plies",
                "1",
                "2",
            ]
        )
        == 0
    )
    assert (
        cli_main(
            [
                "train",
                str(data),
                "--out",
                str(tmp_path / "run"),
                "--kwargs",
                '{"channels": 4, "blocks": 1}',
                "--epochs",
                "1",
            ]
        )
        == 0
    )
    assert "parameters on" in capsys.readouterr().out
    assert (
        cli_main(
            [
                "train",
                str(data),
                "--out",
                str(tmp_path / "run"),
                "--kwargs",
                '{"channels": 4, "blocks": 1}',
                "--epochs",
                "1",
                "--resume",
            ]
        )
        == 0
    )
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
    selfplay(data, games=2, size=6, agent=SPEC, games_per_shard=1, workers=1, progress=False)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    assert (
        cli_main(
            [
                "train",
                str(data),
                "--out",
                str(tmp_path / "run"),
                "--kwargs",
                '{"channels": 4, "blocks": 1}',
                "--epochs",
                "1",
            ]
        )
        == 0
    )
    assert "curves.png skipped: matplotlib is not installed" in capsys.readouterr().out
    assert not (tmp_path / "run" / "curves.png").exists() and (tmp_path / "run" / "metrics.csv").exists()


def interrupted(monkeypatch, config: TrainConfig, after: int) -> None:
    """Run ``config`` and kill it (KeyboardInterrupt) right after epoch ``after`` is saved."""
    real = train_module.save_state

    def save_then_stop(base, progress, *args):
        path = real(base, progress, *args)
        if progress.epoch == after:
            raise KeyboardInterrupt
        return path

    with monkeypatch.context() as patch:
        patch.setattr(train_module, "save_state", save_then_stop)
        with pytest.raises(KeyboardInterrupt):
            train(config)


@pytest.mark.parametrize(
    "arch, kwargs, optimizer", [("ResValueNet", {"channels": 8, "blocks": 1}, "adam"), ("StudyCNN", {}, "sgd")]
)
def test_resume_equals_uninterrupted(tiny_data, tmp_path, monkeypatch, arch, kwargs, optimizer):
    """2 epochs in one go == 1 epoch, killed, then resumed: same weights bit for bit, same metrics.
    (StudyCNN: dropout draws from the global RNG, so its state must be restored too.)"""
    config = TrainConfig(
        data=[str(tiny_data)],
        out=str(tmp_path / "whole"),
        arch=arch,
        kwargs=kwargs,
        epochs=2,
        batch_size=16,
        optimizer=optimizer,
        progress=False,
        seed=5,
    )
    whole = train(config)
    split = dataclasses.replace(config, out=str(tmp_path / "split"))
    interrupted(monkeypatch, split, after=1)
    assert latest_state(tmp_path / "split" / "checkpoints").name == "epoch-001"
    moved = shutil.copytree(tiny_data, tmp_path / "moved")  # data folders may move (their hash is checked)
    resumed = train(dataclasses.replace(split, resume=True, data=[str(moved)]))
    assert resumed["resumed_from"] == 1 and whole["resumed_from"] == 0
    for name in ("checkpoints/epoch-002", "best"):
        a, _ = load_model(tmp_path / "whole" / name)
        b, _ = load_model(tmp_path / "split" / name)
        for (key, x), y in zip(a.state_dict().items(), b.state_dict().values()):
            assert torch.equal(x, y), key
    strip = [{k: v for k, v in row.items() if k != "seconds"} for row in whole["history"]]
    assert strip == [{k: v for k, v in row.items() if k != "seconds"} for row in resumed["history"]]
    assert len((tmp_path / "split" / "metrics.csv").read_text().splitlines()) == 3
    states = sorted(p.name for p in (tmp_path / "split" / "checkpoints").glob("*.state.*"))
    assert states == ["epoch-002.state.json", "epoch-002.state.safetensors"]  # only the latest state is kept


@pytest.fixture(scope="module")
def one_epoch(tiny_data, tmp_path_factory):
    """A 2-epoch run stopped after epoch 1 (its config and folder)."""
    folder = tmp_path_factory.mktemp("one_epoch")
    config = TrainConfig(
        data=[str(tiny_data)],
        out=str(folder),
        kwargs={"channels": 4, "blocks": 1},
        epochs=2,
        batch_size=32,
        progress=False,
    )
    with pytest.MonkeyPatch.context() as patch:
        interrupted(patch, config, after=1)
    return config


def rewrite_tensors(state_json, change) -> None:
    """Apply ``change`` to the state's tensors; keep the JSON's tensor list and hash consistent."""
    from safetensors.torch import load_file, save_file

    from agents.nets.safefiles import file_sha256

    path = state_json.with_name(state_json.name.replace(".json", ".safetensors"))
    tensors = load_file(str(path))
    change(tensors)
    save_file(tensors, str(path))
    config = json.loads(state_json.read_text())
    config["tensors"] = {name: list(t.shape) for name, t in tensors.items()}
    config["tensors_sha256"] = file_sha256(path)
    config["sha256"] = json_sha256(config)
    state_json.write_text(json.dumps(config))


def edit_json(state_json, edit, forge: bool = True) -> None:
    """Apply ``edit`` to the state JSON; with ``forge`` make its own hash fit again, so that the
    checks behind the hash are reached."""
    config = json.loads(state_json.read_text())
    edit(config)
    if forge:
        config["sha256"] = json_sha256(config)
    state_json.write_text(json.dumps(config))


@pytest.mark.parametrize(
    "spoil, message",
    [
        (lambda j, t: None, "other settings .*lr"),
        (lambda j, t: t.write_bytes(t.read_bytes()[:-50]), "its header describes"),
        (lambda j, t: t.write_bytes(t.read_bytes()[:-1] + b"?"), "SHA-256"),
        (lambda j, t: j.write_text(j.read_text()[:100]), "not valid JSON"),
        (lambda j, t: j.write_text("[" * 100_000 + "]" * 100_000), "not valid JSON"),
        (lambda j, t: j.write_bytes(b"\xff\xfe"), "not valid JSON"),
        (lambda j, t: (j.unlink(), j.mkdir()), "is a folder"),
        (lambda j, t: (t.unlink(), t.symlink_to("/dev/zero")), "not a regular file"),
        (lambda j, t: edit_json(j, lambda c: c.update(format_version=99)), "format_version"),
        (lambda j, t: edit_json(j, lambda c: c["optimizer"].update({"class": "SGD"})), "optimizer 'SGD'"),
        (lambda j, t: edit_json(j, lambda c: c.update(model_sha256="0" * 64)), "other weights"),
        (lambda j, t: edit_json(j, lambda c: c["scheduler"].pop("total_steps")), "scheduler"),
        (lambda j, t: rewrite_tensors(j, lambda d: d.pop("optimizer.0.exp_avg")), "exp_avg' is missing"),
        (lambda j, t: rewrite_tensors(j, lambda d: d.update({"optimizer.0.exp_avg": torch.zeros(3)})), "has shape"),
        (lambda j, t: rewrite_tensors(j, lambda d: d.update({"optimizer.99.x": torch.zeros(3)})), "unexpected"),
        (lambda j, t: rewrite_tensors(j, lambda d: d.pop("rng.shuffle")), "rng.shuffle"),
        # plain edits: refused by the JSON's own hash
        (lambda j, t: edit_json(j, lambda c: c.update(epoch=2), forge=False), "was edited"),
        (
            lambda j, t: edit_json(j, lambda c: c["optimizer"]["param_groups"][0].update(lr=0.2), forge=False),
            "was edited",
        ),
        (lambda j, t: edit_json(j, lambda c: c.update(best_loss=0.0), forge=False), "was edited"),
        (lambda j, t: edit_json(j, lambda c: c.pop("sha256"), forge=False), "lacks 'sha256'"),
        # forged edits (the hash recomputed) that the checks behind it refuse
        (lambda j, t: edit_json(j, lambda c: c.update(epoch=0)), "epoch 0 does not fit"),
        (lambda j, t: edit_json(j, lambda c: c.update(epoch=2)), "epoch 2 does not fit"),
        (lambda j, t: edit_json(j, lambda c: c.update(history="x")), "history"),
        (lambda j, t: edit_json(j, lambda c: c.update(best_loss="low")), "best_loss"),
        (lambda j, t: edit_json(j, lambda c: c.update(tensors={"rng.torch": [10**12]})), "tensor"),
        (lambda j, t: edit_json(j, lambda c: c.update(tensors=5)), "malformed tensors"),
        (lambda j, t: edit_json(j, lambda c: c["scheduler"].update(total_steps="many")), "wrong kind"),
    ],
)
def test_resume_refuses_bad_state(one_epoch, tmp_path, spoil, message):
    out = tmp_path / "run"
    shutil.copytree(one_epoch.out, out)
    state = out / "checkpoints" / "epoch-001.state.json"
    spoil(state, state.with_name("epoch-001.state.safetensors"))
    lr = one_epoch.lr * (2 if "settings" in message else 1)
    with pytest.raises(ModelFileError, match=message):
        train(dataclasses.replace(one_epoch, out=str(out), resume=True, lr=lr))


def test_resume_without_state_starts_fresh(tiny_data, tmp_path):
    report = train(
        TrainConfig(
            data=[str(tiny_data)],
            out=str(tmp_path),
            kwargs={"channels": 4, "blocks": 1},
            epochs=1,
            progress=False,
            resume=True,
        )
    )
    assert report["resumed_from"] == 0 and len(report["history"]) == 1


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(0, 1 << 16), value=st.integers(0, 255), which=st.sampled_from(["json", "safetensors"]))
def test_state_corruption_is_refused(one_epoch, cut, value, which):
    """A changed byte anywhere in either state file is refused with ModelFileError naming the file,
    unless it left the JSON's content as it was (whitespace)."""
    from training.optimize.checkpoint import _read

    path = Path(one_epoch.out) / "checkpoints" / f"epoch-001.state.{which}"
    original = path.read_bytes()
    spoiled = bytearray(original)
    at = cut % len(spoiled)
    spoiled[at] = value if spoiled[at] != value else (value + 1) % 256
    path.write_bytes(bytes(spoiled))
    try:
        _read(Path(one_epoch.out) / "checkpoints" / "epoch-001")
        assert which == "json" and json.loads(bytes(spoiled)) == json.loads(original)
    except ModelFileError as error:
        assert "epoch-001.state" in str(error)
    finally:
        path.write_bytes(original)
