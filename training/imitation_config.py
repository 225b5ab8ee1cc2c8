"""``ImitationConfig``: the settings of ``training.imitation.imitate`` (``amazons train-policy``),
checked before any data loads.

Kept apart from ``training.imitation`` so that ``amazons train-policy --help`` builds its options
without importing torch (the base install has none; the check of ``start`` and ``device`` imports it).

>>> ImitationConfig(sources=["games.json"], out="net", size=8, epochs=0).check()
Traceback (most recent call last):
    ...
amazons_env.errors.InvalidArgumentError: train-policy --epochs=0: give an integer from 1 to 10000
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

from amazons_env import core
from amazons_env.errors import InvalidArgumentError

__all__ = ["ImitationConfig"]

_WHOLE = {
    "size": (core.MIN_SIZE, core.MAX_SIZE),
    "channels": (1, 512),
    "blocks": (0, 64),
    "epochs": (1, 10**4),
    "batch_size": (1, 10**6),
    "seed": (0, 2**62),
    "threads": (0, 1024),
}
_REAL = {"lr": (0.0, 1.0), "weight_decay": (0.0, 1.0), "value_weight": (0.0, 100.0)}


@dataclass
class ImitationConfig:
    """The settings of ``imitate`` (``amazons train-policy --help`` says each)."""

    sources: list[str]
    out: str
    size: int
    player: str = ""
    start: str = "default"
    channels: int = 32
    blocks: int = 3
    epochs: int = 4
    batch_size: int = 256
    lr: float = 1e-3
    weight_decay: float = 1e-4
    value_weight: float = 1.0
    seed: int = 0
    device: str = ""
    threads: int = 1
    held_out: tuple[str, ...] = ()
    held_out_player: str = ""
    overwrite: bool = False

    def check(self) -> None:
        """``InvalidArgumentError`` (a ``ValueError``) naming the first bad setting."""
        for name, (low, high) in _WHOLE.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise InvalidArgumentError(
                    f"train-policy --{_flag(name)}={value!r}: give an integer from {low} to {high}"
                )
        for name, (least, most) in _REAL.items():
            value = getattr(self, name)
            bad = isinstance(value, bool) or not isinstance(value, (int, float))
            if bad or not math.isfinite(value) or not least <= value <= most or (name == "lr" and value == 0):
                lowest = "above 0" if name == "lr" else f"from {least}"
                raise InvalidArgumentError(f"train-policy --{_flag(name)}={value!r}: give a number {lowest} to {most}")
        for name in ("out", "player", "start", "device", "held_out_player"):
            if not isinstance(getattr(self, name), (str, os.PathLike)):
                raise InvalidArgumentError(f"train-policy --{_flag(name)}={getattr(self, name)!r}: give a text")
        for name in ("sources", "held_out"):
            paths = getattr(self, name)
            if isinstance(paths, (str, bytes, os.PathLike)) or not all(
                isinstance(p, (str, os.PathLike)) for p in paths
            ):
                raise InvalidArgumentError(f"train-policy {name}={paths!r}: give a list of paths")
        if not self.sources:
            raise InvalidArgumentError("train-policy: give results files or policy-value folders to learn from")
        for source in self.sources:
            path = Path(source)
            if not path.exists():
                raise InvalidArgumentError(f"train-policy source {source!r}: no such file or folder")
            if path.is_file() and not self.player:
                raise InvalidArgumentError(f"train-policy source {source!r} is a results file: give --player")
        for source in self.held_out:
            if not Path(source).is_file():
                raise InvalidArgumentError(f"train-policy --held-out {source!r}: no such results file")
        if self.held_out and not (self.held_out_player or self.player):
            raise InvalidArgumentError(
                "train-policy --held-out: give --player (or --held-out-player), whose moves it scores"
            )
        if not str(self.out):
            raise InvalidArgumentError("train-policy --out='': give the model's path (without a suffix)")
        made = [p for p in (Path(f"{self.out}.safetensors"), Path(f"{self.out}.json")) if p.exists()]
        if made and not self.overwrite:
            raise InvalidArgumentError(f"train-policy --out={self.out!r}: {made[0]} exists (--overwrite replaces it)")
        if self.start != "scratch":
            from training.optimize.policy_value import start_net  # torch: here, not when `--help` is built

            start_net(self.start, self.size, "train-policy --start")
        if self.device:
            import torch

            try:
                torch.device(self.device)
            except (RuntimeError, ValueError) as error:
                raise InvalidArgumentError(f"train-policy --device={self.device!r}: {str(error)[:100]}") from None


def _flag(name: str) -> str:
    return name.replace("_", "-")
