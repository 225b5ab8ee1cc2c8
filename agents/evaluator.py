"""Evaluators: position scoring as objects, separate from search (OpenSpiel's Evaluator is the model).

Every evaluator scores a position **for the side to move**, in ``[-1, 1]`` (1 = won), so searches
are negamax. Two ways in:

* ``kernel``: a numba function ``kernel(cells, queens, nq, side, dirs, params) -> float64`` over the
  rules core's arrays (see ``amazons_env.core``), for evaluators cheap enough to call inside a numba
  search. ``params`` is this evaluator's ``float64`` parameter array. ``None`` for evaluators that
  cannot run in numba (the CNN).
* ``evaluate_batch(cells, sides)``: score ``k`` positions at once, ``cells`` a ``uint8[k, W*W]``
  stack of padded boards and ``sides`` the side to move in each; searches call it on a whole
  frontier (all children of a node) so a neural net runs one forward pass per frontier.

``make_evaluator("improved:cof1=0.45")`` builds one from a spec string.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np
from numba import njit

from amazons_env import Board, core

from .registry import Registry

__all__ = ["Evaluator", "EVALUATORS", "register_evaluator", "make_evaluator", "queens_from_cells"]

EVALUATOR_MODULES: tuple[str, ...] = ()

EVALUATORS = Registry("evaluator", EVALUATOR_MODULES)
register_evaluator = EVALUATORS.register


@njit(cache=True)
def queens_from_cells(cells, queens, nq):
    """Fill ``queens``/``nq`` (the core's arrays) from a padded ``cells`` board, in square order."""
    nq[0] = 0
    nq[1] = 0
    for p in range(cells.shape[0]):
        v = cells[p]
        if v == core.WHITE_QUEEN or v == core.BLACK_QUEEN:
            side = v - 1
            queens[side, nq[side]] = p
            nq[side] += 1


class Evaluator:
    """Base class. Subclasses set ``name``, and either ``kernel`` + ``params`` or override
    ``evaluate_batch``."""

    name: str = "evaluator"
    kernel: Optional[Callable[..., float]] = None

    def __init__(self, params: Optional[np.ndarray] = None) -> None:
        self.params = np.zeros(0) if params is None else np.asarray(params, dtype=np.float64)
        self.spec = self.name

    def evaluate(self, board: Board) -> float:
        """Value of ``board`` for its side to move, in [-1, 1]."""
        if self.kernel is not None:
            return float(self.kernel(board.cells, board.queens, board.queen_counts, int(board.turn),
                                     board.dirs, self.params))
        return float(self.evaluate_batch(board.cells[None, :], np.array([int(board.turn)]))[0])

    def evaluate_batch(self, cells: np.ndarray, sides: np.ndarray) -> np.ndarray:
        """Values of ``k`` positions (``cells[k, W*W]``, ``sides[k]``) for their sides to move."""
        if self.kernel is None:
            raise NotImplementedError(f"{type(self).__name__} must override evaluate_batch")
        width = int(round(np.sqrt(cells.shape[1])))
        return _batch(self.kernel, cells, np.asarray(sides, dtype=np.int64), core.directions(width), self.params)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec!r}>"


def _batch(kernel: Any, cells: np.ndarray, sides: np.ndarray, dirs: np.ndarray,
           params: np.ndarray) -> np.ndarray:
    out = np.empty(len(cells))
    queens = np.zeros((2, core.MAX_QUEENS), dtype=np.int64)
    nq = np.zeros(2, dtype=np.int64)
    for i in range(len(cells)):
        board = np.ascontiguousarray(cells[i])
        queens_from_cells(board, queens, nq)
        out[i] = kernel(board, queens, nq, int(sides[i]), dirs, params)
    return out


def make_evaluator(spec: "str | Evaluator", **options: Any) -> Evaluator:
    """An evaluator from a spec string like ``"improved:cof1=0.45"`` (or the object itself)."""
    if isinstance(spec, Evaluator):
        return spec
    return EVALUATORS.make(spec, **options)
