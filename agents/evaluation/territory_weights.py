"""Weight sets of the ``territory`` evaluation: the study's published set, fitted sets per board
size, and the parameter files that hold them.

* ``STUDY``: the published 10x10 tuning (Lieberum's evaluation as the study set it), the set every
  size used before the fits, and the one a size without a fitted set still uses.
* A parameter file (``training.tuning`` writes it): JSON with the board ``size``, the ``params``
  by name, the ``data_hash`` of the labelled positions it was fitted to, the fit's settings and
  held-out losses (``fit``), and the ``sha256`` of the document itself (``amazons_env.files``),
  checked whenever it is read: an edited file is refused.
* ``packaged_weights(size)``: the default set shipped for ``size`` (``weights/territory-8x8.json``
  ...), or ``None`` where none was shipped (the study set applies).
* ``check_params``: the range of every weight, shared by the evaluator's options and the files.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "territory-6x6.json")
>>> write_weights(path, 6, dict(STUDY, mob=4.0), data_hash="0123456789abcdef", fit={"positions": 10})
>>> size, params = read_weights(path)
>>> size, float(params[PARAM_NAMES.index("mob")])
(6, 4.0)
>>> _ = open(path, "a").write(" ")  # whitespace does not change the content: still accepted
>>> read_weights(path)[0]
6
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any, Mapping, Optional

import numpy as np

from amazons_env import core
from amazons_env.errors import InvalidFileError
from amazons_env.files import PathLike, is_sealed, read_json, seal, write_json

from agents.evaluation.territory_mailbox import PARAM_NAMES

__all__ = [
    "STUDY",
    "WEIGHTS_FOLDER",
    "WEIGHTS_VERSION",
    "WeightsFileError",
    "check_params",
    "as_array",
    "weights_path",
    "packaged_weights",
    "read_weights",
    "write_weights",
]

#: the published 10x10 tuning, in ``PARAM_NAMES``' order (the README's "Engines" section)
STUDY: dict[str, float] = {
    "kappa": 0.1,
    "scale": 0.1,
    "mob": 10.0,
    "a1": 0.6,
    "a2": 0.2,
    "a3": 0.4,
    "a4": 0.5,
    "scale_phase": 0.0,  # not in the study: the tanh's scale the same in every phase
}
WEIGHTS_FOLDER = Path(__file__).resolve().parent / "weights"
WEIGHTS_VERSION = 1
_KEYS = ("format_version", "evaluator", "size", "params", "data_hash", "fit", "sha256")
_MAX_BYTES = 1 << 20


class WeightsFileError(InvalidFileError):
    """A territory parameter file that cannot be used: malformed, edited, or a weight out of range."""


def check_params(values: Mapping[str, Any], error: type[ValueError], where: str) -> None:
    """Raise ``error`` naming ``where`` and the weight when one of ``values`` (by name, any subset
    of ``PARAM_NAMES``) is not a finite number in its range: ``|kappa| <= 0.2`` (Lieberum's tie
    bonus), ``scale > 0``, ``mob`` and ``a1``..``a4`` ``>= 0``, ``a1 <= 1`` (``1 - a1 s >= 0``),
    ``|scale_phase| <= 10`` (the scale grows or shrinks at most e^10-fold from the filling phase to
    the open board).

    >>> check_params({"a1": 1.5}, ValueError, "territory")
    Traceback (most recent call last):
        ...
    ValueError: territory: a1=1.5: f1 = 1 - a1 s must stay >= 0, so a1 <= 1
    """
    for name, value in values.items():
        if name not in PARAM_NAMES:
            raise error(f"{where}: {name!r} is no territory weight; they are {', '.join(PARAM_NAMES)}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise error(f"{where}: {name}={value!r}: must be a finite number")
        if name == "kappa" and not abs(value) <= 0.2:
            raise error(f"{where}: kappa={value!r}: Lieberum's tie bonus must satisfy |kappa| <= 0.2")
        if name == "scale" and not value > 0:
            raise error(f"{where}: scale={value!r}: must be > 0 (squares per unit of tanh input / board squares)")
        if name == "scale_phase" and not abs(value) <= 10:
            raise error(f"{where}: scale_phase={value!r}: must satisfy |scale_phase| <= 10")
        if name not in ("kappa", "scale", "scale_phase") and not value >= 0:
            raise error(f"{where}: {name}={value!r}: phase weights and the mobility penalty must be >= 0")
        if name == "a1" and value > 1:
            raise error(f"{where}: a1={value!r}: f1 = 1 - a1 s must stay >= 0, so a1 <= 1")


def as_array(values: Mapping[str, float]) -> np.ndarray:
    """A full weight set by name as the kernels' ``float64`` array (``PARAM_NAMES``' order)."""
    return np.array([float(values[name]) for name in PARAM_NAMES], dtype=np.float64)


def weights_path(size: int) -> Path:
    """Where the default set of ``size`` is shipped (whether or not it exists)."""
    return WEIGHTS_FOLDER / f"territory-{size}x{size}.json"


def read_weights(path: PathLike) -> tuple[int, np.ndarray]:
    """``(size, params)`` of a parameter file, checked (module docstring); ``WeightsFileError``
    naming the file and the problem."""
    what = "territory weights"
    document = read_json(path, what, WEIGHTS_VERSION, _KEYS, _MAX_BYTES, error=WeightsFileError)
    if set(document) != set(_KEYS):
        raise WeightsFileError(f"{what} {path}: expected the keys {list(_KEYS)}, found {sorted(document)[:12]}")
    if not is_sealed(document):
        raise WeightsFileError(f"{what} {path} was edited: its sha256 does not match its content")
    size, params = document["size"], document["params"]
    if document["evaluator"] != "territory" or type(size) is not int or not core.MIN_SIZE <= size <= core.MAX_SIZE:
        raise WeightsFileError(f"{what} {path}: not territory weights of a board size {core.MIN_SIZE}-{core.MAX_SIZE}")
    if not isinstance(params, dict) or set(params) != set(PARAM_NAMES):
        raise WeightsFileError(f"{what} {path}: params must name exactly {', '.join(PARAM_NAMES)}")
    check_params(params, WeightsFileError, f"{what} {path}")
    return size, as_array(params)


def write_weights(
    path: PathLike, size: int, params: Mapping[str, float], data_hash: str, fit: Mapping[str, Any]
) -> None:
    """Write a parameter file (atomically, sealed); ``params`` by name, checked first."""
    check_params(params, WeightsFileError, f"territory weights for {path}")
    missing = set(PARAM_NAMES) - set(params)
    if missing:
        raise WeightsFileError(f"territory weights for {path}: missing {sorted(missing)}")
    document = {
        "format_version": WEIGHTS_VERSION,
        "evaluator": "territory",
        "size": int(size),
        "params": {name: float(params[name]) for name in PARAM_NAMES},
        "data_hash": str(data_hash),
        "fit": dict(fit),
    }
    write_json(path, seal(document), indent=2, allow_nan=False)


@functools.lru_cache(maxsize=None)
def packaged_weights(size: int) -> Optional[np.ndarray]:
    """The default set shipped for ``size`` (checked once per process: callers copy it), ``None``
    where there is none.

    >>> packaged_weights(4) is None   # no fitted set for 4x4: the study set applies
    True
    """
    path = weights_path(size)
    if not path.is_file():
        return None
    found, params = read_weights(path)
    if found != size:
        raise WeightsFileError(f"territory weights {path} hold a {found}x{found} set, not {size}x{size}")
    return params
