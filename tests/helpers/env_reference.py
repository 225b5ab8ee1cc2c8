"""Slow references of the env's observations, built from a ``Board`` in plain Python: the
planes and the action mask that ``AmazonsEnv`` and ``AmazonsVectorEnv`` must produce."""

from __future__ import annotations

from typing import Optional

import numpy as np

from amazons_env import Board
from amazons_env.envs.planes import PLANE_NAMES

__all__ = ["expected_planes", "expected_mask", "reach"]

DIRECTIONS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]


def reach(grid: np.ndarray, squares: list[int]) -> np.ndarray:
    """Slow reference: squares one queen move away from any of ``squares`` over empty cells."""
    n = grid.shape[0]
    out = np.zeros((n, n), np.int8)
    for sq in squares:
        r0, f0 = divmod(sq, n)
        for dr, df in DIRECTIONS:
            r, f = r0 + dr, f0 + df
            while 0 <= r < n and 0 <= f < n and grid[r, f] == 0:
                out[r, f] = 1
                r, f = r + dr, f + df
    return out


def expected_planes(board: Board, pending: Optional[tuple[int, int]]) -> np.ndarray:
    """Planes built from a Board (position before the turn) and the pending queen move, if any."""
    n = board.size
    white, black, arrows = (list(group) for group in board.layout())
    side = int(board.turn)
    own, opp = (white, black) if side == 0 else (black, white)
    if pending:
        own[own.index(pending[0])] = pending[1]
    grid = np.zeros((n, n), np.int8)
    for value, group in ((1, own), (2, opp), (3, arrows)):
        for sq in group:
            grid[divmod(sq, n)] = value
    # by name, as AmazonsEnv's docstring describes each plane; stacked in the order of PLANE_NAMES
    planes = {name: np.zeros((n, n), np.int8) for name in PLANE_NAMES}
    planes["own_queens"][grid == 1] = 1
    planes["opponent_queens"][grid == 2] = 1
    planes["arrows"][grid == 3] = 1
    if pending:
        planes["arrow_phase"][:] = 1
        planes["shooter"][divmod(pending[1], n)] = 1
        planes["vacated"][divmod(pending[0], n)] = 1
    planes["own_reach"] = reach(grid, [pending[1]] if pending else own)
    planes["opponent_reach"] = reach(grid, opp)
    planes["black"][:] = side
    return np.stack([planes[name] for name in PLANE_NAMES])


def expected_mask(board: Board, pending: Optional[tuple[int, int]]) -> np.ndarray:
    """The flat action mask: the pending queen's arrows, else every legal queen move."""
    n = board.size
    moves = board.legal_moves_array()
    mask = np.zeros(n**4, np.int8)
    if pending:
        rows = moves[(moves[:, 0] == pending[0]) & (moves[:, 1] == pending[1])]
        mask[pending[1] * n * n + rows[:, 2]] = 1
    else:
        mask[moves[:, 0] * n * n + moves[:, 1]] = 1
    return mask
