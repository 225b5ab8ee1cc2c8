"""``python3 -m training.tuning FOLDER --size N --out PARAMS.json`` (also ``amazons tune-eval``): the
territory weights of one board size, fitted from scratch in one command.

It makes (or resumes) the labelled positions in ``FOLDER`` (``training.tuning.data``: uct self-play,
then the deeper search's values), fits the weights (``training.tuning.fit``) and writes the
parameter file (``agents.evaluation.territory_weights``: the weights, the labels' ``data_hash``,
the settings and the held-out losses, sealed with its own hash). The same arguments give the same
file: every draw is seeded, the searches run at fixed simulations. Ctrl-C loses at most the shard
in progress; the same command resumes.

>>> import tempfile, os
>>> folder = tempfile.mkdtemp()
>>> report = tune(folder, size=6, games=4, sims=20, deep_sims=40, per_game=3, games_per_shard=2,
...               holdout=0.5, progress=False)
>>> os.path.exists(os.path.join(folder, "territory-6x6.json")), sorted(report["data"])
(True, ['data_hash', 'positions', 'selfplay_hash', 'settings'])
"""

from __future__ import annotations

import argparse
import os
from dataclasses import fields
from pathlib import Path
from typing import Any, Optional

import numpy as np

from agents.evaluation.territory_weights import write_weights

from training.data.shards import load_dataset
from training.tuning.data import LABELS, SELFPLAY, DataSettings, data_settings, labelled_positions, selfplay_positions
from training.tuning.fit import fit_weights, require_scipy
from training.tuning.model import position_terms

__all__ = ["tune", "add_arguments", "run", "summary", "HELP"]

HELP = "fit the territory evaluation's weights for one board size to uct games (data resumable)"


def tune(
    folder: "str | os.PathLike",
    deep_weight: float = 0.5,
    holdout: float = 0.2,
    buckets: int = 1,
    out: Optional["str | os.PathLike"] = None,
    progress: bool = True,
    **options: Any,
) -> dict[str, Any]:
    """Make the data (``options``: ``training.tuning.data.DataSettings``' fields), fit, write the
    parameter file (``out``, by default ``FOLDER/territory-NxN.json``); the fit's report
    (``fit.fit_weights``) with ``data``: the hashes of the self-play games and of the data fitted
    (the labels, or with ``deep_weight=0`` every self-play position and its outcome: no deeper
    search runs), and the data's settings."""
    spec = data_settings(**options)  # checked before anything runs
    require_scipy()  # the fit needs it: say so before the data takes minutes
    size = spec.size
    if deep_weight == 0:  # outcomes only: every self-play position, no deeper search needed
        selfplay_positions(folder, progress, **options)
        data, data_hash = load_dataset(Path(folder) / SELFPLAY)
        settings = {"size": int(size), "selfplay_hash": data_hash, "positions": "every self-play position"}
    else:
        settings = labelled_positions(folder, progress, **options)["settings"]
        data, data_hash = load_dataset(Path(folder) / LABELS)
    terms, playable = position_terms(data["cells"], data["sides"], size)
    rows = {"terms": terms, **{key: data[key] for key in ("sides", "results", "values", "games")}}
    report = fit_weights(
        {key: np.asarray(array)[playable] for key, array in rows.items()},
        size,
        deep_weight,
        holdout,
        buckets,
        spec.seed,
    )
    report["data"] = {
        "data_hash": data_hash,
        "selfplay_hash": settings["selfplay_hash"],
        "positions": int(playable.sum()),
        "settings": {
            "games": int(spec.games),
            "sims": int(spec.sims),
            "random_plies": [int(x) for x in spec.random_plies],
            "games_per_shard": int(spec.games_per_shard),
            **settings,
        },
    }
    path = Path(folder) / f"territory-{size}x{size}.json" if out is None else Path(out)
    write_weights(path, size, report["params"], data_hash, {k: v for k, v in report.items() if k != "params"})
    return report


def summary(report: dict[str, Any]) -> str:
    """The report in a few lines: the weights, and the held-out losses of the study and fitted sets."""
    lines = ["weights: " + ", ".join(f"{k}={v:.4g}" for k, v in report["params"].items())]
    for name in ("study", "fitted"):
        held = report[name]["holdout"]
        lines.append(
            f"{name:>6}: held-out log loss {held['log_loss']:.4f}, value MSE {held['value_mse']:.4f} "
            f"({held['positions']} positions)"
        )
    if "phase_sets" in report:
        held = report["phase_sets"]["holdout"]
        lines.append(f"a set per phase: held-out log loss {held['log_loss']:.4f}, value MSE {held['value_mse']:.4f}")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    d = DataSettings()  # the defaults' one home
    parser.add_argument("folder", help="data folder (selfplay/ and labels/ shards; resumed when rerun)")
    parser.add_argument("--size", type=int, default=d.size, help=f"board size (default {d.size})")
    parser.add_argument("--games", type=int, default=d.games, help=f"self-play games (default {d.games})")
    parser.add_argument(
        "--sims", type=int, default=d.sims, help=f"uct simulations per self-play move (default {d.sims})"
    )
    parser.add_argument(
        "--deep-sims",
        type=int,
        default=d.deep_sims,
        help=f"uct simulations of the deeper search per label (default {d.deep_sims})",
    )
    parser.add_argument(
        "--per-game", type=int, default=d.per_game, help=f"positions labelled per game (default {d.per_game})"
    )
    parser.add_argument(
        "--seed", type=int, default=d.seed, help=f"seed of the games, the draws and the split (default {d.seed})"
    )
    parser.add_argument(
        "--random-plies",
        type=int,
        nargs=2,
        default=d.random_plies,
        metavar=("LOW", "HIGH"),
        help="random opening moves per game, drawn from LOW..HIGH (default %d %d)" % d.random_plies,
    )
    parser.add_argument(
        "--games-per-shard", type=int, default=d.games_per_shard, help=f"games per shard (default {d.games_per_shard})"
    )
    parser.add_argument(
        "--deep-weight", type=float, default=0.5, help="target: 0 the outcome, 1 the deeper value (default 0.5)"
    )
    parser.add_argument("--holdout", type=float, default=0.2, help="fraction of games held out (default 0.2)")
    parser.add_argument(
        "--buckets", type=int, default=1, help="phase ranges to fit a set each, for the report (default 1)"
    )
    parser.add_argument("--out", default=None, help="parameter file (default FOLDER/territory-NxN.json)")


def run(args: argparse.Namespace) -> int:
    report = tune(
        args.folder,
        args.deep_weight,
        args.holdout,
        args.buckets,
        args.out,
        **{f.name: getattr(args, f.name) for f in fields(DataSettings)},
    )
    print(summary(report))
    print(f"data {report['data']['data_hash']} ({report['data']['positions']} positions)")
    return 0
