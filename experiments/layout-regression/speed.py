"""One tree's speed figures (run with PYTHONPATH=TREE, see speed_compare.sh): perft leaves/s,
vector-env steps/s (64 games, random masked play), uct simulations/s from the start (three 1 s
searches). Only public names, so that it runs on the trees before and after the restructuring."""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from amazons_env import AmazonsVectorEnv, Board
from amazons_env.perft import perft

import agents


def perft_rates() -> dict[str, float]:
    out = {}
    for size, depth in ((8, 3), (10, 2)):
        board = Board(size=size)
        perft(board, 1)  # compile
        start = time.perf_counter()
        leaves = perft(board, depth)
        out[f"perft{depth}_{size}x{size}_leaves_per_s"] = leaves / (time.perf_counter() - start)
    return out


def random_actions(env: AmazonsVectorEnv, rng: np.random.Generator) -> np.ndarray:
    masks = env.action_masks()
    return (rng.random(masks.shape) * masks).argmax(axis=1)


def vector_rates(seconds: float = 3.0) -> dict[str, float]:
    out = {}
    for size in (8, 10):
        env = AmazonsVectorEnv(64, size)
        rng = np.random.default_rng(0)
        env.reset(seed=0)
        for _ in range(50):  # compile, warm
            env.step(random_actions(env, rng))
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            env.step(random_actions(env, rng))
            steps += 64
        out[f"vector64_{size}x{size}_steps_per_s"] = steps / (time.perf_counter() - start)
    return out


def uct_rates() -> dict[str, float]:
    out = {}
    for size in (8, 10):
        agent, board = agents.make("uct:time=1", seed=0), Board(size=size)
        agent.select_move(board)  # compile, warm
        simulations = seconds = 0.0
        for _ in range(3):
            agent.reset()
            agent.select_move(board)
            result = agent.last_result  # type: ignore[attr-defined]  # both trees' uct keep it
            simulations += result.nodes
            seconds += result.seconds
        out[f"uct_{size}x{size}_sims_per_s"] = simulations / seconds
    return out


if __name__ == "__main__":
    figures = {"perft": perft_rates, "vector": vector_rates, "uct": uct_rates}[sys.argv[1]]()
    print(json.dumps(figures))
