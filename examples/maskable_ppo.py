"""MaskablePPO (sb3-contrib) on the vector env against the batched random opponent, through the shipped
SB3 adapter (``amazons_env.adapters.sb3``: ``AmazonsVecEnv``, ``AmazonsPlanesPolicy``), to a budget of
this process's CPU time, evaluated as it learns.

    pip install -c constraints.txt -e ".[rl]"
    python3 examples/maskable_ppo.py --size 6 --cpu-minutes 10 --out runs/mppo6
    python3 examples/maskable_ppo.py --size 8 --cpu-minutes 15 --out runs/mppo8

``--envs`` games (64) are played at once in ``AmazonsVectorEnv(opponent="random",
learner_color="random", action_encoding="lines")``: the opponent's replies are one numba call for all
games (``amazons_env.envs.batch_opponents``), so the env costs little beside the net. The policy is
``AmazonsPlanesPolicy``: ``PlanesExtractor`` reads the int8 planes (``--layers`` 3x3 convolutions of
``--channels``, then ``--square-features`` features per square), a 1x1 convolution gives each
square's queen-line logits (8 directions x N-1 distances: the ``"lines"`` action encoding), and
``--vf`` hidden layers lead to the value. MaskablePPO masks with ``env.action_masks()``. The
reward is the game's: +1 for a win, -1 for a loss, at the end.

The budget counts the CPU time of training (``resource.getrusage``: this process and its children,
every thread; ``--threads`` torch threads, default 1), not the evaluations, whose CPU time is
reported beside it. Every ``--eval-every`` CPU seconds of training the deterministic policy plays
``--games`` games against the batched random opponent (half as White, half as Black, its first
turn random so that games differ): the curve. At the end it plays ``--final-games`` against
``random-agent`` (the arena's random agent) and ``--games`` against each other of ``--final``
(default: ``alphabeta:depth=1`` and ``uct:sims=100``; ``examples/ppo_scores.py``) and prints wins per
colour with 95% intervals; ``--out DIR`` gets ``curve.png``, ``results.json`` and ``results.md``.
``benchmarks/envs/maskable_ppo_baseline.py`` runs it on 6x6 and 8x8 and writes the table of the docs.
"""

from __future__ import annotations

import argparse
import json
import resource
import signal
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

from amazons_env.adapters.sb3 import AmazonsPlanesPolicy, AmazonsVecEnv
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


def cpu_seconds() -> float:
    """CPU time of this process and of its children (user + system, every thread)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class Budget(BaseCallback):
    """Stops training once it has used ``seconds`` of CPU time (evaluations not counted: their
    CPU time is in ``eval_seconds``); evaluates every ``every`` CPU seconds of training."""

    def __init__(self, seconds: float, every: float, size: int, games: int) -> None:
        super().__init__()
        self.seconds, self.every, self.size, self.games = seconds, every, size, games
        self.stopped = False  # by a signal: the training ends at the next step, then the scoring runs
        self.start = cpu_seconds()
        self.eval_seconds = 0.0
        self.next_eval = 0.0
        self.curve: list[dict[str, Any]] = []

    def used(self) -> float:
        """CPU seconds of training so far."""
        return cpu_seconds() - self.start - self.eval_seconds

    def evaluate(self) -> None:
        assert isinstance(self.model, MaskablePPO)
        started = cpu_seconds()
        row = {"cpu_minutes": self.used() / 60, "steps": int(self.num_timesteps)}
        row.update(score(policy_of(self.model), "random", self.size, self.games, action_encoding="lines"))
        self.curve.append(row)
        self.eval_seconds += cpu_seconds() - started
        print(
            f"{row['cpu_minutes']:5.1f} CPU min {row['steps']:>9,} steps | vs random {row['score']:.0%} "
            f"(W {row['white']}, B {row['black']})",
            flush=True,
        )
        self.next_eval = self.used() + self.every

    def _on_step(self) -> bool:
        if self.used() >= self.next_eval:
            self.evaluate()
        return self.used() < self.seconds and not self.stopped

    def stop(self, signum: int, frame: Any) -> None:
        """SIGINT/SIGTERM: end the training early (the final scoring still runs)."""
        self.stopped = True


def report(
    args: argparse.Namespace, curve: list[dict], final: dict[str, dict], times: dict[str, float], stopped: bool
) -> str:
    threads = f"{args.threads} torch thread{'s' * (args.threads > 1)}"
    lines = [
        f"MaskablePPO on {args.size}x{args.size}: `python3 examples/maskable_ppo.py {' '.join(args.argv)}`",
        "",
        f"training {times['train'] / 60:.1f} CPU min{' (stopped by a signal)' * stopped} ({threads}), "
        f"{curve[-1]['steps']:,} steps; the curve's evaluations {times['curve'] / 60:.1f} CPU min; wall "
        f"{times['wall'] / 60:.1f} min. Each cell: wins out of the games (as White, as Black), 95% interval",
        "",
        table(final),
    ]
    return "\n".join(lines) + "\n"


def plot(curve: list[dict], path: Path, size: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    figure, axes = plt.subplots(figsize=(5, 3.2), dpi=100)
    axes.plot([row["cpu_minutes"] for row in curve], [100 * row["score"] for row in curve], marker="o")
    axes.set_xlabel("CPU minutes of training")
    axes.set_ylabel("wins vs random (%)")
    axes.set_ylim(0, 100)
    axes.set_title(f"MaskablePPO, {size}x{size}")
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def model_of(args: argparse.Namespace, envs: AmazonsVectorEnv) -> MaskablePPO:
    """MaskablePPO with ``AmazonsPlanesPolicy`` as the options say."""
    extractor = {"channels": args.channels, "layers": args.layers, "square_features": args.square_features}
    return MaskablePPO(
        AmazonsPlanesPolicy,
        AmazonsVecEnv(envs),
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.epochs,
        learning_rate=args.lr,
        gamma=args.gamma,
        ent_coef=args.ent_coef,
        seed=args.seed,
        device="cpu",
        policy_kwargs={"features_extractor_kwargs": extractor, "net_arch": {"pi": [], "vf": args.vf}},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=6)
    parser.add_argument("--cpu-minutes", type=float, default=10.0, help="budget of training CPU time")
    parser.add_argument("--eval-every", type=float, default=60.0, help="CPU seconds of training between evaluations")
    parser.add_argument("--games", type=int, default=100, help="games per evaluation and per final opponent")
    parser.add_argument("--final-games", type=int, default=200, help="final games against random-agent")
    parser.add_argument("--final", nargs="*", default=list(OPPONENTS[1:]), help="the other final opponents")
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--n-steps", type=int, default=64, help="steps per game per rollout")
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--channels", type=int, default=32)
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--square-features", type=int, default=32, help="features per square")
    parser.add_argument("--vf", type=int, nargs="*", default=[64], help="hidden layers of the value")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    args.argv = sys.argv[1:]
    torch.set_num_threads(args.threads)  # small batches: more threads only contend on a busy machine
    # the final opponents made first: a spec that cannot be made fails before the training, not after it
    opponents = {"random-agent": opponent_of("random-agent", args.size)}
    opponents.update({name: opponent_of(name, args.size) for name in args.final})
    envs = AmazonsVectorEnv(
        args.envs, size=args.size, opponent="random", learner_color="random", action_encoding="lines"
    )
    envs.reset(seed=args.seed)
    model = model_of(args, envs)
    budget = Budget(args.cpu_minutes * 60, args.eval_every, args.size, args.games)
    signal.signal(signal.SIGINT, budget.stop)
    signal.signal(signal.SIGTERM, budget.stop)
    wall = time.perf_counter()
    model.learn(total_timesteps=10**12, callback=budget)
    budget.evaluate()
    times = {"train": budget.used(), "curve": budget.eval_seconds, "wall": time.perf_counter() - wall}
    if budget.stopped:
        print(f"stopped by a signal after {times['train'] / 60:.1f} of {args.cpu_minutes:g} CPU minutes", flush=True)
    final = {
        name: score(
            policy_of(model),
            versus,
            args.size,
            args.final_games if name == "random-agent" else args.games,
            action_encoding="lines",
        )
        for name, versus in opponents.items()
    }
    text = report(args, budget.curve, final, times, budget.stopped)
    print(text)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "results.md").write_text(text)
        results = {"args": args.argv, "times": times, "stopped": budget.stopped, "curve": budget.curve, "final": final}
        (args.out / "results.json").write_text(json.dumps(results, indent=1))
        plot(budget.curve, args.out / "curve.png", args.size)


if __name__ == "__main__":
    main()
