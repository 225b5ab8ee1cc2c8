"""Whether the two sides' amazons still share a region, for a batch of positions on tensors.

``agents.search.endgame``'s regions: squares connected under king steps over empty squares and
amazons (an amazon next to another joins their regions). While some region holds amazons of both
sides the game is open; once none does (*separated*) the filling phase can be counted
(``agents.game.endgame_winner``). ``in_contact`` floods every White amazon's region at once (a
3x3 max-pool per step, until nothing grows) and asks whether it holds a Black amazon: the
complement of ``endgame.analyse``'s ``separated``, for all games in one pass on their device, so
that self-play counts only the positions that need it.

>>> from amazons_env import Board
>>> from amazons_env.tensor.state import from_boards
>>> in_contact(from_boards([Board(6), Board.from_text("Q1*3/**4/6/******/3*1q/6 w")])).tolist()
[True, False]
"""

from __future__ import annotations

import torch

from amazons_env.tensor.state import TensorState

__all__ = ["in_contact"]

EMPTY, WHITE, BLACK = 0, 1, 2


def in_contact(state: TensorState) -> torch.Tensor:
    """``bool[B]``: whether a region holds amazons of both sides (the game is not separated)."""
    cells = state.cells
    open_ = (cells <= BLACK)[:, None].float()  # empty squares and amazons: what a region spreads over
    region = (cells == WHITE)[:, None].float()
    while True:
        grown = torch.nn.functional.max_pool2d(region, 3, stride=1, padding=1) * open_
        if torch.equal(grown, region):
            break
        region = grown
    return (region[:, 0].bool() & (cells == BLACK)).flatten(1).any(1)
