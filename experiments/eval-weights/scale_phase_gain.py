"""What the phase-dependent scale is worth in held-out log loss: the fit of ``training.tuning``
with ``scale_phase`` held at 0 (the seven weights of the study) and free, on the same positions,
the same split; a set per phase range is ``tune-eval --buckets 4``'s ``phase_sets``.

    python3 experiments/eval-weights/scale_phase_gain.py 8 experiments/eval-weights/data/8x8/selfplay 0
    python3 experiments/eval-weights/scale_phase_gain.py 8 experiments/eval-weights/data/8x8/labels 0.5
"""

from __future__ import annotations

import sys

import numpy as np

import training.tuning.fit as fit
from training.data.shards import load_dataset
from training.tuning.model import position_terms

size, folder, deep_weight = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
data, _ = load_dataset(folder)
terms, playable = position_terms(data["cells"], data["sides"], size)
rows = {"terms": terms, **{key: data[key] for key in ("sides", "results", "values", "games")}}
rows = {key: np.asarray(value)[playable] for key, value in rows.items()}
free = fit.BOUNDS["scale_phase"]
for name, bounds in (("scale_phase = 0", (0.0, 0.0)), ("scale_phase free", free)):
    fit.BOUNDS["scale_phase"] = bounds
    held = fit.fit_weights(rows, size, deep_weight)["fitted"]["holdout"]
    print(f"{name}: held-out log loss {held['log_loss']:.4f}, value MSE {held['value_mse']:.4f}")
