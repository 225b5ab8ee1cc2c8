"""Steps per second that TorchRL sees: ``AmazonsTorchEnv`` (the rules on torch tensors) beside
``GymWrapper(AmazonsVectorEnv)`` (the numba vector env, TorchRL's recipe before it), in one run,
with the ratio per process CPU-second.

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python3 benchmarks/envs/torchrl_env_speed.py
    python3 benchmarks/envs/torchrl_env_speed.py --size 10 --batches 256 1024 --opponent none

Both under TorchRL's ``ActionMask`` transform, played by ``env.rollout(steps,
break_when_any_done=False)`` with TorchRL's random policy (a uniformly random legal action from
the masked action spec) and partial resets of the finished games: what a collector does, less
the policy net. ``--opponent random`` (default): the learner against the random opponent, its
colour drawn per game (the opponent's replies are inside each step); ``none``: self-play. The
two envs run in alternating rounds so that they share the machine's load; the rates divide the
steps by process CPU time (torch and numba on ``--threads`` threads), which a busy machine
distorts less than wall time.
"""

from __future__ import annotations

import argparse
import time

import torch
from torchrl.envs import GymWrapper, TransformedEnv
from torchrl.envs.transforms import ActionMask

from amazons_env.envs.vector_env import AmazonsVectorEnv
from amazons_env.tensor.torchrl_env import AmazonsTorchEnv


def tensor_env(args: argparse.Namespace, b: int) -> TransformedEnv:
    opponent, colour = ("random", "random") if args.opponent == "random" else (None, "white")
    return TransformedEnv(
        AmazonsTorchEnv([b], args.size, args.device, opponent=opponent, learner_color=colour), ActionMask()
    )


def numba_env(args: argparse.Namespace, b: int) -> TransformedEnv:
    opponent, colour = ("random", "random") if args.opponent == "random" else (None, "white")
    envs = AmazonsVectorEnv(
        b,
        args.size,
        opponent=opponent,
        learner_color=colour,
        obs_mode="dict",
        mask_dtype="bool",
        autoreset_mode="Disabled",
        num_threads=args.threads,
    )
    return TransformedEnv(GymWrapper(envs, categorical_action_encoding=True), ActionMask())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=6)
    parser.add_argument("--batches", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--steps", type=int, default=50, help="rollout steps per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--opponent", choices=("random", "none"), default="random")
    parser.add_argument("--device", default="cpu", help="AmazonsTorchEnv's device")
    parser.add_argument("--threads", type=int, default=1, help="torch and numba threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(
        f"{args.size}x{args.size}, opponent {args.opponent}, {args.threads} thread(s), "
        f"AmazonsTorchEnv on {args.device}; env steps per process CPU-second over {args.rounds} rounds"
    )
    print("| B | AmazonsTorchEnv | GymWrapper(AmazonsVectorEnv) | torch / numba |")
    print("|---:|---:|---:|---:|")
    for b in args.batches:
        envs = {"torch": tensor_env(args, b), "numba": numba_env(args, b)}
        spent = dict.fromkeys(envs, 0.0)
        for env in envs.values():
            env.set_seed(0)
            env.rollout(10, break_when_any_done=False)  # warm-up: kernels compiled, buffers made
        for _ in range(args.rounds):
            for name, env in envs.items():
                start = time.process_time()
                env.rollout(args.steps, break_when_any_done=False)
                spent[name] += time.process_time() - start
        rate = {name: b * args.steps * args.rounds / seconds for name, seconds in spent.items()}
        print(f"| {b:,} | {rate['torch']:,.0f} | {rate['numba']:,.0f} | {rate['torch'] / rate['numba']:.2f} |")


if __name__ == "__main__":
    main()
