"""The options of ``examples/selfplay_ppo.py``: their defaults, which of them a resumed run may
change, their checks, and the command line that reads them and, from ``--out``, the state to resume.

>>> check_options(DEFAULTS) is None
True
>>> check_options({**DEFAULTS, "games": 3})
'--games must be even (half as White, half as Black)'
>>> args, state = parse("self-play PPO", ["--size", "4", "--updates", "2"])
>>> args.size, args.updates, args.out, state
(4, 2, None, None)
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Optional

import numpy as np
from ppo_state import STATE_FILE, State, has_state, read_state

from agents.nets.safefiles import ModelFileError

__all__ = ["DEFAULTS", "FREE", "options_of", "check_options", "parse"]

DEFAULTS: dict[str, Any] = {
    "size": 6,
    "minutes": 15.0,
    "updates": 0,
    "clock": "wall",
    "eval_every": 120.0,
    "games": 100,
    "envs": 64,
    "steps": 64,
    "epochs": 4,
    "minibatch": 512,
    "lr": 1e-3,
    "gamma": 0.99,
    "lam": 0.95,
    "clip": 0.2,
    "ent_coef": 0.01,
    "vf_coef": 0.5,
    "channels": 32,
    "blocks": 3,
    "threads": 1,
    "seed": 0,
}
FREE = ("minutes", "updates", "eval_every", "threads")  # what a resumed run may change


def options_of(args: argparse.Namespace) -> dict[str, Any]:
    """The run's options as the state saves them (everything but ``--out``)."""
    return {name: getattr(args, name) for name in DEFAULTS}


def check_options(options: dict[str, Any]) -> Optional[str]:
    """What is wrong with ``options`` (given or read back from a state), or ``None``."""
    if set(options) != set(DEFAULTS):
        return f"options {sorted(set(options) ^ set(DEFAULTS))} are not this example's"
    for name, default in DEFAULTS.items():
        value, flag = options[name], f"--{name.replace('_', '-')}"
        if isinstance(default, str):
            if value not in ("wall", "cpu"):
                return f"{flag} must be wall or cpu, got {value!r}"
        elif isinstance(default, float):
            if type(value) not in (int, float) or not np.isfinite(value) or value <= 0:
                return f"{flag} must be a positive number, got {value!r}"
        elif type(value) is not int or value < (0 if name in ("updates", "seed") else 1):
            return f"{flag} must be an integer >= {0 if name in ('updates', 'seed') else 1}, got {value!r}"
    if options["games"] % 2:
        return "--games must be even (half as White, half as Black)"
    return None


def parse(description: str, argv: Optional[list[str]] = None) -> tuple[argparse.Namespace, Optional[State]]:
    """The options and, if ``--out`` holds one, the state to resume (whose options fill in what
    the command line leaves out); ``description`` heads the help."""
    parser = argparse.ArgumentParser(description=description, argument_default=argparse.SUPPRESS)
    helps = {
        "size": "board size",
        "envs": "games played at once",
        "epochs": "PPO epochs per update",
        "channels": "conv channels",
        "blocks": "conv layers",
        "seed": "seed of torch and of the games",
        "minutes": "time budget, evaluations included",
        "updates": "stop after this many updates (0: no limit)",
        "clock": "what --minutes, --eval-every and the curve count: wall-clock time, or this process's CPU "
        "time (fair on a machine shared with other jobs)",
        "eval_every": "seconds between evaluations (--clock)",
        "games": "evaluation games per opponent (even)",
        "steps": "rollout length per update",
        "threads": "torch threads (small batches: a second thread gains little and, on a busy machine, spins)",
    }
    for name, default in DEFAULTS.items():
        extra = {"choices": ("wall", "cpu")} if name == "clock" else {"type": type(default)}
        parser.add_argument("--" + name.replace("_", "-"), help=f"{helps.get(name, name)} (default {default})", **extra)
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder for curve.png, results.md, the net and the training state (resumed if present)",
    )
    parser.add_argument("--resume", action="store_true", default=False, help="insist on resuming the state in --out")
    given = vars(parser.parse_args(argv))
    out, resume = given.pop("out"), given.pop("resume")
    state = None
    if out is not None and out.exists() and not out.is_dir():
        parser.error(f"--out {out} is not a folder")
    if out is not None and has_state(out):
        try:
            state = read_state(out)
        except ModelFileError as error:
            parser.error(str(error))
        saved = state.options
        changed = [
            f"--{k.replace('_', '-')} {saved[k]} (given {v})"
            for k, v in given.items()
            if k not in FREE and k in saved and v != saved[k]
        ]
        if changed:
            parser.error(
                f"{out} holds a run made with {', '.join(changed)}: resume with the same options "
                "(or leave them out), or use another --out"
            )
    elif resume:
        parser.error(f"--resume: {out or 'no --out'} holds no {STATE_FILE} to resume")
    options = {**DEFAULTS, **(state.options if state is not None else {}), **given}
    problem = check_options(options)
    if problem:
        parser.error(problem if state is None else f"the state in {out}: {problem}")
    return argparse.Namespace(**options, out=out), state
