"""The ``territory`` evaluation as a function of its weights, over terms computed once per position.

``agents.evaluation.territory_mailbox.terms`` gives each position's sums free of the weights
(White's point of view); ``values`` combines them as the kernel does, for every position at
once, so a fit tries thousands of weight sets without a breadth-first search each:

    s = min(1, sqrt(w / squares))
    score = (1 - a1 s)(sign t1 + kappa n1) + a2 s (sign t2 + kappa n2) + s sign (a3 c1 + a4 c2 + mob m)
    value = tanh(score / (scale exp(scale_phase s) squares))

for the side to move (``sign`` = +1 for White, -1 for Black; a tie counts ``kappa`` for the side to
move). The tests hold ``values`` equal to the kernel's value.

>>> from amazons_env import Board
>>> from agents.evaluation.evaluator import make_evaluator
>>> board = Board(8)
>>> terms, playable = position_terms(board.cells[None, :], np.array([0]), 8)
>>> study = make_evaluator("territory:weights=study")
>>> bool(abs(values(study.params, terms, np.array([0]), 8)[0] - study.evaluate(board)) < 1e-12)
True
"""

from __future__ import annotations

import numpy as np

from amazons_env import core

from agents.evaluation.evaluator import queens_from_cells
from agents.evaluation.territory_mailbox import N_TERMS, PARAM_NAMES, TERM_NAMES, terms

__all__ = ["position_terms", "phase", "values", "log_values"]

_T1, _N1, _T2, _N2, _C1, _C2, _W, _M = range(N_TERMS)
_KAPPA, _SCALE, _MOB, _A1, _A2, _A3, _A4, _SCALE_PHASE = range(len(PARAM_NAMES))
assert TERM_NAMES[_M] == "m" and PARAM_NAMES[_SCALE_PHASE] == "scale_phase"  # the orders indexed by


def position_terms(cells: np.ndarray, sides: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``(terms, playable)`` of ``k`` positions (``cells[k, W*W]``, padded boards of ``size``, and
    the ``sides`` to move): ``float64[k, N_TERMS]`` (``territory_mailbox.terms``) and whether the
    side to move has a move (one without is scored -1 by the kernel, whatever the weights)."""
    cells = np.ascontiguousarray(cells, dtype=np.uint8)
    dirs = core.directions(size + 2)
    queens = np.zeros((2, core.MAX_QUEENS), dtype=np.int64)
    nq = np.zeros(2, dtype=np.int64)
    out = np.empty((len(cells), N_TERMS))
    playable = np.empty(len(cells), dtype=bool)
    for i, board in enumerate(cells):
        queens_from_cells(board, queens, nq)
        out[i] = terms(board, queens, nq, dirs)
        playable[i] = core.has_move(board, queens, nq, int(sides[i]), dirs)
    return out, playable


def phase(terms: np.ndarray, size: int) -> np.ndarray:
    """The phase ``s = min(1, sqrt(w / squares))`` of each position (1 open, 0 separated)."""
    return np.minimum(1.0, np.sqrt(terms[:, _W] / float(size * size)))


def _tanh_input(params: np.ndarray, terms: np.ndarray, sides: np.ndarray, size: int) -> np.ndarray:
    squares = float(size * size)
    p = np.asarray(params, dtype=np.float64)
    sign = np.where(np.asarray(sides) == 0, 1.0, -1.0)
    s = phase(terms, size)
    score = (1.0 - p[_A1] * s) * (sign * terms[:, _T1] + p[_KAPPA] * terms[:, _N1])
    score += p[_A2] * s * (sign * terms[:, _T2] + p[_KAPPA] * terms[:, _N2])
    score += s * sign * (p[_A3] * terms[:, _C1] + p[_A4] * terms[:, _C2] + p[_MOB] * terms[:, _M])
    return score / (p[_SCALE] * np.exp(p[_SCALE_PHASE] * s) * squares)


def values(params: np.ndarray, terms: np.ndarray, sides: np.ndarray, size: int) -> np.ndarray:
    """The evaluation's value for the side to move of each position, with the weights ``params``
    (``PARAM_NAMES``' order)."""
    return np.tanh(_tanh_input(params, terms, sides, size))


def log_values(params: np.ndarray, terms: np.ndarray, sides: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``(log p, log (1 - p))`` of the win probability ``p = (1 + value) / 2`` of each position,
    computed without rounding to 0 or 1 (``p`` is the logistic of twice the tanh's input)."""
    x = 2.0 * _tanh_input(params, terms, sides, size)
    return -np.logaddexp(0.0, -x), -np.logaddexp(0.0, x)
