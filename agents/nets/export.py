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
import json
import os
from pathlib import Path
from typing import Any, Optional, Union

import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_bytes
from safetensors.torch import save as save_bytes
from torch import nn

from .models import MODELS, build_model

__all__ = ["FORMAT_VERSION", "ModelFileError", "save_model", "load_model", "read_config", "read_json",
           "file_sha256"]

FORMAT_VERSION = 1
PathLike = Union[str, os.PathLike]


class ModelFileError(ValueError):
    """A model file that cannot be used: missing, truncated, tampered, mismatched or too new."""


def file_sha256(path: PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _base(path: PathLike) -> Path:
    path = Path(path)
    return path.with_suffix("") if path.suffix in (".json", ".safetensors") else path


def _canonical(config: dict[str, Any]) -> str:
    return json.dumps(config, sort_keys=True, separators=(",", ":"))


def save_model(model: nn.Module, path: PathLike, board_size: Optional[int] = None,
               recipe: Optional[dict[str, Any]] = None, data_hash: str = "") -> Path:
    """Write ``path.safetensors`` and ``path.json`` (``path`` with or without a suffix); return
    the base path. ``board_size``: the size trained on (required by size-bound models)."""
    arch = type(model).__name__
    if arch not in MODELS:
        raise ValueError(f"{arch} is not an exportable architecture ({sorted(MODELS)})")
    kwargs = model.config()
    size = int(board_size if board_size is not None else kwargs.get("size", 0))
    if size <= 0:
        raise ValueError(f"save_model({arch}): give the board_size the model was trained on")
    state = {name: tensor.detach().to("cpu").contiguous() for name, tensor in model.state_dict().items()}
    config = {"format_version": FORMAT_VERSION, "arch": arch, "kwargs": kwargs, "planes": model.planes,
              "output": model.output, "board_size": size, "recipe": recipe or {}, "data_hash": data_hash,
              "tensors": {name: list(tensor.shape) for name, tensor in state.items()}}
    base = _base(path)
    base.parent.mkdir(parents=True, exist_ok=True)
    weights = base.with_suffix(".safetensors")
    weights.write_bytes(save_bytes(state, metadata={"config": _canonical(config)}))
    config["weights_sha256"] = file_sha256(weights)
    base.with_suffix(".json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    return base


def read_json(name: Path, what: str, version: int, keys: tuple[str, ...]) -> dict[str, Any]:
    """The JSON object in file ``name`` (a ``what``, e.g. "model config"), of format ``version``
    and with all ``keys``; else ``ModelFileError`` naming the file and the problem."""
    try:
        config = json.loads(name.read_text())
    except FileNotFoundError:
        raise ModelFileError(f"{what} {name} does not exist") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ModelFileError(f"{what} {name} is not valid JSON (truncated?): {error}") from None
    if not isinstance(config, dict):
        raise ModelFileError(f"{what} {name} is not a JSON object")
    found = config.get("format_version")
    if found != version:
        raise ModelFileError(f"{what} {name} has format_version {found!r}; this code reads version {version}")
    for key in keys:
        if key not in config:
            raise ModelFileError(f"{what} {name} lacks {key!r}")
    return config


def read_config(path: PathLike) -> dict[str, Any]:
    """The checked JSON config of the model at ``path`` (weights not read)."""
    name = _base(path).with_suffix(".json")
    config = read_json(name, "model config", FORMAT_VERSION,
                       ("arch", "kwargs", "planes", "output", "board_size", "tensors", "weights_sha256"))
    if config["arch"] not in MODELS:
        raise ModelFileError(f"model config {name}: unknown architecture {config['arch']!r}")
    return config


def load_model(path: PathLike, device: Union[str, torch.device] = "cpu") -> tuple[nn.Module, dict[str, Any]]:
    """The model saved at ``path`` (in eval mode, on ``device``) and its config; every check of
    the module docstring is made first."""
    base = _base(path)
    config = read_config(base)
    weights = base.with_suffix(".safetensors")
    if not weights.exists():
        raise ModelFileError(f"model weights {weights} do not exist")
    data = weights.read_bytes()
    if hashlib.sha256(data).hexdigest() != config["weights_sha256"]:
        raise ModelFileError(f"model weights {weights} do not match the SHA-256 in {base.with_suffix('.json')} "
                             "(truncated, tampered or from another export)")
    try:
        state = load_bytes(data)
        from safetensors import safe_open  # the header metadata: the config the weights were saved with
        with safe_open(str(weights), framework="pt") as handle:
            stored = (handle.metadata() or {}).get("config")
    except (SafetensorError, OSError, ValueError) as error:
        raise ModelFileError(f"model weights {weights} cannot be read: {error}") from None
    core = {k: v for k, v in config.items() if k != "weights_sha256"}
    if stored != _canonical(core):
        raise ModelFileError(f"model config {base.with_suffix('.json')} differs from the config stored in "
                             f"{weights} (edited after export?)")
    try:
        model = build_model(config["arch"], **config["kwargs"])
    except (TypeError, ValueError) as error:
        raise ModelFileError(f"model config {base.with_suffix('.json')}: bad kwargs: {error}") from None
    if model.planes != config["planes"] or model.output != config["output"]:
        raise ModelFileError(f"model config {base.with_suffix('.json')}: planes/output disagree with {config['arch']}")
    expected = {name: list(t.shape) for name, t in model.state_dict().items()}
    found = {name: list(t.shape) for name, t in state.items()}
    if expected != found or found != config["tensors"]:
        wrong = sorted(n for n in set(expected) | set(found) | set(config["tensors"])
                       if not expected.get(n) == found.get(n) == config["tensors"].get(n))
        raise ModelFileError(f"model weights {weights} do not fit {config['arch']}({config['kwargs']}): "
                             f"mismatched tensors {wrong[:5]}")
    model.load_state_dict(state, strict=True)
    return model.to(device).eval(), config
