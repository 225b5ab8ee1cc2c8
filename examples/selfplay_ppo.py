"""Self-play PPO (CleanRL style, one file) with a small convolutional policy on the vector env.

    pip install -c constraints.txt -e ".[rl]"      # torch; matplotlib for the curve
    python3 examples/selfplay_ppo.py --out runs/ppo6 # 6x6, 15 minutes, 2 threads
    python3 examples/selfplay_ppo.py --out runs/ppo6 --minutes 5 --eval-every 60

One net plays both sides of 64 games in ``AmazonsVectorEnv`` (no opponent: self-play). The
observation is always from the side to move, so the value is the mover's; a two-phase turn
(queen, then arrow) means the next step belongs to the same player after a queen step and to
the other after an arrow step, and GAE flips the sign of the bootstrapped value and of the
advantage carried back across a change of player (zero-sum). Actions use the queen-line
encoding (``action_encoding="lines"``: square x 8 directions x distance), which a fully
convolutional head outputs directly: 8 x (N-1) logits per square.

Every ``--eval-every`` seconds the greedy policy (after one random first turn per game, so that
games differ) plays ``--games`` games against ``random`` and ``two-iteration:depth=1,eval=basic``,
half as White and half as Black. ``--out DIR`` gets ``curve.png``, ``results.md`` (the table),
``results.json`` and the checkpoint ``final.safetensors`` + ``final.json`` (SHA-256 checked on
load; no pickle), all rewritten after every evaluation (Ctrl-C keeps the last ones). The
checkpoint plays in the arena as an agent:

    amazons match "examples/selfplay_ppo.py:checkpoint_agent:path=runs/ppo6/final" random --size 6
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any, Optional

import numpy as np

try:
    import torch
    from torch import nn
except ImportError:  # pragma: no cover - optional dependency
    raise SystemExit('this example needs torch: pip install -c constraints.txt -e ".[rl]"') from None

from agents.policy_agent import PolicyAgent
from amazons_env.selfplay import play_policies
from amazons_env.vector import AmazonsVectorEnv

OPPONENTS = ("random", "two-iteration:depth=1,eval=basic")


class ConvPolicy(nn.Module):
    """A conv trunk; the policy head gives 8 x (N-1) queen-line logits per square (the
    ``"lines"`` encoding's order), the value head a tanh value for the side to move."""

    def __init__(self, size: int, channels: int = 32, blocks: int = 3) -> None:
        super().__init__()
        self.size, self.channels, self.blocks = size, channels, blocks
        layers: list[nn.Module] = [nn.Conv2d(9, channels, 3, padding=1), nn.ReLU()]
        for _ in range(blocks - 1):
            layers += [nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU()]
        self.trunk = nn.Sequential(*layers)
        self.policy = nn.Conv2d(channels, 8 * (size - 1), 1)
        self.value = nn.Sequential(nn.Flatten(), nn.Linear(channels * size * size, 64), nn.ReLU(),
                                   nn.Linear(64, 1), nn.Tanh())

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.trunk(planes.float())
        # [B, 8(N-1), rank, file] -> [B, rank, file, 8(N-1)]: action (square * 8 + d) * (N-1) + dist - 1
        logits = self.policy(h).permute(0, 2, 3, 1).reshape(len(planes), -1)
        return logits, self.value(h).squeeze(-1)


def masked(logits: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
    return torch.distributions.Categorical(logits=logits.masked_fill(~mask, -1e9))


def greedy_policy(net: ConvPolicy):
    """The net as a batched policy (numpy in, numpy out): the most likely legal action."""
    def policy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits, _ = net(torch.from_numpy(np.ascontiguousarray(obs)))
            return logits.masked_fill(~torch.from_numpy(mask.astype(bool)), -1e9).argmax(1).numpy()
    return policy


# -- checkpoints: safetensors + JSON with the weights' SHA-256 ---------------------------------------

def save_checkpoint(net: ConvPolicy, base: Path) -> None:
    from safetensors.torch import save_file

    weights = base.with_suffix(".safetensors")
    save_file({k: v.contiguous() for k, v in net.state_dict().items()}, str(weights))
    config = {"format_version": 1, "size": net.size, "channels": net.channels, "blocks": net.blocks,
              "weights_sha256": hashlib.sha256(weights.read_bytes()).hexdigest()}
    base.with_suffix(".json").write_text(json.dumps(config, indent=2) + "\n")


def load_checkpoint(path: str) -> ConvPolicy:
    """The net saved at ``path`` (base name); the config is checked, then the weights' header
    against the net it describes, then their SHA-256, before any tensor is read."""
    from safetensors.torch import load

    from agents.nets.safefiles import ModelFileError, checked_path, file_sha256, read_header, read_json

    base = checked_path(path, "PPO checkpoint")
    config = read_json(base.with_suffix(".json"), "PPO checkpoint config", 1,
                       ("size", "channels", "blocks", "weights_sha256"))
    limits = {"size": (4, 12), "channels": (1, 512), "blocks": (1, 32)}
    for key, (low, high) in limits.items():
        value = config[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ModelFileError(f"PPO checkpoint config {base}.json: {key}={str(value)[:40]} is not in {low}..{high}")
    net = ConvPolicy(config["size"], config["channels"], config["blocks"])
    weights = base.with_suffix(".safetensors")
    read_header(weights, "PPO checkpoint weights",
                {name: ("float32", list(t.shape)) for name, t in net.state_dict().items()}, limit=1 << 30)
    if file_sha256(weights) != config["weights_sha256"]:
        raise ModelFileError(f"PPO checkpoint weights {weights} do not match the SHA-256 in {base}.json")
    net.load_state_dict(load(weights.read_bytes()))
    return net.eval()


def checkpoint_agent(path: str, seed: Optional[int] = None) -> PolicyAgent:
    """The arena factory: ``examples/selfplay_ppo.py:checkpoint_agent:path=DIR/final``."""
    net = load_checkpoint(path)
    return PolicyAgent(greedy_policy(net), net.size, action_encoding="lines", name=f"ppo:{path}", seed=seed)


# -- PPO ---------------------------------------------------------------------------------------------

def gae(rewards, values, dones, actors, next_value, next_actor, gamma: float, lam: float) -> torch.Tensor:
    """Advantages of the mover at each step; a change of mover flips the sign of what is
    carried back (zero-sum). ``dones[t]``: the game ended at step t (or step t was an autoreset)."""
    steps = len(rewards)
    advantages = torch.zeros_like(rewards)
    last = torch.zeros_like(next_value)
    for t in reversed(range(steps)):
        value, actor = (next_value, next_actor) if t == steps - 1 else (values[t + 1], actors[t + 1])
        sign = torch.where(actor == actors[t], 1.0, -1.0) * (1.0 - dones[t])
        delta = rewards[t] + gamma * sign * value - values[t]
        last = delta + gamma * lam * sign * last
        advantages[t] = last
    return advantages


def train(args: argparse.Namespace, result: dict[str, Any]) -> None:
    """Train until the budget is spent, keeping ``result`` (net, history, times) up to date so
    that an interrupted run still reports what it reached."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    size, b, t_len = args.size, args.envs, args.steps
    envs = AmazonsVectorEnv(b, size=size, action_encoding="lines", mask_dtype="bool", num_threads=1)
    net = ConvPolicy(size, args.channels, args.blocks)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr, eps=1e-5)
    n_actions = envs.single_action_space.n
    obs_buf = torch.zeros((t_len, b, 9, size, size), dtype=torch.int8)
    mask_buf = torch.zeros((t_len, b, n_actions), dtype=torch.bool)
    act_buf = torch.zeros((t_len, b), dtype=torch.long)
    logp_buf, val_buf, rew_buf, done_buf, actor_buf, valid_buf = (torch.zeros((t_len, b)) for _ in range(6))
    obs, infos = envs.reset(seed=args.seed)
    start = time.perf_counter()
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    clock_start = clock()
    history: list[dict[str, Any]] = []
    result.update(net=net, history=history, steps=0, updates=0)
    next_eval, steps_done, updates = 0.0, 0, 0
    while True:
        elapsed = clock() - clock_start
        if elapsed >= next_eval or elapsed >= args.minutes * 60:
            history.append(evaluate(net, args, elapsed, steps_done))
            cpu1 = resource.getrusage(resource.RUSAGE_SELF)
            result.update(wall_s=time.perf_counter() - start, steps=steps_done, updates=updates,
                          cpu_s=(cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime))
            if args.out is not None:
                report(result, args, args.out)
            next_eval = elapsed + args.eval_every
            if elapsed >= args.minutes * 60:
                return
        net.eval()
        for t in range(t_len):  # rollout
            mask = torch.from_numpy(infos["action_mask"].copy())
            valid = mask.any(1)  # false on a game's autoreset step (its action is ignored)
            mask[~valid, 0] = True
            obs_buf[t] = torch.from_numpy(obs.copy())
            mask_buf[t], valid_buf[t], actor_buf[t] = mask, valid.float(), torch.from_numpy(infos["player"] * 1.0)
            with torch.no_grad():
                logits, value = net(obs_buf[t])
                dist = masked(logits, mask)
                action = dist.sample()
            act_buf[t], logp_buf[t], val_buf[t] = action, dist.log_prob(action), value
            obs, rewards, terminated, _, infos = envs.step(action.numpy())
            rew_buf[t] = torch.from_numpy(rewards.astype(np.float32))
            done_buf[t] = torch.from_numpy((terminated | ~valid.numpy()).astype(np.float32))
        with torch.no_grad():
            next_value = net(torch.from_numpy(obs.copy()))[1]
        adv = gae(rew_buf, val_buf, done_buf, actor_buf, next_value, torch.from_numpy(infos["player"] * 1.0),
                  args.gamma, args.lam)
        ret = adv + val_buf
        keep = valid_buf.reshape(-1).bool()
        data = [x.reshape(t_len * b, *x.shape[2:])[keep] for x in (obs_buf, mask_buf, act_buf, logp_buf, adv, ret)]
        net.train()
        count = len(data[0])
        for _ in range(args.epochs):
            order = torch.randperm(count)
            for lo in range(0, count, args.minibatch):
                idx = order[lo:lo + args.minibatch]
                o, m, a, old_logp, a_adv, a_ret = (x[idx] for x in data)
                logits, value = net(o)
                dist = masked(logits, m)
                ratio = (dist.log_prob(a) - old_logp).exp()
                a_adv = (a_adv - a_adv.mean()) / (a_adv.std() + 1e-8)
                policy_loss = torch.max(-a_adv * ratio, -a_adv * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                loss = policy_loss + args.vf_coef * ((value - a_ret) ** 2).mean() - args.ent_coef * dist.entropy().mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                optimizer.step()
        steps_done += t_len * b
        updates += 1


def evaluate(net: ConvPolicy, args: argparse.Namespace, elapsed: float, steps: int) -> dict[str, Any]:
    net.eval()
    row: dict[str, Any] = {"minutes": elapsed / 60, "steps": steps}
    for opponent in OPPONENTS:
        result = play_policies(greedy_policy(net), opponent, size=args.size, games=args.games,
                               seed=10_000 + len(opponent), action_encoding="lines", mask_dtype="bool")
        row[opponent] = result
    print(f"{row['minutes']:6.1f} min {steps:>10,} steps | "
          + " | ".join(f"{o}: {row[o]['score']:.0%} (W {row[o]['white']}, B {row[o]['black']})" for o in OPPONENTS),
          flush=True)
    return row


def report(result: dict[str, Any], args: argparse.Namespace, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    history = result["history"]
    half = args.games // 2
    lines = [f"Self-play PPO on {args.size}x{args.size}: `python3 {' '.join(sys.argv)}`", "",
             f"wall {result['wall_s'] / 60:.1f} min, CPU time {result['cpu_s'] / 60:.1f} min "
             f"(average {result['cpu_s'] / result['wall_s']:.2f} cores), {result['steps']:,} steps, "
             f"{result['updates']} updates; each cell: wins / {args.games} (as White / {half}, as Black / {half})", "",
             f"| {args.clock} minutes | steps | " + " | ".join(f"vs `{o}`" for o in OPPONENTS) + " |",
             "|---:|---:|" + "---:|" * len(OPPONENTS)]
    for row in history:
        cells = [f"{row[o]['score']:.0%} ({row[o]['white']} / {row[o]['black']})" for o in OPPONENTS]
        lines.append(f"| {row['minutes']:.1f} | {row['steps']:,} | " + " | ".join(cells) + " |")
    (out / "results.md").write_text("\n".join(lines) + "\n")
    (out / "results.json").write_text(json.dumps({k: v for k, v in result.items() if k != "net"}, indent=2) + "\n")
    save_checkpoint(result["net"], out / "final")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no curve.png")
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    for o in OPPONENTS:
        ax.plot([r["minutes"] for r in history], [100 * r[o]["score"] for r in history], marker="o", label=f"vs {o}")
    ax.axhline(95, color="grey", linestyle=":")
    ax.axhline(50, color="grey", linestyle=":")
    ax.set_xlabel("wall-clock minutes" if args.clock == "wall" else "CPU minutes of this process")
    ax.set_ylabel(f"win rate, % of {args.games} games")
    ax.set_title(f"Self-play PPO, {args.size}x{args.size}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "curve.png", dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=6)
    parser.add_argument("--minutes", type=float, default=15.0, help="time budget, evaluations included")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="what --minutes, --eval-every and the curve count: wall-clock time, or this "
                             "process's CPU time (fair on a machine shared with other jobs)")
    parser.add_argument("--eval-every", type=float, default=120.0, help="seconds between evaluations (--clock)")
    parser.add_argument("--games", type=int, default=100, help="evaluation games per opponent (even)")
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=64, help="rollout length per update")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatch", type=int, default=512)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--lam", type=float, default=0.95)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--vf-coef", type=float, default=0.5)
    parser.add_argument("--channels", type=int, default=32)
    parser.add_argument("--blocks", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (small batches: a second thread gains little and, on a busy "
                             "machine, spins)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="folder for curve.png, results.md, the checkpoint")
    args = parser.parse_args()
    for name in ("minutes", "eval_every", "lr", "gamma", "lam", "clip"):
        value = getattr(args, name)
        if not np.isfinite(value) or value <= 0:
            parser.error(f"--{name.replace('_', '-')} must be a positive number, got {value}")
    for name in ("size", "games", "envs", "steps", "epochs", "minibatch", "channels", "blocks", "threads"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be positive")
    if args.games % 2:
        parser.error("--games must be even (half as White, half as Black)")
    result: dict[str, Any] = {}
    try:
        train(args, result)
    except KeyboardInterrupt:  # the report of the last evaluation is already written
        raise SystemExit(f"interrupted; {args.out or 'nothing'} holds the results up to the last evaluation") from None
    final = result["history"][-1]
    print(f"\nwall {result['wall_s'] / 60:.1f} min, CPU {result['cpu_s'] / 60:.1f} min "
          f"({result['cpu_s'] / result['wall_s']:.2f} cores), {result['steps']:,} steps")
    for o in OPPONENTS:
        print(f"final vs {o}: {final[o]['score']:.0%} (as White {final[o]['white']}, as Black {final[o]['black']})")
    if args.out is not None:
        print(f"wrote {args.out}/curve.png, results.md, results.json, final.safetensors/.json")


if __name__ == "__main__":
    main()
