"""A quantised policy-value net through ONNX Runtime: speed and fidelity beside float32, one CPU thread.

    OMP_NUM_THREADS=1 python3 experiments/quantised-net/quantise.py NET RESULTS.json

Exports NET's inference copy to ONNX (as ``agents.nets.onnx_runtime`` does), quantises it
dynamically (int8 weights) and statically (int8 QDQ, calibrated on the positions of the first game
of RESULTS), and prints positions per CPU second at batches 1, 64 and 256 and, against float32 on
256 game positions, the largest value difference and the share of equal slide argmaxes.
"""

import io
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import onnxruntime
import torch
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_dynamic, quantize_static

from amazons_env import Board, Move

from agents.arena.files import read_results
from agents.nets.inference import PVNet
from agents.nets.planes import make_planes


class Positions(CalibrationDataReader):
    def __init__(self, planes: np.ndarray) -> None:
        self.batches = iter([{"planes": planes[i : i + 16]} for i in range(0, len(planes), 16)])

    def get_next(self):
        return next(self.batches, None)


def main() -> None:
    weights, results = sys.argv[1], sys.argv[2]
    torch.set_num_threads(1)
    game = read_results(results)[0]
    board, cells, sides = Board(game["size"]), [], []
    for text in game["record"]:
        cells.append(board.cells.copy())
        sides.append(int(board.turn))
        board.push(Move.parse(text, game["size"]))
    planes = make_planes(np.stack(cells), np.array(sides), "relative").astype(np.float32)
    x = np.concatenate([planes] * (256 // len(planes) + 1))[:256]
    folder = Path(tempfile.mkdtemp())
    exported = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = PVNet.load(weights, 1, "torch").fast
        torch.onnx.export(module, (torch.from_numpy(x[:2]),), exported, input_names=["planes"], dynamo=False,
                          dynamic_axes={"planes": {0: "batch"}})  # fmt: skip
    (folder / "float32.onnx").write_bytes(exported.getvalue())
    quantize_dynamic(folder / "float32.onnx", folder / "dynamic.onnx", weight_type=QuantType.QInt8)
    quantize_static(folder / "float32.onnx", folder / "static.onnx", Positions(planes), quant_format=QuantFormat.QDQ,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)  # fmt: skip
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    reference = None
    for name in ("float32", "dynamic", "static"):
        session = onnxruntime.InferenceSession(
            str(folder / f"{name}.onnx"), options, providers=["CPUExecutionProvider"]
        )
        rates = []
        for batch in (1, 64, 256):
            session.run(None, {"planes": x[:batch]})
            done, start = 0, time.process_time()
            while time.process_time() - start < 1.0:
                session.run(None, {"planes": x[:batch]})
                done += batch
            rates.append(f"{done / (time.process_time() - start):,.0f}")
        value, slide = session.run(None, {"planes": x})[:2]
        slide = slide.reshape(len(x), -1)
        if reference is None:
            reference = value, slide
            print(f"{name}: positions per CPU second at batches 1/64/256: {' / '.join(rates)}")
            continue
        agree = float((slide.argmax(1) == reference[1].argmax(1)).mean())
        print(
            f"{name}: positions per CPU second at batches 1/64/256: {' / '.join(rates)}; "
            f"value max difference {float(np.abs(value - reference[0]).max()):.3f}, slide argmax agrees {agree:.1%}"
        )


if __name__ == "__main__":  # a script, run from the repository root (command.txt)
    main()
