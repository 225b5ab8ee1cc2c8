"""Self-play PPO (CleanRL style) with a small convolutional policy on the vector env.

    pip install -c constraints.txt -e ".[rl]"      # torch; matplotlib for the curve
    python3 examples/selfplay_ppo.py --out runs/ppo6 # 6x6, 15 minutes, one torch thread
    python3 examples/selfplay_ppo.py --out runs/ppo6 --minutes 5 --eval-every 60

One net plays both sides of 64 games in ``AmazonsVectorEnv`` (no opponent: self-play). The
observation is always from the side to move, so the value is the mover's; a two-phase turn
(queen, then arrow) means the next step belongs to the same player after a queen step and to
the other after an arrow step, and GAE flips the sign of the bootstrapped value and of the
advantage carried back across a change of player (zero-sum). Actions use the queen-line
encoding (``action_encoding="lines"``: square x 8 directions x distance), which a fully
convolutional head outputs directly: 8 x (N-1) logits per square.

Every ``--eval-every`` seconds the greedy policy (after one random first turn per game, so that
games differ) plays ``--games`` games against ``random`` (the vector env's batched random opponent:
a uniformly random queen move, then arrow) and ``two-iteration:depth=1,eval=basic``, half as White
and half as Black. ``examples/ppo_scores.py DIR/final --size N`` scores the net against the
``random`` agent, ``alphabeta:depth=1`` and ``uct:sims=100`` (wins per colour, 95% intervals).
``--out DIR`` gets ``curve.png``, ``results.md`` (the table),
``results.json`` and the net ``final.safetensors`` + ``final.json`` (SHA-256 checked on load; no
pickle; ``examples/ppo_policy.py``: the net and its files), all rewritten after every evaluation.
The net plays in the arena as an agent:

    amazons match "examples/selfplay_ppo.py:checkpoint_agent:path=runs/ppo6/final" random --size 6

**Resume.** ``DIR`` also gets the training state after every update (``examples/ppo_state.py``:
net, Adam, random generators, counters, budget used, evaluation history; SHA-256 checked, no
pickle). Ctrl-C (or SIGTERM) finishes the update in progress, saves and stops; a second Ctrl-C
or a kill stops at once and loses at most that update. Running the same command again (or any
with the same ``--out``; ``--resume`` insists that there is a state) goes on from it: counters,
budget, curve and table continue. Options that shape the run must stay as saved (they may be
left out); ``--minutes``, ``--updates``, ``--eval-every`` and ``--threads`` may change, e.g. a
larger ``--minutes`` extends a finished run (to start afresh, use another ``--out``). The games
in progress restart on resume. ``examples/ppo_options.py``: the options, their checks and the
command line.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import signal
import sys
import time
from pathlib import Path
from typing import Any, Optional

import numpy as np
from gymnasium import spaces

try:
    import torch
    from torch import nn
except ImportError:  # pragma: no cover - optional dependency
    raise SystemExit('this example needs torch: pip install -c constraints.txt -e ".[rl]"') from None

from amazons_env.envs.policy_pool import play_policies
from amazons_env.envs.vector_env import AmazonsVectorEnv

from agents.nets.safefiles import ModelFileError

if str(Path(__file__).resolve().parent) not in sys.path:  # the ppo_*.py modules lie beside this file
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from ppo_options import DEFAULTS, options_of, parse  # noqa: E402
from ppo_policy import ConvPolicy, checkpoint_agent, greedy_policy, load_checkpoint, masked, save_checkpoint  # noqa: E402
from ppo_state import Progress, State, restore, save_state  # noqa: E402

# checkpoint_agent is the arena's factory for this file's spec, and load_checkpoint reads its nets back
__all__ = ["checkpoint_agent", "load_checkpoint", "main"]

OPPONENTS = ("random", "two-iteration:depth=1,eval=basic")


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


def train(args: argparse.Namespace, state: Optional[State] = None) -> tuple[Progress, bool]:
    """Train until the budget is spent or a signal asks to stop, saving the state in ``args.out``
    after every update and evaluation; go on from ``state`` if given. Returns the progress and
    whether a signal stopped it."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    size, b, t_len = args.size, args.envs, args.steps
    # copy=False: the rollout copies each step into its buffers, so the env's own views suffice
    envs = AmazonsVectorEnv(b, size=size, action_encoding="lines", mask_dtype="bool", num_threads=1, copy=False)
    net = ConvPolicy(size, args.channels, args.blocks)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr, eps=1e-5)
    rng, env_rng = np.random.default_rng(args.seed), np.random.default_rng()
    progress = Progress()
    if state is not None:
        progress = restore(state, net, optimizer, rng, env_rng)
        progress.sessions += 1
    obs, infos = envs.reset(seed=int(rng.integers(2**63)))
    if state is not None:
        envs.np_random = env_rng
    action_space = envs.single_action_space
    assert isinstance(action_space, spaces.Discrete)  # the "lines" encoding: one integer per action
    n_actions = action_space.n
    obs_buf = torch.zeros((t_len, b, 9, size, size), dtype=torch.int8)
    mask_buf = torch.zeros((t_len, b, n_actions), dtype=torch.bool)
    act_buf = torch.zeros((t_len, b), dtype=torch.long)
    logp_buf, val_buf, rew_buf, done_buf, actor_buf, valid_buf = (torch.zeros((t_len, b)) for _ in range(6))
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    clock_start, wall_start, cpu_start = clock() - progress.elapsed, time.perf_counter(), cpu_seconds()
    wall_before, cpu_before = progress.wall_s, progress.cpu_s

    def checkpoint() -> None:
        progress.elapsed = clock() - clock_start
        progress.wall_s = wall_before + time.perf_counter() - wall_start
        progress.cpu_s = cpu_before + cpu_seconds() - cpu_start
        if args.out is not None:
            save_state(args.out, net, optimizer, progress, options_of(args), rng, envs.np_random)

    with StopOnSignal() as stop:
        while True:
            elapsed = clock() - clock_start
            done = elapsed >= args.minutes * 60 or 0 < args.updates <= progress.updates
            if (elapsed >= progress.next_eval or done) and progress.last_eval != progress.updates:
                progress.history.append(evaluate(net, args, elapsed, progress.steps))
                progress.last_eval, progress.next_eval = progress.updates, elapsed + args.eval_every
                checkpoint()
                if args.out is not None:
                    report(progress, net, args)
            if done or stop.requested:
                return progress, stop.requested
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
            adv = gae(
                rew_buf,
                val_buf,
                done_buf,
                actor_buf,
                next_value,
                torch.from_numpy(infos["player"] * 1.0),
                args.gamma,
                args.lam,
            )
            update(net, optimizer, args, [obs_buf, mask_buf, act_buf, logp_buf, adv, adv + val_buf], valid_buf)
            progress.steps += t_len * b
            progress.updates += 1
            checkpoint()


def update(
    net: ConvPolicy,
    optimizer: torch.optim.Optimizer,
    args: argparse.Namespace,
    rollout: list[torch.Tensor],
    valid: torch.Tensor,
) -> None:
    """PPO epochs over the valid steps of ``rollout`` (observations, masks, actions, log-probs,
    advantages, returns)."""
    keep = valid.reshape(-1).bool()
    data = [x.reshape(-1, *x.shape[2:])[keep] for x in rollout]
    net.train()
    count = len(data[0])
    for _ in range(args.epochs):
        order = torch.randperm(count)
        for lo in range(0, count, args.minibatch):
            idx = order[lo : lo + args.minibatch]
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


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class StopOnSignal:
    """While active, the first SIGINT (Ctrl-C) or SIGTERM sets ``requested`` (the loop saves and
    stops after the update in progress); a second SIGINT raises ``KeyboardInterrupt`` at once."""

    def __enter__(self) -> "StopOnSignal":
        self.requested, self._previous = False, {}
        try:
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._previous[sig] = signal.signal(sig, self._handle)
        except ValueError:  # not the main thread: signals keep their default effect
            pass
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.requested = True
        print("\nstopping after this update, then saving (Ctrl-C again: stop now, losing this update)", flush=True)

    def __exit__(self, *exc: Any) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


def evaluate(net: ConvPolicy, args: argparse.Namespace, elapsed: float, steps: int) -> dict[str, Any]:
    net.eval()
    row: dict[str, Any] = {"minutes": elapsed / 60, "steps": steps}
    for opponent in OPPONENTS:
        result = play_policies(
            greedy_policy(net),
            opponent,
            size=args.size,
            games=args.games,
            seed=10_000 + len(opponent),
            action_encoding="lines",
            mask_dtype="bool",
        )
        row[opponent] = result
    print(
        f"{row['minutes']:6.1f} min {steps:>10,} steps | "
        + " | ".join(f"{o}: {row[o]['score']:.0%} (W {row[o]['white']}, B {row[o]['black']})" for o in OPPONENTS),
        flush=True,
    )
    return row


def report(progress: Progress, net: ConvPolicy, args: argparse.Namespace) -> None:
    out, history = args.out, progress.history
    half = args.games // 2
    changed = [f"--{k.replace('_', '-')} {v}" for k, v in options_of(args).items() if v != DEFAULTS[k]]
    lines = [
        f"Self-play PPO on {args.size}x{args.size}: `python3 examples/selfplay_ppo.py {' '.join(changed)} --out {out}`",
        "",
        f"wall {progress.wall_s / 60:.1f} min, CPU time {progress.cpu_s / 60:.1f} min "
        f"(average {progress.cpu_s / max(progress.wall_s, 1e-9):.2f} cores), {progress.steps:,} steps, "
        f"{progress.updates} updates, {progress.sessions} session(s); "
        f"each cell: wins / {args.games} (as White / {half}, as Black / {half})",
        "",
        f"| {args.clock} minutes | steps | " + " | ".join(f"vs `{o}`" for o in OPPONENTS) + " |",
        "|---:|---:|" + "---:|" * len(OPPONENTS),
    ]
    for row in history:
        cells = [f"{row[o]['score']:.0%} ({row[o]['white']} / {row[o]['black']})" for o in OPPONENTS]
        lines.append(f"| {row['minutes']:.1f} | {row['steps']:,} | " + " | ".join(cells) + " |")
    (out / "results.md").write_text("\n".join(lines) + "\n")
    results = {"options": options_of(args), **dataclasses.asdict(progress)}
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    save_checkpoint(net, out / "final")
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
    plt.close(fig)


def main(argv: Optional[list[str]] = None) -> None:
    args, state = parse(__doc__.split("\n\n")[0], argv)
    if state is not None:
        saved = state.config["progress"]
        print(
            f"resuming {args.out}: {saved['updates']} updates, {saved['steps']:,} steps, "
            f"{saved['elapsed'] / 60:.1f} of {args.minutes:g} {args.clock} minutes used",
            flush=True,
        )
    try:
        progress, stopped = train(args, state)
    except KeyboardInterrupt:
        raise SystemExit(
            f"interrupted; {args.out or 'no --out: nothing'} holds the state after the last "
            "finished update: run the same command to go on"
        ) from None
    except ModelFileError as error:
        raise SystemExit(f"error: {error}") from None
    if stopped:
        raise SystemExit(
            f"stopped after update {progress.updates}; {args.out or 'no --out: nothing'} holds the "
            "state: run the same command to go on"
        )
    final = progress.history[-1]
    print(
        f"\nwall {progress.wall_s / 60:.1f} min, CPU {progress.cpu_s / 60:.1f} min "
        f"({progress.cpu_s / max(progress.wall_s, 1e-9):.2f} cores), {progress.steps:,} steps, "
        f"{progress.updates} updates"
    )
    for o in OPPONENTS:
        print(f"final vs {o}: {final[o]['score']:.0%} (as White {final[o]['white']}, as Black {final[o]['black']})")
    if args.out is not None:
        print(f"wrote {args.out}/curve.png, results.md, results.json, final.safetensors/.json and the state")


if __name__ == "__main__":
    main()
