"""Value-net inference speed on one CPU thread: positions/s one at a time vs batched.

For each model, positions are real ones (the children of a mid-game position: what a search
frontier holds), evaluated through ``ValueNetEvaluator.evaluate_batch`` (planes in numba + the forward
pass of ``agents.nets.inference.inference_module`` in chunks) either one position per call or the whole
frontier in one call; and, as the reference, the whole frontier through the plain model
(``model(x)`` on channels-last planes in one pass, what the evaluator did before). All run in the
same process, one after the other, so the ratios are meaningful on a noisy machine.

    python3 benchmarks/nets/nn_inference.py                 # StudyCNN 10x10 (untrained), committed nets 10x10 and 8x8
    python3 benchmarks/nets/nn_inference.py --seconds 3
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np
import torch

from amazons_env import Board, core

from agents.evaluation.value_net import ValueNetEvaluator
from agents.nets.export import save_model
from agents.nets.models import StudyCNN, parameter_count, value_for_side_to_move
from agents.nets.planes import make_planes


def frontier(size: int, plies: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The children (cells, sides) of a position ``plies`` random moves into a game."""
    rng = np.random.default_rng(seed)
    board = Board(size)
    for _ in range(plies):
        moves = board.legal_moves()
        board.push_unchecked(moves[rng.integers(len(moves))])
    children = []
    for move in board.legal_moves():
        board.push_unchecked(move)
        children.append(board.cells.copy())
        board.pop()
    cells = np.array(children, dtype=np.uint8)
    return cells, np.full(len(cells), 1 - int(board.turn), dtype=np.int64)


def rate(evaluate, cells, sides, batch: int, seconds: float) -> tuple[float, float]:
    """Positions per wall-clock second and per CPU second of this process, evaluating ``cells`` in
    chunks of ``batch``. On a shared machine the CPU-time rate is the one-core figure."""
    evaluate(cells[:batch], sides[:batch])  # warm-up
    done, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        for i in range(0, len(cells), batch):
            evaluate(cells[i : i + batch], sides[i : i + batch])
            done += len(cells[i : i + batch])
            if batch == 1 and done % 64 == 0 and time.perf_counter() - start > seconds:
                break
    return done / (time.perf_counter() - start), done / (time.process_time() - cpu)


def plain(evaluator: ValueNetEvaluator, size: int):
    """The reference: ``evaluate_batch`` with the plain model in one channels-last forward pass."""
    net = evaluator.net(size)
    # Module.to takes memory_format at run time; torch's stubs do not declare it
    model = net.model.to(memory_format=torch.channels_last)  # type: ignore[call-overload]

    def evaluate(cells: np.ndarray, sides: np.ndarray) -> np.ndarray:
        x = torch.from_numpy(make_planes(cells, sides, net.config["planes"])).contiguous(
            memory_format=torch.channels_last
        )
        with torch.inference_mode():
            return value_for_side_to_move(model, model(x), torch.from_numpy(sides)).double().numpy()

    return evaluate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    args = parser.parse_args()
    torch.set_num_threads(1)
    folder = tempfile.mkdtemp()
    study10 = save_model(StudyCNN(10), f"{folder}/study10", 10)
    cases = [("StudyCNN 10x10 (untrained)", str(study10), 10)]
    for name in ("study", "default"):
        for size in (10, 8):
            cases.append((f"value-net:weights={name} {size}x{size}", name, size))
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} thread; positions = children of a "
        f"position 6 plies into a game"
    )
    print("positions/s per wall-clock second, and [per CPU second of this one-thread process]")
    print(
        f"{'model':<28} {'params':>9} {'frontier':>8} {'single/s':>17} {'batched/s':>19} {'ratio':>6} "
        f"{'plain model/s':>19} {'batched/plain (CPU s)':>21}"
    )
    for label, weights, size in cases:
        evaluator = ValueNetEvaluator(weights, threads=1)
        cells, sides = frontier(size, 6)
        np.testing.assert_allclose(
            evaluator.evaluate_batch(cells, sides), plain(evaluator, size)(cells, sides), atol=1e-5
        )
        single = rate(evaluator.evaluate_batch, cells, sides, 1, args.seconds)
        batched = rate(evaluator.evaluate_batch, cells, sides, len(cells), args.seconds)
        reference = rate(plain(evaluator, size), cells, sides, len(cells), args.seconds)
        print(
            f"{label:<28} {parameter_count(evaluator.net(size).model):>9,} {len(cells):>8} "
            f"{single[0]:>7,.0f} [{single[1]:>7,.0f}] {batched[0]:>8,.0f} [{batched[1]:>8,.0f}] "
            f"{batched[0] / single[0]:>5.1f}x {reference[0]:>8,.0f} [{reference[1]:>8,.0f}] "
            f"{batched[1] / reference[1]:>20.2f}x"
        )
    mover = Board(10)
    start = time.perf_counter()
    n = 0
    while time.perf_counter() - start < args.seconds / 2:
        n += int(core.count_moves(mover.cells, mover.queens, mover.queen_counts, 0, mover.dirs) > 0)
    print(
        f"(for scale: the numba move counter that 'basic' uses runs {n / (time.perf_counter() - start):,.0f} "
        "positions/s on the 10x10 start)"
    )


if __name__ == "__main__":
    main()
