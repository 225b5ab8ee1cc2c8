"""Input planes for the value nets, built from the rules core's padded ``cells`` arrays in numba.

Two plane sets (the name is stored with every exported model, see ``agents.nets.export``):

* ``"study"``: the study's four planes, **absolute colours**: White queens, Black queens, arrows,
  occupied (any of the three). The side to move is not encoded (the study's network had no such
  plane); ``StudyCNN`` therefore predicts White's winning chance and the evaluator turns that
  into a value for the side to move.
* ``"relative"``: six planes **relative to the side to move**: own queens, opponent queens,
  arrows, empty squares, squares the side to move reaches in one queen move, squares the opponent
  reaches in one queen move. The two reach planes give a small net the sliding-piece geometry it
  would otherwise need many layers to see.

Both return ``float32[k, planes, size, size]`` with row ``r`` = rank ``r`` (a1 at ``[0, 0]``), so
``torch.rot90``/``flip`` on the last two axes are exactly the 8 board symmetries.

>>> from amazons_env import Board
>>> board = Board(6)
>>> x = make_planes(board.cells[None, :], [0], "relative")
>>> x.shape, int(x[0, 0].sum()), int(x[0, 1].sum()), int(x[0, 3].sum())
((1, 6, 6, 6), 4, 4, 28)
>>> int(x[0, 4].sum())   # squares White's queens reach in one move at the 6x6 start
24
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numba import njit

from amazons_env import core
from amazons_env.errors import InvalidArgumentError

__all__ = ["PLANE_SETS", "plane_count", "make_planes", "board_width"]

PLANE_SETS = {"study": 4, "relative": 6}


def plane_count(planes: str) -> int:
    """How many input planes the plane set ``planes`` has."""
    if planes not in PLANE_SETS:
        raise InvalidArgumentError(f"unknown plane set {planes!r}; use one of {sorted(PLANE_SETS)}")
    return PLANE_SETS[planes]


def board_width(cells: np.ndarray) -> int:
    """The padded row width ``W`` of a ``cells[k, W*W]`` stack (``size = W - 2``)."""
    width = int(round(np.sqrt(cells.shape[-1])))
    if width * width != cells.shape[-1] or width - 2 < core.MIN_SIZE:
        raise InvalidArgumentError(f"cells rows of length {cells.shape[-1]} are not padded square boards")
    return width


@njit(cache=True)
def _study(cells, width, out):
    size = width - 2
    for k in range(cells.shape[0]):
        for r in range(size):
            for f in range(size):
                v = cells[k, (r + 1) * width + f + 1]
                if v == core.WHITE_QUEEN:
                    out[k, 0, r, f] = 1.0
                elif v == core.BLACK_QUEEN:
                    out[k, 1, r, f] = 1.0
                elif v == core.ARROW:
                    out[k, 2, r, f] = 1.0
                if v != core.EMPTY:
                    out[k, 3, r, f] = 1.0


@njit(cache=True)
def _relative(cells, sides, width, dirs, out):
    size = width - 2
    for k in range(cells.shape[0]):
        own = sides[k] + 1
        for p in range(width * width):
            v = cells[k, p]
            if v == core.WALL:
                continue
            r = p // width - 1
            f = p % width - 1
            if v == core.EMPTY:
                out[k, 3, r, f] = 1.0
            elif v == core.ARROW:
                out[k, 2, r, f] = 1.0
            else:
                mine = v == own
                out[k, 0 if mine else 1, r, f] = 1.0
                plane = 4 if mine else 5
                for d in range(8):
                    s = p + dirs[d]
                    while cells[k, s] == core.EMPTY:
                        out[k, plane, s // width - 1, s % width - 1] = 1.0
                        s += dirs[d]
    return size


def make_planes(cells: np.ndarray, sides: "Sequence[int] | np.ndarray", planes: str) -> np.ndarray:
    """The ``planes`` input of ``k`` positions: ``cells`` a ``uint8[k, W*W]`` stack of padded
    boards, ``sides`` the side to move of each (0 White, 1 Black)."""
    cells = np.ascontiguousarray(cells, dtype=np.uint8)
    if cells.ndim != 2:
        raise InvalidArgumentError(f"cells must be a [k, W*W] stack, got shape {cells.shape}")
    sides = np.ascontiguousarray(sides, dtype=np.int64)
    if sides.shape != (cells.shape[0],):
        raise InvalidArgumentError(f"sides has shape {sides.shape}, expected ({cells.shape[0]},)")
    width = board_width(cells)
    out = np.zeros((cells.shape[0], plane_count(planes), width - 2, width - 2), dtype=np.float32)
    if planes == "study":
        _study(cells, width, out)
    else:
        _relative(cells, sides, width, core.directions(width), out)
    return out
