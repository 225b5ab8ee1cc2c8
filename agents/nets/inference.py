"""Running a loaded net for search: the inference-only copy of a model, and the policy-value runner.

``inference_module(model)`` is an inference-only module equal to ``model(x)`` up to float rounding
and faster on the CPU (batch norms folded into the convolutions, channels-last weights; the study's
net gets a dedicated module). ``ValueNet`` holds one loaded value-net file with that copy;
``PVNet`` runs a policy-value net on padded boards (numpy in and out), through ONNX Runtime when
it is installed (``agents.nets.onnx_runtime``). Loading them by name or path, once per process,
is ``agents.nets.store``'s job.

>>> from amazons_env import Board
>>> from agents.nets.models import PolicyValueNet
>>> net = PVNet(PolicyValueNet(channels=8, blocks=1), threads=0, runtime="torch")
>>> values, slide, arrow = net.evaluate(Board(6).cells[None], [0])
>>> values.shape, slide.shape == arrow.shape == (1, 88 * 36)
((1,), True)
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Optional, Sequence

import numpy as np

from amazons_env.errors import InvalidArgumentError

from agents.nets import onnx_runtime, require_torch
from agents.nets.onnx_runtime import RUNTIMES, OnnxRunner
from agents.resources import check_threads

if TYPE_CHECKING:
    import torch
    from torch import nn

    from agents.nets.models import StudyCNN

__all__ = ["inference_module", "ValueNet", "PVNet", "UnknownRuntimeError", "use_threads"]


class UnknownRuntimeError(InvalidArgumentError):
    """A ``runtime`` that is not one of ``agents.nets.onnx_runtime.RUNTIMES``."""


def use_threads(threads: int) -> None:
    """``torch.set_num_threads(threads)`` unless ``threads`` is 0 (leave torch's setting). One
    thread per search process is what the arena's process pool wants: on two cores more threads
    only fight each other. More than ``agents.resources.most_threads()`` is refused, naming the
    value: far above the cores, each forward pass waits on threads that take turns."""
    check_threads(threads)
    if threads:
        import torch

        torch.set_num_threads(int(threads))


class ValueNet(NamedTuple):
    """One loaded value-net file: the model, its JSON config and its inference-only copy."""

    path: Path
    model: "nn.Module"
    config: dict
    fast: "nn.Module"

    @classmethod
    def load(cls, path: "str | Path") -> "ValueNet":
        """Load the model file ``path`` (no suffix) and build its inference copy."""
        from agents.nets.export import load_model

        model, config = load_model(path)
        return cls(Path(path), model, config, inference_module(model))

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
                conv, norm = sequence[i], sequence[i + 1]
                if isinstance(conv, nn.Conv2d) and isinstance(norm, nn.BatchNorm2d):
                    sequence[i] = fuse_conv_bn_eval(conv, norm)
                    sequence[i + 1] = nn.Identity()
    return model


def _study_inference(model: StudyCNN) -> "nn.Module":
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
            convs = [m for m in model.features if isinstance(m, nn.Conv2d)]
            self.convs = nn.ModuleList(convs)
            first, self.hidden, self.out = [m for m in model.head if isinstance(m, nn.Linear)]
            channels, size = convs[-1].out_channels, model.size
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
    takes milliseconds. ``python3 benchmarks/nets/nn_inference.py`` measures the gain (figures in
    ``benchmarks/README.md``)."""
    import torch

    from agents.nets.models import StudyCNN

    fast = _study_inference(model) if isinstance(model, StudyCNN) else _fold_batch_norms(model)
    # Module.to takes memory_format at run time (documented); torch's overloads leave it out
    return fast.to(memory_format=torch.channels_last)  # type: ignore[call-overload]


class PVNet:
    """A loaded policy-value net for search: ``evaluate`` on padded boards (numpy in and out).
    ``model``: a ``PolicyValueNet`` (an inference copy with folded batch norms is made).
    ``runtime`` (``agents.nets.onnx_runtime.RUNTIMES``): on the CPU, ``auto`` runs the inference
    copy through ONNX Runtime when it is installed (faster than torch on the CPU; figures in
    ``benchmarks/README.md``), else through torch."""

    def __init__(self, model: Any, threads: int = 1, runtime: str = "auto") -> None:
        require_torch("the policy-value net")
        if runtime not in RUNTIMES:
            raise UnknownRuntimeError(f"runtime={runtime!r}: use one of {RUNTIMES}")
        use_threads(threads)
        self.model = model.eval()
        self.fast = inference_module(self.model)
        self.device = next(self.model.parameters()).device
        if self.device.type != "cpu" or runtime == "torch" or (runtime == "auto" and not onnx_runtime.available()):
            self.runtime = "torch"
        else:
            self.runtime = "onnx" if runtime == "auto" else runtime
        self._onnx = None if self.runtime == "torch" else OnnxRunner(self.fast, threads, self.runtime == "onnx-int8")

    @classmethod
    def load(cls, path: "str | Path", threads: int = 1, runtime: str = "auto") -> "PVNet":
        """The net in model file ``path`` (no suffix), which must hold a ``PolicyValueNet``."""
        from agents.nets.export import ModelFileError, load_model

        model, config = load_model(path)
        if config["arch"] != "PolicyValueNet":
            raise ModelFileError(f"{path}: a {config['arch']} has no policy; this needs a PolicyValueNet file")
        return cls(model, threads, runtime)

    def evaluate(
        self, cells: np.ndarray, sides: "Sequence[int] | np.ndarray"
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(values[k], slide[k, LINES*N*N], arrow[k, LINES*N*N])`` for ``k`` positions."""
        import torch

        from agents.nets.planes import make_planes

        planes, k = make_planes(cells, sides, "relative"), len(cells)
        if self._onnx is not None:
            value, slide, arrow = self._onnx(planes)
            return value.astype(np.float64), slide.reshape(k, -1), arrow.reshape(k, -1)
        x = torch.from_numpy(planes)
        with torch.inference_mode():
            if self.device.type == "cpu":
                value, slide, arrow = self.fast(x.contiguous(memory_format=torch.channels_last))
            else:
                with torch.autocast(self.device.type):
                    value, slide, arrow = self.model(x.to(self.device))
        return (
            value.float().cpu().numpy().astype(np.float64),
            slide.float().reshape(k, -1).cpu().numpy(),
            arrow.float().reshape(k, -1).cpu().numpy(),
        )
