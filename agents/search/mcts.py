"""``mcts``: the PUCT tree (``agents.search.puct``) with evaluation cut-offs instead of random playouts.

The lesson of Invader (a Computer Olympiad champion): in Amazons, MCTS whose simulations stop
at an evaluation beats random playouts and can beat alpha-beta. Here the tree is guided by
``ChildScores``, a hand-written evaluator's scores of each new position's children:

* **Expansion** of a node generates its candidate children as ``move_order.candidates`` does (queen
  moves scored first, the best ``kq`` kept, then every arrow of those scored by the evaluation of
  the position after the whole move) and keeps the best ``k``. For an evaluator without a kernel
  (the value net) all children are scored by **one** ``evaluate_batch`` call instead.
* The children's scores give the priors (softmax with temperature ``tau``) and their first-play
  values; the value backed up from a new node is its best child's score (a one-move lookahead),
  so every simulation is one batch of evaluations and no playout at all. Each child is a group
  of its own in the tree, so selection is one level: ``Q + c * P * sqrt(N) / (1 + n)``.
* The filling phase and finished games are scored exactly (``agents.search.endgame``): +-1.
* **Budget**: ``time`` seconds per move or ``sims`` simulations; the move played is the most
  visited child. A timed search starts no simulation that its measured duration says would end
  after the clock's deadline (a value-net expansion takes a tenth of a second or more). **Tree
  reuse**: the subtree of the position reached two plies later (our move and the reply) is kept.

>>> from amazons_env import Board
>>> from agents import make
>>> result = make("mcts:sims=20,k=4").search(Board(6))
>>> result.simulations, Board(6).is_legal(result.move)
(20, True)
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from amazons_env import core

from agents.evaluation.evaluator import Evaluator, make_evaluator, queens_from_cells
from agents.options import EVAL, TIME, OptionError, opt
from agents.registry import register
from agents.search import endgame
from agents.search.move_order import WIN, candidates, search_stats
from agents.search.puct.agent import PUCTAgent
from agents.search.puct.tree import Node, PUCTEvaluator

__all__ = ["MCTS", "ChildScores"]


class ChildScores(PUCTEvaluator):
    """A new position's ``k`` best children by ``evaluator``'s score of the position after each
    (``kq`` queen moves kept before arrows are scored, 0: all), their priors a softmax of the
    scores at temperature ``tau``, their scores their first-play values, and the best score the
    position's value; ``endgame``: the fill-search budget that proves separated positions."""

    def __init__(self, evaluator: Evaluator, k: int = 16, kq: int = 8, tau: float = 0.05, endgame: int = 300) -> None:
        self.evaluator, self.k, self.kq, self.tau, self.endgame = evaluator, k, kq, tau, endgame
        self.stats = search_stats()  # ``candidates`` counts its evaluator calls here
        self._tables: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._queens, self._nq = np.zeros((2, core.MAX_QUEENS), np.int64), np.zeros(2, np.int64)

    def expand(self, nodes: Sequence[Node], size: int) -> None:
        if size not in self._tables:
            self._tables[size] = core.directions(size + 2), core.public_index(size)
        dirs, public = self._tables[size]
        queens, nq = self._queens, self._nq
        for node in nodes:
            cells, side = node.cells, node.side
            queens_from_cells(cells, queens, nq)
            if not core.has_move(cells, queens, nq, side, dirs):
                node.prove(-1.0)
                continue
            if self.endgame:
                outcome, _ = endgame.fill_value(cells, queens, nq, side, dirs, self.endgame)
                if outcome != 0:
                    node.prove(float(outcome))
                    continue
            rows = core.max_moves(size, int(nq.max()))
            moves, scores = np.empty((rows, 3), np.int64), np.empty(rows)
            if self.evaluator.kernel is not None:
                n = candidates(
                    cells,
                    queens,
                    nq,
                    side,
                    dirs,
                    self.evaluator.kernel,
                    self.evaluator.params,
                    self.kq,
                    moves,
                    scores,
                    np.empty((rows, 2), np.int64),
                    np.empty(rows),
                    self.stats,
                )
            else:
                n = core.generate_moves(cells, queens, nq, side, dirs, moves)
                values = self.evaluator.score_moves(cells, queens, nq, side, dirs, moves, n, WIN)
                order = np.argsort(-values[:n], kind="stable")
                moves[:n], scores[:n] = moves[order], values[order]
            keep = min(self.k, n)
            first = np.clip(scores[:keep], -1.0, 1.0)
            prior = np.exp((first - first.max()) / self.tau)
            node.expand(
                public[moves[:keep]].astype(np.int16),
                min(1.0, scores[0]),
                prior / prior.sum(),
                np.ones(keep),
                starts=np.arange(keep),
                first=first,
            )


@register(
    "mcts",
    forward="eval",
    options={
        "time": TIME,
        "sims": opt("simulations per move (instead of time)", ge=1),
        "eval": EVAL,
        "k": opt("children kept per node", ge=1),
        "kq": opt("queen moves kept before arrows are scored (0 = all)", ge=0),
        "c": opt("exploration constant", gt=0),
        "tau": opt("prior temperature", gt=0),
        "reuse": opt("keep the subtree between moves"),
        "endgame": opt("fill-search budget per region at expansion (0 = off)", ge=0),
    },
)
class MCTS(PUCTAgent):
    """The PUCT tree guided by a hand-written evaluator's scores of the children (module docstring).
    Options: ``time`` seconds per move (default 1.0) or ``sims`` simulations, ``eval`` (default
    ``territory``), ``k`` children kept per node, ``kq`` queen moves kept before arrows are
    scored, ``c`` the exploration constant, ``tau`` the prior temperature, ``reuse`` (keep the
    subtree between moves)."""

    name = "mcts"

    def __init__(
        self,
        time: Optional[float] = None,
        sims: Optional[int] = None,
        eval: Any = "territory",
        k: int = 16,
        kq: int = 8,
        c: float = 1.5,
        tau: float = 0.05,
        reuse: bool = True,
        endgame: int = 300,
        seed: Optional[int] = None,
        **eval_options: Any,
    ) -> None:
        if k < 1 or kq < 0 or not c > 0 or not tau > 0:
            raise OptionError(f"k={k} must be >= 1, kq={kq} >= 0, c={c} and tau={tau} > 0")
        super().__init__(time, sims, c, reuse=reuse, endgame=endgame, seed=seed)
        self.evaluator = make_evaluator(eval, **eval_options)
        self.k, self.kq, self.tau = k, kq, tau
        self._scores = ChildScores(self.evaluator, k, kq, tau, endgame)

    def tree_evaluator(self, size: int) -> ChildScores:
        return self._scores
