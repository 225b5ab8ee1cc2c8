"""The policy-value net's ``"relative"`` input planes of a ``TensorState``, on its device.

The torch twin of ``agents.nets.planes.make_planes(..., "relative")`` (equal to it exactly: the
tests compare them): own queens, opponent queens, arrows, empty squares, the squares the side to
move reaches in one queen move, those the opponent reaches, ``[rank, file]`` as the state's cells.
The queen reaches are ``amazons_env.tensor.reach``'s, the rules' own; the side to move's come back
with the planes (``Planes``), because its slides are what the search expands next.

>>> from amazons_env import Board
>>> from amazons_env.tensor.state import initial_state
>>> from agents.nets.planes import make_planes
>>> state = initial_state(2, size=6)
>>> x = relative_planes(state).planes
>>> bool((x[0].numpy() == make_planes(Board(6).cells[None], [0], "relative")[0]).all())
True
"""

from __future__ import annotations

from typing import NamedTuple

import torch

from amazons_env.tensor.reach import queen_squares, reaches, tables
from amazons_env.tensor.state import TensorState

__all__ = ["Planes", "relative_planes"]

EMPTY, ARROW = 0, 3


class Planes(NamedTuple):
    """The net's input and the side to move's queen reaches (``amazons_env.tensor.reach.reaches``)."""

    planes: torch.Tensor  # float32 [B, 6, N, N]
    sources: torch.Tensor  # int64 [B, Q]: the side to move's queens, padded with N*N
    targets: torch.Tensor  # int64 [B, Q, 8, N-1]: the squares along each queen's rays
    reach: torch.Tensor  # bool [B, Q, 8, N-1]: whether the queen can slide there


def _plane(targets: torch.Tensor, reach: torch.Tensor, nn: int) -> torch.Tensor:
    """``bool[B, N*N]``: the squares some ray reaches (unreached entries land on a dropped column)."""
    b = targets.shape[0]
    plane = torch.zeros(b, nn + 1, dtype=torch.bool, device=targets.device)
    plane.scatter_(1, torch.where(reach, targets, nn).view(b, -1), True)
    return plane[:, :nn]


def relative_planes(state: TensorState) -> Planes:
    """The ``"relative"`` planes of every game of ``state`` (queen phase: a position between a
    slide and its arrow is not one the net reads)."""
    b, n = state.batch_size, state.size
    nn = n * n
    flat = state.cells.flatten(1)
    rays = tables(n, state.device).rays
    own, opponent = (queen_squares(flat, piece) for piece in (state.side + 1, 2 - state.side))
    own_targets, own_reach = reaches(flat, own, rays)
    opp_targets, opp_reach = reaches(flat, opponent, rays)
    planes = torch.stack(
        [
            flat == (state.side + 1)[:, None],
            flat == (2 - state.side)[:, None],
            flat == ARROW,
            flat == EMPTY,
            _plane(own_targets, own_reach, nn),
            _plane(opp_targets, opp_reach, nn),
        ],
        dim=1,
    )
    return Planes(planes.to(torch.float32).view(b, 6, n, n), own, own_targets, own_reach)
