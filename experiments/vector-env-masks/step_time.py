"""CPU microseconds per ``step(sample_legal_actions())`` of ``AmazonsVectorEnv(copy=False)``, for the
checkout on ``PYTHONPATH`` (run it once per checkout, alternated: ``README.md`` has the command).

    python3 step_time.py --games 64 --size 6 --steps 3000 [--opponent random] [--encoding lines]
"""

from __future__ import annotations

import argparse
import time

import amazons_env
from amazons_env.envs.vector_env import AmazonsVectorEnv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--size", type=int, default=6)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--opponent", default=None)
    parser.add_argument("--encoding", default="flat", choices=("flat", "lines"))
    args = parser.parse_args()
    envs = AmazonsVectorEnv(
        args.games, size=args.size, copy=False, opponent=args.opponent, action_encoding=args.encoding
    )
    envs.reset(seed=0)
    for _ in range(500):  # compile and warm up
        envs.step(envs.sample_legal_actions())
    rounds = []
    for _ in range(args.rounds):
        start = time.process_time()
        for _ in range(args.steps):
            envs.step(envs.sample_legal_actions())
        rounds.append((time.process_time() - start) / args.steps * 1e6)
    where = amazons_env.__file__.rsplit("/amazons_env/", 1)[0]
    print(
        f"{where} {args.games} games {args.size}x{args.size} {args.encoding} opponent={args.opponent}:",
        " ".join(f"{r:.2f}" for r in rounds),
        "us/step",
    )


if __name__ == "__main__":
    main()
