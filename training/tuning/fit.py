"""The Texel-style fit of the ``territory`` weights to labelled positions (``training.tuning.data``).

The evaluation's value ``v`` of a position, through its own squash, is read as a win probability
``p = (1 + v) / 2``; the fit minimises the cross-entropy of ``p`` against a target that mixes the
game's outcome ``r`` and the deeper search's value ``d`` (both for the side to move):

    y = (1 - deep_weight) (1 + r) / 2 + deep_weight (1 + d) / 2

``deep_weight=0`` is Texel's logistic regression on outcomes, ``1`` a regression to the deeper
search. The eight weights (``PARAM_NAMES``) move within the ranges the evaluator accepts
(``territory_weights.check_params``), by L-BFGS-B from the study set.

Whole games are held out (a seeded ``holdout`` fraction of them), so no game has positions on both
sides of the split. The report compares the fitted set with the study set on the held-out games:
the log loss against the outcome, the squared error against the data's values (``value_mse``: the
deeper search's, or with every self-play position the game's own search's) and the fitted
target's loss, over all positions and per phase (``s`` of the evaluation: ``filling`` where it is
0, then ``buckets`` equal ranges of ``(0, 1]``). With ``buckets > 1`` it also fits one set per range
and reports that too (``phase_sets``): whether weights by phase would pay, in held-out loss.

>>> rng = np.random.default_rng(0)
>>> terms = rng.normal(size=(400, 8)) * 20; terms[:, 6] = rng.uniform(0, 64, 400)
>>> sides = rng.integers(0, 2, 400)
>>> truth = as_array(dict(STUDY, mob=3.0, scale=0.2))
>>> results = np.where(rng.random(400) < (1 + values(truth, terms, sides, 8)) / 2, 1, -1)
>>> data = {"terms": terms, "sides": sides, "results": results, "values": values(truth, terms, sides, 8),
...         "games": np.arange(400)}
>>> report = fit_weights(data, 8, deep_weight=1.0)
>>> fitted, study = report["fitted"]["holdout"], report["study"]["holdout"]
>>> fitted["value_mse"] < study["value_mse"], round(report["params"]["scale"], 2)
(True, 0.2)
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from amazons_env.errors import AmazonsError, InvalidArgumentError

from agents.evaluation.territory_mailbox import PARAM_NAMES
from agents.evaluation.territory_weights import STUDY, as_array

from training.tuning.model import log_values, phase, values

__all__ = ["fit_weights", "holdout_games", "losses", "BOUNDS", "ScipyMissingError", "require_scipy"]


class ScipyMissingError(ImportError, AmazonsError):
    """scipy (the ``tune`` extra) is not installed. An input error too, as ``agents.nets.TorchMissingError``:
    the command line prints its one line with the install command."""


def require_scipy() -> None:
    """``ScipyMissingError`` unless scipy imports: called before the data is made, which takes minutes."""
    try:
        import scipy.optimize  # type: ignore[import-untyped]  # noqa: F401
    except ImportError:
        raise ScipyMissingError(
            'the fit of the territory weights needs scipy: pip install "amazons[tune]" (or pip install scipy)'
        ) from None


#: the range each weight is fitted in: the evaluator's own (``check_params``), closed where it is
#: open or unbounded, so that the optimiser stays on finite, accepted values
BOUNDS = {
    "kappa": (-0.2, 0.2),
    "scale": (0.005, 10.0),
    "mob": (0.0, 200.0),
    "a1": (0.0, 1.0),
    "a2": (0.0, 10.0),
    "a3": (0.0, 10.0),
    "a4": (0.0, 10.0),
    "scale_phase": (-10.0, 10.0),
}
# the optimiser's step sizes are alike when each weight is measured in its own typical size
_TYPICAL = np.array([0.1, 0.1, 10.0, 0.5, 0.5, 0.5, 0.5, 1.0])


def holdout_games(games: np.ndarray, fraction: float, seed: int) -> np.ndarray:
    """Whether each position belongs to a held-out game: a seeded ``fraction`` of the distinct games.

    >>> held = holdout_games(np.array([1, 1, 2, 3, 3, 4]), 0.5, 0)
    >>> held.sum() in (3, 2, 4), bool(held[0] == held[1])
    (True, True)
    """
    distinct = np.unique(games)
    chosen = np.random.default_rng(seed).permutation(distinct)[: int(round(fraction * len(distinct)))]
    return np.isin(games, chosen)


def _targets(data: dict[str, np.ndarray], deep_weight: float) -> np.ndarray:
    return (1.0 - deep_weight) * (1.0 + data["results"]) / 2.0 + deep_weight * (1.0 + data["values"]) / 2.0


def _cross_entropy(params: np.ndarray, data: dict[str, np.ndarray], target: np.ndarray, size: int) -> float:
    log_p, log_q = log_values(params, data["terms"], data["sides"], size)
    return float(-np.mean(target * log_p + (1.0 - target) * log_q))


def losses(params: np.ndarray, data: dict[str, np.ndarray], size: int, deep_weight: float) -> dict[str, Any]:
    """The held-out measures of one weight set on ``data`` (module docstring): ``log_loss``
    (outcome), ``value_mse`` (value against the data's ``values``), ``target_loss`` and ``positions``."""
    if not len(data["sides"]):
        return {"positions": 0}
    value = values(params, data["terms"], data["sides"], size)
    return {
        "positions": int(len(value)),
        "log_loss": _cross_entropy(params, data, (1.0 + data["results"]) / 2.0, size),
        "value_mse": float(np.mean((value - data["values"]) ** 2)),
        "target_loss": _cross_entropy(params, data, _targets(data, deep_weight), size),
    }


def _optimise(data: dict[str, np.ndarray], size: int, deep_weight: float, start: np.ndarray) -> np.ndarray:
    require_scipy()
    from scipy.optimize import minimize  # type: ignore[import-untyped]  # scipy only where a fit runs

    target = _targets(data, deep_weight)
    bounds = [(lo / t, hi / t) for (lo, hi), t in zip(BOUNDS.values(), _TYPICAL, strict=True)]
    found = minimize(
        lambda z: _cross_entropy(z * _TYPICAL, data, target, size),
        start / _TYPICAL,
        method="L-BFGS-B",
        bounds=bounds,
        options={"maxiter": 500},
    )
    return np.clip(found.x * _TYPICAL, [b[0] for b in BOUNDS.values()], [b[1] for b in BOUNDS.values()])


def _rows(data: dict[str, np.ndarray], keep: np.ndarray) -> dict[str, np.ndarray]:
    return {key: array[keep] for key, array in data.items()}


def _phases(s: np.ndarray, buckets: int) -> dict[str, np.ndarray]:
    """The report's phase groups: ``filling`` (s = 0), then ``buckets`` equal ranges of (0, 1]."""
    groups = {"filling": s == 0}
    edges = np.linspace(0.0, 1.0, buckets + 1)
    for k in range(buckets):
        groups[f"s {edges[k]:.2f}-{edges[k + 1]:.2f}"] = (s > edges[k]) & (s <= edges[k + 1])
    return groups


def _check(name: str, value: Any, low: float, high: float, whole: bool = False) -> None:
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not number or not math.isfinite(value) or not low <= value <= high or (whole and value != int(value)):
        kind = "an integer" if whole else "a number"
        raise InvalidArgumentError(f"fit option {name}={value!r}: give {kind} from {low} to {high}")


def fit_weights(
    data: dict[str, np.ndarray],
    size: int,
    deep_weight: float = 0.5,
    holdout: float = 0.2,
    buckets: int = 1,
    seed: int = 0,
    start: Optional[np.ndarray] = None,
) -> dict[str, Any]:
    """Fit the weights to ``data`` (arrays ``terms``, ``sides``, ``results``, ``values``, ``games``
    of playable positions: ``model.position_terms``) of ``size`` x ``size`` boards; the report:
    ``params`` (by name), ``study`` and ``fitted`` (``train`` and ``holdout`` losses, per phase)
    and, with ``buckets > 1``, ``phase_sets`` (a set per phase range and its held-out losses)."""
    _check("deep_weight", deep_weight, 0.0, 1.0)
    _check("holdout", holdout, 0.0, 0.9)
    _check("buckets", buckets, 1, 20, whole=True)
    _check("seed", seed, 0, 2**63 - 1, whole=True)
    held = holdout_games(data["games"], holdout, seed)
    train, test = _rows(data, ~held), _rows(data, held)
    if len(train["sides"]) == 0:
        raise InvalidArgumentError(f"fit: no training positions left ({len(held)} positions, holdout={holdout})")
    study = as_array(STUDY)
    fitted = _optimise(train, size, deep_weight, study if start is None else np.asarray(start, dtype=np.float64))

    def measured(params: np.ndarray) -> dict[str, Any]:
        groups = _phases(phase(test["terms"], size), buckets)
        return {
            "train": losses(params, train, size, deep_weight),
            "holdout": losses(params, test, size, deep_weight),
            "holdout_by_phase": {
                name: losses(params, _rows(test, rows), size, deep_weight) for name, rows in groups.items()
            },
        }

    report: dict[str, Any] = {
        "params": {name: float(v) for name, v in zip(PARAM_NAMES, fitted, strict=True)},
        "settings": {"deep_weight": deep_weight, "holdout": holdout, "buckets": int(buckets), "seed": int(seed)},
        "games": {"train": int(len(np.unique(train["games"]))), "holdout": int(len(np.unique(test["games"])))},
        "study": measured(study),
        "fitted": measured(fitted),
    }
    if buckets > 1:
        report["phase_sets"] = _phase_sets(train, test, size, deep_weight, buckets, fitted)
    return report


def _phase_sets(
    train: dict[str, np.ndarray],
    test: dict[str, np.ndarray],
    size: int,
    deep_weight: float,
    buckets: int,
    fitted: np.ndarray,
) -> dict[str, Any]:
    """One set fitted per phase range (from the single fitted set), and the held-out losses of
    the sets together: what weights by phase would gain over one set."""
    train_groups = _phases(phase(train["terms"], size), buckets)
    test_groups = _phases(phase(test["terms"], size), buckets)
    sets, value, outcome = {}, np.zeros(len(test["sides"])), np.zeros(len(test["sides"]))
    for name, rows in train_groups.items():
        own = _optimise(_rows(train, rows), size, deep_weight, fitted) if rows.sum() >= 50 else fitted
        sets[name] = {key: float(v) for key, v in zip(PARAM_NAMES, own, strict=True)}
        where = test_groups[name]
        part = _rows(test, where)
        value[where] = values(own, part["terms"], part["sides"], size)
        log_p, log_q = log_values(own, part["terms"], part["sides"], size)
        outcome[where] = np.where(part["results"] > 0, log_p, log_q)
    return {
        "params": sets,
        "holdout": {
            "log_loss": float(-np.mean(outcome)) if len(outcome) else None,
            "value_mse": float(np.mean((value - test["values"]) ** 2)) if len(value) else None,
        },
    }
