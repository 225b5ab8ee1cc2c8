"""Env steps/s of the torch rules (``amazons_env.tensor``) beside the numba vector env
(``AmazonsVectorEnv``) in the same run, at batch sizes 256 ... 65,536; prints the ratios.

    python3 benchmarks/envs/tensor_env_speed.py                               # CPU, 10x10
    python3 benchmarks/envs/tensor_env_speed.py --device cuda --batches 1024 16384 65536
    python3 benchmarks/envs/tensor_env_speed.py --sampler mask --encoding lines

One env step of every game, as an env gives it (each row counts ``B`` steps per iteration):
* torch: a uniformly random legal action per game drawn on the device (``--sampler lines``:
  ``random_actions``, from the side to move's queen lines; ``--sampler mask``: Gumbel-max over
  the whole ``[B, A]`` mask), ``step``, finished games restarted (``where``), then the
  observation planes and the mask (``observe``); everything stays on ``--device``. ``--graph``
  (cuda) captures that step once as a CUDA graph and replays it: the rules read nothing back
  from an accelerator, so the capture holds.
* numba: ``AmazonsVectorEnv(B, copy=False)`` (its fastest mode: views of its buffers),
  ``step(envs.sample_legal_actions())`` (planes and mask written every step, autoreset), on one
  thread and on all numba threads (``NUMBA_NUM_THREADS``, default every core: leave it unset).

Both start from the start position and play ``--warmup`` steps before the clock starts. On CPU
torch uses ``--torch-threads`` (default: all cores), and freed memory stays in glibc's heap
(``keep_freed_memory``; ``--glibc-defaults`` to leave it). The three runners of a row run in
alternating slices (``--rounds``) so that they share the machine's load; the last column
divides steps per process CPU-second (torch on CPU with one thread against numba on one: the
per-core ratio, which a busy machine distorts less than wall clock).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import time
from typing import Callable

# idle OpenMP threads sleep at once: numba's parallel env and torch share libgomp, and spinning
# threads of one starve the other in the alternating slices below
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numba  # noqa: E402
import torch  # noqa: E402

from amazons_env.envs.vector_env import AmazonsVectorEnv  # noqa: E402
from amazons_env.tensor import initial_state, observe, random_actions, step, where  # noqa: E402
from amazons_env.tensor.state import TensorState  # noqa: E402


def keep_freed_memory() -> bool:
    """Keep freed memory in glibc's heap (``mallopt``; False where that is not glibc). By default
    glibc hands blocks over its thresholds back to the OS, and torch on the CPU, which allocates
    fresh tensors every step, then spends much of each step in page faults (the numba env reuses
    its buffers and hardly allocates)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    trim_threshold, top_pad, mmap_threshold = -1, -2, -3  # glibc's M_* parameter numbers
    settings = ((mmap_threshold, 32 << 20), (trim_threshold, 1 << 30), (top_pad, 256 << 20))
    return all(libc.mallopt(parameter, value) == 1 for parameter, value in settings)


def _timed(run_once: Callable[[], None], seconds: float, sync: Callable[[], None]) -> tuple[int, float, float]:
    """``(calls, wall seconds, process CPU seconds)`` of ``run_once`` for ``seconds`` (>= 1 call)."""
    sync()
    wall, cpu, calls = time.perf_counter(), time.process_time(), 0
    while calls < 1 or time.perf_counter() - wall < seconds:
        run_once()
        calls += 1
    sync()
    return calls, time.perf_counter() - wall, time.process_time() - cpu


def _paired(runners: list[Callable[[], None]], seconds: float, rounds: int, sync: Callable[[], None]) -> list[tuple]:
    """Each runner's totals ``[calls, wall, cpu]`` over ``rounds`` alternating slices, so that all
    see the same load on a shared machine."""
    totals = [[0, 0.0, 0.0] for _ in runners]
    for _ in range(rounds):
        for total, run_once in zip(totals, runners):
            for k, value in enumerate(_timed(run_once, seconds / rounds, sync)):
                total[k] += value
    return [tuple(total) for total in totals]


def torch_runner(size: int, batch: int, device: str, encoding: str, sampler: str, warmup: int, graph: bool):
    """``run_once`` of one env step of every game on the tensors; with ``graph``, the step is
    captured once in a CUDA graph and replayed (no per-kernel launches from Python)."""
    start = initial_state(batch, size, device)
    # a CUDA graph draws from the default generator (it records its offsets)
    generator = None if graph else torch.Generator(device=device).manual_seed(0)
    torch.manual_seed(0)

    def env_step(state: TensorState, mask: torch.Tensor) -> tuple[TensorState, torch.Tensor, torch.Tensor]:
        if sampler == "lines":
            actions = random_actions(state, encoding, generator)
        else:
            noise = torch.rand(mask.shape, generator=generator, device=device)
            actions = torch.where(mask, noise, -1.0).argmax(dim=1)
        # drawn from the legal set: the range check (a device read) is not needed
        state, _, terminated = step(state, actions, encoding, check_range=False)
        state = where(terminated, start, state)
        obs, mask = observe(state, encoding)
        return state, obs, mask

    states, masks = [start], [observe(start, encoding)[1]]  # the current ones, replaced each step

    def run_eager() -> None:
        states[0], _, masks[0] = env_step(states[0], masks[0])

    for _ in range(warmup):
        run_eager()
    if not graph:
        return run_eager
    static_state = TensorState(*(x.clone() for x in states[0]))
    static_mask = masks[0].clone()
    side = torch.cuda.Stream(device)
    side.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(side):  # the warm-up that capture requires, off the default stream
        for _ in range(3):
            env_step(static_state, static_mask)
    torch.cuda.current_stream(device).wait_stream(side)
    captured = torch.cuda.CUDAGraph()
    with torch.cuda.graph(captured):
        state, _, mask = env_step(static_state, static_mask)
        for target, value in zip(static_state, state):
            target.copy_(value)
        static_mask.copy_(mask)
    return captured.replay


def numba_runner(size: int, batch: int, encoding: str, threads: int, warmup: int):
    envs = AmazonsVectorEnv(batch, size, copy=False, num_threads=threads, action_encoding=encoding, mask_dtype="bool")
    envs.reset(seed=0)

    def run_once() -> None:
        envs.step(envs.sample_legal_actions())

    for _ in range(warmup):
        run_once()
    return run_once


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cpu", help="torch device (cpu, cuda, cuda:1, ...)")
    parser.add_argument("--size", type=int, default=10)
    parser.add_argument("--batches", type=int, nargs="+", default=[256, 1024, 4096, 16384, 65536])
    parser.add_argument("--encoding", choices=["flat", "lines"], default="flat")
    parser.add_argument("--sampler", choices=["lines", "mask"], default="lines")
    parser.add_argument("--seconds", type=float, default=3.0, help="timed seconds per row and runner")
    parser.add_argument("--rounds", type=int, default=3, help="alternating slices per row")
    parser.add_argument("--warmup", type=int, default=10, help="steps before timing")
    parser.add_argument("--torch-threads", type=int, default=os.cpu_count())
    parser.add_argument("--no-numba", action="store_true", help="torch rows only")
    parser.add_argument("--graph", action="store_true", help="replay the torch step as a CUDA graph (cuda only)")
    parser.add_argument("--glibc-defaults", action="store_true", help="leave glibc's malloc thresholds as they are")
    args = parser.parse_args()
    torch.set_num_threads(args.torch_threads)
    device = torch.device(args.device)
    if args.graph and device.type != "cuda":
        parser.error("--graph needs a cuda device")
    if device.type == "cuda":
        name = torch.cuda.get_device_name(device)

        def sync() -> None:
            torch.cuda.synchronize(device)
    else:
        name = f"CPU, {torch.get_num_threads()} torch threads"

        def sync() -> None:
            pass

    all_threads = numba.get_num_threads()  # NUMBA_NUM_THREADS, every core unless set
    kept = not args.glibc_defaults and keep_freed_memory()
    print(
        f"{args.size}x{args.size}, encoding {args.encoding}, torch on {args.device} ({name}), sampler {args.sampler}"
        f"{', CUDA graph' if args.graph else ''}; "
        f"numba vector env on 1 and {all_threads} threads; {os.cpu_count()} cores; torch {torch.__version__}; "
        f"freed memory {'kept in the heap' if kept else 'returned to the OS (glibc defaults)'}"
    )
    columns = [("B", 7), ("torch steps/s", 14), ("numba 1 thr", 12), ("numba all", 12)]
    columns += [("torch/1 thr", 12), ("torch/all", 10), ("per CPU-s: torch/1 thr", 23)]
    print(" ".join(f"{title:>{width}}" for title, width in columns))
    for batch in args.batches:
        runners = [torch_runner(args.size, batch, args.device, args.encoding, args.sampler, args.warmup, args.graph)]
        if not args.no_numba:
            runners += [numba_runner(args.size, batch, args.encoding, t, args.warmup) for t in (1, all_threads)]
        totals = _paired(runners, args.seconds * len(runners), args.rounds, sync)
        rates = [calls * batch / wall for calls, wall, _ in totals]
        row = f"{batch:7,d} {rates[0]:14,.0f}"
        if not args.no_numba:
            per_cpu = [calls / cpu for calls, _, cpu in totals]
            row += f" {rates[1]:12,.0f} {rates[2]:12,.0f} {rates[0] / rates[1]:12.2f} {rates[0] / rates[2]:10.2f}"
            row += f" {per_cpu[0] / per_cpu[1]:23.2f}"
        print(row, flush=True)
        del runners


if __name__ == "__main__":
    main()
