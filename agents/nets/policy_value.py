"""The policy-value net's outputs: a value for the side to move and a two-phase move policy.

``PolicyValueNet`` (``agents.nets.models``) reads the ``"relative"`` planes (``agents.nets.planes``) and returns three
tensors for a batch of ``b`` positions on ``N`` x ``N`` boards:

* ``value[b]``: the value in [-1, 1] for the **side to move** (``tanh``);
* ``slide[b, LINES, N, N]``: queen-slide logits. Channel ``d * (MAX_SIZE - 1) + distance - 1`` at
  square ``s`` scores sliding from ``s`` along ``DIRECTIONS[d]`` (the queen lines of
  ``amazons_env.envs.actions``) by ``distance`` squares;
* ``arrow[b, LINES, N, N]``: arrow logits **conditioned on the slide's destination**: channel
  ``c`` at square ``t`` scores shooting along line ``c`` from ``t`` once a queen has landed on ``t``.

The probability of a whole move ``(f, t, a)`` among the legal moves is
``softmax_slides(slide[f -> t]) * softmax_arrows_of_that_slide(arrow[t -> a])``: the slide's
softmax runs over the legal slides, the arrow's over the legal arrows after that slide
(``move_log_probs``). The value is one number per position; the slide and the arrow are chosen by
the same side, so nothing flips sign between them (``agents.search.uct_tree``'s split tree backs up accordingly).

Fully convolutional: one set of weights runs on any size up to ``MAX_SIZE`` (trained on one).
It is one of ``agents.nets.models.MODELS``, so ``agents.nets.export`` saves and loads it with the
same checks as the value nets; this module re-exports it beside what reads its outputs.

**Symmetries.** ``amazons_env.symmetry`` is their one definition: ``symmetry_permutation(size)[k]``
is its ``transform_square`` for symmetry ``k`` tabulated over the public squares (an array, so that
numpy can permute whole batches of planes and boards at once); ``transform_planes`` and ``transform_cells`` apply it to
input planes and to padded boards, and a policy target given as moves is transformed by mapping
its three squares (legal moves map to legal moves of the image position).

>>> import torch
>>> from amazons_env import Board
>>> from agents.nets.planes import make_planes
>>> net = PolicyValueNet(channels=8, blocks=1).eval()
>>> board = Board(6)
>>> value, slide, arrow = net(torch.from_numpy(make_planes(board.cells[None], [0], "relative")))
>>> tuple(value.shape), tuple(slide.shape), tuple(arrow.shape)
((1,), (1, 88, 6, 6), (1, 88, 6, 6))
"""

from __future__ import annotations

import functools

import numpy as np
import torch
from numba import njit

from amazons_env import core
from amazons_env.envs.actions import line_tables
from amazons_env.symmetry import transform_square

from agents.nets.models import LINES, REACH, PolicyValueNet

__all__ = [
    "PolicyValueNet",
    "LINES",
    "REACH",
    "line_channels",
    "move_indices",
    "legal_moves_batch",
    "move_log_probs",
    "symmetry_permutation",
    "transform_planes",
    "transform_cells",
    "move_keys",
]


@functools.lru_cache(maxsize=None)
def line_channels(size: int) -> np.ndarray:
    """``int64[N*N, N*N]``: the policy channel of the slide from one public square to another
    (-1 where they are not on a queen line). Read-only, built once per size.

    >>> int(line_channels(6)[0, 6])   # a1 -> a2: north (direction 0), one square
    0
    """
    n = size
    to_flat = line_tables(n)[0]  # queen-line action (from, direction, distance) -> flat from * N*N + to
    lines = np.flatnonzero(to_flat >= 0)
    rest, dist = np.divmod(lines, n - 1)
    sq, d = np.divmod(rest, 8)
    table = np.full((n * n, n * n), -1, np.int64)
    table[sq, to_flat[lines] % (n * n)] = d * REACH + dist
    table.flags.writeable = False
    return table


def move_indices(moves: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """For moves ``int[M, 3]`` of public squares (from, to, arrow): the index of each move's slide
    and of its arrow in the flattened ``[LINES * N * N]`` logits of one position."""
    chan, nn_ = line_channels(size), size * size
    frm, to, arrow = moves[:, 0], moves[:, 1], moves[:, 2]
    return chan[frm, to] * nn_ + frm, chan[to, arrow] * nn_ + to


@njit(cache=True)
def _legal_batch(cells, sides, dirs, to_public, scratch, count_only, rows, out):
    """Every legal move of each position (public squares), rows in order; the total count."""
    width2 = cells.shape[1]
    total = 0
    queens = np.zeros((2, core.MAX_QUEENS), np.int64)
    nq = np.zeros(2, np.int64)
    for k in range(cells.shape[0]):
        nq[:] = 0
        for p in range(width2):
            v = cells[k, p]
            if v == core.WHITE_QUEEN or v == core.BLACK_QUEEN:
                s = v - 1
                queens[s, nq[s]] = p
                nq[s] += 1
        n = core.generate_public_moves(cells[k], queens, nq, sides[k], dirs, to_public, scratch)
        if not count_only:
            for i in range(n):
                rows[total + i] = k
                out[total + i, 0] = scratch[i, 0]
                out[total + i, 1] = scratch[i, 1]
                out[total + i, 2] = scratch[i, 2]
        total += n
    return total


def legal_moves_batch(cells: np.ndarray, sides: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``(rows int64[M], moves int64[M, 3])``: every legal move of each of the ``k`` positions
    (padded ``cells[k, W*W]``, ``sides[k]``), in the rules core's order (a slide's arrows
    contiguous), public squares, with the position each belongs to."""
    cells = np.ascontiguousarray(cells, dtype=np.uint8)
    sides = np.ascontiguousarray(sides, dtype=np.int64)
    dirs, to_public = core.directions(size + 2), core.public_index(size)
    scratch = np.empty((core.max_moves(size, core.MAX_QUEENS), 3), np.int64)
    total = _legal_batch(
        cells, sides, dirs, to_public, scratch, True, np.empty(0, np.int64), np.empty((0, 3), np.int64)
    )
    rows, out = np.empty(total, np.int64), np.empty((total, 3), np.int64)
    _legal_batch(cells, sides, dirs, to_public, scratch, False, rows, out)
    return rows, out


def move_keys(rows: np.ndarray, moves: np.ndarray, size: int) -> np.ndarray:
    """One integer per (position, move), equal exactly when both are: for matching targets."""
    nn_ = size * size
    return ((rows * nn_ + moves[:, 0]) * nn_ + moves[:, 1]) * nn_ + moves[:, 2]


def move_log_probs(
    slide: torch.Tensor, arrow: torch.Tensor, rows: np.ndarray, moves: np.ndarray, size: int
) -> torch.Tensor:
    """``log p(move)`` of each legal move (``rows``/``moves`` from ``legal_moves_batch``, a slide's
    arrows contiguous): log-softmax of the slide over the position's legal slides plus log-softmax
    of the arrow over that slide's legal arrows."""
    sidx, aidx = move_indices(moves, size)
    new_group = np.ones(len(moves), bool)
    new_group[1:] = (rows[1:] != rows[:-1]) | (moves[1:, 0] != moves[:-1, 0]) | (moves[1:, 1] != moves[:-1, 1])
    group = np.cumsum(new_group) - 1
    starts = np.flatnonzero(new_group)
    device = slide.device
    flat_s, flat_a = slide.reshape(len(slide), -1).float(), arrow.reshape(len(arrow), -1).float()
    rows_t, group_t = torch.from_numpy(rows).to(device), torch.from_numpy(group).to(device)
    s_logit = flat_s[rows_t[starts], torch.from_numpy(sidx[starts]).to(device)]
    a_logit = flat_a[rows_t, torch.from_numpy(aidx).to(device)]
    s_lp = _segment_log_softmax(s_logit, rows_t[starts], len(slide))
    a_lp = _segment_log_softmax(a_logit, group_t, len(starts))
    return s_lp[group_t] + a_lp


def _segment_log_softmax(x: torch.Tensor, segment: torch.Tensor, segments: int) -> torch.Tensor:
    """Log-softmax of ``x`` within each segment (``segment[i]``: the segment of ``x[i]``)."""
    top = torch.full((segments,), -torch.inf, device=x.device, dtype=x.dtype)
    top = top.scatter_reduce(0, segment, x.detach(), "amax", include_self=True)
    shifted = x - top[segment]
    total = torch.zeros(segments, device=x.device, dtype=x.dtype).index_add(0, segment, shifted.exp())
    return shifted - total.log()[segment]


@functools.lru_cache(maxsize=None)
def symmetry_permutation(size: int) -> np.ndarray:
    """``int64[8, N*N]``: ``[k, s]`` is the image of public square ``s`` under symmetry ``k``.

    >>> int(symmetry_permutation(10)[1, 3])   # d1 mirrored left-right is g1
    6
    """
    perm = np.array([[transform_square(s, k, size) for s in range(size * size)] for k in range(8)], np.int64)
    perm.flags.writeable = False
    return perm


def transform_planes(x: np.ndarray, k: int) -> np.ndarray:
    """Planes ``[..., N, N]`` of positions mapped by symmetry ``k`` (square ``s`` goes to ``perm[k, s]``)."""
    n = x.shape[-1]
    flat = x.reshape(*x.shape[:-2], n * n)
    out = np.empty_like(flat)
    out[..., symmetry_permutation(n)[k]] = flat
    return out.reshape(x.shape)


def transform_cells(cells: np.ndarray, k: int) -> np.ndarray:
    """Padded boards ``uint8[..., W*W]`` mapped by symmetry ``k`` (the frame stays the frame)."""
    size = int(round(np.sqrt(cells.shape[-1]))) - 2
    padded = core.padded_index(size)
    out = cells.copy()
    out[..., padded[symmetry_permutation(size)[k]]] = cells[..., padded]
    return out
