"""Queen lines on tensors: the squares each source square reaches along its eight rays, batched.

Every legal set of the rules is one of these: the queen phase's slides are the reaches of the
side to move's queens, the arrow's flights the reach of the queen that just moved (the square it
left is already empty), the observation's reach planes those of either side's queens. A
*source* list is ``int64[B, Q]`` of squares, padded with ``N*N`` (whose rays are all off the
board, so a padding source reaches nothing).

>>> from amazons_env.tensor.state import initial_state
>>> state = initial_state(1, size=6)
>>> src = queen_squares(state.cells.flatten(1), torch.tensor([1]))
>>> src.tolist()
[[1, 4, 6, 11]]
>>> targets, reach = reaches(state.cells.flatten(1), src, tables(6, "cpu").rays)
>>> int(reach.sum())   # the 40 queen moves of the 6x6 start
40
"""

from __future__ import annotations

import torch

from amazons_env.core import MAX_QUEENS
from amazons_env.tensor.state import TensorState
from amazons_env.tensor.tables import tables

__all__ = ["queen_bound", "queen_squares", "side_queens", "reaches", "has_queen_move", "mover_sources", "mover_reach"]


def queen_bound(device: torch.device) -> int | None:
    """How many queen columns the rules' source lists have on ``device``: ``None`` on the CPU
    (the batch's largest count, read from the tensors: a synchronisation costs nothing there),
    ``MAX_QUEENS`` on an accelerator (a fixed shape: no synchronisation, so the host keeps
    queueing kernels while the device works). ``reaches`` also picks its scan by it."""
    return None if device.type == "cpu" else MAX_QUEENS


def queen_squares(flat_cells: torch.Tensor, piece: torch.Tensor, bound: int | None = None) -> torch.Tensor:
    """The squares holding ``piece[b]`` in each game, increasing, padded with ``N*N``:
    ``int64[B, Q]`` with ``Q = bound`` (at least the largest count), or with ``bound=None`` the
    batch's largest count (``Q >= 1``; read from the device: one synchronisation)."""
    b, nn = flat_cells.shape
    held = flat_cells == piece.to(flat_cells.dtype)[:, None]
    if bound is None:
        counts = held.sum(dim=1)
        low, high = torch.stack([counts.min(), counts.max()]).tolist()
        if low == high and low > 0:  # the usual case: every game has the same number of queens
            return held.nonzero()[:, 1].view(b, low)
        bound = max(1, high)
    # the largest keys are the smallest squares: topk lists them in increasing square order
    key = torch.where(held, nn - torch.arange(nn, device=flat_cells.device), 0)
    values = key.topk(min(bound, nn), dim=1).values
    return torch.where(values > 0, nn - values, nn)


def side_queens(flat_cells: torch.Tensor, side: torch.Tensor) -> torch.Tensor:
    """The squares of the queens of ``side`` (``int64[B]``): ``queen_squares`` with the columns
    of ``queen_bound`` for the tensors' device."""
    return queen_squares(flat_cells, side + 1, queen_bound(flat_cells.device))


def _free(flat_cells: torch.Tensor) -> torch.Tensor:
    """``bool[B, N*N + 1]``: the empty squares, and a blocked padding square at ``N*N``."""
    blocked = torch.zeros_like(flat_cells[:, :1], dtype=torch.bool)
    return torch.cat([flat_cells == 0, blocked], dim=1)


def reaches(flat_cells: torch.Tensor, sources: torch.Tensor, rays: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(targets, reach)``, both ``[B, Q, 8, N-1]``: the square ``k + 1`` steps along direction
    ``d`` from each source (``N*N`` off the board) and whether every square up to it is empty."""
    b, q = sources.shape
    # index_select of whole rows: on the CPU many times faster than rays[sources]
    targets = rays.flatten(1).index_select(0, sources.flatten()).view(b, q, *rays.shape[1:])
    free = torch.gather(_free(flat_cells), 1, targets.view(b, -1)).view(targets.shape)
    if queen_bound(flat_cells.device) is not None:
        # an accelerator: one kernel for the running "and" along each ray
        return targets, free.cummin(dim=-1).values
    # the CPU: in place on the fresh gather, a pass per distance beats cummin (which also
    # computes indices) on large batches
    for k in range(1, free.shape[-1]):
        free[..., k] &= free[..., k - 1]
    return targets, free


def has_queen_move(flat_cells: torch.Tensor, side: torch.Tensor, neighbours: torch.Tensor) -> torch.Tensor:
    """``bool[B]``: a queen of ``side`` has an empty neighbour (that is, a legal move);
    ``neighbours`` is ``tables(N).neighbours``."""
    sources = side_queens(flat_cells, side)
    b = sources.shape[0]
    first = neighbours.index_select(0, sources.flatten())
    return torch.gather(_free(flat_cells), 1, first.view(b, -1)).any(dim=1)


def mover_sources(state: TensorState) -> tuple[torch.Tensor, torch.Tensor]:
    """``(sources, distinct)``: the squares whose reach is the side to move's legal set now: its
    queens in the queen phase, the shooter in the arrow phase (its queens in a finished game: the
    observation's own reach plane; masks clear them).

    ``sources`` (``int64[B, Q]``) has no padding: spare columns repeat column 0 (the shooter in
    every column in the arrow phase), so a row written per source is written with equal values;
    ``distinct`` (``bool[B, Q]``) marks the columns to count (column 0 and the real queens)."""
    flat = state.cells.flatten(1)
    nn = flat.shape[1]
    queens = side_queens(flat, state.side)
    arrow = ((state.phase == 1) & ~state.terminated)[:, None]
    first = torch.where(arrow, state.shooter.clamp(min=0)[:, None], queens[:, :1])
    sources = torch.where(arrow | (queens == nn), first, queens)
    distinct = sources != first
    distinct[:, 0] = True
    return sources, distinct


def mover_reach(state: TensorState) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(sources, targets, reach, distinct)``: ``mover_sources`` and their ``reaches``."""
    sources, distinct = mover_sources(state)
    targets, reach = reaches(state.cells.flatten(1), sources, tables(state.size, state.device).rays)
    return sources, targets, reach, distinct
