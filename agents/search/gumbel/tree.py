"""B search trees as tensors, grown in lock-step: one simulation of every game per forward pass.

A tree of ``B`` games holds ``M = sims + 1`` node slots per game (node 0 the root; simulation
``s`` adds node ``s + 1``) and ``K`` children per node, whole moves (``agents.search.gumbel.children``):

* per node ``[B, M]``: ``parent`` (-1 at the root or an unused slot), ``visits``, ``value`` (the
  mean for the node's side to move), ``raw`` (the net's value, or a finished game's result),
  ``terminal``, and its position (a ``TensorState`` of ``B * M`` rows, row ``b * M + node``);
* per child ``[B, M, K]``: ``child`` (its node, -1 until expanded), ``logits`` (its log prior,
  ``-inf`` for no move) and ``moves`` (packed).

One simulation (``simulate``) descends all games together, one level per step: at the root the
Gumbel choice among the actions that sequential halving considers (``agents.search.gumbel.root``),
below it mctx's deterministic interior choice ``argmax(softmax(logits + completed Q) - visits /
(1 + total visits))``. A game stops at a child not yet in its tree (expanded: its position by the
rules' ``step``, its value and children by one forward pass shared by all games) or at a finished
game (its result backed up again). The backup walks the parents, the value changing sign at each
node (whole moves: the side to move alternates). ``search`` runs ``sims`` simulations and returns
the root's statistics, the improved policy and the move chosen (``RootResult``).

Every operation works per game row, so a game's search depends only on its own position, seed and
ply: searched alone or in a batch, on the CPU or an accelerator, it does the same (up to the net's
float rounding).

>>> import torch
>>> from amazons_env.tensor.state import initial_state
>>> from agents.nets.models import PolicyValueNet
>>> from agents.search.gumbel.children import Evaluator
>>> net = Evaluator(PolicyValueNet(channels=8, blocks=1), "cpu")
>>> out = search(net, initial_state(2, size=6), Settings(sims=8, m=4, k=6), seeds=torch.tensor([1, 2]))
>>> out.visits.sum(1).tolist(), out.policy.shape
([8.0, 8.0], torch.Size([2, 6]))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Optional

import torch

from amazons_env.errors import InvalidArgumentError
from amazons_env.tensor.rules import step
from amazons_env.tensor.state import TensorState, check_state, select

from agents.search.gumbel.children import Evaluator, expand, unpack
from agents.search.gumbel.root import completed_q, gumbel_noise, improved_policy, score_considered, visit_table

__all__ = ["Settings", "RootResult", "search"]


@dataclass(frozen=True)
class Settings:
    """A search's settings: ``sims`` simulations, ``m`` sampled root actions, ``k`` children per
    node, built from the ``top_slides`` best slides and ``top_arrows`` best arrows of each;
    ``value_scale`` and ``maxvisit_init`` scale the completed Q (``root.completed_q``);
    ``gumbel_scale`` the root's Gumbel noise (0: none)."""

    sims: int = 64
    m: int = 16
    k: int = 16
    top_slides: int = 16
    top_arrows: int = 8
    value_scale: float = 0.1
    maxvisit_init: float = 50.0
    gumbel_scale: float = 1.0

    def __post_init__(self) -> None:
        for name in ("sims", "m", "k", "top_slides", "top_arrows"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidArgumentError(f"Settings {name}={value!r}: use an integer >= 1")
        if self.m > self.k:
            raise InvalidArgumentError(f"Settings m={self.m}: sample at most k={self.k} root actions")


class RootResult(NamedTuple):
    """What a search says of each root: its children (``moves`` packed, ``logits``), their
    ``visits`` and ``q`` (completed, scaled), the improved ``policy`` (the training target),
    the chosen child ``action``, the root's searched ``value`` and the net's ``raw`` value."""

    moves: torch.Tensor  # int64 [B, K]
    logits: torch.Tensor  # float32 [B, K]
    visits: torch.Tensor  # float32 [B, K]
    q: torch.Tensor  # float32 [B, K]
    policy: torch.Tensor  # float32 [B, K]
    action: torch.Tensor  # int64 [B]
    value: torch.Tensor  # float32 [B]
    raw: torch.Tensor  # float32 [B]

    def chosen(self, size: int) -> torch.Tensor:
        """``int64[B, 3]``: the chosen move of each game, (from, to, arrow) public squares."""
        return unpack(self.moves.gather(1, self.action[:, None])[:, 0], size)


class _Tree:
    """The arrays of ``B`` trees (module docstring)."""

    def __init__(self, roots: TensorState, nodes: int, k: int) -> None:
        b, dev = roots.batch_size, roots.device
        self.b, self.m = b, nodes
        self.rows = torch.arange(b, device=dev)
        self.states = TensorState(*(x.repeat_interleave(nodes, 0) for x in roots))
        self.parent = torch.full((b, nodes), -1, dtype=torch.long, device=dev)
        self.visits = torch.zeros(b, nodes, device=dev)
        self.value = torch.zeros(b, nodes, device=dev)
        self.raw = torch.zeros(b, nodes, device=dev)
        self.terminal = torch.zeros(b, nodes, dtype=torch.bool, device=dev)
        self.child = torch.full((b, nodes, k), -1, dtype=torch.long, device=dev)
        self.logits = torch.full((b, nodes, k), -torch.inf, device=dev)
        self.moves = torch.zeros(b, nodes, k, dtype=torch.long, device=dev)

    def write(self, j: int, state: TensorState, value: torch.Tensor, logits: torch.Tensor, moves: torch.Tensor) -> None:
        """Make slot ``j`` of every game the position ``state`` with its evaluation."""
        for field, x in zip(self.states, state):
            field.view(self.b, self.m, *x.shape[1:])[:, j] = x
        self.raw[:, j] = value
        self.terminal[:, j] = state.terminated
        self.logits[:, j] = logits
        self.moves[:, j] = moves

    def children(self, node: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(logits, visits, q)`` ``[B, K]`` of each game's ``node``: ``q`` for its side to move."""
        child = self.child[self.rows, node]
        at = child.clamp(min=0)
        seen = child >= 0
        visits = torch.where(seen, self.visits.gather(1, at), 0.0)
        q = torch.where(seen, -self.value.gather(1, at), 0.0)
        return self.logits[self.rows, node], visits, q


def _interior(tree: _Tree, node: torch.Tensor, settings: Settings) -> torch.Tensor:
    logits, visits, q = tree.children(node)
    cq = completed_q(q, visits, logits, tree.raw[tree.rows, node], settings.value_scale, settings.maxvisit_init)
    probs = improved_policy(logits, cq)
    score = probs - visits / (1 + visits.sum(-1, keepdim=True))
    return torch.where(logits > -torch.inf, score, -torch.inf).argmax(-1)


def _root_choice(tree: _Tree, noise: torch.Tensor, considered: torch.Tensor, settings: Settings) -> torch.Tensor:
    root = torch.zeros_like(tree.rows)
    logits, visits, q = tree.children(root)
    cq = completed_q(q, visits, logits, tree.raw[:, 0], settings.value_scale, settings.maxvisit_init)
    return score_considered(considered[:, None], noise, logits, cq, visits).argmax(-1)


def simulate(
    tree: _Tree, s: int, net: Evaluator, noise: torch.Tensor, considered: torch.Tensor, settings: Settings
) -> None:
    """Simulation ``s`` of every game (module docstring); ``considered[B]`` the root's visit count
    that sequential halving considers now."""
    rows, size = tree.rows, tree.states.size
    node = torch.zeros_like(rows)
    parent = torch.full_like(rows, -1)  # the node whose child is expanded, -1: stopped at a finished game
    slot = torch.zeros_like(rows)
    descending = ~tree.terminal[:, 0]
    levels = 0
    while bool(descending.any()):
        a = _root_choice(tree, noise, considered, settings) if levels == 0 else _interior(tree, node, settings)
        nxt = tree.child[rows, node, a]
        new = descending & (nxt < 0)
        parent, slot = torch.where(new, node, parent), torch.where(new, a, slot)
        down = descending & (nxt >= 0)
        node = torch.where(down, nxt, node)
        descending = down & ~tree.terminal[rows, node]
        levels += 1
    j = s + 1
    expanding = parent >= 0
    at = parent.clamp(min=0)
    nn = size * size
    frm, to, shot = unpack(tree.moves[rows, at, slot], size).unbind(-1)
    state = select(tree.states, rows * tree.m + at)
    state = step(step(state, frm * nn + to)[0], to * nn + shot)[0]
    value, logits, moves = expand(net, state, settings.top_slides, settings.top_arrows, tree.child.shape[2])
    tree.write(j, state, value, logits, moves)
    tree.parent[:, j] = torch.where(expanding, parent, -1)
    tree.child[rows, at, slot] = torch.where(expanding, j, tree.child[rows, at, slot])
    tree.visits[:, j] = expanding.float()
    tree.value[:, j] = torch.where(expanding, value, 0.0)
    # back up: from the expanded node's parent, or from the finished game's node itself
    cur = torch.where(expanding, parent, node)
    v = torch.where(expanding, -value, tree.raw[rows, node])
    active = torch.ones_like(expanding)
    for _ in range(levels + 1):
        n = tree.visits[rows, cur]
        tree.value[rows, cur] = torch.where(active, (tree.value[rows, cur] * n + v) / (n + 1), tree.value[rows, cur])
        tree.visits[rows, cur] = n + active.float()
        up = tree.parent[rows, cur]
        active = active & (up >= 0)
        cur, v = up.clamp(min=0), -v


def _grow(net: Evaluator, roots: TensorState, settings: Settings, noise: torch.Tensor) -> _Tree:
    """The trees of ``roots`` after ``settings.sims`` simulations with the root noise ``noise[B, K]``."""
    tree = _Tree(roots, settings.sims + 1, settings.k)
    value, logits, moves = expand(net, roots, settings.top_slides, settings.top_arrows, settings.k)
    tree.write(0, roots, value, logits, moves)
    tree.visits[:, 0], tree.value[:, 0] = 1.0, value
    sampled = (logits > -torch.inf).sum(-1).clamp(max=settings.m)
    table = visit_table(settings.m, settings.sims, roots.device)
    for s in range(settings.sims):
        simulate(tree, s, net, noise, table[sampled, s], settings)
    return tree


def search(
    net: Evaluator, roots: TensorState, settings: Settings, seeds: torch.Tensor, plies: Optional[torch.Tensor] = None
) -> RootResult:
    """``settings.sims`` simulations from each of the ``B`` positions ``roots`` (queen phase);
    ``seeds[B]`` and ``plies[B]`` (default 0) key each root's Gumbel noise (``root.gumbel_noise``)."""
    check_state(roots, "roots")
    if bool((roots.phase != 0).any()):
        raise InvalidArgumentError(
            "search: roots must be positions with a queen to move (phase 0), not between a slide and its arrow"
        )
    plies = torch.zeros_like(seeds) if plies is None else plies
    for name, keys in (("seeds", seeds), ("plies", plies)):
        if not isinstance(keys, torch.Tensor) or keys.shape != (roots.batch_size,) or keys.dtype != torch.int64:
            raise InvalidArgumentError(f"search: {name} must be an int64 tensor of shape ({roots.batch_size},)")
    noise = settings.gumbel_scale * gumbel_noise(seeds.to(roots.device), plies.to(roots.device), settings.k)
    tree = _grow(net, roots, settings, noise)
    root = torch.zeros_like(tree.rows)
    logits, visits, q = tree.children(root)
    cq = completed_q(q, visits, logits, tree.raw[:, 0], settings.value_scale, settings.maxvisit_init)
    action = score_considered(visits.amax(-1, keepdim=True), noise, logits, cq, visits).argmax(-1)
    return RootResult(
        tree.moves[:, 0], logits, visits, cq, improved_policy(logits, cq), action, tree.value[:, 0], tree.raw[:, 0]
    )
