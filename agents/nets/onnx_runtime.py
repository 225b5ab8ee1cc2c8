"""The policy-value net's CPU inference through ONNX Runtime, when it is installed.

On one CPU thread, ONNX Runtime runs the folded, inference-only copy of the net
(``agents.nets.inference.inference_module``) faster than torch runs it, single positions most:
torch's per-call overhead is most of their cost, and the net's guidance of ``uct`` and ``pvmcts``'s
small leaf batches are made of them (measured by ``benchmarks/nets/pv_inference.py``; its figures are in
``benchmarks/README.md``).

``OnnxRunner(module, threads)`` exports ``module`` to ONNX in memory the first time it sees a board
size (inputs are NCHW ``float32`` planes, any batch), builds an ONNX Runtime CPU session for it and
returns the net's outputs as numpy arrays, equal to torch's up to float rounding (tested). Needs the
``onnx`` extra (``pip install -e ".[onnx]"``: ``onnx`` for the export, ``onnxruntime`` to run it).

``OnnxRunner(module, threads, int8=True)`` (``runtime='onnx-int8'``) runs a quantised copy
instead: ONNX Runtime's static quantisation (weights and activations in 8 bits, QDQ), its
activation ranges calibrated on ``CALIBRATION`` positions of random games of that board size
(seeded: the same copy every time). It evaluates more positions per CPU second than the float
copy, at the cost of its policy's first choice on some positions (both measured by
``benchmarks/nets/learned_cost.py --int8``, figures in ``benchmarks/README.md``; fidelity in
``experiments/quantised-net``).
"""

from __future__ import annotations

import importlib.util
import io
import tempfile
import warnings
from pathlib import Path
from typing import Any, Optional

import numpy as np

from amazons_env import Board, Move

__all__ = ["available", "OnnxRunner", "RUNTIMES", "RUNTIME_HELP", "calibration_positions"]

#: ``auto``: ONNX Runtime on the CPU when it is installed, torch otherwise; ``torch``; ``onnx`` (an
#: error if it is not installed); ``onnx-int8``: ONNX Runtime on a copy quantised to 8 bits
RUNTIMES = ("auto", "torch", "onnx", "onnx-int8")
#: the agents' help line for their runtime option
RUNTIME_HELP = (
    "the net's CPU inference: auto (ONNX Runtime if installed), torch, onnx or onnx-int8 (ONNX Runtime, "
    "the net quantised to 8 bits)"
)
#: ``int8``: the positions that calibrate the quantised copy's activation ranges, and their seed
CALIBRATION, CALIBRATION_SEED = 256, 0


def available() -> bool:
    """Whether ``onnx`` (the export) and ``onnxruntime`` are both installed."""
    return all(importlib.util.find_spec(name) is not None for name in ("onnx", "onnxruntime"))


class OnnxRunner:
    """``module`` run by ONNX Runtime's CPU provider on ``threads`` threads (0: its default); called
    with ``float32`` planes ``[k, C, N, N]``, returns the module's outputs as numpy arrays."""

    def __init__(self, module: Any, threads: int = 1, int8: bool = False) -> None:
        if not available():
            raise ImportError("runtime='onnx' needs the onnx and onnxruntime packages: pip install -e \".[onnx]\"")
        self.module, self.threads, self.int8 = module, int(threads), bool(int8)
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
        data = _quantised(model.getvalue(), planes.shape[-1]) if self.int8 else model.getvalue()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads, options.inter_op_num_threads = self.threads, 1
        return onnxruntime.InferenceSession(data, options, providers=["CPUExecutionProvider"])


def calibration_positions(
    size: int, count: int = CALIBRATION, seed: int = CALIBRATION_SEED
) -> tuple[np.ndarray, np.ndarray]:
    """``count`` positions of ``size`` x ``size`` games of uniformly random moves, each cut after a
    uniformly random number of plies up to ``6 * size`` (the openings to the filling phase): their
    padded cells and sides to move."""
    rng = np.random.default_rng(seed)
    cells: list[np.ndarray] = []
    sides: list[int] = []
    while len(cells) < count:
        board = Board(size)
        for _ in range(int(rng.integers(0, 6 * size + 1))):
            moves = board.legal_moves_array()
            if not len(moves):
                break
            frm, to, arrow = (int(square) for square in moves[int(rng.integers(len(moves)))])
            board.push_unchecked(Move(frm, to, arrow, size))
        cells.append(board.cells.copy())
        sides.append(int(board.turn))
    return np.stack(cells), np.array(sides, np.int64)


def _quantised(model: bytes, size: int) -> bytes:
    """The float ONNX ``model`` statically quantised (int8 weights, uint8 activations, QDQ),
    calibrated on ``calibration_positions(size)``."""
    import logging

    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    from agents.nets.planes import make_planes

    planes = make_planes(*calibration_positions(size), "relative").astype(np.float32)

    class Batches(CalibrationDataReader):  # type: ignore[misc]  # onnxruntime has no type hints
        def __init__(self) -> None:
            self.batches = iter([{"planes": planes[i : i + 32]} for i in range(0, len(planes), 32)])

        def get_next(self) -> Optional[dict[str, np.ndarray]]:
            return next(self.batches, None)

    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder) / "float32.onnx", Path(folder) / "int8.onnx"
        source.write_bytes(model)
        quiet = logging.getLogger().level
        logging.getLogger().setLevel(logging.ERROR)  # its advice to pre-process the model, each time
        try:
            quantize_static(
                source, target, Batches(), quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt8,
                weight_type=QuantType.QInt8,
            )  # fmt: skip
        finally:
            logging.getLogger().setLevel(quiet)
        return target.read_bytes()
