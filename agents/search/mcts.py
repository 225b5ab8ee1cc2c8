"""``mcts``: PUCT tree search over whole moves with evaluation cut-offs instead of random playouts.

The lesson of Invader (a Computer Olympiad champion): in Amazons, MCTS whose simulations stop
at an evaluation beats random playouts and can beat alpha-beta. Here:

* **Expansion** of a node generates its candidate children as ``alphabeta.candidates`` does (queen
  moves scored first, the best ``kq`` kept, then every arrow of those scored by the evaluation of
  the position after the whole move) and keeps the best ``k``. For an evaluator without a kernel
  (the CNN) all children are scored by **one** ``evaluate_batch`` call instead.
* The children's scores give the priors (softmax with temperature ``tau``) and their first-play
  values; the value backed up from a new node is its best child's score (a one-move lookahead),
  so every simulation is one batch of evaluations and no playout at all.
* **Selection**: ``Q + c * P * sqrt(N) / (1 + n)``; the filling phase and finished games are scored
  exactly (``agents.search.endgame``): +-1.
* **Budget**: ``time`` seconds per move or ``sims`` simulations; the move played is the most
  visited child. A timed search runs simulations until ``agents.search.clock``'s deadline and starts none
  that its measured duration says would end after ``time`` (a CNN expansion takes a tenth of a
  second or more). **Tree reuse**: the subtree of the position reached two plies later (our move and
  the reply) is kept for the next move.

The tree is over whole moves; a tree over the two phases (queen move, then arrow) was not built.
"""

from __future__ import annotations

import math
import time as _time
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from amazons_env import Board, Move, core
from amazons_env.errors import InvalidArgumentError

from agents.search import endgame
from agents.search.alphabeta import WIN, candidates, search_stats
from agents.base import Agent
from agents.search.clock import Clock
from agents.evaluation.evaluator import make_evaluator
from agents.options import EVAL, TIME, OptionError, opt
from agents.registry import register

__all__ = ["MCTS", "Node", "MCTSResult"]


class Node:
    """A position in the tree: its candidate ``moves`` (padded squares), priors, visit counts and
    summed values (for the side to move here), and the expanded children."""

    __slots__ = ("moves", "prior", "first", "visits", "total", "children", "value", "terminal")

    def __init__(self, moves: np.ndarray, scores: np.ndarray, tau: float, value: float, terminal: bool) -> None:
        self.moves = moves
        self.first = np.clip(scores, -1.0, 1.0)
        logits = (self.first - self.first.max()) / tau if len(scores) else self.first
        prior = np.exp(logits)
        self.prior = prior / prior.sum() if len(scores) else prior
        self.visits = np.zeros(len(moves), dtype=np.int64)
        self.total = np.zeros(len(moves))
        self.children: dict[int, Node] = {}
        self.value = value
        self.terminal = terminal


@dataclass(frozen=True)
class MCTSResult:
    """The ``move`` chosen, its mean ``value`` for the side to move, the ``simulations`` run (this
    move), the ``nodes`` in the tree and the ``seconds`` taken."""

    move: Move
    value: float
    simulations: int
    nodes: int
    seconds: float


@register("mcts", forward="eval", options={
    "time": TIME, "sims": opt("simulations per move (instead of time)", ge=1), "eval": EVAL,
    "k": opt("children kept per node", ge=1),
    "kq": opt("queen moves kept before arrows are scored (0 = all)", ge=0),
    "c": opt("exploration constant", gt=0), "tau": opt("prior temperature", gt=0),
    "reuse": opt("keep the subtree between moves"),
    "endgame": opt("fill-search budget per region at expansion (0 = off)", ge=0)})
class MCTS(Agent):
    """PUCT with evaluation cut-offs (module docstring). Options: ``time`` seconds per move
    (default 1.0) or ``sims`` simulations, ``eval`` (default ``territory``), ``k`` children kept
    per node, ``kq`` queen moves kept before arrows are scored, ``c`` the exploration constant,
    ``tau`` the prior temperature, ``reuse`` (keep the subtree between moves)."""

    name = "mcts"

    def __init__(self, time: Optional[float] = None, sims: Optional[int] = None, eval: Any = "territory",
                 k: int = 16, kq: int = 8, c: float = 1.5, tau: float = 0.05, reuse: bool = True,
                 endgame: int = 300, seed: Optional[int] = None, **eval_options: Any) -> None:
        super().__init__(seed)
        if time is not None and not time > 0:
            raise OptionError(f"time={time!r}: seconds per move must be > 0")
        if sims is not None and sims < 1:
            raise OptionError(f"sims={sims!r}: must be >= 1")
        if k < 1 or kq < 0 or not c > 0 or not tau > 0:
            raise OptionError(f"k={k} must be >= 1, kq={kq} >= 0, c={c} and tau={tau} > 0")
        self.time = 1.0 if time is None and sims is None else time
        self.sims = sims
        self.evaluator = make_evaluator(eval, **eval_options)
        self.k, self.kq, self.c, self.tau, self.reuse, self.endgame = k, kq, c, tau, reuse, endgame
        self.root: Optional[Node] = None
        self.root_cells: Optional[bytes] = None
        self.last_result: Optional[MCTSResult] = None
        self._stats = search_stats()  # ``candidates`` counts its evaluator calls here
        self._clock = Clock()

    def reset(self) -> None:
        self.root, self.root_cells = None, None

    # -- expansion ------------------------------------------------------------------------------

    def _expand(self, cells: np.ndarray, queens: np.ndarray, nq: np.ndarray, side: int,
                dirs: np.ndarray) -> Node:
        """A new node for this position: its children scored in one batch, its backed-up value."""
        if not core.has_move(cells, queens, nq, side, dirs):
            return Node(np.empty((0, 3), dtype=np.int64), np.empty(0), self.tau, -1.0, True)
        if self.endgame:
            outcome, _ = endgame.fill_value(cells, queens, nq, side, dirs, self.endgame)
            if outcome != 0:
                return Node(np.empty((0, 3), dtype=np.int64), np.empty(0), self.tau, float(outcome), True)
        rows = core.max_moves(int(dirs[2]) - 2, int(nq.max()))
        moves = np.empty((rows, 3), dtype=np.int64)
        scores = np.empty(rows)
        if self.evaluator.kernel is not None:
            n = candidates(cells, queens, nq, side, dirs, self.evaluator.kernel, self.evaluator.params, self.kq,
                           moves, scores, np.empty((rows, 2), dtype=np.int64), np.empty(rows), self._stats)
        else:
            n = core.generate_moves(cells, queens, nq, side, dirs, moves)
            values = self.evaluator.score_moves(cells, queens, nq, side, dirs, moves, n, WIN)
            order = np.argsort(-values, kind="stable")
            moves[:n], scores[:n] = moves[order], values[order]
        keep = min(self.k, n)
        return Node(moves[:keep].copy(), scores[:keep].copy(), self.tau, float(min(1.0, scores[0])), False)

    # -- search ---------------------------------------------------------------------------------

    def _select(self, node: Node) -> int:
        n = node.visits
        q = np.where(n > 0, node.total / np.maximum(n, 1), node.first)
        u = self.c * node.prior * math.sqrt(n.sum() + 1) / (1 + n)
        return int(np.argmax(q + u))

    def _simulate(self, root: Node, cells: np.ndarray, queens: np.ndarray, nq: np.ndarray, side: int,
                  dirs: np.ndarray) -> None:
        path: list[tuple[Node, int]] = []
        undo: list[tuple[int, int, int, int, int, int]] = []
        node = root
        while not node.terminal:
            j = self._select(node)
            frm, to, arrow = (int(x) for x in node.moves[j])
            index = core.find_queen(queens, nq, side, frm)
            core.make_move(cells, queens, side, index, to, arrow)
            undo.append((side, index, frm, to, arrow, j))
            path.append((node, j))
            side = 1 - side
            child = node.children.get(j)
            if child is None:
                child = node.children[j] = self._expand(cells, queens, nq, side, dirs)
                node = child
                break
            node = child
        value = node.value  # for the side to move at ``node``
        for parent, j in reversed(path):
            value = -value
            parent.visits[j] += 1
            parent.total[j] += value
        for s, index, frm, to, arrow, _ in reversed(undo):
            core.unmake_move(cells, queens, s, index, frm, to, arrow)

    def _reused_root(self, board: Board) -> Optional[Node]:
        """The subtree for ``board`` two plies below the previous root, if it was expanded."""
        if not self.reuse or self.root is None:
            return None
        target = board.cells.tobytes()
        cells = np.frombuffer(self.root_cells, dtype=np.uint8).copy()
        for j, child in self.root.children.items():
            for jj, grandchild in child.children.items():
                trial = cells.copy()
                for frm, to, arrow in (self.root.moves[j], child.moves[jj]):
                    trial[to], trial[frm], trial[arrow] = trial[frm], core.EMPTY, core.ARROW
                if trial.tobytes() == target:
                    return grandchild
        return None

    def search(self, board: Board) -> MCTSResult:
        """Run the simulations for ``board``'s side to move and pick the most visited move."""
        if board.is_game_over():
            raise InvalidArgumentError(f"{self.spec}: no move to search in a finished game: {board.text()!r}")
        start = _time.perf_counter()
        filling = endgame.filling_move(board) if self.endgame else None
        if filling is not None:
            self.root = None
            return MCTSResult(filling[0], float(filling[1]), 0, 0, _time.perf_counter() - start)
        cells, queens, nq = board.cells.copy(), board.queens.copy(), board.queen_counts.copy()
        side, dirs = int(board.turn), board.dirs
        root = self._reused_root(board)
        last = 0.0  # the last simulation's seconds; a fresh root's expansion is the first guess
        if root is None or root.terminal or len(root.moves) == 0:
            root = self._expand(cells, queens, nq, side, dirs)
            last = _time.perf_counter() - start
        sims = 0
        stop = float("inf") if self.time is None else self._clock.stop(start, self.time)
        end = float("inf") if self.time is None else start + self.time
        while self.sims is None or sims < self.sims:
            now = _time.perf_counter()
            if now >= stop or now + last > end:
                break
            self._simulate(root, cells, queens, nq, side, dirs)
            last = _time.perf_counter() - now
            sims += 1
        # most visited, then best mean; unvisited children count their first-play score (a root
        # expanded with no time left for a simulation plays its best-scored child)
        mean = np.where(root.visits > 0, root.total / np.maximum(root.visits, 1), root.first)
        best = int(np.lexsort((mean, root.visits))[-1])
        self.root, self.root_cells = root, board.cells.tobytes()
        public = core.public_index(board.size)
        move = Move(*(int(public[p]) for p in root.moves[best]), board.size)
        value = float(mean[best])
        nodes = _count(root)
        if self.time is not None:
            self._clock.returned(stop)  # after the work above: the lateness covers it too
        return MCTSResult(move, value, sims, nodes, _time.perf_counter() - start)

    def select_move(self, board: Board) -> Move:
        self.last_result = self.search(board)
        return self.last_result.move


def _count(node: Node) -> int:
    return 1 + sum(_count(child) for child in node.children.values())
