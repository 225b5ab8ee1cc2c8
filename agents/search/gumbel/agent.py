"""``gumbel``: Gumbel AlphaZero's search (``agents.search.gumbel.tree``) as an agent.

``make("gumbel:sims=64")`` searches one game with the policy-value net ``weights`` (a committed
net by name, ``default`` as ``uct-net`` and ``pvmcts``, or a model file path) on ``device``:
``sims`` simulations, ``m`` root actions sampled (Gumbel-top-m) and halved, ``k`` children per
node from the ``slides`` best slides and ``arrows`` best arrows of each. The move is the search's
choice: among the most visited root actions, the best by ``gumbel + logits + completed Q``;
``scale`` weighs the Gumbel noise: 0 (the default) plays without it, the top ``m`` moves by the
prior halved by ``logits + completed Q`` (the stronger player); 1 samples as self-play does, keyed
by a seed drawn from the agent's generator for each move (``seed=`` repeats a game).

>>> import tempfile, os
>>> from amazons_env import Board
>>> from agents import make
>>> from agents.nets.export import save_model
>>> from agents.nets.models import PolicyValueNet
>>> path = save_model(PolicyValueNet(channels=8, blocks=1), os.path.join(tempfile.mkdtemp(), "pv"), board_size=6)
>>> agent = make(f"gumbel:sims=16,m=4,weights={path}", seed=1)
>>> result = agent.search(Board(6))
>>> Board(6).is_legal(result.move), result.simulations
(True, 16)
"""

from __future__ import annotations

from typing import Any, ClassVar, Optional

import numpy as np

from amazons_env import Board, Move
from amazons_env.errors import InvalidArgumentError

from agents.nets.store import POLICY_VALUE_WEIGHTS, policy_value_net, trained_sizes
from agents.options import opt
from agents.registry import register
from agents.search.agent import SearchAgent
from agents.search.result import SearchResult
from agents.time.deadline import Deadline
from agents.time.limit import Limit

__all__ = ["GumbelAgent", "DEVICES"]

#: where the search runs: ``auto`` is the GPU when torch sees one, else the CPU
DEVICES = ("auto", "cpu", "cuda")


@register(
    "gumbel",
    options={
        "sims": opt("simulations per move", ge=1),
        "m": opt("root moves sampled (Gumbel-top-m, at most k) and halved", ge=1),
        "k": opt("children (whole moves) per node, the best by the net's prior", ge=1),
        "slides": opt("best slides per node whose arrows are ranked", ge=1),
        "arrows": opt("best arrows per ranked slide", ge=1),
        "scale": opt("weight of the Gumbel noise (0: none, the stronger play; 1: self-play's sampling)", ge=0),
        "weights": opt("committed policy-value weights by name (default) or a model file path without suffix"),
        "device": opt("torch device of the search", choices=DEVICES),
        "threads": opt("torch threads (0: leave torch's setting)", ge=0),
    },
)
class GumbelAgent(SearchAgent):
    """Gumbel AlphaZero on torch tensors (CPU or GPU): sampled root moves narrowed by sequential
    halving, nodes of the net's likeliest whole moves (module docstring)."""

    name = "gumbel"
    LIMITS: ClassVar[tuple[str, ...]] = ("simulations",)
    STATS: ClassVar[tuple[str, ...]] = ("simulations",)

    def __init__(
        self,
        sims: int = 64,
        m: int = 16,
        k: int = 16,
        slides: int = 16,
        arrows: int = 8,
        scale: float = 0.0,
        weights: str = "default",
        device: str = "auto",
        threads: int = 1,
        seed: Optional[int] = None,
    ) -> None:
        from agents.search.gumbel.tree import Settings

        super().__init__(Limit(simulations=sims), seed)
        self.settings = Settings(sims=sims, m=min(m, k), k=k, top_slides=slides, top_arrows=arrows, gumbel_scale=scale)
        self.weights, self.threads = str(weights), int(threads)
        self.device = _device(device)
        self._nets: dict[int, Any] = {}
        for size in trained_sizes(self.weights, POLICY_VALUE_WEIGHTS):  # load now: a bad file fails here
            self.net(size)

    def net(self, size: int) -> Any:
        """The ``Evaluator`` of the net for ``size`` x ``size`` boards on the agent's device."""
        from agents.search.gumbel.children import Evaluator

        if size not in self._nets:
            self._nets[size] = Evaluator(policy_value_net(self.weights, size, self.threads, "torch"), self.device)
        return self._nets[size]

    def _search(self, board: Board, limit: Limit, deadline: Deadline) -> SearchResult:
        import dataclasses

        import torch

        from amazons_env.tensor.state import from_boards

        from agents.search.gumbel.tree import search

        sims = limit.simulations or self.settings.sims
        settings = dataclasses.replace(self.settings, sims=sims)
        seed = torch.tensor([int(self.rng.integers(1 << 62))])
        out = search(self.net(board.size), from_boards([board], self.device), settings, seed)
        frm, to, arrow = (int(x) for x in out.chosen(board.size)[0])
        value = float(np.clip(out.value[0].item(), -1.0, 1.0))
        return SearchResult(Move(frm, to, arrow, board.size), value, nodes=sims, stats={"simulations": sims})


def _device(device: str) -> str:
    """``device`` resolved (``auto``: ``cuda`` when torch sees a GPU); ``cuda`` without one fails."""
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise InvalidArgumentError("gumbel device=cuda: torch sees no CUDA device here")
    return device
