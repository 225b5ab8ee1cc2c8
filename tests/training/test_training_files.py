"""Hostile model files, self-play manifests and shards: refused with a ``ValueError`` naming the
file, before anything sized by the file is allocated; never another exception."""

from __future__ import annotations

import hashlib
import io
import json
import struct

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from safetensors.torch import save as save_bytes

from amazons_env.files import canonical_json

from agents.nets.export import expected_tensors, load_model, save_model
from agents.nets.models import ResValueNet
from agents.nets.safefiles import ModelFileError, json_sha256

from training.data.shards import ShardError, load_dataset, read_manifest
from training.selfplay.value import selfplay

SPEC = "two-iteration:depth=1,eval=improved"


def write_pair(base, arch: str, kwargs: dict, state: dict, board_size: int = 8, **extra) -> None:
    """A self-consistent model file pair: the JSON and the header's copy agree, the hash fits."""
    config = {
        "format_version": 1,
        "arch": arch,
        "kwargs": kwargs,
        "planes": "relative",
        "output": "tanh",
        "board_size": board_size,
        "recipe": {},
        "data_hash": "",
        "tensors": {name: list(t.shape) for name, t in state.items()},
        **extra,
    }
    weights = base.with_suffix(".safetensors")
    weights.write_bytes(save_bytes(state, metadata={"config": canonical_json(config)}))
    config["weights_sha256"] = hashlib.sha256(weights.read_bytes()).hexdigest()
    base.with_suffix(".json").write_text(json.dumps(config))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"channels": 10**9}, "channels=1000000000: give an integer from 1 to 512"),
        ({"blocks": 100_000}, "blocks=100000: give an integer from 0 to 64"),
        ({"channels": 8.5}, "channels=8.5"),
        ({"channels": True}, "channels=True"),
        ({"evil": 1}, "no argument 'evil'"),
    ],
)
def test_crafted_huge_config_is_refused_before_building(tmp_path, kwargs, message):
    state = ResValueNet(channels=4, blocks=1).state_dict()
    write_pair(tmp_path / "net", "ResValueNet", kwargs, state)
    with pytest.raises(ModelFileError, match=message):
        load_model(tmp_path / "net")


def test_config_and_header_must_agree_on_shapes(tmp_path):
    """The JSON lists the shapes of channels=8 and the header holds channels=4 tensors (a
    self-consistent pair otherwise): refused from the header, before the data is read."""
    small = ResValueNet(channels=4, blocks=1).state_dict()
    write_pair(tmp_path / "net", "ResValueNet", {"channels": 4, "blocks": 1}, small)
    config = json.loads((tmp_path / "net.json").read_text())
    config["kwargs"]["channels"] = 8
    config["tensors"] = {n: s for n, (_, s) in expected_tensors("ResValueNet", config["kwargs"]).items()}
    (tmp_path / "net.json").write_text(json.dumps(config))
    with pytest.raises(ModelFileError, match=r"tensor .* is not F32\["):
        load_model(tmp_path / "net")


def test_header_lengths_and_types_checked(tmp_path):
    base = save_model(ResValueNet(channels=4, blocks=1), tmp_path / "net", board_size=8)
    weights = base.with_suffix(".safetensors")
    raw = weights.read_bytes()
    weights.write_bytes(struct.pack("<Q", 1 << 60) + raw[8:])  # absurd header length
    with pytest.raises(ModelFileError, match="not a safetensors file"):
        load_model(base)
    weights.write_bytes(raw + b"\0" * 16)  # data past the last tensor
    with pytest.raises(ModelFileError, match="its header describes"):
        load_model(base)
    state = {k: v.double() if v.is_floating_point() else v for k, v in ResValueNet(4, 1).state_dict().items()}
    write_pair(tmp_path / "f64", "ResValueNet", {"channels": 4, "blocks": 1}, state)
    with pytest.raises(ModelFileError, match="is not F32"):
        load_model(tmp_path / "f64")


@pytest.mark.parametrize(
    "path, message", [("", "give a path"), ("net\0x", "give a path"), (5, "not int"), (None, "not NoneType")]
)
def test_model_paths_refused(path, message):
    with pytest.raises(ModelFileError, match=message):
        load_model(path)


def test_model_path_folder_and_device(tmp_path):
    (tmp_path / "net.json").mkdir()
    with pytest.raises(ModelFileError, match="net.json is a folder"):
        load_model(tmp_path / "net")
    (tmp_path / "dev.json").symlink_to("/dev/zero")
    with pytest.raises(ModelFileError, match="dev.json is not a regular file"):
        load_model(tmp_path / "dev")
    with pytest.raises(ModelFileError, match="not a folder"):
        load_model("/")


@pytest.mark.parametrize(
    "text, message",
    [
        ("[" * 100_000 + "]" * 100_000, "not valid JSON"),
        ('{"a": ' * 50_000 + "1" + "}" * 50_000, "not valid JSON"),
        (b"\xff\xfe{}", "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"format_version": ' + "9" * 5000 + "}", "not valid JSON"),
    ],
)
def test_model_json_garbage(tmp_path, text, message):
    path = tmp_path / "net.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ModelFileError, match=message):
        load_model(tmp_path / "net")


@pytest.mark.parametrize("tensors", [5, "x", None, {"stem.0.weight": "y"}, {"stem.0.weight": [1e9]}, []])
def test_model_malformed_tensors_field(tmp_path, tensors):
    with pytest.raises(ModelFileError, match="net.json: its tensors do not fit"):
        load_model(_model_with(tmp_path, "tensors", tensors))


@pytest.mark.parametrize("size", [0, 3, 13, 10**40, "8", 8.0, None])
def test_model_board_size_checked(tmp_path, size):
    with pytest.raises(ModelFileError, match="board_size"):
        load_model(_model_with(tmp_path, "board_size", size))


def _model_with(tmp_path, key, value):
    """A small saved model whose JSON has ``key`` edited to ``value``; returns its base path."""
    base = save_model(ResValueNet(channels=4, blocks=1), tmp_path / "net", board_size=8)
    config = json.loads(base.with_suffix(".json").read_text())
    config[key] = value
    base.with_suffix(".json").write_text(json.dumps(config))
    return base


@pytest.fixture
def data(tmp_path):
    selfplay(tmp_path, games=2, size=6, agent=SPEC, games_per_shard=1, workers=1, progress=False)
    return tmp_path


def edit_manifest(folder, change, rehash: bool = True) -> None:
    """Apply ``change`` to the manifest; with ``rehash`` make its own hash fit again (a forger's edit)."""
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    change(manifest)
    if rehash:
        manifest["sha256"] = json_sha256(manifest)
    path.write_text(json.dumps(manifest))


def test_manifest_edit_is_refused(data):
    edit_manifest(data, lambda m: m["shards"][0].update(games=5), rehash=False)
    with pytest.raises(ShardError, match="manifest.json was edited"):
        load_dataset(data)
    with pytest.raises(ShardError, match="manifest.json was edited"):  # and selfplay will not resume on it
        selfplay(data, games=2, size=6, agent=SPEC, games_per_shard=1, workers=1, progress=False)


@pytest.mark.parametrize("name", ["../x.npz", "/etc/passwd", "/dev/zero", "shard-00001.npz", "sub/shard-00000.npz"])
def test_manifest_file_confined(data, name):
    edit_manifest(data, lambda m: m["shards"][0].update(file=name))
    with pytest.raises(ShardError, match="must be the file shard-00000.npz in its folder"):
        load_dataset(data)


def test_shard_link_to_device_refused(data):
    shard = data / "shard-00000.npz"
    shard.unlink()
    shard.symlink_to("/dev/zero")
    with pytest.raises(ShardError, match="shard-00000.npz is not a regular file"):
        load_dataset(data)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda m: m.update(shards=5), "malformed"),
        (lambda m: m.update(shards=[5]), "malformed shard entry"),
        (lambda m: m["shards"][0].pop("sha256"), "malformed shard entry"),
        (lambda m: m["shards"][0].update(index="0"), "malformed shard entry"),
        (lambda m: m["shards"][0].update(positions=-1), "out of range"),
        (lambda m: m["shards"].append(dict(m["shards"][0])), "twice"),
        (lambda m: m.update(games=99), "totals disagree"),
        (lambda m: m.pop("settings"), "expected the keys"),
        (lambda m: m["settings"].update(size=10**9), "malformed: settings"),
        (lambda m: m.update(format_version=2), "format_version 2"),
    ],
)
def test_manifest_malformed(data, change, message):
    edit_manifest(data, change)
    with pytest.raises(ShardError, match=message):
        read_manifest(data)


@pytest.mark.parametrize("text", ["[" * 100_000, b"\xff\xfe", "", "{}"])
def test_manifest_garbage(data, text):
    (data / "manifest.json").write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ShardError, match="manifest.json"):
        read_manifest(data)


@pytest.mark.parametrize("folder", ["", "a\0b", 5, None])
def test_manifest_folder_refused(folder):
    with pytest.raises(ShardError, match="self-play folder .*: give a path"):
        read_manifest(folder)
    with pytest.raises(ShardError, match="self-play folder"):
        load_dataset(folder if isinstance(folder, str) else [folder])
    with pytest.raises(ShardError, match="give a folder or a list of folders"):
        load_dataset(5)


@pytest.mark.parametrize("base", ["", 5, None, "x\0y"])
def test_state_path_refused(base):
    from training.optimize.checkpoint import load_state

    with pytest.raises(ModelFileError, match="training state .*: give a path"):
        load_state(base, None, None, {}, "")


def test_manifest_is_a_folder(tmp_path):
    (tmp_path / "manifest.json").mkdir()
    with pytest.raises(ShardError, match="manifest.json is a folder"):
        read_manifest(tmp_path)


def forge_shard(folder, raw: bytes) -> None:
    """Replace shard 0 by ``raw`` and make the manifest fit it (size, hashes, totals)."""
    (folder / "shard-00000.npz").write_bytes(raw)

    def fit(manifest):
        manifest["shards"][0].update(bytes=len(raw), sha256=hashlib.sha256(raw).hexdigest())
        joined = "".join(s["sha256"] for s in manifest["shards"])
        manifest["data_hash"] = hashlib.sha256(joined.encode()).hexdigest()[:16]

    edit_manifest(folder, fit)


def npz(arrays: dict) -> bytes:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return buffer.getvalue()


def test_forged_shards_refused(data):
    entry = read_manifest(data)["shards"][0]
    n = entry["positions"]
    good = {
        "cells": np.zeros((n, 64), np.uint8),
        "sides": np.zeros(n, np.int8),
        "results": np.ones(n, np.int8),
        "values": np.zeros(n, np.float32),
        "plies": np.zeros(n, np.int16),
        "games": np.zeros(n, np.int64),
    }
    cases = [
        ({**good, "cells": np.zeros((n * 1000, 64), np.uint8)}, "bytes at most"),  # sized before decompressing
        ({k: v for k, v in good.items() if k != "plies"}, "expected the arrays"),
        ({**good, "values": np.full(n, np.nan, np.float32)}, "out of range"),
        ({**good, "sides": np.zeros(n, np.int64)}, "array sides is int64"),
        ({**good, "cells": np.zeros((n, 100), np.uint8)}, "array cells"),
    ]
    for arrays, message in cases:
        forge_shard(data, npz(arrays))
        with pytest.raises(ShardError, match=message):
            load_dataset(data)
    forge_shard(data, b"not a zip file at all")
    with pytest.raises(ShardError, match="shard-00000.npz cannot be read"):
        load_dataset(data)


def test_unforged_data_still_loads(data):
    loaded, data_hash = load_dataset(data)
    assert data_hash == read_manifest(data)["data_hash"] and torch.from_numpy(loaded["cells"]).shape[1] == 64


# property tests: any corruption of a file we wrote is either harmless (the bytes did not change
# what is read) or refused with our error naming the file; never another exception, never slow


MUTATIONS = st.lists(
    st.tuples(st.integers(0, 1 << 20), st.integers(0, 255), st.sampled_from(["set", "cut", "add"])),
    min_size=1,
    max_size=4,
)


def mutate(raw: bytes, edits) -> bytes:
    data = bytearray(raw)
    for where, value, how in edits:
        at = where % (len(data) + 1)
        if how == "set" and at < len(data):
            data[at] = value
        elif how == "cut":
            del data[at : at + 1 + value % 64]
        else:
            data[at:at] = bytes([value]) * (1 + value % 8)
    return bytes(data)


@pytest.fixture(scope="module")
def model_files(tmp_path_factory):
    base = save_model(ResValueNet(channels=4, blocks=1), tmp_path_factory.mktemp("model") / "net", board_size=8)
    return base, base.with_suffix(".json").read_bytes(), base.with_suffix(".safetensors").read_bytes()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=MUTATIONS, which=st.sampled_from([".json", ".safetensors"]))
def test_model_file_corruption_is_refused_or_harmless(model_files, edits, which):
    base, config, weights = model_files
    original = config if which == ".json" else weights
    base.with_suffix(".json").write_bytes(config)
    base.with_suffix(".safetensors").write_bytes(weights)
    spoiled = mutate(original, edits)
    base.with_suffix(which).write_bytes(spoiled)
    try:
        load_model(base)
    except ModelFileError as error:
        assert base.name in str(error)
    finally:
        base.with_suffix(which).write_bytes(original)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=MUTATIONS, which=st.sampled_from(["manifest.json", "shard-00000.npz"]))
def test_selfplay_file_corruption_is_refused_or_harmless(data, edits, which):
    path = data / which
    original = path.read_bytes()
    path.write_bytes(mutate(original, edits))
    try:
        load_dataset(data)
    except ShardError as error:
        assert which in str(error)
    finally:
        path.write_bytes(original)
