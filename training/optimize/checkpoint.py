"""Resumable training state without pickle: ``save_state`` after each epoch, ``load_state`` to go on.

Beside each epoch's model checkpoint ``epoch-NNN.{safetensors,json}`` (``agents.nets.export``),
``training.optimize.value`` writes what the next epoch depends on besides the weights:

* ``epoch-NNN.state.safetensors``: every tensor: the optimizer's per-parameter state, named
  ``optimizer.<parameter index>.<key>`` (AdamW: ``step``, ``exp_avg``, ``exp_avg_sq``; SGD:
  ``momentum_buffer``), and the random generators: ``rng.torch`` (the global one: dropout),
  ``rng.shuffle`` (the batch order) and, on a GPU, ``rng.cuda``.
* ``epoch-NNN.state.json``: the rest, as plain JSON: the format version, the epoch, the recipe and
  data hash of the run, the SHA-256 of that epoch's model weights and of the tensors file, the
  optimizer's class, its ``param_groups`` (the hyper-parameters as the LR schedule left them) and
  the layout of its per-parameter state (``{"tensor": name, "shape": [...]}`` or a JSON value),
  the LR scheduler's and the gradient scaler's state dicts (numbers and strings only), the
  metrics rows so far and the best validation loss.

Both files go through a temporary name and an atomic rename (``amazons_env.files``), the JSON
last: a state whose JSON exists is complete. Only the latest epoch's state is kept (the weights of every epoch are).

The JSON carries its own ``sha256`` (over its canonical form without that field): an edited
epoch, learning rate or best loss is refused, not used. ``load_state`` checks all of it against
the run being resumed (the JSON's hash and fields, the tensors file's header against its list
before reading it, then its hash; same recipe and data, the model checkpoint it names, tensor
names and shapes against the parameters) and raises ``ModelFileError`` (a ``ValueError``)
naming the file and the problem.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_bytes
from safetensors.torch import save as save_bytes
from torch import nn

from amazons_env.files import file_sha256, is_sealed, seal, write_atomic, write_json

from agents.nets.export import load_model, read_config
from agents.nets.safefiles import ModelFileError, checked_path, read_header, read_json

__all__ = [
    "STATE_VERSION",
    "Progress",
    "TrainingParts",
    "state_base",
    "latest_state",
    "save_state",
    "load_state",
    "write_atomic",
    "read_state_tensors",
    "restored_optimizer_state",
]

STATE_VERSION = 2  # 2: the JSON carries its own sha256
_MAX_TENSOR_BYTES = 3 << 30  # optimizer moments of the largest net ``agents.nets.models`` allows
_MAX_EXTENT = 1 << 31
_STATE_NAME = re.compile(r"epoch-(\d+)\.state\.json")
# recipe entries that may change between the interrupted run and its resumption ("data": the
# folders may move; the data hash checks their content)
_FREE = ("data", "device", "threads")


@dataclass
class Progress:
    """Where a run stands: the last finished epoch, the metrics rows so far, the best validation loss."""

    epoch: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    best_loss: float = math.inf


@dataclass
class TrainingParts:
    """The objects besides the model whose state a resumed run needs."""

    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    scaler: torch.amp.GradScaler
    shuffle: torch.Generator
    device: torch.device


def state_base(checkpoints: Path, epoch: int) -> Path:
    """The model checkpoint base path of ``epoch`` (its state files add ``.state.*``)."""
    return Path(checkpoints) / f"epoch-{epoch:03d}"


def _state_files(base: Path) -> tuple[Path, Path]:
    return Path(f"{base}.state.json"), Path(f"{base}.state.safetensors")


def latest_state(checkpoints: Path) -> Optional[Path]:
    """The model base path of the last epoch with a complete state in ``checkpoints``, or ``None``."""
    epochs = [
        int(m.group(1)) for p in Path(checkpoints).glob("epoch-*.state.json") if (m := _STATE_NAME.fullmatch(p.name))
    ]
    return state_base(checkpoints, max(epochs)) if epochs else None


def save_state(base: Path, progress: Progress, parts: TrainingParts, recipe: dict[str, Any], data_hash: str) -> Path:
    """Write the state after epoch ``progress.epoch`` beside the model checkpoint ``base`` (already
    written); remove older epochs' states. Returns the JSON path."""
    tensors: dict[str, torch.Tensor] = {}
    layout: dict[str, dict[str, Any]] = {}
    optimizer = parts.optimizer.state_dict()
    for index, entries in optimizer["state"].items():
        layout[str(index)] = {}
        for key, value in entries.items():
            if isinstance(value, torch.Tensor):
                name = f"optimizer.{index}.{key}"
                tensors[name] = value.detach().to("cpu").contiguous()
                layout[str(index)][key] = {"tensor": name, "shape": list(value.shape)}
            else:
                layout[str(index)][key] = value
    tensors["rng.torch"] = torch.get_rng_state()
    tensors["rng.shuffle"] = parts.shuffle.get_state()
    if parts.device.type == "cuda":
        tensors["rng.cuda"] = torch.cuda.get_rng_state(parts.device)
    config = {
        "format_version": STATE_VERSION,
        "epoch": progress.epoch,
        "recipe": recipe,
        "data_hash": data_hash,
        "model_sha256": read_config(base)["weights_sha256"],
        "optimizer": {
            "class": type(parts.optimizer).__name__,
            "param_groups": optimizer["param_groups"],
            "state": layout,
        },
        "scheduler": parts.scheduler.state_dict(),
        "scaler": parts.scaler.state_dict(),
        "history": progress.history,
        "best_loss": progress.best_loss if math.isfinite(progress.best_loss) else None,
        "tensors": {name: list(t.shape) for name, t in tensors.items()},
    }
    json_path, tensor_path = _state_files(base)
    write_atomic(tensor_path, save_bytes(tensors))
    config["tensors_sha256"] = file_sha256(tensor_path)
    write_json(json_path, seal(config), indent=1, sort_keys=True)
    for old in Path(base).parent.glob("epoch-*.state.*"):
        if not old.name.startswith(Path(base).name + "."):
            old.unlink()
    return json_path


def _check_fields(config: dict[str, Any], base: Path, where: Path) -> None:
    """The plain fields of a state JSON whose hash is right (so written by us, or forged): types and ranges."""
    named = _STATE_NAME.fullmatch(f"{base.name}.state.json")
    epoch, history, best = config["epoch"], config["history"], config["best_loss"]
    if type(epoch) is not int or epoch < 1 or (named is not None and int(named.group(1)) != epoch):
        raise ModelFileError(f"training state {where}: epoch {str(epoch)[:50]} does not fit the file name")
    if not isinstance(history, list) or len(history) != epoch or not all(isinstance(row, dict) for row in history):
        raise ModelFileError(f"training state {where}: the metrics history is not {epoch} rows")
    if best is not None and (type(best) not in (int, float) or not math.isfinite(best)):
        raise ModelFileError(f"training state {where}: best_loss {str(best)[:50]} is not a finite number")
    tensors = config["tensors"]
    if not isinstance(tensors, dict) or not all(
        isinstance(shape, list) and all(type(x) is int and 0 <= x <= _MAX_EXTENT for x in shape)
        for shape in tensors.values()
    ):
        raise ModelFileError(f"training state {where}: malformed tensors list")
    if not isinstance(config["tensors_sha256"], str):
        raise ModelFileError(f"training state {where}: tensors_sha256 is not a string")


def _same_form(saved: Any, fresh: Any) -> bool:
    """Whether JSON value ``saved`` has the form of ``fresh``: the same keys, lengths and kinds
    (numbers, strings, booleans, null), numbers of any value."""
    if isinstance(fresh, dict):
        return (
            isinstance(saved, dict)
            and saved.keys() == fresh.keys()
            and all(_same_form(saved[k], fresh[k]) for k in fresh)
        )
    if isinstance(fresh, list):
        return isinstance(saved, list) and len(saved) == len(fresh) and all(map(_same_form, saved, fresh))
    if isinstance(fresh, bool) or fresh is None or isinstance(fresh, str):
        return type(saved) is type(fresh)
    return type(saved) in (int, float) and math.isfinite(saved)


def _read(base: Path) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
    """The state's JSON and tensors, checked for completeness and integrity (the JSON's own hash,
    its fields, the tensors file's header against its list, then the file's hash) before the
    tensors are loaded."""
    json_path, tensor_path = _state_files(base)
    config = read_json(
        json_path,
        "training state",
        STATE_VERSION,
        (
            "epoch",
            "recipe",
            "data_hash",
            "model_sha256",
            "optimizer",
            "scheduler",
            "scaler",
            "history",
            "best_loss",
            "tensors",
            "tensors_sha256",
            "sha256",
        ),
    )
    if not is_sealed(config):
        raise ModelFileError(
            f"training state {json_path} was edited: its sha256 does not match its content "
            "(resume from an unedited state, or train into another folder)"
        )
    _check_fields(config, base, json_path)
    tensors = read_state_tensors(
        tensor_path, "training state tensors", config["tensors"], config["tensors_sha256"], json_path, _MAX_TENSOR_BYTES
    )
    return config, tensors


def read_state_tensors(
    path: Path, what: str, shapes: dict[str, list[int]], sha256: str, listed_in: Path, max_bytes: int
) -> dict[str, torch.Tensor]:
    """The tensors of a state's safetensors file ``path``, checked before they are used: its header
    against ``shapes`` (each tensor's name and shape, as the state's JSON ``listed_in`` lists them)
    and ``max_bytes`` before the file is read, then the file's SHA-256 against ``sha256`` (from
    that JSON). Raises ``ModelFileError`` naming the file as ``what``.

    >>> import tempfile
    >>> from safetensors.torch import save
    >>> folder = Path(tempfile.mkdtemp())
    >>> data = save({"w": torch.zeros(2, 3)})
    >>> _ = (folder / "state.safetensors").write_bytes(data)
    >>> digest = hashlib.sha256(data).hexdigest()
    >>> read_state_tensors(folder / "state.safetensors", "state", {"w": [2, 3]}, digest, folder / "state.json", 10**6)[
    ...     "w"
    ... ].shape
    torch.Size([2, 3])
    >>> read_state_tensors(folder / "state.safetensors", "state", {"w": [2, 3]}, "0" * 64, folder / "state.json", 10**6)
    Traceback (most recent call last):
    ...
    agents.nets.safefiles.ModelFileError: state ... do not match the SHA-256 in ... (truncated, tampered ...)
    """
    read_header(path, what, {name: (None, shape) for name, shape in shapes.items()}, max_bytes)
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != sha256:
        raise ModelFileError(
            f"{what} {path} do not match the SHA-256 in {listed_in} (truncated, tampered or from another run)"
        )
    try:
        return load_bytes(data)
    except (SafetensorError, ValueError) as error:
        raise ModelFileError(f"{what} {path} cannot be read: {error}") from None


def restored_optimizer_state(
    config: dict[str, Any], tensors: dict[str, torch.Tensor], optimizer: torch.optim.Optimizer, where: Path
) -> dict[str, Any]:
    """The optimizer ``state_dict`` the JSON layout and the tensors describe, checked against ``optimizer``."""
    saved = config["optimizer"]
    if not isinstance(saved, dict) or saved.get("class") != type(optimizer).__name__:
        found = saved.get("class") if isinstance(saved, dict) else saved
        raise ModelFileError(f"training state {where}: optimizer {found!r}, this run uses {type(optimizer).__name__}")
    params = [p for group in optimizer.param_groups for p in group["params"]]
    groups = saved.get("param_groups")
    if (
        not isinstance(groups, list)
        or len(groups) != len(optimizer.param_groups)
        or [g.get("params") if isinstance(g, dict) else None for g in groups]
        != [list(range(len(params)))] * len(groups)
    ):
        raise ModelFileError(
            f"training state {where}: the optimizer's parameter groups do not fit this model ({len(params)} parameters)"
        )
    if not isinstance(saved.get("state"), dict):
        raise ModelFileError(f"training state {where}: the optimizer state is not a JSON object")
    state: dict[int, dict[str, Any]] = {}
    used = set()
    for index, entries in saved["state"].items():
        if not index.isdigit() or int(index) >= len(params) or not isinstance(entries, dict):
            raise ModelFileError(f"training state {where}: optimizer state for unknown parameter {index!r}")
        state[int(index)] = {}
        for key, value in entries.items():
            if isinstance(value, dict):
                name = value.get("tensor")
                if name not in tensors:
                    raise ModelFileError(f"training state {where}: optimizer tensor {name!r} is missing")
                tensor = tensors[name]
                if tensor.dim() and tensor.shape != params[int(index)].shape:
                    raise ModelFileError(
                        f"training state {where}: optimizer tensor {name} has shape "
                        f"{list(tensor.shape)}, parameter {index} {list(params[int(index)].shape)}"
                    )
                used.add(name)
                value = tensor
            state[int(index)][key] = value
    extra = sorted(n for n in tensors if n.startswith("optimizer.") and n not in used)
    if extra:
        raise ModelFileError(f"training state {where}: unexpected optimizer tensors {extra[:5]}")
    # JSON turns tuples (Adam's betas) into lists; torch's hyper-parameter sequences are tuples
    groups = [{k: tuple(v) if isinstance(v, list) and k != "params" else v for k, v in g.items()} for g in groups]
    return {"state": state, "param_groups": groups}


def load_state(base: Path, model: nn.Module, parts: TrainingParts, recipe: dict[str, Any], data_hash: str) -> Progress:
    """Restore the model weights, ``parts`` and the RNGs to the end of the epoch whose checkpoint
    is ``base``; return the progress to continue from. Raises ``ModelFileError`` when the state is
    missing, incomplete, tampered, from another run (other recipe or data) or does not fit."""
    base = checked_path(base, "training state")
    where = _state_files(base)[0]
    config, tensors = _read(base)
    ours = {k: v for k, v in json.loads(json.dumps(recipe)).items() if k not in _FREE}  # as JSON reads it back
    theirs = {k: v for k, v in config["recipe"].items() if k not in _FREE} if isinstance(config["recipe"], dict) else {}
    if ours != theirs or config["data_hash"] != data_hash:
        changed = sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))
        if config["data_hash"] != data_hash:
            changed.append("data (hash)")
        raise ModelFileError(
            f"training state {where} is from a run with other settings ({', '.join(changed)}); "
            "resume with the same ones, or train into another folder"
        )
    saved, _ = load_model(base, device=next(model.parameters()).device)
    if read_config(base)["weights_sha256"] != config["model_sha256"]:
        raise ModelFileError(f"training state {where} belongs to other weights than {base}.safetensors")
    model.load_state_dict(saved.state_dict())
    optimizer_state = restored_optimizer_state(config, tensors, parts.optimizer, where)
    scheduler = parts.scheduler.state_dict()
    if not isinstance(config["scheduler"], dict) or set(config["scheduler"]) != set(scheduler):
        raise ModelFileError(
            f"training state {where}: the LR scheduler state does not fit {type(parts.scheduler).__name__}"
        )
    for name, generator_state in (("rng.torch", torch.get_rng_state()), ("rng.shuffle", parts.shuffle.get_state())):
        found = tensors.get(name)
        if found is None or found.dtype != generator_state.dtype or found.shape != generator_state.shape:
            raise ModelFileError(f"training state {where}: random generator state {name} is missing or malformed")
    if not _same_form(config["scheduler"], json.loads(json.dumps(scheduler))):
        raise ModelFileError(f"training state {where}: the LR scheduler state has values of the wrong kind")
    try:
        parts.optimizer.load_state_dict(optimizer_state)
        parts.scheduler.load_state_dict(config["scheduler"])
        if config["scaler"] and parts.scaler.is_enabled():  # no scaler on the CPU: nothing to restore
            parts.scaler.load_state_dict(config["scaler"])
        torch.set_rng_state(tensors["rng.torch"])
        parts.shuffle.set_state(tensors["rng.shuffle"])
        if parts.device.type == "cuda" and "rng.cuda" in tensors:
            torch.cuda.set_rng_state(tensors["rng.cuda"], parts.device)
    except (ValueError, KeyError, RuntimeError, TypeError, AttributeError) as error:
        raise ModelFileError(
            f"training state {where}: the optimizer, schedule or generator state does not load: {str(error)[:200]}"
        ) from None
    best = config["best_loss"]
    return Progress(
        epoch=int(config["epoch"]), history=list(config["history"]), best_loss=math.inf if best is None else float(best)
    )
