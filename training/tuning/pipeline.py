"""The territory weights of one board size, fitted from scratch in one call (``tune``; the command
line's ``amazons tune-eval FOLDER --size N --out PARAMS.json``).

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

import os
from pathlib import Path
from typing import Any, Optional

import numpy as np

from agents.evaluation.territory_weights import write_weights

from training.data.shards import load_dataset
from training.tuning.data import LABELS, SELFPLAY, data_settings, labelled_positions, selfplay_positions
from training.tuning.fit import fit_weights, require_scipy
from training.tuning.model import position_terms

__all__ = ["tune", "summary"]


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
