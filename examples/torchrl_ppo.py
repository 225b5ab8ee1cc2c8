"""PPO with TorchRL's own objects on the batched torch env, against the random opponent.

    pip install -c constraints.txt -e ".[rl]"      # torch and torchrl
    python3 examples/torchrl_ppo.py                 # 6x6, 3 CPU minutes of training, one torch thread
    python3 examples/torchrl_ppo.py --device cuda --envs 1024 --minutes 2

The learner plays ``--envs`` games of ``AmazonsTorchEnv`` at once against ``opponent="random"``
(uniform over the legal actions, on the env's device), as White or Black at random per game.
Everything is TorchRL's: the env under its ``ActionMask`` transform, a ``ProbabilisticActor``
whose ``MaskedCategorical`` reads the env's ``action_mask``, a ``ValueOperator``, a
``Collector``, ``GAE``, ``ClipPPOLoss`` and a ``ReplayBuffer`` that deals the minibatches.
Actions use the queen-line encoding (``action_encoding="lines"``: square x 8 directions x
distance), which a fully convolutional head outputs directly.

Training stops after ``--minutes`` of this process's CPU time (``time.process_time``: on a
shared machine wall time overstates the cost). Then the greedy policy (the most likely legal
action) plays ``--eval-games`` games against ``random``, half as White and half as Black, and
the wins per colour are printed with 95% Wilson intervals. The policy net has the opponent
signature of ``amazons_env.tensor.opponents`` (``net(observation, action_mask) -> logits``), so
a frozen copy of it can be the next run's ``opponent=``.
"""

from __future__ import annotations

import argparse
import time
from typing import Optional

try:
    import torch
    from tensordict.nn import TensorDictModule  # type: ignore[import-untyped]
    from torch import nn
    from torchrl.collectors import Collector
    from torchrl.data import LazyTensorStorage, ReplayBuffer, SamplerWithoutReplacement
    from torchrl.envs import ExplorationType, TransformedEnv, set_exploration_type
    from torchrl.envs.transforms import ActionMask
    from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value import GAE
except ImportError:  # pragma: no cover - optional dependency
    raise SystemExit('this example needs torch and torchrl: pip install -c constraints.txt -e ".[rl]"') from None

from amazons_env.tensor.torchrl_env import AmazonsTorchEnv

from agents.arena.statistics import score_interval

__all__ = ["PolicyNet", "ValueNet", "main"]


def trunk(channels: int, blocks: int) -> nn.Sequential:
    layers: list[nn.Module] = [nn.Conv2d(9, channels, 3, padding=1), nn.ReLU()]
    for _ in range(blocks - 1):
        layers += [nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU()]
    return nn.Sequential(*layers)


def _boards(observation: torch.Tensor) -> torch.Tensor:
    """The planes as ``float[k, 9, N, N]`` (a rollout's ``[B, T, ...]`` flattened)."""
    return observation.reshape(-1, *observation.shape[-3:]).float()


class PolicyNet(nn.Module):
    """Queen-line logits: 8 x (N-1) per square, in the ``"lines"`` encoding's order."""

    def __init__(self, size: int, channels: int = 32, blocks: int = 3) -> None:
        super().__init__()
        self.trunk = trunk(channels, blocks)
        self.head = nn.Conv2d(channels, 8 * (size - 1), 1)

    def forward(self, observation: torch.Tensor, action_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        # the mask is applied by MaskedCategorical (and by PolicyOpponent): taken for the signature
        logits = self.head(self.trunk(_boards(observation)))  # [k, 8(N-1), rank, file]
        return logits.permute(0, 2, 3, 1).reshape(*observation.shape[:-3], -1)


class ValueNet(nn.Module):
    """The learner's expected result from an observation."""

    def __init__(self, size: int, channels: int = 32, blocks: int = 2) -> None:
        super().__init__()
        self.trunk = trunk(channels, blocks)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(channels * size * size, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, observation: torch.Tensor) -> torch.Tensor:
        return self.head(self.trunk(_boards(observation))).reshape(*observation.shape[:-3], 1)


def make_env(args: argparse.Namespace, games: int, learner_color: str) -> TransformedEnv:
    env = AmazonsTorchEnv(
        [games], args.size, args.device, action_encoding="lines", opponent="random", learner_color=learner_color
    )
    return TransformedEnv(env, ActionMask())


def evaluate(actor: ProbabilisticActor, args: argparse.Namespace) -> dict[str, tuple[int, int]]:
    """Wins of the greedy policy per colour: ``{colour: (wins, games)}``; each game slot counts
    its first game (the env restarts finished games, whose later results are ignored)."""
    results = {}
    for index, colour in enumerate(("white", "black")):
        games = args.eval_games // 2
        env = make_env(args, games, colour)
        env.set_seed(args.seed + 1 + index)
        td = env.reset()
        won = torch.zeros(games, dtype=torch.bool, device=env.device)
        finished = torch.zeros_like(won)
        with torch.no_grad(), set_exploration_type(ExplorationType.DETERMINISTIC):
            while not bool(finished.all()):
                td, root = env.step_and_maybe_reset(actor(td))
                done = td["next", "done"][:, 0] & ~finished
                won |= done & (td["next", "reward"][:, 0] > 0)
                finished |= done
                td = root
        results[colour] = (int(won.sum()), games)
    return results


def parse(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=6)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--minutes", type=float, default=3.0, help="CPU minutes of training (process time)")
    parser.add_argument("--iterations", type=int, default=0, help="stop after this many updates (0: no limit)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--envs", type=int, default=64, help="games played at once")
    parser.add_argument("--steps", type=int, default=32, help="steps per game per update")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatch", type=int, default=512)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--channels", type=int, default=32)
    parser.add_argument("--eval-games", type=int, default=200, help="games of the final evaluation (both colours)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.eval_games < 2 or args.eval_games % 2:
        parser.error(f"--eval-games {args.eval_games}: use an even number >= 2 (half as White, half as Black)")
    return args


def main(argv: Optional[list[str]] = None) -> dict[str, tuple[int, int]]:
    args = parse(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    env = make_env(args, args.envs, "random")
    env.set_seed(args.seed)
    policy = TensorDictModule(
        PolicyNet(args.size, args.channels), in_keys=["observation", "action_mask"], out_keys=["logits"]
    )
    actor = ProbabilisticActor(
        policy,
        in_keys={"logits": "logits", "mask": "action_mask"},
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        spec=env.full_action_spec_unbatched["action"],
    ).to(args.device)
    critic = ValueOperator(ValueNet(args.size, args.channels), in_keys=["observation"]).to(args.device)
    advantage = GAE(gamma=0.99, lmbda=0.95, value_network=critic)
    loss = ClipPPOLoss(actor, critic, clip_epsilon=0.2, entropy_coeff=0.01, critic_coeff=0.5, normalize_advantage=True)
    optimizer = torch.optim.Adam(loss.parameters(), lr=args.lr)
    frames = args.envs * args.steps
    collector = Collector(
        env, actor, frames_per_batch=frames, total_frames=-1, device=args.device, auto_register_policy_transforms=False
    )
    buffer = ReplayBuffer(
        storage=LazyTensorStorage(frames, device=args.device),
        sampler=SamplerWithoutReplacement(),
        batch_size=args.minibatch,
    )
    print(
        f"PPO on {args.size}x{args.size} vs random: {args.envs} games x {args.steps} steps per update, "
        f"{args.threads} torch thread(s), device {args.device}, {args.minutes} CPU minutes",
        flush=True,
    )
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for update, data in enumerate(collector, start=1):
        with torch.no_grad():
            advantage(data)
        buffer.extend(data.reshape(-1))
        for _ in range(args.epochs):
            for batch in buffer:
                parts = loss(batch)
                total = parts["loss_objective"] + parts["loss_critic"] + parts["loss_entropy"]
                optimizer.zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(loss.parameters(), 1.0)
                optimizer.step()
        ended = data["next", "done"][..., 0]
        wins = int((data["next", "reward"][..., 0][ended] > 0).sum())
        cpu = time.process_time() - cpu0
        print(
            f"update {update:4d}  cpu {cpu:6.1f}s  wall {time.perf_counter() - wall0:6.1f}s  "
            f"games {int(ended.sum()):4d}  won {wins / max(int(ended.sum()), 1):.2f} (sampled)",
            flush=True,
        )
        if cpu >= args.minutes * 60 or update == args.iterations:
            break
    collector.shutdown()
    results = evaluate(actor, args)
    total_wins = sum(wins for wins, _ in results.values())
    for colour, (wins, games) in results.items():
        low, high = score_interval(wins, games)
        print(f"greedy vs random as {colour}: {wins}/{games} won, 95% interval [{low:.3f}, {high:.3f}]")
    low, high = score_interval(total_wins, args.eval_games)
    print(
        f"greedy vs random, both colours: {total_wins}/{args.eval_games} = {total_wins / args.eval_games:.3f}, "
        f"95% interval [{low:.3f}, {high:.3f}]; cpu {time.process_time() - cpu0:.1f}s, "
        f"wall {time.perf_counter() - wall0:.1f}s in all",
        flush=True,
    )
    return results


if __name__ == "__main__":
    main()
