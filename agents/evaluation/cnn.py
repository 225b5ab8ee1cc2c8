"""The CNN value net in search: the ``cnn`` evaluator and the ``cnn`` agent.

``CNNEvaluator`` (``make_evaluator("cnn")``) loads a model exported by ``agents.nets.export`` (the
committed default weights unless ``weights=`` names another: ``"study"`` for our trained
``StudyCNN``, or a path; named weights come per board size, see ``WEIGHTS``, and each board
size gets the net trained on it, or on the nearest size) and scores positions with ``evaluate_batch``: a whole frontier (all
children of a node) becomes one stack of input planes (``agents.nets.planes``, numba) and one forward
pass on the CPU under ``torch.inference_mode``. It has no numba kernel, so the searches use their
batch paths (``two-iteration``: ``batch_two_iteration``; ``alphabeta``: ``batch_search``).

``threads`` (default 1) sets ``torch.set_num_threads`` when the evaluator is built: one thread
per search process is what the arena's process pool wants, and on two cores more threads only
fight each other. ``threads=0`` leaves torch's setting alone.

The forward pass runs an inference-only copy of the net (``inference_module``: equal to
``model(x)`` up to float rounding) on chunks of ``chunk`` positions (default 512: a chunk's
activations stay in the caches, where a 1,400-position frontier's 19 MB per layer do not).

The ``cnn`` agent is our learned agent. ``make("cnn")`` (``search=uct``) is ``uct`` guided by the
policy-value net (``agents.search.uct_net``: the net's priors on the first move levels, uct's numba tree
below; ``weights`` then names policy-value weights, ``net_mix``, ``net_top``, ``net_depth`` and
``net_value`` tune the guidance). ``make("cnn:search=alphabeta")`` is the value net in ``alphabeta`` (selective, timed),
the ``cnn`` agent before the policy-value net; ``make("cnn:search=two-iteration,depth=1")`` and other
searches take the same evaluator. Every option but ``search``, ``weights``, ``threads`` and the
guidance goes to the search.

>>> from amazons_env import Board
>>> evaluator = make_evaluator("cnn")
>>> value = evaluator.evaluate(Board(8))
>>> -1.0 <= value <= 1.0
True
"""

from __future__ import annotations

import copy
import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Optional

import numpy as np

from amazons_env.errors import InvalidArgumentError

from agents.base import Agent
from agents.evaluation.evaluator import Evaluator, make_evaluator, register_evaluator
from agents.nets import require_torch
from agents.nets.onnx_runtime import RUNTIME_HELP, RUNTIMES
from agents.options import OptionError, opt
from agents.registry import make, register

if TYPE_CHECKING:
    import torch
    from torch import nn

__all__ = ["CNNEvaluator", "Net", "WEIGHTS", "weights_path", "inference_module", "cnn_agent"]

WEIGHTS_DIR = Path(importlib.util.find_spec("agents.nets.weights").origin).parent
# committed weights by name and the board size they were trained on
WEIGHTS = {"default": {8: "resvalue-8x8", 10: "resvalue-10x10"}, "study": {8: "studycnn-8x8", 10: "studycnn-10x10"}}


def weights_path(weights: str = "default", size: int = 10) -> Path:
    """The base path (no suffix) of named committed weights for ``size`` x ``size`` boards (those
    trained on that size, else on the nearest size with weights), or of a given path.

    >>> weights_path("default", 8).name, weights_path("default", 12).name, weights_path("my/net").name
    ('resvalue-8x8', 'resvalue-10x10', 'net')
    """
    if weights in WEIGHTS:
        trained = WEIGHTS[weights]
        return WEIGHTS_DIR / trained[min(trained, key=lambda s: (abs(s - size), -s))]
    return Path(weights)


class Net(NamedTuple):
    """One loaded model file: the model, its JSON config and its inference-only copy."""

    path: Path
    model: "nn.Module"
    config: dict
    fast: "nn.Module"

    @property
    def fixed_size(self) -> Optional[int]:
        """The only board size the net runs on, or None for a fully convolutional net."""
        return self.config["board_size"] if "size" in self.config["kwargs"] else None


def _fold_batch_norms(model: "nn.Module") -> "nn.Module":
    """A copy of ``model`` (in eval mode) with every ``Conv2d`` followed by a ``BatchNorm2d`` in a
    ``Sequential`` replaced by one convolution with the normalisation folded into its weights."""
    from torch import nn
    from torch.nn.utils.fusion import fuse_conv_bn_eval

    model = copy.deepcopy(model).eval()
    for sequence in model.modules():
        if isinstance(sequence, nn.Sequential):
            for i in range(len(sequence) - 1):
                if isinstance(sequence[i], nn.Conv2d) and isinstance(sequence[i + 1], nn.BatchNorm2d):
                    sequence[i] = fuse_conv_bn_eval(sequence[i], sequence[i + 1])
                    sequence[i + 1] = nn.Identity()
    return model


def _study_inference(model: "nn.Module") -> "nn.Module":
    """``StudyCNN`` for inference (see ``inference_module``)."""
    import torch
    from torch import nn

    class StudyInference(nn.Module):
        """The convolutions and dense layers of a ``StudyCNN`` without its dropout (the identity
        in eval mode), with in-place ReLUs, and with the first dense layer's inputs permuted from
        the (channel, rank, file) order of ``Flatten`` on NCHW to the (rank, file, channel) order
        of channels-last memory, so that flattening the last convolution's output is a view
        instead of a copy."""

        def __init__(self) -> None:
            super().__init__()
            self.convs = nn.ModuleList(m for m in model.features if isinstance(m, nn.Conv2d))
            first, self.hidden, self.out = [m for m in model.head if isinstance(m, nn.Linear)]
            channels, size = self.convs[-1].out_channels, model.size
            weight = first.weight.detach().reshape(-1, channels, size, size).permute(0, 2, 3, 1)
            self.weight = nn.Parameter(weight.reshape(first.out_features, -1).contiguous(), requires_grad=False)
            self.bias = nn.Parameter(first.bias.detach().clone(), requires_grad=False)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for conv in self.convs:
                x = torch.relu_(conv(x))
            x = x.permute(0, 2, 3, 1).reshape(len(x), -1)
            x = torch.relu_(torch.nn.functional.linear(x, self.weight, self.bias))
            x = torch.relu_(self.hidden(x))
            return torch.sigmoid(self.out(x)).squeeze(-1)

    return StudyInference().eval()


def inference_module(model: "nn.Module") -> "nn.Module":
    """An inference-only module computing ``model(x)`` (a net of ``agents.nets.models`` in eval mode)
    up to float rounding, faster on the CPU, with channels-last weights (feed it channels-last
    input). ``StudyCNN``: the ``StudyInference`` module of ``_study_inference``; other nets: a copy
    with the batch norms folded into the convolutions. ``model`` is not changed; building the copy
    takes milliseconds. ``python3 benchmarks/nn_inference.py`` measures the gain (with the
    evaluator's chunking: ~1.15-1.2x for ``StudyCNN`` 10x10 on one core)."""
    import torch

    from agents.nets.models import StudyCNN

    fast = _study_inference(model) if isinstance(model, StudyCNN) else _fold_batch_norms(model)
    return fast.to(memory_format=torch.channels_last)


_WEIGHTS = opt("committed weights by name (default: ResValueNet, study: StudyCNN) or a model file path "
               "without its suffix")
_THREADS = opt("torch threads for the forward passes (0: leave torch's setting)", ge=0, le=1024)


@register_evaluator("cnn", options={
    "weights": _WEIGHTS, "threads": _THREADS,
    "chunk": opt("positions per forward pass at most", ge=1)})
class CNNEvaluator(Evaluator):
    """A trained value net as an evaluator (see the module docstring)."""

    name = "cnn"

    def __init__(self, weights: str = "default", threads: int = 1, chunk: int = 512) -> None:
        require_torch("the cnn evaluator")
        import torch  # imported here so that listing or using other agents never loads torch

        from agents.nets.models import value_for_side_to_move

        super().__init__()
        if threads:
            torch.set_num_threads(int(threads))
        self.chunk = int(chunk)
        if self.chunk < 1:
            raise OptionError(f"chunk={chunk!r}: give a positive number of positions per forward pass")
        self.weights = str(weights)
        self._nets: dict[Path, Net] = {}
        for size in WEIGHTS.get(self.weights, (10,)):  # load now: a bad file fails here, not inside a search
            self.net(size)
        self._to_value = value_for_side_to_move

    def net(self, size: int) -> Net:
        """The net that evaluates ``size`` x ``size`` boards (loaded once, on first use)."""
        from agents.nets.export import load_model

        path = weights_path(self.weights, size)
        if path not in self._nets:
            model, config = load_model(path)
            self._nets[path] = Net(path, model, config, inference_module(model))
        return self._nets[path]

    def evaluate_batch(self, cells: np.ndarray, sides: np.ndarray) -> np.ndarray:
        import torch

        from agents.nets.planes import board_width, make_planes

        cells = np.ascontiguousarray(cells, dtype=np.uint8)
        size = board_width(cells) - 2
        net = self.net(size)
        if net.fixed_size is not None and size != net.fixed_size:
            raise InvalidArgumentError(f"{net.path.name} evaluates {net.fixed_size}x{net.fixed_size} boards, "
                                       f"not {size}x{size}")
        sides = np.ascontiguousarray(sides, dtype=np.int64)
        # channels-last is oneDNN's preferred layout for CPU convolutions (~30% faster here)
        x = torch.from_numpy(make_planes(cells, sides, net.config["planes"])).contiguous(memory_format=torch.channels_last)
        with torch.inference_mode():
            parts = max(1, -(-len(x) // self.chunk))  # equal chunks of at most ``chunk`` positions
            out = torch.cat([net.fast(part) for part in torch.tensor_split(x, parts)])
            values = self._to_value(net.model, out, torch.from_numpy(sides))
        return values.double().numpy()


@register("cnn", forward="search", provides=("eval",), options={
    "search": opt("uct: uct guided by the policy-value net (agents.search.uct_net); or a search that the value net "
                  "evaluates for (an agent taking eval=, e.g. alphabeta); its options go to it", kind="agent"),
    "weights": opt("committed weights by name or a model file path without its suffix: with search=uct a "
                   "policy-value net (default: pv-uct-8x8; pv-8x8), else a value net (default: ResValueNet, study: StudyCNN)"),
    "threads": _THREADS,
    "net_mix": opt("search=uct: weight of the net's priors against uct's own (default 0.5)", ge=0, le=1),
    "net_top": opt("search=uct: queen moves per guided position whose arrows get the net's priors (default 8)", ge=0),
    "net_depth": opt("search=uct: 0 the net guides the root, 1 also the replies to its top moves (default 1)",
                 ge=0, le=1),
    "net_value": opt("search=uct: weight of the net's value in the replies' first-play values (default 0)",
                 ge=0, le=1),
    "net_runtime": opt(f"search=uct: {RUNTIME_HELP}", choices=RUNTIMES)})
def cnn_agent(search: str = "uct", weights: str = "default", threads: int = 1, net_mix: Optional[float] = None,
              net_top: Optional[int] = None, net_depth: Optional[int] = None, net_value: Optional[float] = None,
              net_runtime: Optional[str] = None, seed: Optional[int] = None, **options: Any) -> Agent:
    """The learned agent: uct guided by the policy-value net, or a search evaluating with the value net."""
    guide = {k: v for k, v in (("mix", net_mix), ("top", net_top), ("depth", net_depth), ("value", net_value),
                               ("runtime", net_runtime)) if v is not None}
    if search == "uct":
        from agents.search.uct_net import UCTNet

        if weights in WEIGHTS and weights != "default":
            raise OptionError(f"weights={weights}: value-net weights; search=uct takes a policy-value net "
                              "(default, pv-8x8, or a model file path); the value net plays with search=alphabeta")

        return UCTNet(weights=weights, threads=threads, seed=seed, **guide, **options)
    if guide:
        raise OptionError(f"{', '.join('net_' + k for k in guide)}: options of search=uct, not of search={search}")
    if search == "cnn":
        raise OptionError("search=cnn: name a search such as uct, alphabeta or two-iteration")
    return make(search, eval=CNNEvaluator(weights, threads), seed=seed, **options)
