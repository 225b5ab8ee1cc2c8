"""Sentences about a game of ``AmazonsEnv``: why an action is illegal (``env.illegal_reason``) and
the caption of its text diagram (``render_mode="ansi"``), from the kernels' arrays of one game.

>>> from amazons_env import Board, core
>>> from amazons_env.envs.kernels.game import new_meta
>>> board = Board(6)
>>> meta, pad, pub = new_meta(board.cells, 0), core.padded_index(6), core.public_index(6)
>>> why_illegal(meta, board.queens, board.queen_counts, pad, pub, 6, 0, 1)
'queen phase: there is no white queen on a1'
>>> caption(meta, [], pub, 6)
'White to move a queen; turn 1; last move none'
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from amazons_env import core
from amazons_env.envs.kernels import game as K
from amazons_env.move import Move
from amazons_env.squares import Color, square_name

__all__ = ["why_illegal", "caption"]


def why_illegal(
    meta: np.ndarray, queens: np.ndarray, nq: np.ndarray, pad: np.ndarray, pub: np.ndarray, size: int, frm: int, to: int
) -> str:
    """Why the slide ``frm`` -> ``to`` (public squares) is not a legal action of the game whose
    ``meta`` row, ``queens`` and queen counts ``nq`` are given."""
    side = Color(int(meta[K.SIDE])).name.lower()
    f, t = square_name(frm, size), square_name(to, size)
    if meta[K.PHASE] == 1:
        shooter = square_name(int(pub[meta[K.DST]]), size)
        if frm != pub[meta[K.DST]]:
            return (
                f"arrow phase: the arrow must be shot by the queen that just moved, on {shooter} "
                f"(from_square {shooter}), not from {f}"
            )
        return f"the arrow cannot fly from {f} to {t}: not a queen line or the path is blocked"
    if core.find_queen(queens, nq, int(meta[K.SIDE]), pad[frm]) < 0:
        return f"queen phase: there is no {side} queen on {f}"
    return f"the queen on {f} cannot reach {t}: not a queen line or the path is blocked"


def caption(meta: np.ndarray, history: Sequence[tuple[int, int, int]], pub: np.ndarray, size: int) -> str:
    """The line under the diagram: who is to do what, the turn, the last move (``history``: the
    game's moves as public ``(from, to, arrow)``)."""
    side = Color(int(meta[K.SIDE])).name.capitalize()
    last = history[-1] if history else None
    last_text = str(Move(*last, size)) if last else "none"
    if meta[K.DONE]:
        return (
            f"game over: {Color(int(meta[K.WINNER])).name.capitalize()} won after "
            f"{int(meta[K.TURNS])} turns; last move {last_text}"
        )
    if meta[K.PHASE] == 1:
        queen = f"{square_name(int(pub[meta[K.SRC]]), size)}-{square_name(int(pub[meta[K.DST]]), size)}"
        state = f"{side} to shoot an arrow (queen moved {queen})"
    else:
        state = f"{side} to move a queen"
    return f"{state}; turn {int(meta[K.TURNS]) + 1}; last move {last_text}"
