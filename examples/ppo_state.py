"""The resumable training state of ``examples/selfplay_ppo.py``: safetensors + JSON, no pickle.

``--out DIR`` holds, after every update and every evaluation:

* ``state-<16 hex>.safetensors``: every tensor: the net (``net.<name>``), Adam's per-parameter
  state (``optimizer.<index>.<key>``) and torch's random generator (``rng.torch``);
* ``state.json``: the rest: the format version, the run's options, the progress (steps,
  updates, budget used, wall and CPU time, next evaluation, evaluation history, sessions), the
  optimizer's hyper-parameters and state layout, numpy's generators (``rng.numpy``: the env
  seeds, ``rng.env``: the vector env's own), the tensors file's name, tensor list and SHA-256,
  and the JSON's own ``sha256`` (over its canonical form without that field).

The tensors file goes first under a name of its own, then ``state.json`` by an atomic rename
(the commit point), then older tensors files are removed: a kill at any moment leaves a
complete state. ``read_state`` refuses an edited JSON, a tensors file that does not match, or
a malformed one with ``ModelFileError`` (a ``ValueError``) naming the file and the problem.
The games in progress are not saved: a resumed run restarts them (every step already played
was learned from, the rollouts bootstrap their last value), from a seed of the saved generator.

>>> import tempfile, torch
>>> folder = Path(tempfile.mkdtemp())
>>> net = torch.nn.Linear(2, 1); optimizer = torch.optim.Adam(net.parameters())
>>> save_state(folder, net, optimizer, Progress(updates=3), {"seed": 0},
...            np.random.default_rng(0), np.random.default_rng(1))
>>> state = read_state(folder)
>>> state.options, restore(state, net, optimizer, np.random.default_rng(), np.random.default_rng()).updates
({'seed': 0}, 3)
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import save as save_bytes

from agents.nets.safefiles import ModelFileError, json_sha256, read_json

# the value-net trainer's checked optimizer state and atomic write: one implementation of each
from training.optimize.checkpoint import read_state_tensors, restored_optimizer_state, write_atomic

__all__ = ["STATE_VERSION", "STATE_FILE", "Progress", "State", "has_state", "save_state", "read_state", "restore"]

STATE_VERSION = 1
STATE_FILE = "state.json"
_TENSORS = re.compile(r"state-[0-9a-f]{16}\.safetensors")
_MAX_TENSOR_BYTES = 1 << 30


@dataclass
class Progress:
    """Where a run stands. ``elapsed``: seconds of the budget's clock used (evaluations
    included); ``next_eval``: when (on that clock) the next evaluation is due; ``last_eval``:
    the update count at the last evaluation (-1: none yet); ``history``: one row per evaluation."""

    steps: int = 0
    updates: int = 0
    elapsed: float = 0.0
    wall_s: float = 0.0
    cpu_s: float = 0.0
    next_eval: float = 0.0
    last_eval: int = -1
    sessions: int = 1
    history: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class State:
    """A checked state as read from ``--out``: its JSON and its tensors."""

    path: Path
    config: dict[str, Any]
    tensors: dict[str, torch.Tensor]

    @property
    def options(self) -> dict[str, Any]:
        return self.config["options"]


def has_state(out: Path) -> bool:
    return (Path(out) / STATE_FILE).exists()


def save_state(
    out: Path,
    net: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    progress: Progress,
    options: dict[str, Any],
    rng: np.random.Generator,
    env_rng: np.random.Generator,
) -> None:
    """Write the state of a run at an update boundary into ``out`` (see the module docstring)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tensors = {f"net.{name}": t.detach().contiguous() for name, t in net.state_dict().items()}
    saved = optimizer.state_dict()
    layout: dict[str, dict[str, Any]] = {}
    for index, entries in saved["state"].items():
        layout[str(index)] = {}
        for key, value in entries.items():
            if isinstance(value, torch.Tensor):
                tensors[f"optimizer.{index}.{key}"] = value.detach().contiguous()
                value = {"tensor": f"optimizer.{index}.{key}", "shape": list(value.shape)}
            layout[str(index)][key] = value
    tensors["rng.torch"] = torch.get_rng_state()
    data = save_bytes(tensors)
    digest = hashlib.sha256(data).hexdigest()
    name = f"state-{digest[:16]}.safetensors"
    write_atomic(out / name, data)
    config = {
        "format_version": STATE_VERSION,
        "options": options,
        "progress": dataclasses.asdict(progress),
        "optimizer": {"class": type(optimizer).__name__, "param_groups": saved["param_groups"], "state": layout},
        "rng": {"numpy": rng.bit_generator.state, "env": env_rng.bit_generator.state},
        "tensors_file": name,
        "tensors": {k: list(t.shape) for k, t in tensors.items()},
        "tensors_sha256": digest,
    }
    config["sha256"] = json_sha256(config)
    write_atomic(out / STATE_FILE, (json.dumps(config, indent=1, sort_keys=True) + "\n").encode())
    for old in out.glob("state-*.safetensors"):
        if old.name != name:
            old.unlink()


def read_state(out: Path) -> State:
    """The state in ``out``, checked: the JSON's own hash, its fields, the tensors file's header
    against its list before reading it, then the file's hash."""
    path = Path(out) / STATE_FILE
    config = read_json(
        path,
        "PPO training state",
        STATE_VERSION,
        ("options", "progress", "optimizer", "rng", "tensors_file", "tensors", "tensors_sha256", "sha256"),
    )
    if config["sha256"] != json_sha256(config):
        raise ModelFileError(
            f"PPO training state {path} was edited: its sha256 does not match its content "
            "(resume from an unedited state, or train into another --out)"
        )
    name, tensors = config["tensors_file"], config["tensors"]
    if not isinstance(name, str) or not _TENSORS.fullmatch(name):
        raise ModelFileError(
            f"PPO training state {path}: tensors_file {str(name)[:60]!r} is not a state-*.safetensors name"
        )
    if (
        not isinstance(config["options"], dict)
        or not isinstance(tensors, dict)
        or not all(
            isinstance(shape, list) and all(type(x) is int and 0 <= x < 1 << 31 for x in shape)
            for shape in tensors.values()
        )
    ):
        raise ModelFileError(f"PPO training state {path}: malformed options or tensors list")
    loaded = read_state_tensors(
        path.parent / name, "PPO training state tensors", tensors, config["tensors_sha256"], path, _MAX_TENSOR_BYTES
    )
    return State(path, config, loaded)


def _progress(saved: Any, where: Path) -> Progress:
    """``Progress`` from its JSON form, every field of the right kind and range."""
    fresh = dataclasses.asdict(Progress())
    if not isinstance(saved, dict) or set(saved) != set(fresh):
        raise ModelFileError(f"PPO training state {where}: progress has not the fields {sorted(fresh)}")
    for key, default in fresh.items():
        value = saved[key]
        if isinstance(default, int):
            ok = type(value) is int and value >= (-1 if key == "last_eval" else 0)
        elif isinstance(default, float):
            ok = type(value) in (int, float) and math.isfinite(value) and value >= 0
        else:
            ok = isinstance(value, list) and all(isinstance(row, dict) for row in value)
        if not ok:
            raise ModelFileError(f"PPO training state {where}: progress {key}={str(value)[:50]} is malformed")
    return Progress(**saved)


def restore(
    state: State,
    net: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    rng: np.random.Generator,
    env_rng: np.random.Generator,
) -> Progress:
    """Put the net, the optimizer and the generators back as ``state`` saved them; the progress to
    go on from. ``net`` and ``optimizer`` are new ones built from ``state.options``."""
    where, tensors = state.path, state.tensors
    progress = _progress(state.config["progress"], where)
    expected = {f"net.{k}": tuple(v.shape) for k, v in net.state_dict().items()}
    found = {k: tuple(v.shape) for k, v in tensors.items() if k.startswith("net.")}
    if found != expected:
        wrong = sorted(set(found.items()) ^ set(expected.items()))[:3]
        raise ModelFileError(f"PPO training state {where}: the net's tensors do not fit its options ({wrong})")
    rng_torch = tensors.get("rng.torch")
    if rng_torch is None or rng_torch.dtype != torch.uint8 or rng_torch.shape != torch.get_rng_state().shape:
        raise ModelFileError(f"PPO training state {where}: torch's generator state rng.torch is missing or malformed")
    optimizer_state = restored_optimizer_state(state.config, tensors, optimizer, where)
    saved_rng = state.config["rng"]
    try:
        net.load_state_dict({k[4:]: v for k, v in tensors.items() if k.startswith("net.")})
        optimizer.load_state_dict(optimizer_state)
        rng.bit_generator.state = saved_rng["numpy"]
        env_rng.bit_generator.state = saved_rng["env"]
        torch.set_rng_state(rng_torch)
    except (ValueError, KeyError, RuntimeError, TypeError, AttributeError) as error:
        raise ModelFileError(
            f"PPO training state {where}: the net, optimizer or generator state does not load: {str(error)[:200]}"
        ) from None
    return progress
