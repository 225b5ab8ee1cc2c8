"""Zobrist keys of positions, shared by the searches' transposition tables (alpha-beta's and the
proof search's): a random key per square and piece, XORed together with the side to move's key.

>>> from amazons_env import Board
>>> board, keys = Board(6), zobrist_table(8)
>>> key = position_key(board.cells, 0, keys)
>>> board.push("a2-a3/a4")
>>> moved = move_key(key, keys, 0, 17, 25, 33)   # padded squares: a2 17, a3 25, a4 33
>>> int(moved) == int(position_key(board.cells, 1, keys))
True
"""

from __future__ import annotations

import numpy as np
from numba import njit

from amazons_env import core

__all__ = ["zobrist_table", "position_key", "move_key"]


def zobrist_table(width: int, seed: int = 20260522) -> np.ndarray:
    """Random keys ``[4, W*W]``: rows 1-3 per cell value (queens, arrows); ``[0, 0]`` the side key."""
    rng = np.random.default_rng(seed)
    return rng.integers(1, np.iinfo(np.int64).max, size=(4, width * width), dtype=np.int64).astype(np.uint64)


@njit(cache=True)
def position_key(cells, side, zob):
    """The Zobrist key of a position (pieces and arrows, side to move)."""
    key = zob[0, 0] if side == 1 else np.uint64(0)
    for p in range(cells.shape[0]):
        v = cells[p]
        if v == core.WHITE_QUEEN or v == core.BLACK_QUEEN or v == core.ARROW:
            key ^= zob[v, p]
    return key


# inlined: the searches key every child they make, and a call would cost more than the XORs
@njit(cache=True, inline="always")
def move_key(key, zob, side, frm, to, arrow):
    """The key after ``side``'s amazon moves from ``frm`` to ``to`` and shoots at ``arrow`` in the
    position keyed ``key``: the amazon leaves and lands, the arrow lands, the side to move changes."""
    piece = side + 1
    return key ^ zob[piece, frm] ^ zob[piece, to] ^ zob[core.ARROW, arrow] ^ zob[0, 0]
