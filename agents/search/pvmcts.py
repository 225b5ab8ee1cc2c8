"""``pvmcts``: the PUCT tree (``agents.search.puct``) guided by a policy-value net (``agents.nets.policy_value``).

``PolicyValueEvaluator`` expands the tree's new positions with the net, all of them in one forward
pass (``PVNet.evaluate``: legal moves of every position in one numba call, input planes, the net):
a position's moves are grouped by queen slide, the slide's prior is the net's slide softmax over
the position's slides, an arrow's prior the arrow softmax (given the slide's destination) over that
slide's arrows, and the position's value the net's. An unvisited move's value is its position's
less ``fpu``. A position without a legal move is a loss for its side to move, with no net call.
The tree's batches (virtual loss between ``batch`` leaves) fill each forward pass; ``run_trees``
grows many trees in lock-step for the self-play of ``training.selfplay.policy_value``.

The agent (``make("pvmcts:time=1")``): ``time`` seconds per move (default 1) or ``sims``
simulations; ``c`` the PUCT constant; ``batch`` leaves per forward pass; ``weights`` the committed
net by name (``default``, ``agents.nets.store``) or a model file path; ``threads`` torch threads
(1: one per process, as the arena wants). The subtree of the position reached is kept between
moves. The move is the most visited slide and its most visited arrow.

>>> import tempfile, os
>>> from amazons_env import Board
>>> from agents import make
>>> from agents.nets.export import save_model
>>> from agents.nets.models import PolicyValueNet
>>> path = save_model(PolicyValueNet(channels=8, blocks=1), os.path.join(tempfile.mkdtemp(), "pv"), board_size=6)
>>> agent = make(f"pvmcts:sims=40,batch=4,weights={path}")
>>> board = Board(6)
>>> result = agent.search(board)
>>> board.is_legal(result.move), result.simulations >= 40
(True, True)
"""

from __future__ import annotations

import warnings
from typing import Any, Optional, Sequence

import numpy as np

from agents.nets.inference import PVNet
from agents.nets.onnx_runtime import RUNTIME_HELP, RUNTIMES
from agents.nets.store import POLICY_VALUE_WEIGHTS, policy_value_net, trained_sizes
from agents.options import TIME, opt
from agents.registry import register
from agents.resources import check_threads
from agents.search.puct.agent import PUCTAgent
from agents.search.puct.tree import Node, PUCTEvaluator, Tree, best_move, run_trees, slide_groups, start_roots

__all__ = ["PVMCTS", "PolicyValueEvaluator", "PVNet", "Node", "Tree", "run_trees", "start_roots", "best_move"]


def _softmax_groups(logits: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Softmax of ``logits`` within each run beginning at ``starts`` (starts[0] == 0)."""
    top = np.maximum.reduceat(logits, starts)
    lengths = np.diff(np.append(starts, len(logits)))
    e = np.exp(logits - np.repeat(top, lengths))
    return e / np.repeat(np.add.reduceat(e, starts), lengths)


class PolicyValueEvaluator(PUCTEvaluator):
    """The tree's new positions expanded by the policy-value net ``net`` (module docstring)."""

    def __init__(self, net: PVNet) -> None:
        self.net = net

    def expand(self, nodes: Sequence[Node], size: int) -> None:
        from agents.nets.policy_value import legal_moves_batch, move_indices

        cells = np.stack([node.cells for node in nodes])
        sides = np.array([node.side for node in nodes], np.int64)
        rows, moves = legal_moves_batch(cells, sides, size)
        legal = np.split(moves.astype(np.int16), np.searchsorted(rows, np.arange(1, len(nodes))))
        live = [i for i, m in enumerate(legal) if len(m)]
        if not live:
            return  # every position is lost: a new node is terminal at -1 until expanded
        values, slide, arrow = self.net.evaluate(cells[live], sides[live])
        for j, i in enumerate(live):
            sidx, aidx = move_indices(legal[i], size)
            starts = slide_groups(legal[i])
            ls = slide[j][sidx[starts]]
            e = np.exp(ls - ls.max())
            nodes[i].expand(legal[i], values[j], e / e.sum(), _softmax_groups(arrow[j][aidx], starts), starts)


@register(
    "pvmcts",
    options={
        "time": TIME,
        "sims": opt("simulations per move (instead of time)", ge=1),
        "weights": opt("committed policy-value weights by name (default) or a model file path without suffix"),
        "c": opt("PUCT exploration constant", gt=0),
        "batch": opt("leaves per forward pass (virtual loss between them)", ge=1),
        "fpu": opt("first-play urgency: an unvisited move's value is its parent's value less this", ge=0),
        "threads": opt("torch threads for the forward passes (0: leave torch's setting)", ge=0),
        "runtime": opt(RUNTIME_HELP, choices=RUNTIMES),
        "reuse": opt("keep the subtree between moves"),
    },
)
class PVMCTS(PUCTAgent):
    """The PUCT tree guided by a policy-value net's priors and values (module docstring)."""

    name = "pvmcts"

    def __init__(
        self,
        time: Optional[float] = None,
        sims: Optional[int] = None,
        weights: str = "default",
        c: float = 1.5,
        batch: int = 8,
        fpu: float = 0.2,
        threads: int = 1,
        runtime: str = "auto",
        reuse: bool = True,
        seed: Optional[int] = None,
    ) -> None:
        super().__init__(time, sims, c, fpu, batch, reuse, seed=seed)
        self.weights, self.threads, self.runtime = str(weights), check_threads(threads), str(runtime)
        for size in trained_sizes(self.weights, POLICY_VALUE_WEIGHTS):  # load now: a bad file fails here
            self.net(size)

    def net(self, size: int) -> PVNet:
        """The policy-value net for ``size`` x ``size`` boards (``agents.nets.store``: loaded once)."""
        return policy_value_net(self.weights, size, self.threads, self.runtime)

    def tree_evaluator(self, size: int) -> PolicyValueEvaluator:
        return PolicyValueEvaluator(self.net(size))


def __getattr__(name: str) -> Any:
    if name == "pv_weights_path":
        warnings.warn(
            "agents.search.pvmcts.pv_weights_path is agents.nets.store.weights_path(weights, size, "
            "POLICY_VALUE_WEIGHTS) (the old name goes away in the next version)",
            DeprecationWarning,
            stacklevel=2,
        )
        from agents.nets.store import weights_path

        return lambda weights, size: weights_path(weights, size, POLICY_VALUE_WEIGHTS)
    if name == "PV_WEIGHTS":
        warnings.warn(
            "agents.search.pvmcts.PV_WEIGHTS is agents.nets.store.POLICY_VALUE_WEIGHTS (the old name goes "
            "away in the next version)",
            DeprecationWarning,
            stacklevel=2,
        )
        return POLICY_VALUE_WEIGHTS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
