"""``TrainConfig``: everything a training run depends on, checked before any work starts.

Kept apart from ``training.optimize.value`` so that ``amazons --help`` and ``amazons train --help`` build
their options without importing torch.

>>> TrainConfig(data=["d"], out="o", epochs=0).check()
Traceback (most recent call last):
    ...
amazons_env.errors.InvalidArgumentError: train option epochs=0: give an integer >= 1
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any

from amazons_env.errors import InvalidArgumentError

__all__ = ["TrainConfig"]

# option: smallest allowed value (integers)
_INTS = {"epochs": 1, "batch_size": 1, "max_positions": 0, "seed": 0, "threads": 0}
# option: (the test, the values it allows) (floats, all finite)
_FLOATS = {
    "lr": (lambda v: v > 0, "a finite number > 0"),
    "weight_decay": (lambda v: v >= 0, "a finite number >= 0"),
    "value_weight": (lambda v: 0 <= v <= 1, "a number in [0, 1]"),
    "val_fraction": (lambda v: 0 <= v < 1, "a number in [0, 1)"),
}


def _is_path(value: Any) -> bool:
    return isinstance(value, (str, os.PathLike)) and os.fspath(value) != "" and "\0" not in os.fspath(value)


@dataclass
class TrainConfig:
    """Everything a training run depends on (stored as the ``recipe`` of the exported model)."""

    data: "list[str | os.PathLike]"
    out: "str | os.PathLike"
    arch: str = "ResValueNet"
    kwargs: dict[str, Any] = field(default_factory=dict)
    epochs: int = 10
    batch_size: int = 256
    lr: float = 2e-3
    optimizer: str = "adam"  # or "sgd" (the study: SGD, lr 0.02, batch 64)
    weight_decay: float = 1e-4
    value_weight: float = 0.25
    val_fraction: float = 0.1
    augment: bool = True
    max_positions: int = 0  # 0: all
    seed: int = 0
    device: str = ""  # "": cuda if available, else cpu
    threads: int = 0  # torch CPU threads, 0: torch's default
    progress: bool = True
    resume: bool = False  # continue from the last finished epoch in ``out``

    def check(self) -> None:
        """Raise ``ValueError`` naming the first option of the wrong type or out of range."""
        if not isinstance(self.data, (list, tuple)) or not self.data or not all(map(_is_path, self.data)):
            raise InvalidArgumentError(f"train option data={self.data!r}: give one or more self-play folders")
        if not _is_path(self.out):
            raise InvalidArgumentError(f"train option out={self.out!r}: give an output folder")
        if not isinstance(self.kwargs, dict):
            raise InvalidArgumentError(f"train option kwargs={self.kwargs!r}: give a dict of architecture arguments")
        for name, low in _INTS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InvalidArgumentError(f"train option {name}={value!r}: give an integer >= {low}")
        for name, (allowed, text) in _FLOATS.items():
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or not allowed(value)
            ):
                raise InvalidArgumentError(f"train option {name}={value!r}: give {text}")
        if self.optimizer not in ("adam", "sgd"):
            raise InvalidArgumentError(f"train option optimizer={self.optimizer!r}: use 'adam' or 'sgd'")
        for name in ("augment", "progress", "resume"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidArgumentError(f"train option {name}={getattr(self, name)!r}: give True or False")
        if not isinstance(self.device, str) or not isinstance(self.arch, str):
            raise InvalidArgumentError(f"train options arch={self.arch!r}, device={self.device!r}: give strings")
