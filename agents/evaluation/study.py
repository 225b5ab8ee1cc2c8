"""The study's two heuristics, ``basic`` (mobility ratio) and ``improved`` (mobility + directions).

Both score a position for the side to move, in ``[-1, 1]``, as numba kernels (``KERNEL_SIGNATURE``)
that the searches call at their leaves:

* ``basic``: ``(a - b + bias) / (a + b + bias)`` with ``a``, ``b`` the numbers of legal moves
  (queen move + arrow pairs) of the side to move and of its opponent.
* ``improved``: ``cof1 * moves_ratio + (1 - cof1) * directions_ratio``, the same ratio over moves
  and over *directions* (per side, the sum over its queens of the directions each can move in,
  0..8), ``cof1`` = 0.45 by default (the study's best).

``bias`` (default 0.4): the evaluated player is the side to move, so the study's sign rule ("bias
negative on the player's turn") makes it ``-0.4``: equal mobility counts as slightly worse for the
side to move, and ``a + b + bias`` cannot be zero. A side to move with no move scores -1 (lost).
``jitter`` (default 0: off) adds a tiny pseudo-random number in ``[-jitter, jitter]`` to the bias
so that games between deterministic agents vary, as in the study. It is a hash of the position
and of ``seed()``, so within one search a position always gets the same value (the searches stay
consistent) while a new seed changes the game.

>>> from amazons_env import Board
>>> from agents.evaluation.evaluator import make_evaluator
>>> round(make_evaluator("basic").evaluate(Board(10)), 6)        # 2176 moves each: (0 - 0.4) / 4351.6
-9.2e-05
>>> make_evaluator("improved:cof1=0.45").params.tolist()
[0.4, 0.0, 0.0, 0.45]
"""

from __future__ import annotations

import numpy as np
from numba import njit

from amazons_env import core

from agents.evaluation.evaluator import KERNEL_SIGNATURE, Evaluator, register_evaluator
from agents.options import OptionError, opt

__all__ = ["Basic", "Improved", "basic_kernel", "improved_kernel", "BIAS", "JITTER", "SEED", "COF1"]

# indices into ``params``
BIAS, JITTER, SEED, COF1 = range(4)


@njit(cache=True)
def _jitter(cells, params):
    """A deterministic pseudo-random number in ``[-params[JITTER], params[JITTER]]`` for this
    position and seed (FNV-1a over the cells)."""
    h = np.uint64(14695981039346656037) ^ np.uint64(int(params[SEED]))
    for i in range(cells.shape[0]):
        h = (h ^ np.uint64(cells[i])) * np.uint64(1099511628211)
    unit = float(h >> np.uint64(11)) / 9007199254740992.0  # top 53 bits -> [0, 1)
    return params[JITTER] * (2.0 * unit - 1.0)


@njit(cache=True)
def _ratio(a, b, bias):
    return (a - b + bias) / (a + b + bias)


@njit(cache=True)
def _bias(cells, params):
    bias = -params[BIAS]
    if params[JITTER] != 0.0:
        bias += _jitter(cells, params)
    return bias


@njit(KERNEL_SIGNATURE, cache=True)
def basic_kernel(cells, queens, nq, side, dirs, params):
    """The mobility ratio for ``side`` (to move)."""
    a = core.count_moves(cells, queens, nq, side, dirs)
    if a == 0:
        return -1.0
    b = core.count_moves(cells, queens, nq, 1 - side, dirs)
    return _ratio(a, b, _bias(cells, params))


@njit(KERNEL_SIGNATURE, cache=True)
def improved_kernel(cells, queens, nq, side, dirs, params):
    """``cof1`` * mobility ratio + ``(1 - cof1)`` * directions ratio for ``side`` (to move)."""
    a = core.count_directions(cells, queens, nq, side, dirs)
    if a == 0:
        return -1.0
    b = core.count_directions(cells, queens, nq, 1 - side, dirs)
    bias = _bias(cells, params)
    cof1 = params[COF1]
    value = (1.0 - cof1) * _ratio(a, b, bias)
    if cof1 != 0.0:
        value += cof1 * _ratio(
            core.count_moves(cells, queens, nq, side, dirs), core.count_moves(cells, queens, nq, 1 - side, dirs), bias
        )
    return min(1.0, max(-1.0, value))


class _StudyEvaluator(Evaluator):
    def __init__(self, kernel, bias: float, jitter: float, cof1: float) -> None:
        if not 0.0 < bias < 1.0:
            raise OptionError(f"bias={bias!r}: the study's bias magnitude must be in (0, 1)")
        if not 0.0 <= jitter < bias / 10:
            raise OptionError(f"jitter={jitter!r}: must be >= 0 and tiny next to the bias ({bias})")
        if not 0.0 <= cof1 <= 1.0:
            raise OptionError(f"cof1={cof1!r}: must be in [0, 1]")
        super().__init__(np.array([bias, jitter, 0.0, cof1], dtype=np.float64))
        self.kernel = kernel  # an instance attribute: a dispatcher stored on the class would bind as a method

    def seed(self, seed: int) -> None:
        self.params[SEED] = float(int(seed) % (1 << 52))


_BIAS = opt("the study's bias magnitude in the ratio", gt=0, lt=1)
_JITTER = opt("random noise added to each value (tiny next to bias; 0 = none)", ge=0)


@register_evaluator("basic", options={"bias": _BIAS, "jitter": _JITTER})
class Basic(_StudyEvaluator):
    """The study's basic heuristic: the mobility ratio (see the module docstring)."""

    name = "basic"

    def __init__(self, bias: float = 0.4, jitter: float = 0.0) -> None:
        super().__init__(basic_kernel, bias, jitter, 1.0)


@register_evaluator(
    "improved",
    options={"cof1": opt("weight of mobility against directions", ge=0, le=1), "bias": _BIAS, "jitter": _JITTER},
)
class Improved(_StudyEvaluator):
    """The study's improved heuristic: mobility and directions ratios mixed by ``cof1``."""

    name = "improved"

    def __init__(self, cof1: float = 0.45, bias: float = 0.4, jitter: float = 0.0) -> None:
        super().__init__(improved_kernel, bias, jitter, cof1)
