"""The architectures: the study's ``StudyCNN``, our value net ``ResValueNet`` and the ``PolicyValueNet``.

Each model class says which input planes it reads (``planes``, see ``agents.nets.planes``) and what
its output means (``output``):

* ``"white_sigmoid"``: White's winning chance in [0, 1] (the study's network; its planes have
  no side to move), turned into a value for the side to move by ``value_for_side_to_move``.
* ``"tanh"``: the value for the side to move in [-1, 1] directly.
* ``"policy_value"``: that value and two policy heads (``agents.nets.policy_value`` reads them).

``build_model(arch, **kwargs)`` rebuilds a model from the ``(arch, kwargs)`` that
``model.config()`` returns; ``agents.nets.export`` stores exactly that. Each class's ``limits``
bound its arguments (``check_kwargs``). ``Architecture`` is what the classes have in common.

>>> parameter_count(StudyCNN(size=10))
905185
>>> parameter_count(ResValueNet())
60193
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import torch
from torch import nn

from amazons_env import core
from amazons_env.errors import InvalidArgumentError

from agents.nets.planes import plane_count

__all__ = [
    "Architecture",
    "StudyCNN",
    "ResValueNet",
    "PolicyValueNet",
    "MODELS",
    "LINES",
    "REACH",
    "check_kwargs",
    "build_model",
    "parameter_count",
    "value_for_side_to_move",
]

#: the longest queen slide, and the policy channels: 8 directions x that many distances
REACH = core.MAX_SIZE - 1
LINES = 8 * REACH


class Architecture(nn.Module, ABC):
    """What every architecture of ``MODELS`` declares: the input ``planes`` it reads, what its
    ``output`` means (module docstring), the ``limits`` (low, high) of each of its arguments, and
    ``config()``, the arguments that rebuild it (``build_model``).

    >>> ResValueNet.limits["blocks"], ResValueNet(channels=8).config()["channels"]
    ((0, 64), 8)
    """

    planes: ClassVar[str]
    output: ClassVar[str]
    limits: ClassVar[dict[str, tuple[int, int]]]

    @abstractmethod
    def config(self) -> dict[str, Any]:
        """The keyword arguments that build this model again."""


class StudyCNN(Architecture):
    """The study's network, layer for layer (Keras there, PyTorch here): Conv 32 3x3 same + ReLU,
    Dropout 0.2, Conv 32 3x3 + ReLU, Conv 32 3x3 + ReLU (same padding: the study's table keeps
    10x10x32), Dropout 0.2, Flatten, Dense 256 + ReLU, Dense 256 + ReLU, Dense 1 + sigmoid.
    905,185 parameters on 10x10. Input: the ``"study"`` planes (White, Black, arrows, occupied)."""

    planes = "study"
    output = "white_sigmoid"
    limits = {"size": (core.MIN_SIZE, core.MAX_SIZE)}

    def __init__(self, size: int = 10) -> None:
        super().__init__()
        self.size = int(size)
        c = plane_count(self.planes)
        self.features = nn.Sequential(
            nn.Conv2d(c, 32, 3, padding=1),
            nn.ReLU(),
            nn.Dropout(0.2),
            nn.Conv2d(32, 32, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(32, 32, 3, padding=1),
            nn.ReLU(),
            nn.Dropout(0.2),
            nn.Flatten(),
        )
        self.head = nn.Sequential(
            nn.Linear(32 * self.size * self.size, 256),
            nn.ReLU(),
            nn.Linear(256, 256),
            nn.ReLU(),
            nn.Linear(256, 1),
            nn.Sigmoid(),
        )

    def config(self) -> dict[str, Any]:
        return {"size": self.size}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x)).squeeze(-1)


class _Block(nn.Module):
    """A residual block: two 3x3 convolutions with batch norm, the input added back."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(channels, channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(channels),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(channels),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.body(x))


class ResValueNet(Architecture):
    """Our value net: a small residual tower on the ``"relative"`` planes (own/opponent queens,
    arrows, empty, one-move reach of each side), then a 1x1 convolution, global mean and max
    pooling and two dense layers to a ``tanh`` value for the side to move.

    Fully convolutional up to the pooling, so one set of weights evaluates any board size (it is
    trained on one size; other sizes are extrapolation). No dropout: the data is plentiful
    self-play, and batch norm regularises enough."""

    planes = "relative"
    output = "tanh"
    limits = {"channels": (1, 512), "blocks": (0, 64), "head": (1, 512), "hidden": (1, 4096)}

    def __init__(self, channels: int = 32, blocks: int = 3, head: int = 16, hidden: int = 64) -> None:
        super().__init__()
        self.channels, self.blocks, self.head_channels, self.hidden = channels, blocks, head, hidden
        self.stem = nn.Sequential(
            nn.Conv2d(plane_count(self.planes), channels, 3, padding=1, bias=False), nn.BatchNorm2d(channels), nn.ReLU()
        )
        self.tower = nn.Sequential(*(_Block(channels) for _ in range(blocks)))
        self.reduce = nn.Sequential(nn.Conv2d(channels, head, 1, bias=False), nn.BatchNorm2d(head), nn.ReLU())
        self.value = nn.Sequential(nn.Linear(2 * head, hidden), nn.ReLU(), nn.Linear(hidden, 1), nn.Tanh())

    def config(self) -> dict[str, Any]:
        return {"channels": self.channels, "blocks": self.blocks, "head": self.head_channels, "hidden": self.hidden}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.reduce(self.tower(self.stem(x)))
        pooled = torch.cat([h.mean(dim=(2, 3)), h.amax(dim=(2, 3))], dim=1)
        return self.value(pooled).squeeze(-1)


class PolicyValueNet(ResValueNet):
    """``ResValueNet`` (its tower and value head) with two 1x1 policy heads on the tower: queen-slide
    and arrow logits, ``LINES`` channels each (``agents.nets.policy_value`` says what they mean)."""

    output = "policy_value"

    def __init__(self, channels: int = 32, blocks: int = 3, head: int = 16, hidden: int = 64) -> None:
        super().__init__(channels, blocks, head, hidden)
        self.slide = nn.Conv2d(channels, LINES, 1)
        self.arrow = nn.Conv2d(channels, LINES, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:  # type: ignore[override]
        trunk = self.tower(self.stem(x))
        h = self.reduce(trunk)
        pooled = torch.cat([h.mean(dim=(2, 3)), h.amax(dim=(2, 3))], dim=1)
        return self.value(pooled).squeeze(-1), self.slide(trunk), self.arrow(trunk)


MODELS: dict[str, type[Architecture]] = {
    "StudyCNN": StudyCNN,
    "ResValueNet": ResValueNet,
    "PolicyValueNet": PolicyValueNet,
}


def check_kwargs(arch: str, kwargs: Any) -> None:
    """Raise ``ValueError`` unless ``arch`` is a key of ``MODELS`` and ``kwargs`` its arguments,
    each an integer within the class's ``limits`` (so that no argument can ask for a network too
    large to build: a model file's config is checked with this before anything is allocated).

    >>> check_kwargs("ResValueNet", {"blocks": 100000})
    Traceback (most recent call last):
        ...
    amazons_env.errors.InvalidArgumentError: ResValueNet argument blocks=100000: give an integer from 0 to 64
    """
    if not isinstance(arch, str) or arch not in MODELS:
        raise InvalidArgumentError(f"unknown architecture {str(arch)[:100]!r}; use one of {sorted(MODELS)}")
    if not isinstance(kwargs, dict):
        raise InvalidArgumentError(f"{arch} arguments {str(kwargs)[:100]}: give a dict")
    limits = MODELS[arch].limits
    for key, value in kwargs.items():
        if key not in limits:
            raise InvalidArgumentError(f"{arch} has no argument {str(key)[:100]!r}; its arguments: {', '.join(limits)}")
        low, high = limits[key]
        if type(value) is not int or not low <= value <= high:
            raise InvalidArgumentError(
                f"{arch} argument {key}={str(value)[:100]}: give an integer from {low} to {high}"
            )


def build_model(arch: str, **kwargs: Any) -> Architecture:
    """A fresh model of architecture ``arch`` (a key of ``MODELS``); ``kwargs`` checked first."""
    check_kwargs(arch, kwargs)
    return MODELS[arch](**kwargs)


def parameter_count(model: nn.Module) -> int:
    """The number of trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def value_for_side_to_move(model: nn.Module, out: torch.Tensor, sides: torch.Tensor) -> torch.Tensor:
    """The model's raw output as a value in [-1, 1] for each position's side to move."""
    if model.output == "tanh":
        return out
    white = 2.0 * out - 1.0
    return torch.where(sides == 0, white, -white)


if __name__ == "__main__":  # python -m agents.nets.models: the parameter counts
    for name, model in [
        ("StudyCNN(size=10)", StudyCNN(10)),
        ("StudyCNN(size=8)", StudyCNN(8)),
        ("ResValueNet()", ResValueNet()),
    ]:
        print(f"{name:<20} {parameter_count(model):>9,} parameters")
