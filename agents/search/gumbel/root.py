"""The root of a Gumbel search: the sampled actions, sequential halving and the improved policy.

The design of mctx's ``gumbel_muzero_policy`` (Danihelka et al. 2022, "Policy improvement by
planning with Gumbel"), on torch tensors batched over games, each function a twin of mctx's:

* ``gumbel_noise(seeds, plies, K)``: the Gumbel(0, 1) variables of each root's children, a hash of
  (game seed, ply, child) computed on the device: a game's noise depends on nothing else, so a
  game searched alone or among thousands, on any device, samples the same actions.
* ``considered_visits(m, sims)``: Sequential Halving as a schedule of visit counts: simulation ``i``
  visits the best of the root actions that have exactly ``considered_visits(m, sims)[i]`` visits.
  The first ``m`` simulations each visit a fresh action, in the order of ``gumbel + logits``:
  that is Gumbel-top-``m`` sampling without replacement; then each round halves the actions.
* ``completed_q``: mctx's ``qtransform_completed_by_mix_value``: an unvisited action's Q is the
  mixed value (the net's value and the visited actions' Q weighted by their prior), the Q values
  rescaled to [0, 1] and scaled by ``(maxvisit_init + max visits) * value_scale``.
* ``score_considered``: ``gumbel + logits + completed Q`` among the actions with the considered
  visit count (``-inf`` elsewhere): the root's choice during the search and after it.
* ``improved_policy``: ``softmax(logits + completed Q)``, the policy target of training.

Tensors are ``[B, K]`` over the ``K`` children of ``B`` roots; an invalid child has logit ``-inf``.

>>> considered_visits(4, 10)
(0, 0, 0, 0, 1, 1, 2, 2, 3, 3)
>>> import torch
>>> logits = torch.tensor([[0.0, -1.0, -float("inf")]])
>>> q = completed_q(torch.tensor([[0.5, 0.0, 0.0]]), torch.tensor([[2.0, 0.0, 0.0]]), logits, torch.tensor([0.0]))
>>> improved_policy(logits, q)[0, 2].item()
0.0
"""

from __future__ import annotations

import functools
import math

import torch

__all__ = ["gumbel_noise", "considered_visits", "visit_table", "completed_q", "score_considered", "improved_policy"]


_MASK32 = 0xFFFFFFFF


def _mul32(x: torch.Tensor, c: int) -> torch.Tensor:
    """``x * c mod 2**32`` for ``x`` in [0, 2**32) in int64 without overflow (16-bit halves of ``c``)."""
    low = x * (c & 0xFFFF)
    high = ((x * (c >> 16)) & 0xFFFF) << 16
    return (low + high) & _MASK32


def _hash32(x: torch.Tensor) -> torch.Tensor:
    """Chris Wellons' ``lowbias32`` integer hash of each 32-bit value of ``x``."""
    x = x ^ (x >> 16)
    x = _mul32(x, 0x7FEB352D)
    x = x ^ (x >> 15)
    x = _mul32(x, 0x846CA68B)
    return x ^ (x >> 16)


def gumbel_noise(seeds: torch.Tensor, plies: torch.Tensor, k: int) -> torch.Tensor:
    """``float32[B, k]`` Gumbel(0, 1) noise of ``B`` roots: a hash of each game's ``seeds[B]``,
    the root's ``plies[B]`` and the child's index, on their device.

    >>> noise = gumbel_noise(torch.tensor([7, 7]), torch.tensor([3, 4]), 5)
    >>> noise.shape, bool((noise[0] != noise[1]).all())
    (torch.Size([2, 5]), True)
    >>> bool((gumbel_noise(torch.tensor([7]), torch.tensor([3]), 5) == noise[:1]).all())
    True
    """
    child = torch.arange(k, device=seeds.device)
    key = _hash32(seeds[:, None] & _MASK32)
    key = _hash32(key ^ _hash32((seeds[:, None] >> 32) & _MASK32))
    key = _hash32(key ^ (plies[:, None] & _MASK32))
    key = _hash32(key ^ child)
    uniform = (key.double() + 0.5) / 2.0**32
    return (-torch.log(-torch.log(uniform))).float()


def considered_visits(m: int, sims: int) -> tuple[int, ...]:
    """The visit count considered at each of ``sims`` simulations with ``m`` sampled root actions
    (mctx's ``get_sequence_of_considered_visits``): rounds of ``max(1, sims // (log2(m) * k))``
    visits to each of the ``k`` actions left, ``k`` halved (at least 2) after each round."""
    if m <= 1:
        return tuple(range(sims))
    log2max = int(math.ceil(math.log2(m)))
    sequence: list[int] = []
    visits = [0] * m
    considered = m
    while len(sequence) < sims:
        extra = max(1, int(sims / (log2max * considered)))
        for _ in range(extra):
            sequence.extend(visits[:considered])
            for i in range(considered):
                visits[i] += 1
        considered = max(2, considered // 2)
    return tuple(sequence[:sims])


@functools.lru_cache(maxsize=64)
def _table(m: int, sims: int) -> tuple[tuple[int, ...], ...]:
    return tuple(considered_visits(k, sims) + (0,) for k in range(m + 1))


def visit_table(m: int, sims: int, device: "torch.device | str | None" = None) -> torch.Tensor:
    """``int64[m + 1, sims + 1]``: row ``k`` the schedule with ``k`` sampled actions (a root with
    fewer legal children than ``m`` samples them all), a last column to index after the search."""
    return torch.tensor(_table(m, sims), dtype=torch.int64, device=device)


def completed_q(
    q: torch.Tensor,
    visits: torch.Tensor,
    logits: torch.Tensor,
    raw_value: torch.Tensor,
    value_scale: float = 0.1,
    maxvisit_init: float = 50.0,
) -> torch.Tensor:
    """The completed, rescaled and scaled Q values ``[B, K]`` (module docstring): ``q`` the mean
    value of each child for the side to move at the root (anything where unvisited), ``visits``
    the children's visits, ``logits`` their prior logits, ``raw_value[B]`` the net's value of the
    root."""
    visited = visits > 0
    total = visits.sum(-1)
    probs = torch.softmax(logits, -1).clamp_min(torch.finfo(logits.dtype).tiny)
    mass = torch.where(visited, probs, 0.0).sum(-1, keepdim=True)
    weighted = torch.where(visited, probs * q / torch.where(mass > 0, mass, 1.0), 0.0).sum(-1)
    mixed = (raw_value + total * weighted) / (total + 1)
    done = torch.where(visited, q, mixed[:, None])
    low, high = done.amin(-1, keepdim=True), done.amax(-1, keepdim=True)
    done = (done - low) / (high - low).clamp_min(1e-8)
    return (maxvisit_init + visits.amax(-1, keepdim=True)) * value_scale * done


def score_considered(
    considered: torch.Tensor, gumbel: torch.Tensor, logits: torch.Tensor, q: torch.Tensor, visits: torch.Tensor
) -> torch.Tensor:
    """``gumbel + logits + q`` (floored at -1e9, so that a valid child always beats an invalid one)
    where a child's visits equal ``considered[B, 1]``, ``-inf`` elsewhere and at invalid children."""
    valid = logits > -torch.inf
    shifted = logits - logits.amax(-1, keepdim=True)
    score = (gumbel + shifted + q).clamp_min(-1e9)
    return torch.where(valid & (visits == considered), score, -torch.inf)


def improved_policy(logits: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """``softmax(logits + q)`` over the valid children (0 at invalid ones; all 0 if none is valid)."""
    valid = logits > -torch.inf
    scores = torch.where(valid, logits + q, -torch.inf)
    probs = torch.softmax(torch.where(valid.any(-1, keepdim=True), scores, 0.0), -1)
    return torch.where(valid, probs, 0.0)
