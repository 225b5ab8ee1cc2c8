"""Safe model files: weights as safetensors plus a JSON config; no pickle anywhere.

``save_model(model, path, ...)`` writes ``path.safetensors`` and ``path.json``. The JSON holds the
format version, the architecture and its arguments, the input planes, the board size, the
training recipe, the hash of the training data, every tensor's shape and the SHA-256 of the
weights file. The same config (without the weights hash) is also stored in the safetensors
header, so editing either file alone is caught.

``load_model(path)`` checks all of it and raises ``ModelFileError`` (a ``ValueError``) naming the
file and the problem for a missing, truncated, tampered, mismatched or newer-version file.

>>> import tempfile, os
>>> from agents.nets.models import ResValueNet
>>> folder = tempfile.mkdtemp()
>>> base = save_model(ResValueNet(channels=8, blocks=1), os.path.join(folder, "net"), board_size=8)
>>> model, config = load_model(base)
>>> config["arch"], config["planes"], config["board_size"]
('ResValueNet', 'relative', 8)
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Optional, Union

import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_bytes
from safetensors.torch import save as save_bytes
from torch import nn

from amazons_env import core
from amazons_env.errors import InvalidArgumentError
from amazons_env.files import canonical_json, write_atomic, write_json

from agents.nets.models import MODELS, Architecture, build_model, check_kwargs
from agents.nets.safefiles import ModelFileError, PathLike, checked_path, file_sha256, read_header, read_json

__all__ = ["FORMAT_VERSION", "ModelFileError", "save_model", "load_model", "read_config", "expected_tensors"]

FORMAT_VERSION = 1
_MAX_WEIGHTS_BYTES = 1 << 30  # the limits of ``models`` keep any net far below this


def _base(path: PathLike) -> Path:
    path = checked_path(path, "model file")
    base = path.with_suffix("") if path.suffix in (".json", ".safetensors") else path
    if not base.name:
        raise ModelFileError(f"model file {str(path)!r}: give a file path, not a folder")
    return base


def save_model(
    model: nn.Module,
    path: PathLike,
    board_size: Optional[int] = None,
    recipe: Optional[dict[str, Any]] = None,
    data_hash: str = "",
) -> Path:
    """Write ``path.safetensors`` and ``path.json`` (``path`` with or without a suffix); return
    the base path. ``board_size``: the size trained on (required by size-bound models)."""
    arch = type(model).__name__
    if not isinstance(model, Architecture) or arch not in MODELS:
        raise InvalidArgumentError(f"{arch} is not an exportable architecture ({sorted(MODELS)})")
    kwargs = model.config()
    size = int(board_size if board_size is not None else kwargs.get("size", 0))
    if size <= 0:
        raise InvalidArgumentError(f"save_model({arch}): give the board_size the model was trained on")
    state = {name: tensor.detach().to("cpu").contiguous() for name, tensor in model.state_dict().items()}
    config = {
        "format_version": FORMAT_VERSION,
        "arch": arch,
        "kwargs": kwargs,
        "planes": model.planes,
        "output": model.output,
        "board_size": size,
        "recipe": recipe or {},
        "data_hash": data_hash,
        "tensors": {name: list(tensor.shape) for name, tensor in state.items()},
    }
    base = _base(path)
    base.parent.mkdir(parents=True, exist_ok=True)
    weights = base.with_suffix(".safetensors")
    # the weights first, then the config that names their hash: a config that exists is complete
    write_atomic(weights, save_bytes(state, metadata={"config": canonical_json(config)}))
    config["weights_sha256"] = file_sha256(weights)
    write_json(base.with_suffix(".json"), config, indent=2, sort_keys=True)
    return base


def expected_tensors(arch: str, kwargs: dict[str, Any]) -> dict[str, tuple[str, list[int]]]:
    """``{name: (dtype name, shape)}`` of the state of ``arch(**kwargs)`` (checked arguments),
    found by building it on torch's ``meta`` device: shapes without any memory."""
    check_kwargs(arch, kwargs)
    with torch.device("meta"):
        model = build_model(arch, **kwargs)
    return {name: (str(t.dtype).removeprefix("torch."), list(t.shape)) for name, t in model.state_dict().items()}


def read_config(path: PathLike) -> dict[str, Any]:
    """The checked JSON config of the model at ``path`` (weights not read): known architecture,
    arguments within its limits, the planes, output and tensor shapes that architecture has."""
    name = _base(path).with_suffix(".json")
    config = read_json(
        name,
        "model config",
        FORMAT_VERSION,
        ("arch", "kwargs", "planes", "output", "board_size", "tensors", "weights_sha256"),
    )
    try:
        expected = expected_tensors(config["arch"], config["kwargs"])
    except ValueError as error:
        raise ModelFileError(f"model config {name}: {error}") from None
    model = MODELS[config["arch"]]
    if config["planes"] != model.planes or config["output"] != model.output:
        raise ModelFileError(
            f"model config {name}: planes/output {str(config['planes'])[:50]}/"
            f"{str(config['output'])[:50]} disagree with {config['arch']}"
        )
    size = config["board_size"]
    if (
        type(size) is not int
        or not core.MIN_SIZE <= size <= core.MAX_SIZE
        or size != config["kwargs"].get("size", size)
    ):
        raise ModelFileError(f"model config {name}: board_size {str(size)[:50]} is not a board size this net fits")
    tensors = config["tensors"]
    if not isinstance(tensors, dict) or tensors != {n: shape for n, (_, shape) in expected.items()}:
        found = sorted(tensors)[:5] if isinstance(tensors, dict) else type(tensors).__name__
        raise ModelFileError(
            f"model config {name}: its tensors do not fit {config['arch']}({config['kwargs']}) "
            f"(found {str(found)[:200]})"
        )
    if not isinstance(config["weights_sha256"], str):
        raise ModelFileError(f"model config {name}: weights_sha256 is not a string")
    return config


def load_model(path: PathLike, device: Union[str, torch.device] = "cpu") -> tuple[nn.Module, dict[str, Any]]:
    """The model saved at ``path`` (in eval mode, on ``device``) and its config. Checked first, in
    this order, and nothing sized by the files is allocated before its check: the config
    (``read_config``), the weights file's header (exactly the tensors, types and shapes the config
    implies, filling the file), the weights' SHA-256 against the config, the config copy in the
    header against the JSON."""
    base = _base(path)
    config = read_config(base)
    weights = base.with_suffix(".safetensors")
    metadata = read_header(
        weights, "model weights", expected_tensors(config["arch"], config["kwargs"]), _MAX_WEIGHTS_BYTES
    )
    data = weights.read_bytes()
    if hashlib.sha256(data).hexdigest() != config["weights_sha256"]:
        raise ModelFileError(
            f"model weights {weights} do not match the SHA-256 in {base.with_suffix('.json')} "
            "(truncated, tampered or from another export)"
        )
    core_config = {k: v for k, v in config.items() if k != "weights_sha256"}
    if metadata.get("config") != canonical_json(core_config):
        raise ModelFileError(
            f"model config {base.with_suffix('.json')} differs from the config stored in "
            f"{weights} (edited after export?)"
        )
    try:
        state = load_bytes(data)
    except (SafetensorError, ValueError) as error:
        raise ModelFileError(f"model weights {weights} cannot be read: {error}") from None
    model = build_model(config["arch"], **config["kwargs"])
    model.load_state_dict(state, strict=True)
    return model.to(device).eval(), config
