"""Self-play positions/s with the net at every leaf: Gumbel AlphaZero's batched tensor search beside
today's CPU pipeline, the same net and simulations per move, in the same run.

* ``tensor``: ``training.selfplay.policy_value.gumbel_games``: ``--games`` games in lock-step on
  ``--device``, one forward pass of the net per simulation for all of them (``agents.search.gumbel``);
* ``cpu-pipeline``: ``engine_shard`` of the ``pvmcts`` preset (the one numba MCTS with the net at
  every expansion, ``--batch`` positions per forward pass, the net through ONNX Runtime when
  installed; one game at a time, its root visit shares the targets), one shard of
  ``--cpu-games`` games per worker process on ``--workers`` processes (default: every core),
  through ``agents.arena.backends.run_tasks`` as the train loop plays its shards; each worker is
  timed from after a short warm-up game (process start and numba's first calls left out), the
  pipeline's seconds those of its slowest worker.

Both play whole games from two random opening plies with the committed policy-value net of the
size (``--weights`` for another model file). A position is one recorded training target; the
figures are positions per wall second of each pipeline and the ratio tensor / cpu-pipeline (the
figure of a machine to oneself: the GPU's), and positions per CPU second of each (the figure to
read where other work shares the cores: wall time there measures the neighbours).

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python3 benchmarks/nets/selfplay_speed.py --size 8 --sims 32
    python3 benchmarks/nets/selfplay_speed.py --device cuda --size 10 --sims 64 --games 16384 --cpu-games 8
"""

from __future__ import annotations

import argparse
import os
import time
from functools import partial

import torch

from agents.arena.backends import run_tasks
from agents.nets.export import load_model
from agents.nets.store import POLICY_VALUE_WEIGHTS, weights_path

from training.selfplay.policy_value import engine_shard, gumbel_games


def positions(games: list) -> int:
    return sum(len(g["sides"]) for g in games)


def tensor_rate(args: argparse.Namespace, weights: str) -> tuple[int, float, float]:
    """Positions, wall seconds and CPU seconds of ``gumbel_games`` (after a short warm-up)."""
    torch.set_num_threads(args.threads)
    model = load_model(weights)[0]
    gumbel_games(model, 2, args.size, 2, seed=99, device=args.device, m=args.m, k=args.k)  # warm-up
    if args.device.startswith("cuda"):
        torch.cuda.synchronize()
    begun, cpu = time.perf_counter(), time.process_time()
    games = gumbel_games(model, args.games, args.size, args.sims, seed=1, device=args.device, m=args.m, k=args.k)
    if args.device.startswith("cuda"):
        torch.cuda.synchronize()
    return positions(games), time.perf_counter() - begun, time.process_time() - cpu


def timed_shard(
    weights: str, games: int, size: int, sims: int, batch: int, index: int, seed: int
) -> tuple[int, float, float]:
    """A worker's shard of ``engine_shard`` by ``pvmcts``, timed after a short warm-up game in the same
    process (so that neither the process start nor numba's first calls count): positions, wall and CPU
    seconds."""
    engine_shard(f"pvmcts:sims=2,batch={batch},threads=1,weights={weights}", 1, size, index, seed + 1000)
    begun, cpu = time.perf_counter(), time.process_time()
    spec = f"pvmcts:sims={sims},batch={batch},threads=1,weights={weights}"
    games_played = engine_shard(spec, games, size, index, seed)
    return positions(games_played), time.perf_counter() - begun, time.process_time() - cpu


def cpu_rate(args: argparse.Namespace, weights: str) -> tuple[int, float, float]:
    """Positions of ``timed_shard`` on ``--workers`` processes, a shard each, the wall seconds of
    the slowest shard (they run side by side) and the CPU seconds of all."""
    play = partial(timed_shard, weights, args.cpu_games, args.size, args.sims, args.batch)
    done = [out for _, out in run_tasks(play, [(i, 1 + i) for i in range(args.workers)], args.workers)]
    return sum(out[0] for out in done), max(out[1] for out in done), sum(out[2] for out in done)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=8)
    parser.add_argument("--sims", type=int, default=32, help="simulations per move, both pipelines")
    parser.add_argument("--device", default="cpu", help="the tensor search's torch device (cpu, cuda)")
    parser.add_argument("--games", type=int, default=64, help="games in lock-step on the device")
    parser.add_argument("--m", type=int, default=16, help="root actions sampled")
    parser.add_argument("--k", type=int, default=16, help="children per node")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="CPU pipeline processes")
    parser.add_argument("--cpu-games", type=int, default=4, help="games per CPU process (one shard)")
    parser.add_argument("--batch", type=int, default=8, help="CPU pipeline positions per forward pass")
    parser.add_argument("--threads", type=int, default=1, help="torch threads of the tensor search on the CPU")
    parser.add_argument("--weights", help="model file (no suffix); default: the committed net of the size")
    args = parser.parse_args()
    weights = args.weights or str(weights_path("default", args.size, POLICY_VALUE_WEIGHTS))
    print(f"{args.size}x{args.size}, {args.sims} simulations per move, net {weights}")
    n_cpu, s_cpu, c_cpu = cpu_rate(args, weights)
    print(
        f"cpu-pipeline: {args.workers} processes x {args.cpu_games} games: {n_cpu} positions in {s_cpu:.1f} s "
        f"({c_cpu:.1f} CPU s)"
    )
    n_t, s_t, c_t = tensor_rate(args, weights)
    print(
        f"tensor ({args.device}, {args.threads} torch threads, {args.games} games, m={args.m}, k={args.k}): "
        f"{n_t} positions in {s_t:.1f} s ({c_t:.1f} CPU s)"
    )
    cpu, tensor = n_cpu / s_cpu, n_t / s_t
    print(f"positions/s: cpu-pipeline {cpu:.1f}, tensor {tensor:.1f}, ratio tensor/cpu-pipeline {tensor / cpu:.2f}")
    cpu, tensor = n_cpu / c_cpu, n_t / c_t
    print(
        f"positions per CPU second: cpu-pipeline {cpu:.1f}, tensor {tensor:.1f}, ratio {tensor / cpu:.2f} "
        "(the figure to read on a shared machine)"
    )


if __name__ == "__main__":
    main()
