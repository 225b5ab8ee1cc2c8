"""``train`` on a tiny self-play folder: a run and its checkpoints, a run killed after an epoch and
resumed equals one that was not, and a training state that is spoiled, edited or forged is refused
with ``ModelFileError`` (the other training tests: ``tests/training/test_training.py``)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.nets.export import ModelFileError, load_model
from agents.nets.safefiles import json_sha256

from training.data.shards import read_manifest
from training.optimize import value as train_module
from training.optimize.checkpoint import latest_state
from training.optimize.config import TrainConfig
from training.optimize.value import train
from training.selfplay.value import selfplay

from tests.helpers.training import SELFPLAY_SPEC


@pytest.fixture(scope="module")
def tiny_data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("selfplay")
    selfplay(folder, games=4, size=6, agent=SELFPLAY_SPEC, games_per_shard=2, workers=1, progress=False)
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
