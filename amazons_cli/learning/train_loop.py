"""``amazons train-loop OUT --size 8 --generations 5 ...``: expert iteration (``training.loop``)."""

from __future__ import annotations

import argparse
from dataclasses import fields
from pathlib import Path
from typing import Any

from agents.nets import require_torch

HELP = (
    "expert iteration: engine games to bootstrap a policy-value net, then generations of batched MCTS "
    "self-play, training and gating matches with Elo (resumable: rerun the same command)"
)


NOTES = {
    "expert": "none: --selfplay's search; else an agent guided by the best net plays, e.g. uct-net:sims=800",
    "root_weight": "0: the value target is the result; 1: the expert's root value",
    "start": "a fresh net; else generation 0 starts from this policy-value net (a committed name or a model path; "
    "its shape, not --channels/--blocks)",
    "selfplay": "gumbel: Gumbel AlphaZero's batched search on --device (agents.search.gumbel)",
    "gumbel_m": "16: with --selfplay gumbel, root actions sampled and halved",
    "gumbel_k": "16: with --selfplay gumbel, children (whole moves) per node",
    "device": "auto: cuda when torch sees a GPU, else cpu; or cpu, cuda, cuda:N",
    "workers": "1, this process; games run in parallel processes or Ray tasks",
    "backend": "local; or ray, see agents.arena.backends",
    "ray_address": "with --backend ray, a local Ray instance; or HOST:6379 of `ray start --head`",
    "ray_gpus": "0: with --backend ray, each self-play task takes a CPU on any node; F > 0: F of a GPU "
    "(on the GPU nodes; 0.25: four tasks to a GPU)",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from training.loop.config import LoopConfig  # not training.loop, which imports torch

    parser.add_argument("out", help="output folder (state, data, nets, elo.csv, elo.png); rerun to resume")
    defaults = LoopConfig(out="")
    for field in fields(LoopConfig):
        if field.name in ("out", "progress"):
            continue
        default = getattr(defaults, field.name)
        kind: Any = type(default) if not isinstance(default, bool) else None
        parser.add_argument(
            "--" + field.name.replace("_", "-"),
            type=kind,
            default=default,
            help=f"(default: {NOTES.get(field.name, repr(default))})",
        )
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def run(args: argparse.Namespace) -> int:
    require_torch("amazons train-loop")
    from training.loop import LoopConfig, train_loop
    from training.loop.state import gate_line

    options = {f.name: getattr(args, f.name) for f in fields(LoopConfig) if f.name not in ("out", "progress")}
    config = LoopConfig(out=args.out, progress=not args.no_progress, **options)
    state = train_loop(config, report=lambda line: print(line, flush=True))
    if state["gates"]:
        print("Elo by generation (gates; 95% intervals):")
        for row in state["gates"]:
            print("  " + gate_line(row))
    best = Path(args.out) / f"gen-{state['best']:03d}" / "pv"
    print(f"best net: generation {state['best']}, {best}.safetensors (play it: uct-net:weights={best})")
    return 0
