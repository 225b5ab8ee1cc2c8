"""The policy-value net's CPU inference through ONNX Runtime, when it is installed.

On one CPU thread, ONNX Runtime runs the folded, inference-only copy of the net
(``agents.nets.inference.inference_module``) faster than torch runs it, single positions most:
torch's per-call overhead is most of their cost, and the net's guidance of ``uct`` and ``pvmcts``'s
small leaf batches are made of them (measured by ``benchmarks/pv_inference.py``; the figures are in
benchmarks/README.md, "Policy-value net and expert iteration").

``OnnxRunner(module, threads)`` exports ``module`` to ONNX in memory the first time it sees a board
size (inputs are NCHW ``float32`` planes, any batch), builds an ONNX Runtime CPU session for it and
returns the net's outputs as numpy arrays, equal to torch's up to float rounding (tested). Needs the
``onnx`` extra (``pip install -e ".[onnx]"``: ``onnx`` for the export, ``onnxruntime`` to run it).
"""

from __future__ import annotations

import importlib.util
import io
import warnings
from typing import Any

import numpy as np

__all__ = ["available", "OnnxRunner", "RUNTIMES", "RUNTIME_HELP"]

#: ``auto``: ONNX Runtime on the CPU when it is installed, torch otherwise; ``torch``; ``onnx`` (an
#: error if it is not installed)
RUNTIMES = ("auto", "torch", "onnx")
#: the agents' help line for their runtime option
RUNTIME_HELP = "the net's CPU inference: auto (ONNX Runtime if installed), torch or onnx"


def available() -> bool:
    """Whether ``onnx`` (the export) and ``onnxruntime`` are both installed."""
    return all(importlib.util.find_spec(name) is not None for name in ("onnx", "onnxruntime"))


class OnnxRunner:
    """``module`` run by ONNX Runtime's CPU provider on ``threads`` threads (0: its default); called
    with ``float32`` planes ``[k, C, N, N]``, returns the module's outputs as numpy arrays."""

    def __init__(self, module: Any, threads: int = 1) -> None:
        if not available():
            raise ImportError("runtime='onnx' needs the onnx and onnxruntime packages: pip install -e \".[onnx]\"")
        self.module, self.threads = module, int(threads)
        self._sessions: dict[tuple[int, ...], Any] = {}

    def __call__(self, planes: np.ndarray) -> list[np.ndarray]:
        key = tuple(planes.shape[1:])
        if key not in self._sessions:
            self._sessions[key] = self._session(planes)
        return self._sessions[key].run(None, {"planes": np.ascontiguousarray(planes, dtype=np.float32)})

    def _session(self, planes: np.ndarray) -> Any:
        import onnxruntime
        import torch

        example = torch.from_numpy(np.ascontiguousarray(np.repeat(planes[:1], 2, axis=0), dtype=np.float32))
        model = io.BytesIO()
        with warnings.catch_warnings():
            # the TorchScript-based exporter: the torch.export-based one would need onnxscript too
            warnings.simplefilter("ignore", DeprecationWarning)
            torch.onnx.export(
                self.module,
                (example,),
                model,  # type: ignore[arg-type]  # a file object (documented); the annotation says a path only
                input_names=["planes"],
                dynamo=False,
                dynamic_axes={"planes": {0: "batch"}},
            )
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads, options.inter_op_num_threads = self.threads, 1
        return onnxruntime.InferenceSession(model.getvalue(), options, providers=["CPUExecutionProvider"])
