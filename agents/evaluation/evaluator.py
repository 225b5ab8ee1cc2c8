"""Evaluators: position scoring as objects, separate from search (OpenSpiel's Evaluator is the model).

Every evaluator scores a position **for the side to move**, in ``[-1, 1]`` (1 = won), so searches
are negamax. Two ways in:

* ``kernel``: a numba function ``kernel(cells, queens, nq, side, dirs, params) -> float64`` over the
  rules core's arrays (see ``amazons_env.core``), for evaluators cheap enough to call inside a numba
  search. ``params`` is this evaluator's ``float64`` parameter array, ``params_for(size)`` the
  one for a board size (the same array unless the evaluator keeps a set per size). ``None`` for evaluators that
  cannot run in numba (the CNN). Compile kernels eagerly with ``@njit(KERNEL_SIGNATURE, cache=True)``:
  the searches take the kernel as a first-class function of type ``KERNEL_TYPE`` (an indirect
  call), which is what lets numba cache the searches on disk once for every evaluator. (Passing a
  plain dispatcher instead specialises the search per kernel and never hits numba's cache: every
  process would recompile it, and the cache directory would grow.)
* ``evaluate_batch(cells, sides)``: score ``k`` positions at once, ``cells`` a ``uint8[k, W*W]``
  stack of padded boards and ``sides`` the side to move in each; searches call it on a whole
  frontier (all children of a node) so a neural net runs one forward pass per frontier.

``make_evaluator("improved:cof1=0.45")`` builds one from a spec string.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np
from numba import njit, types

from amazons_env import Board, core

from agents.options import OptionError
from agents.registry import Registry

__all__ = [
    "Evaluator",
    "EVALUATORS",
    "register_evaluator",
    "make_evaluator",
    "queens_from_cells",
    "frontier_cells",
    "KERNEL_SIGNATURE",
    "KERNEL_TYPE",
]

EVALUATOR_MODULES: tuple[str, ...] = (
    "agents.evaluation.study",
    "agents.evaluation.territory",
    "agents.evaluation.value_net",
)

KERNEL_SIGNATURE = types.float64(
    types.uint8[::1], types.int64[:, ::1], types.int64[::1], types.int64, types.int64[::1], types.float64[::1]
)
KERNEL_TYPE = types.FunctionType(KERNEL_SIGNATURE)


@njit((types.uint8[::1], types.int64[:, ::1], types.int64[::1]), cache=True)
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


@njit(cache=True)
def frontier_cells(cells, queens, nq, side, dirs, moves, n, out, over):
    """``out[k]``: the cells after ``moves[k]`` (padded rows, as ``generate_moves`` writes them)
    for ``k < n``; ``over[k]``: whether the opponent then has no move. A search hands ``out`` to
    ``evaluate_batch`` to score a whole frontier at once. The arrays are restored on return."""
    for k in range(n):
        frm, to, arrow = moves[k, 0], moves[k, 1], moves[k, 2]
        index = core.find_queen(queens, nq, side, frm)
        core.make_move(cells, queens, side, index, to, arrow)
        out[k, :] = cells
        over[k] = not core.has_move(cells, queens, nq, 1 - side, dirs)
        core.unmake_move(cells, queens, side, index, frm, to, arrow)


class Evaluator:
    """Base class. Subclasses set ``name``, and either ``kernel`` + ``params`` or override
    ``evaluate_batch``."""

    name: str = "evaluator"
    kernel: Optional[Callable[..., float]] = None

    def __init__(self, params: Optional[np.ndarray] = None) -> None:
        self.params = np.zeros(0) if params is None else np.asarray(params, dtype=np.float64)
        self.spec = self.name

    def params_for(self, size: int) -> np.ndarray:
        """The parameters to evaluate ``size`` x ``size`` boards with: ``params`` unless the
        evaluator keeps a set per board size (``territory``'s fitted weights)."""
        return self.params

    def seed(self, seed: int) -> None:
        """Reseed any randomness of the evaluation (the study's jitter); the default has none."""

    def evaluate(self, board: Board) -> float:
        """Value of ``board`` for its side to move, in [-1, 1]."""
        if self.kernel is not None:
            cells, queens, nq, params = board.cells, board.queens, board.queen_counts, self.params_for(board.size)
            return float(self.kernel(cells, queens, nq, int(board.turn), board.dirs, params))
        return float(self.evaluate_batch(board.cells[None, :], np.array([int(board.turn)]))[0])

    def evaluate_batch(self, cells: np.ndarray, sides: np.ndarray) -> np.ndarray:
        """Values of ``k`` positions (``cells[k, W*W]``, ``sides[k]``) for their sides to move."""
        if self.kernel is None:
            raise NotImplementedError(f"{type(self).__name__} must override evaluate_batch")
        cells = np.ascontiguousarray(cells, dtype=np.uint8)
        width = int(round(np.sqrt(cells.shape[1])))
        out = np.empty(len(cells))
        sides = np.ascontiguousarray(sides, dtype=np.int64)
        _batch(self.kernel, cells, sides, core.directions(width), self.params_for(width - 2), out)
        return out

    def score_moves(
        self,
        cells: np.ndarray,
        queens: np.ndarray,
        nq: np.ndarray,
        side: int,
        dirs: np.ndarray,
        moves: np.ndarray,
        n: int,
        win: float = 1.0,
    ) -> np.ndarray:
        """Values of the first ``n`` of ``moves`` for ``side``, the side making them, from one
        ``evaluate_batch`` call over the positions they lead to (``frontier_cells``); a move that
        leaves the opponent without a move scores ``win``. The arrays are restored on return."""
        children = np.empty((n, cells.shape[0]), dtype=np.uint8)
        over = np.empty(n, dtype=np.bool_)
        frontier_cells(cells, queens, nq, side, dirs, moves, n, children, over)
        values = -np.asarray(self.evaluate_batch(children, np.full(n, 1 - side, dtype=np.int64)), dtype=np.float64)
        values[over] = win
        return values

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec!r}>"


EVALUATORS = Registry("evaluator", EVALUATOR_MODULES, Evaluator)
register_evaluator = EVALUATORS.register


@njit(
    (KERNEL_TYPE, types.uint8[:, ::1], types.int64[::1], types.int64[::1], types.float64[::1], types.float64[::1]),
    cache=True,
)
def _batch(kernel, cells, sides, dirs, params, out):
    """``out[i]`` = ``kernel`` on board ``cells[i]`` (queens recovered from the cells)."""
    queens = np.zeros((2, core.MAX_QUEENS), dtype=np.int64)
    nq = np.zeros(2, dtype=np.int64)
    board = np.empty(cells.shape[1], dtype=np.uint8)
    for i in range(cells.shape[0]):
        board[:] = cells[i]
        queens_from_cells(board, queens, nq)
        out[i] = kernel(board, queens, nq, sides[i], dirs, params)


def make_evaluator(spec: "str | Evaluator", **options: Any) -> Evaluator:
    """An evaluator from a spec string like ``"improved:cof1=0.45"`` (or the object itself)."""
    if isinstance(spec, Evaluator):
        if options:
            raise OptionError(f"options {sorted(options)} given with an evaluator object {spec!r}")
        return spec
    return EVALUATORS.make(spec, **options)
