"""The CNN value net in search: the ``cnn`` evaluator and the ``cnn`` agent.

``CNNEvaluator`` (``make_evaluator("cnn")``) loads a model exported by ``training.export`` (the
committed default weights unless ``weights=`` names another: ``"study"`` for our trained
``StudyCNN``, or a path) and scores positions with ``evaluate_batch``: a whole frontier (all
children of a node) becomes one stack of input planes (``training.planes``, numba) and one forward
pass on the CPU under ``torch.inference_mode``. It has no numba kernel, so the searches use their
batch paths (``two-iteration``: ``batch_two_iteration``; ``alphabeta``: ``batch_search``).

``threads`` (default 1) sets ``torch.set_num_threads`` when the evaluator is built: one thread
per search process is what the arena's process pool wants, and on two cores more threads only
fight each other. ``threads=0`` leaves torch's setting alone.

The ``cnn`` agent is a search with this evaluator: ``make("cnn")`` is ``alphabeta`` (selective,
timed) with the default weights; ``make("cnn:search=two-iteration,depth=1")`` and other searches
take the same evaluator (every option but ``search``, ``weights`` and ``threads`` goes to the search).

>>> from amazons_env import Board
>>> evaluator = make_evaluator("cnn")
>>> value = evaluator.evaluate(Board(8))
>>> -1.0 <= value <= 1.0
True
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, Optional

import numpy as np

from .base import Agent
from .evaluator import Evaluator, make_evaluator, register_evaluator
from .registry import make, register

__all__ = ["CNNEvaluator", "WEIGHTS", "weights_path", "cnn_agent"]

WEIGHTS_DIR = Path(importlib.util.find_spec("training.weights").origin).parent
WEIGHTS = {"default": "resvalue-8x8", "study": "studycnn-8x8"}


def weights_path(weights: str = "default") -> Path:
    """The base path (no suffix) of named committed weights, or of a given path."""
    if weights in WEIGHTS:
        return WEIGHTS_DIR / WEIGHTS[weights]
    return Path(weights)


@register_evaluator("cnn")
class CNNEvaluator(Evaluator):
    """A trained value net as an evaluator (see the module docstring)."""

    name = "cnn"

    def __init__(self, weights: str = "default", threads: int = 1) -> None:
        import torch  # imported here so that listing or using other agents never loads torch

        from training.export import load_model
        from training.models import value_for_side_to_move

        super().__init__()
        if threads:
            torch.set_num_threads(int(threads))
        self.path = weights_path(str(weights))
        self.model, self.config = load_model(self.path)
        # channels-last is oneDNN's preferred layout for CPU convolutions (~30% faster here)
        self.model = self.model.to(memory_format=torch.channels_last)
        self.planes = self.config["planes"]
        self.fixed_size = self.config["board_size"] if "size" in self.config["kwargs"] else None
        self._to_value = value_for_side_to_move

    def evaluate_batch(self, cells: np.ndarray, sides: np.ndarray) -> np.ndarray:
        import torch

        from training.planes import board_width, make_planes

        cells = np.ascontiguousarray(cells, dtype=np.uint8)
        if self.fixed_size is not None and board_width(cells) - 2 != self.fixed_size:
            raise ValueError(f"{self.path.name} evaluates {self.fixed_size}x{self.fixed_size} boards, "
                             f"not {board_width(cells) - 2}x{board_width(cells) - 2}")
        sides = np.ascontiguousarray(sides, dtype=np.int64)
        x = torch.from_numpy(make_planes(cells, sides, self.planes)).contiguous(memory_format=torch.channels_last)
        with torch.inference_mode():
            values = self._to_value(self.model, self.model(x), torch.from_numpy(sides))
        return values.double().numpy()


@register("cnn")
def cnn_agent(search: str = "alphabeta", weights: str = "default", threads: int = 1,
              seed: Optional[int] = None, **options: Any) -> Agent:
    """A search agent (``search``: an agent name taking ``eval=``) evaluating with the CNN."""
    if search == "cnn":
        raise ValueError("search=cnn: name a search such as alphabeta or two-iteration")
    return make(search, eval=CNNEvaluator(weights, threads), seed=seed, **options)

