"""A position's children in the search: its top-K whole moves by the net's prior, in one forward pass.

The net (``agents.nets.policy_value``) factorises a move's prior into its slide's and its arrow's:
``log p(f, t, a) = log softmax_slides(slide[f -> t]) + log softmax_arrows(arrow[t -> a])``, the
slide's softmax over the position's legal slides, the arrow's over that slide's legal arrows
(``move_log_probs``, the numpy twin). ``expand`` keeps the ``top_slides`` best slides, the
``top_arrows`` best arrows of each, and of those the ``k`` best whole moves: every move kept has
its exact log prior (a logit normalised over *all* legal moves); the moves left out are pruned
from the tree. The legal slides are the queens' reaches (``agents.search.gumbel.planes``); a
slide's legal arrows the rays from its destination over the squares empty once the queen has
left its square.

A move is packed into one integer, ``(from * N*N + to) * N*N + arrow`` of public squares
(``unpack``); an invalid child (a position with fewer moves than ``k``) has logit ``-inf``.

>>> import torch
>>> from amazons_env.tensor.state import initial_state
>>> from agents.nets.models import PolicyValueNet
>>> net = Evaluator(PolicyValueNet(channels=8, blocks=1), "cpu")
>>> value, logits, moves = expand(net, initial_state(1, size=6), 4, 2, 3)
>>> logits.shape, bool((logits[0] <= 0).all()), unpack(moves, 6).shape
(torch.Size([1, 3]), True, torch.Size([1, 3, 3]))
"""

from __future__ import annotations

from typing import Any

import torch

from amazons_env.tensor.reach import tables
from amazons_env.tensor.state import TensorState

from agents.nets.models import LINES, REACH
from agents.search.gumbel.planes import relative_planes

__all__ = ["Evaluator", "expand", "unpack"]


class Evaluator:
    """A policy-value net running on ``device``: ``model`` a ``PolicyValueNet``, or a
    ``agents.nets.inference.PVNet`` (its model), as its inference copy (batch norms folded,
    channels-last: ``agents.nets.inference.inference_module``), in half-precision autocast on an
    accelerator."""

    def __init__(self, model: Any, device: "torch.device | str" = "cpu") -> None:
        from agents.nets.inference import inference_module

        self.device = torch.device(device)
        self.module = inference_module(getattr(model, "model", model)).to(self.device)

    def __call__(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(value[R], slide[R, LINES, N, N], arrow[R, LINES, N, N])`` in float32."""
        x = planes.contiguous(memory_format=torch.channels_last)
        with torch.inference_mode(), torch.autocast(self.device.type, enabled=self.device.type != "cpu"):
            value, slide, arrow = self.module(x)
        return value.float(), slide.float(), arrow.float()


def _log_softmax(logits: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """Log-softmax over the last axis among ``legal`` entries, ``-inf`` elsewhere (and everywhere
    in a row without a legal entry)."""
    masked = torch.where(legal, logits, -torch.inf)
    return torch.where(legal, torch.log_softmax(masked, -1), -torch.inf)


def expand(
    net: Evaluator, state: TensorState, top_slides: int, top_arrows: int, k: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(value[R], logits[R, k], moves[R, k])`` of the ``R`` positions of ``state`` (queen phase):
    the value for the side to move (a finished game's result: the side to move lost), each
    child's log prior and its packed move (module docstring)."""
    r, n = state.batch_size, state.size
    nn, rays = n * n, tables(n, state.device).rays
    seen = relative_planes(state)
    value, slide, arrow = net(seen.planes)
    # the logits read square-major ([R, N, N, LINES]): a view of the net's channels-last output, no copy
    slide, arrow = (x.permute(0, 2, 3, 1).reshape(r, -1) for x in (slide, arrow))
    lines = torch.arange(8, device=state.device)[:, None] * REACH + torch.arange(n - 1, device=state.device)
    # the slides: every queen's rays, scored by the slide head at the queen's square
    src = seen.sources.clamp(max=nn - 1)[:, :, None, None] * LINES
    s_logit = slide.gather(1, (lines + src).reshape(r, -1))
    s_lp = _log_softmax(s_logit, seen.reach.reshape(r, -1))
    k1 = min(top_slides, s_lp.shape[1])
    s_top, s_at = s_lp.topk(k1, dim=1)
    per_queen = 8 * (n - 1)
    frm = seen.sources.gather(1, s_at // per_queen)
    to = seen.targets.reshape(r, -1).gather(1, s_at)
    # the arrows of each kept slide: the rays from its destination, the queen's square now empty
    a_targets = rays[to]  # [R, K1, 8, N-1]
    free = torch.cat([state.cells.flatten(1) == 0, torch.zeros_like(s_at[:, :1], dtype=torch.bool)], 1)
    open_ = free.gather(1, a_targets.reshape(r, -1)).view(a_targets.shape) | (a_targets == frm[:, :, None, None])
    a_reach = open_.cummin(dim=-1).values
    a_index = lines + to.clamp(max=nn - 1)[:, :, None, None] * LINES
    a_logit = arrow.gather(1, a_index.reshape(r, -1)).view(r, k1, -1)
    a_lp = _log_softmax(a_logit, a_reach.view(r, k1, -1))
    k2 = min(top_arrows, a_lp.shape[2])
    a_top, a_at = a_lp.topk(k2, dim=2)
    shot = a_targets.view(r, k1, -1).gather(2, a_at)
    joint = (s_top[:, :, None] + a_top).view(r, -1)
    logits, at = joint.topk(min(k, joint.shape[1]), dim=1)
    packed = ((frm[:, :, None] * nn + to[:, :, None]) * nn + shot).view(r, -1).gather(1, at)
    if logits.shape[1] < k:  # fewer candidates than children: the rest invalid
        pad = k - logits.shape[1]
        logits = torch.cat([logits, logits.new_full((r, pad), -torch.inf)], 1)
        packed = torch.cat([packed, packed.new_zeros((r, pad))], 1)
    packed = torch.where(logits > -torch.inf, packed, 0)
    lost = torch.where(state.winner == state.side, 1.0, -1.0)
    return torch.where(state.terminated, lost, value), logits, packed


def unpack(moves: torch.Tensor, size: int) -> torch.Tensor:
    """``int64[..., 3]``: the (from, to, arrow) public squares of packed moves."""
    nn = size * size
    return torch.stack([moves // (nn * nn), (moves // nn) % nn, moves % nn], dim=-1)
