"""The settings of ``train_loop`` (``LoopConfig``), checked before anything runs, and the device they name.

``device``: ``auto`` (CUDA when torch sees a GPU, else the CPU), ``cpu``, ``cuda`` or ``cuda:N``;
a device torch cannot use here is refused by name before any game is played.

>>> LoopConfig(out="run", device="cpu").check()
>>> LoopConfig(out="run", device="tpu").check()
Traceback (most recent call last):
    ...
amazons_env.errors.InvalidArgumentError: train-loop --device='tpu': choose auto, cpu, cuda or cuda:N
>>> resolve_device("cpu")
device(type='cpu')
>>> LoopConfig(out="run", selfplay="alphazero").check()
Traceback (most recent call last):
    ...
amazons_env.errors.InvalidArgumentError: train-loop --selfplay='alphazero': choose gumbel
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from amazons_env import core
from amazons_env.errors import InvalidArgumentError

from agents.arena.backends import check_backend
from agents.registry import format_spec, parse_spec

__all__ = ["LoopConfig", "SELFPLAY", "check_device", "resolve_device", "config_fields"]

#: settings recorded in a state only when set: their defaults are what a state without them ran
_ONLY_WHEN_SET: dict[str, Any] = {
    "expert": "",
    "root_weight": 0.0,
    "start": "",
    "selfplay": "pvmcts",  # the engine of the runs made before the choice existed
    "gumbel_m": 16,
    "gumbel_k": 16,
}
#: the searches that can play a generation's games with the best net (``training.loop.engines``)
SELFPLAY = ("gumbel",)
#: settings a resumed run may change: where and how visibly it runs, and how far it goes
_FREE = ("generations", "out", "progress", "device", "threads", "workers", "backend", "ray_address", "ray_gpus")
_DEVICE = re.compile(r"auto|cpu|cuda(:\d{1,3})?")


def check_device(device: Any, option: str = "train-loop --device") -> str:
    """``device`` if torch can use it here, else ``InvalidArgumentError`` naming ``option``."""
    if not isinstance(device, str) or not _DEVICE.fullmatch(device):
        raise InvalidArgumentError(f"{option}={str(device)[:50]!r}: choose auto, cpu, cuda or cuda:N")
    if device.startswith("cuda"):
        import torch

        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        index = int(device.partition(":")[2] or 0)
        if index >= count:
            raise InvalidArgumentError(
                f"{option}={device!r}: torch {torch.__version__} sees {count} CUDA device(s) here; use auto or cpu"
            )
    return device


def resolve_device(device: str) -> "Any":
    """The ``torch.device`` of a checked ``device`` setting on this machine (``auto``: CUDA when seen)."""
    from training.optimize.value import pick_device  # imports torch: the command line's help does not

    return pick_device("" if device == "auto" else device)


@dataclass
class LoopConfig:
    """The settings of ``train_loop`` (see ``training.loop`` and ``amazons train-loop --help``)."""

    out: str
    size: int = 8
    generations: int = 5
    bootstrap_games: int = 64
    bootstrap_agent: str = "uct:sims=400"
    expert: str = ""
    root_weight: float = 0.0
    start: str = ""
    selfplay: str = "gumbel"
    gumbel_m: int = 16
    gumbel_k: int = 16
    games: int = 64
    games_per_shard: int = 32
    sims: int = 64
    batch: int = 8
    temperature_plies: int = 10
    channels: int = 32
    blocks: int = 3
    epochs: int = 4
    batch_size: int = 256
    lr: float = 2e-3
    window: int = 3
    gate_games: int = 20
    gate_sims: int = 64
    gate: float = 0.5
    seed: int = 0
    device: str = "auto"
    threads: int = 1
    workers: int = 1
    backend: str = "local"
    ray_address: str = ""
    ray_gpus: float = 0.0
    progress: bool = True

    def check(self) -> None:
        """``ValueError`` naming the first bad setting."""
        whole = {
            "size": (core.MIN_SIZE, core.MAX_SIZE),
            "generations": (0, 999),
            "bootstrap_games": (1, 10**6),
            "games": (1, 10**6),
            "games_per_shard": (1, 10**5),
            "sims": (1, 10**6),
            "batch": (1, 4096),
            "temperature_plies": (0, 10**4),
            "channels": (1, 512),
            "blocks": (0, 64),
            "epochs": (1, 10**4),
            "batch_size": (1, 10**6),
            "window": (1, 999),
            "gate_games": (1, 10**5),
            "gate_sims": (1, 10**6),
            "seed": (0, 2**62),
            "threads": (0, 1024),
            "workers": (1, 1024),
            "gumbel_m": (1, 4096),
            "gumbel_k": (1, 4096),
        }
        for name, (low, high) in whole.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise InvalidArgumentError(
                    f"train-loop --{name.replace('_', '-')}={value!r}: give an integer from {low} to {high}"
                )
        for name, least, most in (("lr", 0.0, 1.0), ("gate", 0.0, 1.0), ("root_weight", 0.0, 1.0), ("ray_gpus", 0, 64)):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not least <= value <= most
                or not math.isfinite(value)
                or name == "lr"
                and value == 0
            ):
                flag, bracket = name.replace("_", "-"), "(" if name == "lr" else "["
                raise InvalidArgumentError(f"train-loop --{flag}={value!r}: give a number in {bracket}{least}, {most}]")
        if not isinstance(self.out, (str, os.PathLike)) or not str(self.out):
            raise InvalidArgumentError(f"train-loop OUT={self.out!r}: give a folder")
        check_device(self.device)
        if self.selfplay not in SELFPLAY:
            gone = " (the pvmcts engine and its PUCT trees were removed: a run made with it cannot resume)"
            raise InvalidArgumentError(
                f"train-loop --selfplay={str(self.selfplay)[:50]!r}: choose {' or '.join(SELFPLAY)}"
                + (gone if self.selfplay == "pvmcts" else "")
            )
        check_backend(self.backend, self.ray_address or None)
        if self.ray_gpus and self.backend != "ray":
            raise InvalidArgumentError(
                f"train-loop --ray-gpus={self.ray_gpus!r}: the GPUs of Ray tasks; add --backend ray"
            )
        from agents.registry import AGENTS

        AGENTS.validate(self.bootstrap_agent)
        if self.expert:
            if "weights" not in AGENTS.schema(parse_spec(self.expert)[0]).options:
                raise InvalidArgumentError(
                    f"train-loop --expert={self.expert!r}: give an agent guided by a policy-value net "
                    "(one with a weights option), e.g. uct-net:sims=800"
                )
            AGENTS.validate(self.expert, weights="net")
        if self.start != "":
            self.start_path()

    def start_path(self) -> Path:
        """The model file (no suffix) of ``start``: committed policy-value weights by name, or a path."""
        from training.optimize.policy_value import start_net  # torch: here, so `--help` builds without it

        return start_net(self.start, self.size, "train-loop --start")

    def expert_spec(self, weights: "str | os.PathLike") -> str:
        """``expert`` guided by the net in the model file ``weights``."""
        name, options = parse_spec(self.expert)
        return format_spec(name, {**options, "weights": str(weights)})

    def fixed(self) -> dict[str, Any]:
        """The settings a resumed run must share: all but ``generations``, ``out``, ``progress``,
        ``device``, ``threads`` and where the games run; ``expert``, ``root_weight``, ``start``,
        ``selfplay`` and the Gumbel search's ``gumbel_m``, ``gumbel_k`` only when set (other than
        what the runs made before they existed ran, so that their states still resume); with an
        ``expert``, who plays the games, not ``selfplay`` and its settings."""
        unused = ("selfplay", "gumbel_m", "gumbel_k") if self.expert else ()
        return {
            k: v
            for k, v in asdict(self).items()
            if k not in _FREE and k not in unused and not (k in _ONLY_WHEN_SET and v == _ONLY_WHEN_SET[k])
        }


def config_fields() -> list[str]:
    """The names of ``LoopConfig``'s settings (for the command line)."""
    return [f.name for f in fields(LoopConfig)]
