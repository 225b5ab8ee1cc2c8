"""The ``value-net`` evaluator: a trained value net scoring whole frontiers in one forward pass.

``ValueNetEvaluator`` (``make_evaluator("value-net")``) plays with the committed default weights
(our ``ResValueNet``) unless ``weights=`` names others: ``study`` for our trained ``StudyCNN``, or a
model file path (``agents.nets.store`` finds and caches them; named weights come per board size,
each board gets the net trained on its size or the nearest). ``evaluate_batch`` turns a frontier
(all children of a node) into one stack of input planes (``agents.nets.planes``, numba) and one
forward pass on the CPU under ``torch.inference_mode``. It has no numba kernel, so the searches use
their batch paths (``two-iteration``: ``batch_two_iteration``; ``alphabeta``: ``batch_search``):
``alphabeta:eval=value-net`` is the value-net alpha-beta search.

``threads`` (default 1) sets torch's threads when the evaluator is built (0 leaves them alone).
The forward pass runs the net's inference-only copy (``agents.nets.inference.inference_module``:
equal to ``model(x)`` up to float rounding) on chunks of ``chunk`` positions (default 512: a
chunk's activations stay in the caches, where a whole 10x10 frontier's would not).

>>> from amazons_env import Board
>>> from agents.evaluation.evaluator import make_evaluator
>>> evaluator = make_evaluator("value-net")
>>> value = evaluator.evaluate(Board(8))
>>> -1.0 <= value <= 1.0
True
"""

from __future__ import annotations

import numpy as np

from amazons_env.errors import InvalidArgumentError

from agents.evaluation.evaluator import Evaluator, register_evaluator
from agents.nets import require_torch
from agents.nets.inference import ValueNet, use_threads
from agents.nets.store import VALUE_WEIGHTS, trained_sizes, value_net
from agents.options import opt

__all__ = ["ValueNetEvaluator", "BoardSizeError", "WEIGHTS_OPTION", "THREADS_OPTION"]

#: the declarations of the options that every net-backed agent or evaluator shares
WEIGHTS_OPTION = opt(
    "committed weights by name (default: ResValueNet, study: StudyCNN) or a model file path without its suffix"
)
THREADS_OPTION = opt("torch threads for the forward passes (0: leave torch's setting)", ge=0, le=1024)


class BoardSizeError(InvalidArgumentError):
    """A board of a size that a fixed-size net (``StudyCNN``) was not built for."""


@register_evaluator(
    "value-net",
    options={
        "weights": WEIGHTS_OPTION,
        "threads": THREADS_OPTION,
        "chunk": opt("positions per forward pass at most", ge=1),
    },
)
class ValueNetEvaluator(Evaluator):
    """A trained value net as an evaluator (see the module docstring)."""

    name = "value-net"

    def __init__(self, weights: str = "default", threads: int = 1, chunk: int = 512) -> None:
        require_torch(f"the {self.name} evaluator")
        from agents.nets.models import value_for_side_to_move

        super().__init__()
        if int(chunk) < 1:
            raise InvalidArgumentError(f"chunk={chunk!r}: give a positive number of positions per forward pass")
        self.chunk, self.weights = int(chunk), str(weights)
        use_threads(threads)
        for size in trained_sizes(self.weights, VALUE_WEIGHTS):  # a bad file fails here, not inside a search
            self.net(size or 10)
        self._to_value = value_for_side_to_move

    def net(self, size: int) -> ValueNet:
        """The net that evaluates ``size`` x ``size`` boards (``agents.nets.store``: loaded once)."""
        return value_net(self.weights, size)

    def evaluate_batch(self, cells: np.ndarray, sides: np.ndarray) -> np.ndarray:
        import torch

        from agents.nets.planes import board_width, make_planes

        cells = np.ascontiguousarray(cells, dtype=np.uint8)
        size = board_width(cells) - 2
        net = self.net(size)
        if net.fixed_size is not None and size != net.fixed_size:
            raise BoardSizeError(
                f"{net.path.name} evaluates {net.fixed_size}x{net.fixed_size} boards, not {size}x{size}"
            )
        sides = np.ascontiguousarray(sides, dtype=np.int64)
        # channels-last is oneDNN's preferred layout for CPU convolutions (~30% faster here)
        x = torch.from_numpy(make_planes(cells, sides, net.config["planes"])).contiguous(
            memory_format=torch.channels_last
        )
        with torch.inference_mode():
            parts = max(1, -(-len(x) // self.chunk))  # equal chunks of at most ``chunk`` positions
            out = torch.cat([net.fast(part) for part in torch.tensor_split(x, parts)])
            values = self._to_value(net.model, out, torch.from_numpy(sides))
        return values.double().numpy()
