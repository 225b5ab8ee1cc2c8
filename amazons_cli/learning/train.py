"""``amazons train DATA... --out DIR [--arch A] [--epochs N] ...``: train a value net."""

from __future__ import annotations

import argparse
import json
from dataclasses import fields

from amazons_env.errors import InvalidArgumentError

from agents.nets import require_torch

from training.optimize.config import TrainConfig

HELP = "train a value net on self-play data (CUDA with mixed precision when present, else CPU)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = TrainConfig(data=[], out="")
    parser.add_argument("data", nargs="+", help="self-play folders (from `amazons selfplay`)")
    parser.add_argument("--out", required=True, help="output folder: metrics.csv, curves.png, best.*, checkpoints/")
    parser.add_argument("--arch", default=defaults.arch, help="StudyCNN or ResValueNet (default %(default)s)")
    parser.add_argument("--kwargs", default="{}", help="architecture arguments as JSON, e.g. '{\"channels\": 32}'")
    for name in ("epochs", "batch_size", "max_positions", "seed", "threads"):
        parser.add_argument("--" + name.replace("_", "-"), type=int, default=getattr(defaults, name))
    for name in ("lr", "weight_decay", "value_weight", "val_fraction"):
        parser.add_argument("--" + name.replace("_", "-"), type=float, default=getattr(defaults, name))
    parser.add_argument("--optimizer", choices=("adam", "sgd"), default=defaults.optimizer)
    parser.add_argument("--no-augment", action="store_true", help="no symmetry augmentation")
    parser.add_argument("--device", default="", help="torch device (default: cuda if available, else cpu)")
    parser.add_argument(
        "--resume", action="store_true", help="continue from the last finished epoch in --out (same settings and data)"
    )


def run(args: argparse.Namespace) -> int:
    try:
        kwargs = json.loads(args.kwargs)
    except (json.JSONDecodeError, RecursionError) as error:
        raise InvalidArgumentError(f"--kwargs {args.kwargs[:100]!r} is not JSON: {str(error)[:100]}") from None
    require_torch("amazons train")
    from training.loop.config import check_device
    from training.optimize.value import train

    check_device(args.device or "auto", "--device")  # before any data is read: a bad name is one line

    # every other field is an option of the same name (add_arguments)
    given = {
        f.name: getattr(args, f.name) for f in fields(TrainConfig) if f.name not in ("kwargs", "augment", "progress")
    }
    config = TrainConfig(**given, kwargs=kwargs, augment=not args.no_augment)
    report = train(config)
    if report["resumed_from"]:
        print(f"resumed after epoch {report['resumed_from']}")
    if report["curves"] is None:
        print("curves.png skipped: matplotlib is not installed (pip install matplotlib; metrics.csv has the figures)")
    last = report["history"][-1]
    print(
        f"{args.arch}: {report['parameters']:,} parameters on {report['device']}; epoch {last['epoch']}: "
        f"val loss {last['val_loss']:.4f}, winner accuracy {last['val_accuracy']:.3f}; best -> {report['best']}"
    )
    return 0
