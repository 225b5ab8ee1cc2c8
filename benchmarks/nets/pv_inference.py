"""Policy-value net inference on the CPU: positions/s for batches of 1, 8, 64 and a whole
frontier, for each way of running the net, all in one process so the ratios are meaningful.

Variants (all on one torch thread unless ``--threads``):

* ``eager``: the ``PolicyValueNet`` in eval mode on contiguous NCHW planes (the reference);
* ``folded+cl``: ``agents.nets.inference.inference_module`` (batch norms folded into the convolutions,
  channels-last weights and input): what ``agents.nets.inference.PVNet`` runs;
* ``compiled``: ``torch.compile`` of the folded module (skipped with its error if it fails);
* ``int8``: ``torch.ao.quantization.quantize_dynamic`` of the folded module (only its Linear
  layers quantise: the convolutions, nearly all the work, stay float);
* ``onnxrt``: the folded module exported to ONNX and run by ONNX Runtime's CPU provider (numpy in
  and out, as search would call it; skipped with the reason if ``onnxruntime`` is not installed).

The figure is positions per CPU second of this process (a shared machine's wall clock counts
other people's work) and the ratio to ``eager`` at the same batch. Inputs: the planes of real
positions (the children of a mid-game position, as a search frontier holds).

    python3 benchmarks/nets/pv_inference.py                    # 8x8, the committed net (else a fresh 32x3)
    python3 benchmarks/nets/pv_inference.py --size 10 --seconds 2
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Callable

import torch
from nn_inference import frontier  # the same frontier positions as the value nets' benchmark

from agents.nets.inference import inference_module
from agents.nets.onnx_runtime import OnnxRunner
from agents.nets.planes import make_planes
from agents.nets.policy_value import PolicyValueNet
from agents.nets.store import POLICY_VALUE_WEIGHTS, weights_path


def rate(
    module: Callable[[torch.Tensor], Any], x: torch.Tensor, batch: int, seconds: float, channels_last: bool
) -> float:
    """Positions per CPU second through ``module`` in chunks of ``batch``."""
    parts = [x[i : i + batch] for i in range(0, len(x) - batch + 1, batch)] or [x]
    if channels_last:
        parts = [p.contiguous(memory_format=torch.channels_last) for p in parts]
    with torch.inference_mode():
        module(parts[0])  # warm-up
        done, cpu = 0, time.process_time()
        while time.process_time() - cpu < seconds:
            for part in parts:
                module(part)
                done += len(part)
        return done / (time.process_time() - cpu)


def onnx_runner(module: torch.nn.Module, threads: int):
    """``module`` through ONNX Runtime, as ``PVNet`` runs it (``agents.nets.onnx_runtime``), called
    like the torch variants: a tensor in, numpy outputs out."""
    runner = OnnxRunner(module, threads)
    return lambda planes: runner(planes.numpy())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per measurement")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    path = weights_path("default", args.size, POLICY_VALUE_WEIGHTS)
    if path.with_suffix(".json").exists():
        from agents.nets.export import load_model

        model, _ = load_model(path)
        print(f"net: {path.name}")
    else:
        model = PolicyValueNet().eval()
        print("net: a fresh PolicyValueNet() (no committed weights for this size)")
    cells, sides = frontier(args.size, plies=10)
    x = torch.from_numpy(make_planes(cells, sides, "relative"))
    folded = inference_module(model)
    variants: dict[str, tuple[Callable[[torch.Tensor], Any], bool]] = {
        "eager": (model, False),
        "folded+cl": (folded, True),
    }
    try:
        compiled = torch.compile(folded)
        with torch.inference_mode():
            compiled(x[:8].contiguous(memory_format=torch.channels_last))
        variants["compiled"] = (compiled, True)
    except Exception as error:  # noqa: BLE001  (report why, keep measuring the others)
        print(f"compiled: skipped ({type(error).__name__}: {str(error)[:120]})")
    variants["int8"] = (torch.ao.quantization.quantize_dynamic(folded, {torch.nn.Linear}, dtype=torch.qint8), True)
    try:
        variants["onnxrt"] = (onnx_runner(folded, args.threads), False)
    except Exception as error:  # noqa: BLE001  (report why, keep measuring the others)
        print(f"onnxrt: skipped ({type(error).__name__}: {str(error)[:120]})")
    batches = [1, 8, 64, len(x)]
    print(
        f"{args.size}x{args.size}, frontier of {len(x)} positions, {args.threads} thread(s); "
        "positions per CPU second (ratio to eager)"
    )
    print(f"{'variant':<11}" + "".join(f"{'batch ' + str(b):>20}" for b in batches))
    reference: dict[int, float] = {}
    for name, (module, cl) in variants.items():
        cells_out = []
        for b in batches:
            r = rate(module, x, b, args.seconds, cl)
            reference.setdefault(b, r)
            cells_out.append(f"{r:>12,.0f} ({r / reference[b]:.2f}x)")
        print(f"{name:<11}" + "".join(f"{c:>20}" for c in cells_out))


if __name__ == "__main__":
    main()
