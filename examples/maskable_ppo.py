"""MaskablePPO (sb3-contrib) on the vector env against the batched random opponent, through the shipped
SB3 adapter (``amazons_env.adapters.sb3``: ``AmazonsVecEnv``, ``PlanesExtractor``), to a budget of
this process's CPU time, evaluated as it learns.

    pip install -c constraints.txt -e ".[rl]"
    python3 examples/maskable_ppo.py --size 6 --cpu-minutes 5 --out runs/mppo6
    python3 examples/maskable_ppo.py --size 8 --cpu-minutes 15 --out runs/mppo8

64 games are played at once in ``AmazonsVectorEnv(opponent="random", learner_color="random")``:
the opponent's replies are one numba call for all games (``amazons_env.envs.batch_opponents``), so
the env costs little beside the net. ``CnnPolicy`` reads the int8 planes with ``PlanesExtractor``
(three 3x3 convolutions, one dense layer); MaskablePPO masks with ``env.action_masks()``.

The budget counts CPU time (training and evaluations; fair on a machine shared with other jobs).
Every ``--eval-every`` CPU seconds the deterministic policy plays ``--games`` games against the
batched random opponent (half as White, half as Black, its first turn random so that games
differ): the curve. At the end it plays ``--games`` against each of ``--final`` (default: the
``random`` agent, ``alphabeta:depth=1`` and ``uct:sims=100``; ``examples/ppo_scores.py``) and prints
wins per colour with 95% intervals; ``--out DIR`` gets ``curve.png``, ``results.json`` and ``results.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

try:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
except ImportError as error:  # pragma: no cover - optional dependency
    raise SystemExit('this example needs sb3-contrib: pip install -c constraints.txt -e ".[rl]"') from error

from amazons_env.adapters.sb3 import AmazonsVecEnv, PlanesExtractor
from amazons_env.envs.vector_env import AmazonsVectorEnv

if str(Path(__file__).resolve().parent) not in sys.path:  # ppo_scores.py lies beside this file
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from ppo_scores import OPPONENTS, opponent_of, score, table  # noqa: E402


def policy_of(model: MaskablePPO):
    """The deterministic policy as ``policy(planes, masks) -> actions`` (the vector env's batched policy)."""

    def policy(planes: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions, _ = model.predict(planes, action_masks=masks.astype(bool), deterministic=True)
        return np.asarray(actions, dtype=np.int64)

    return policy


class Budget(BaseCallback):
    """Stops training once the process has used ``seconds`` of CPU time; evaluates every ``every``."""

    def __init__(self, seconds: float, every: float, size: int, games: int) -> None:
        super().__init__()
        self.seconds, self.every, self.size, self.games = seconds, every, size, games
        self.start = time.process_time()
        self.next_eval = 0.0
        self.curve: list[dict[str, Any]] = []

    def used(self) -> float:
        return time.process_time() - self.start

    def evaluate(self) -> None:
        assert isinstance(self.model, MaskablePPO)
        row = {"cpu_minutes": self.used() / 60, "steps": int(self.num_timesteps)}
        row.update(score(policy_of(self.model), "random", self.size, self.games))
        self.curve.append(row)
        print(
            f"{row['cpu_minutes']:5.1f} CPU min {row['steps']:>9,} steps | vs random {row['score']:.0%} "
            f"(W {row['white']}, B {row['black']})",
            flush=True,
        )
        self.next_eval = self.used() + self.every

    def _on_step(self) -> bool:
        if self.used() >= self.next_eval:
            self.evaluate()
        return self.used() < self.seconds


def report(args: argparse.Namespace, curve: list[dict], final: dict[str, dict], wall: float, cpu: float) -> str:
    half = args.games // 2
    lines = [
        f"MaskablePPO on {args.size}x{args.size}: `python3 examples/maskable_ppo.py --size {args.size} "
        f"--cpu-minutes {args.cpu_minutes:g} --seed {args.seed} --out {args.out}`",
        "",
        f"wall {wall / 60:.1f} min, CPU time {cpu / 60:.1f} min (average {cpu / max(wall, 1e-9):.2f} cores), "
        f"{curve[-1]['steps']:,} steps; each cell: wins / {args.games} (as White / {half}, as Black / {half}), "
        "95% interval",
        "",
        table(final, args.games),
    ]
    return "\n".join(lines) + "\n"


def plot(curve: list[dict], path: Path, size: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    figure, axes = plt.subplots(figsize=(5, 3.2), dpi=100)
    axes.plot([row["cpu_minutes"] for row in curve], [100 * row["score"] for row in curve], marker="o")
    axes.set_xlabel("CPU minutes")
    axes.set_ylabel("wins vs random (%)")
    axes.set_ylim(0, 100)
    axes.set_title(f"MaskablePPO, {size}x{size}")
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=6)
    parser.add_argument("--cpu-minutes", type=float, default=5.0, help="budget of this process's CPU time")
    parser.add_argument("--eval-every", type=float, default=60.0, help="CPU seconds between evaluations")
    parser.add_argument("--games", type=int, default=100, help="games per evaluation and per final opponent")
    parser.add_argument("--final", nargs="*", default=list(OPPONENTS), help="opponents of the final scoring")
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)  # small batches: more threads only contend on a busy machine
    # the final opponents made first: a spec that cannot be made fails before the training, not after it
    opponents = {name: opponent_of(name, args.size) for name in args.final}
    envs = AmazonsVectorEnv(args.envs, size=args.size, opponent="random", learner_color="random")
    envs.reset(seed=args.seed)
    model = MaskablePPO(
        "CnnPolicy",
        AmazonsVecEnv(envs),
        n_steps=64,
        batch_size=512,
        n_epochs=4,
        learning_rate=1e-3,
        gamma=0.99,
        ent_coef=0.01,
        seed=args.seed,
        device="cpu",
        policy_kwargs={"features_extractor_class": PlanesExtractor},
    )
    budget = Budget(args.cpu_minutes * 60, args.eval_every, args.size, args.games)
    wall = time.perf_counter()
    model.learn(total_timesteps=10**12, callback=budget)
    budget.evaluate()
    cpu, wall = budget.used(), time.perf_counter() - wall
    final = {name: score(policy_of(model), versus, args.size, args.games) for name, versus in opponents.items()}
    text = report(args, budget.curve, final, wall, cpu)
    print(text)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "results.md").write_text(text)
        (args.out / "results.json").write_text(json.dumps({"curve": budget.curve, "final": final}, indent=1))
        plot(budget.curve, args.out / "curve.png", args.size)


if __name__ == "__main__":
    main()
