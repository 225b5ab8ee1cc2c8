"""``amazons train-policy SOURCE... --size N --out PATH [--player SPEC] [--start W] ...``: imitation
(``training.imitation``)."""

from __future__ import annotations

import argparse
from dataclasses import fields

from agents.nets import require_torch

HELP = (
    "train a policy-value net to play an engine's moves from its recorded games (arena results "
    "files, --player picks whose moves) or policy-value shard folders; CUDA when present, else CPU"
)

NOTES = {
    "player": "whose moves in results files: an agent spec prefix, e.g. uct (also matches uct:time=1)",
    "start": "committed policy-value weights by name (default, pv-8x8), a model path, or scratch",
    "channels": "with --start scratch: the residual tower's width",
    "blocks": "with --start scratch: its residual blocks",
    "threads": "torch threads (0: torch's choice)",
    "device": "cuda if present, else cpu",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from training.imitation_config import ImitationConfig

    parser.add_argument("sources", nargs="+", help="arena results files (.json) and policy-value shard folders")
    parser.add_argument("--out", required=True, help="the net's path without suffix (PATH.safetensors, PATH.json)")
    parser.add_argument("--size", required=True, type=int, help="board size of the positions to learn from")
    defaults = ImitationConfig(sources=[], out="", size=8)
    for field in fields(ImitationConfig):
        if field.name in ("sources", "out", "size", "overwrite", "held_out", "held_out_player"):
            continue
        default = getattr(defaults, field.name)
        parser.add_argument(
            "--" + field.name.replace("_", "-"),
            type=type(default),
            default=default,
            help=f"{NOTES.get(field.name, '')} (default: {default!r})".strip(),
        )
    parser.add_argument(
        "--held-out",
        nargs="+",
        default=(),
        metavar="RESULTS",
        help="results files not trained on: report how often the net's first choice is --player's move there, "
        "before and after training",
    )
    parser.add_argument(
        "--held-out-player", default="", metavar="SPEC", help="whose moves --held-out scores (default: --player's)"
    )
    parser.add_argument("--overwrite", action="store_true", help="replace the net at --out if there is one")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    require_torch("amazons train-policy")
    from training.imitation import imitate
    from training.imitation_config import ImitationConfig

    options = {f.name: getattr(args, f.name) for f in fields(ImitationConfig)}
    options["held_out"] = tuple(args.held_out)
    report = imitate(ImitationConfig(**options), progress=not args.no_progress)
    for row in report["history"]:
        print(
            f"epoch {row['epoch']}: loss {row['loss']:.4f} (value {row['value_loss']:.4f}, "
            f"policy {row['policy_loss']:.4f})"
        )
    for when, score in report["agreement"].items():
        print(
            f"held out, {when} training: {score['positions']:,} positions, queen move top-1 {score['slide']:.3f}, "
            f"whole move top-1 {score['move']:.3f}, NLL {score['nll']:.2f} (uniform {score['uniform_nll']:.2f})"
        )
    print(f"{report['positions']:,} positions (data {report['data_hash']}) -> {report['out']}")
    return 0
