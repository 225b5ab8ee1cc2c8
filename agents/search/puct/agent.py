"""The agent around one PUCT tree (``agents.search.puct.tree``): a ``SearchAgent`` (``Limit`` of time
and/or simulations) that keeps the subtree of the position two plies later for the next move and
plays the most visited move; its subclasses name the tree's ``PUCTEvaluator`` (``mcts``, ``pvmcts``).

>>> from amazons_env import Board
>>> from agents import make
>>> agent = make("mcts:sims=30,k=4")
>>> result = agent.search(Board(6))
>>> Board(6).is_legal(result.move), result.simulations, agent.root.visits
(True, 30, 30)
"""

from __future__ import annotations

import time as _time
from abc import abstractmethod
from typing import ClassVar, Optional

import numpy as np

from amazons_env import Board, Move

from agents.search.agent import SearchAgent
from agents.search.puct.tree import Node, PUCTEvaluator, Tree, best_move, run_trees, start_roots
from agents.search.result import SearchResult
from agents.time.deadline import Deadline
from agents.time.limit import Limit

__all__ = ["PUCTAgent"]

#: simulations of a search bounded by time only
UNBOUNDED = 1 << 40


class PUCTAgent(SearchAgent):
    """An agent searching one ``Tree`` per move with its ``tree_evaluator`` (module docstring): ``time``
    seconds per move (default 1, unless ``sims`` is set) and/or ``sims`` simulations, the PUCT
    constant ``c``, the first-play urgency ``fpu``, ``batch`` leaves per evaluator call, ``reuse``
    (keep the subtree between moves), ``endgame`` (``SearchAgent``: the filling shortcut)."""

    LIMITS: ClassVar[tuple[str, ...]] = ("time", "simulations")
    STATS: ClassVar[tuple[str, ...]] = ("simulations", "tree")

    def __init__(
        self,
        time: Optional[float] = None,
        sims: Optional[int] = None,
        c: float = 1.5,
        fpu: float = 0.2,
        batch: int = 1,
        reuse: bool = True,
        endgame: int = 0,
        seed: Optional[int] = None,
    ) -> None:
        super().__init__(Limit(time=1.0 if time is None and sims is None else time, simulations=sims), seed, endgame)
        self.c, self.fpu, self.batch, self.reuse = float(c), float(fpu), int(batch), bool(reuse)
        self._tree: Optional[Tree] = None

    @abstractmethod
    def tree_evaluator(self, size: int) -> PUCTEvaluator:
        """What expands the tree's positions on ``size`` x ``size`` boards."""

    @property
    def root(self) -> Optional[Node]:
        """The root of the last search's tree (None before the first)."""
        return None if self._tree is None else self._tree.root

    def reset(self) -> None:
        self._tree = None

    def _reused_root(self, board: Board) -> Optional[Node]:
        """The node of the kept tree for ``board``'s position two plies below its root (our last
        move and the reply), if the search expanded it."""
        tree = self._tree
        if not self.reuse or tree is None or tree.root is None or tree.size != board.size:
            return None
        root = tree.root
        side = int(board.turn)
        for child in root.children.values():
            for grandchild in child.children.values():
                if grandchild.side == side and np.array_equal(grandchild.cells, board.cells):
                    return grandchild
        return None

    def _search(self, board: Board, limit: Limit, deadline: Deadline) -> SearchResult:
        begun = _time.perf_counter()
        tree = Tree(board.size, self.c, self.fpu)
        tree.root = self._reused_root(board)
        fresh = tree.root is None
        evaluator = self.tree_evaluator(board.size)
        start_roots([tree], [(board.cells.copy(), int(board.turn))], evaluator)
        pace = _time.perf_counter() - begun if fresh else 0.0  # a fresh root's expansion: the first guess
        run_trees([tree], evaluator, limit.simulations or UNBOUNDED, self.batch, deadline.stop, pace)
        self._tree = tree
        root = tree.root
        assert root is not None  # start_roots gave the tree its root
        m = best_move(root)
        frm, to, arrow = (int(x) for x in root.moves[m])
        move = Move(frm, to, arrow, board.size)
        return SearchResult(move, root.mean(m), nodes=tree.sims, stats={"simulations": tree.sims, "tree": root.size()})
