"""One PUCT tree for the Python Monte Carlo searches; what guides it is a pluggable ``PUCTEvaluator``.

The design of OpenSpiel's ``MCTSBot``: the tree does selection, batching and backup, and an
evaluator gives each new position its value and its moves' priors. Two evaluators plug in:
``agents.search.mcts.ChildScores`` (a hand-written evaluator scores the children: ``mcts``) and
``agents.search.pvmcts.PolicyValueEvaluator`` (the policy-value net: ``pvmcts``, and the self-play of
``training.selfplay.policy_value``).

**Two levels per move.** A position (``Node``) holds its side to move's moves in groups: a queen
slide's arrows together (the rules core lists them so), or one move per group where an evaluator
ranks whole moves (``ChildScores``). Selection picks a group by PUCT over the groups, then one of its
moves by PUCT over the group's moves: ``Q + c * P * sqrt(N + 1) / (1 + n)``. An unvisited move's
``Q`` is its first-play value where the evaluator gives one, else the position's value less ``fpu``.
Group and move statistics are both kept for the node's side to move, so a value changes sign only
from one position to the next, never between a slide and its arrow (``Tree.backup``).

**Leaves in batches.** ``Tree.gather`` descends up to ``batch`` times with a virtual loss on the path
(each pending descent counts as a lost visit, so the next one goes elsewhere; one descent needs
none), the evaluator expands all the new leaves in one call (one forward pass of a net) and
``Tree.backup`` backs them up. ``run_trees`` does this for many trees in lock-step, so one call of
the evaluator serves a leaf of each. A terminal position (no move, or proven by the evaluator) is
backed up with its own value and never expanded again.

``agents.search.puct.agent.PUCTAgent`` is the agent around a tree.

>>> from amazons_env import Board
>>> from agents import make
>>> agent = make("mcts:sims=30,k=4")
>>> result = agent.search(Board(6))
>>> Board(6).is_legal(result.move), result.simulations, agent.root.visits
(True, 30, 30)
"""

from __future__ import annotations

import math
import time as _time
from abc import ABC, abstractmethod
from typing import Optional, Sequence

import numpy as np

from amazons_env import Move, core
from amazons_env.errors import IllegalMoveError, InvalidArgumentError

__all__ = ["Node", "Tree", "PUCTEvaluator", "run_trees", "start_roots", "best_move", "slide_groups"]


def slide_groups(moves: np.ndarray) -> np.ndarray:
    """The start of each run of moves with the same slide (from and to squares).

    >>> slide_groups(np.array([[0, 1, 2], [0, 1, 3], [0, 2, 1], [4, 5, 6]])).tolist()
    [0, 2, 3]
    """
    new = np.ones(len(moves), bool)
    new[1:] = (moves[1:, 0] != moves[:-1, 0]) | (moves[1:, 1] != moves[:-1, 1])
    return np.flatnonzero(new)


class Node:
    """One position: padded ``cells`` and the ``side`` to move; once expanded, its ``moves`` (public
    squares) in groups beginning at ``starts``, and per group and per move the prior, visits and
    summed value for the side to move here. ``value``: the evaluator's value of the position;
    ``terminal``: no move, or a value the evaluator proved (never expanded further)."""

    __slots__ = (
        "cells",
        "side",
        "value",
        "terminal",
        "moves",
        "starts",
        "group",
        "p_slide",
        "p_net",
        "p_move",
        "first_slide",
        "first_move",
        "n_slide",
        "w_slide",
        "n_move",
        "w_move",
        "children",
        "visits",
    )
    cells: np.ndarray
    side: int
    value: float
    terminal: bool
    moves: np.ndarray
    starts: np.ndarray
    group: np.ndarray
    p_slide: np.ndarray
    p_net: np.ndarray
    p_move: np.ndarray
    # the first-play values: both None, or both set (``expand``'s ``first``)
    first_slide: Optional[np.ndarray]
    first_move: Optional[np.ndarray]
    n_slide: np.ndarray
    w_slide: np.ndarray
    n_move: np.ndarray
    w_move: np.ndarray
    children: dict[int, Node]
    visits: int

    def __init__(self, cells: np.ndarray, side: int) -> None:
        self.cells, self.side = cells, side
        self.children = {}
        self.visits = 0
        self.prove(-1.0)  # until the evaluator gives it moves

    def prove(self, value: float) -> None:
        """Make this a terminal position worth ``value`` for its side to move (-1: no move left)."""
        self.value, self.terminal = float(value), True
        self.moves = np.empty((0, 3), np.int16)

    def expand(
        self,
        moves: np.ndarray,
        value: float,
        p_slide: np.ndarray,
        p_move: np.ndarray,
        starts: Optional[np.ndarray] = None,
        first: Optional[np.ndarray] = None,
    ) -> None:
        """Give this position its ``moves`` (at least one), its ``value``, the prior of each group
        (``p_slide``) and of each move within its group (``p_move``). ``starts``: where the groups
        begin (default: by slide, ``slide_groups``); ``first``: each move's first-play value
        (default: the position's value less the tree's ``fpu``)."""
        self.moves, self.value, self.terminal = moves, float(value), False
        self.starts = slide_groups(moves) if starts is None else starts
        self.p_slide = self.p_net = p_slide
        self.p_move = p_move
        self.first_move = first
        if len(self.starts) == len(moves):  # a group per move (the common case of ``ChildScores``: cheap)
            self.group, self.first_slide = self.starts, first
        else:
            self.group = np.repeat(np.arange(len(self.starts)), np.diff(np.append(self.starts, len(moves))))
            self.first_slide = None if first is None else np.maximum.reduceat(first, self.starts)
        s = len(self.starts)
        self.n_slide, self.w_slide = np.zeros(s), np.zeros(s)
        self.n_move, self.w_move = np.zeros(len(moves)), np.zeros(len(moves))

    def add_noise(self, rng: np.random.Generator, alpha: float, fraction: float) -> None:
        """Dirichlet noise on the evaluator's group priors (self-play's root exploration; fresh
        noise replaces any earlier noise of a reused root)."""
        noise = rng.dirichlet(np.full(len(self.p_net), alpha))
        self.p_slide = (1 - fraction) * self.p_net + fraction * noise

    def select(self, c: float, fpu: float) -> int:
        """The move index PUCT picks: a group, then one of its moves."""
        first_slide, first_move = self.first_slide, self.first_move
        unvisited = self.value - fpu  # without first-play values: the position's value, a little pessimistic
        q_slide = unvisited if first_slide is None else first_slide
        g = _puct(self.n_slide, self.w_slide, self.p_slide, self.visits, c, q_slide)
        lo = self.starts[g]
        hi = self.starts[g + 1] if g + 1 < len(self.starts) else len(self.moves)
        if hi - lo == 1:
            return int(lo)
        q0 = unvisited if first_move is None else first_move[lo:hi]
        return int(lo + _puct(self.n_move[lo:hi], self.w_move[lo:hi], self.p_move[lo:hi], self.n_slide[g], c, q0))

    def update(self, m: int, visits: int, value: float) -> None:
        """Add ``visits`` and ``value`` (for this node's side to move) to move ``m`` and its group."""
        g = self.group[m]
        self.visits += visits
        self.n_slide[g] += visits
        self.w_slide[g] += value
        self.n_move[m] += visits
        self.w_move[m] += value

    def mean(self, m: int) -> float:
        """Move ``m``'s mean value for the side to move here (unvisited: its first-play value)."""
        if self.n_move[m]:
            return float(self.w_move[m] / self.n_move[m])
        return float(self.value if self.first_move is None else self.first_move[m])

    def child(self, m: int) -> "Node | None":
        return self.children.get(m)

    def index_of(self, move: Move) -> int:
        """The index of ``move`` in ``moves`` (``IllegalMoveError`` if it is not one of them)."""
        hit = np.flatnonzero(
            (self.moves[:, 0] == move.from_square)
            & (self.moves[:, 1] == move.to_square)
            & (self.moves[:, 2] == move.arrow)
        )
        if len(hit) == 0:
            raise IllegalMoveError(f"move {move} is not one of this node's moves")
        return int(hit[0])

    def size(self) -> int:
        """The number of positions in the subtree below and including this one."""
        count, todo = 0, [self]
        while todo:
            node = todo.pop()
            count += 1
            todo.extend(node.children.values())
        return count


def _puct(n: np.ndarray, w: np.ndarray, p: np.ndarray, total: float, c: float, q0: "float | np.ndarray") -> int:
    q = np.where(n > 0, w / np.maximum(n, 1), q0)
    return int(np.argmax(q + c * p * math.sqrt(total + 1) / (1 + n)))


def _play(cells: np.ndarray, move: np.ndarray, padded: np.ndarray) -> np.ndarray:
    """The cells after ``move`` (public squares; ``padded``: ``core.padded_index`` of the size)."""
    out = cells.copy()
    frm, to, arrow = padded[move[0]], padded[move[1]], padded[move[2]]
    out[to], out[frm] = out[frm], core.EMPTY
    out[arrow] = core.ARROW
    return out


class PUCTEvaluator(ABC):
    """What guides the tree: it expands new positions (OpenSpiel's ``Evaluator``, whose ``prior``
    and ``evaluate`` are one call here, so that a net serves both in one forward pass)."""

    @abstractmethod
    def expand(self, nodes: Sequence[Node], size: int) -> None:
        """Call ``node.expand`` (its moves, priors and value) or ``node.prove`` (a terminal
        position's value) on each of ``nodes``, new positions of ``size`` x ``size`` boards."""


#: a leaf of ``Tree.gather``: the path to it, and either a terminal node already in the tree and
#: ``None``, or ``None`` and the new position's cells; then the leaf's side to move
Leaf = tuple[list[tuple[Node, int]], Optional[Node], Optional[np.ndarray], int]


class Tree:
    """A search tree rooted at ``root`` (a ``Node``, or ``None`` until ``start_roots``), with the
    PUCT constant ``c`` and the first-play urgency ``fpu``; ``sims``: simulations of this search."""

    def __init__(self, size: int, c: float = 1.5, fpu: float = 0.2) -> None:
        self.size, self.c, self.fpu = size, c, fpu
        self._padded = core.padded_index(size)
        self.root: Optional[Node] = None
        self.sims = 0
        self._virtual = False

    def gather(self, limit: int) -> list[Leaf]:
        """Up to ``limit`` descents, with a virtual loss on each path when there is more than one."""
        root = self.root
        if root is None:
            raise InvalidArgumentError("Tree.gather: the tree needs a root (start_roots)")
        self._virtual = limit > 1
        leaves: list[Leaf] = []
        pending: set[tuple[int, int]] = set()
        for _ in range(limit):
            node, path = root, []
            while not node.terminal:
                m = node.select(self.c, self.fpu)
                path.append((node, m))
                if self._virtual:
                    node.update(m, 1, -1.0)  # virtual loss: a visit that lost
                nxt = node.child(m)
                if nxt is None:
                    break
                node = nxt
            if node.terminal:
                leaves.append((path, node, None, node.side))
                continue
            key = (id(node), path[-1][1])
            if key in pending:  # two descents into the same new leaf: undo this one and stop gathering
                for parent, m in path:
                    parent.update(m, -1, 1.0)
                break
            pending.add(key)
            leaves.append((path, None, _play(node.cells, node.moves[path[-1][1]], self._padded), 1 - node.side))
        return leaves

    def backup(self, path: list[tuple[Node, int]], value: float) -> None:
        """``value``: the leaf's value for its side to move. Each position's mover sees the negation
        of its child's value; its group and its move get the same number (no flip between them)."""
        for node, m in reversed(path):
            value = -value
            if self._virtual:
                node.update(m, 0, value + 1.0)  # replace the virtual loss (-1) by the value
            else:
                node.update(m, 1, value)


def run_trees(
    trees: Sequence[Tree],
    evaluator: PUCTEvaluator,
    sims: int,
    batch: int = 8,
    deadline: float = math.inf,
    pace: float = 0.0,
) -> None:
    """Grow every tree (rooted by ``start_roots``) to ``sims`` simulations, ``batch`` leaves per tree
    per round, the new leaves of all trees expanded by one call of ``evaluator``. ``deadline`` (a
    ``perf_counter`` time): no round starts that would end after it at the pace of the last round
    (``pace``: the seconds a round is expected to take before one is measured)."""
    rooted = [(t, t.root) for t in trees if t.root is not None]
    if len(rooted) < len(trees):
        raise InvalidArgumentError("run_trees: every tree needs a root (start_roots)")
    size = trees[0].size
    last = pace
    while True:
        todo = [t for t, root in rooted if t.sims < sims and not root.terminal]
        begun = _time.perf_counter()
        if not todo or begun + last >= deadline:  # a round cannot stop half-way
            return
        gathered = [(t, leaf) for t in todo for leaf in t.gather(min(batch, sims - t.sims))]
        new = [Node(cells, side) for _, (_, _, cells, side) in gathered if cells is not None]  # the new leaves
        if new:
            evaluator.expand(new, size)
        fresh = iter(new)
        for tree, (path, known, _, _) in gathered:
            leaf = known
            if leaf is None:
                parent, m = path[-1]
                leaf = parent.children[m] = next(fresh)
            tree.backup(path, leaf.value)
            tree.sims += 1
        last = _time.perf_counter() - begun


def start_roots(
    trees: Sequence[Tree],
    boards: Sequence[tuple[np.ndarray, int]],
    evaluator: PUCTEvaluator,
    noise: Optional[tuple[np.random.Generator, float, float]] = None,
) -> None:
    """Give each tree a root for its ``(cells, side)`` (one evaluator call for all that need one),
    keeping a tree's root if it already is that position; ``noise``: ``(rng, alpha, fraction)`` of
    Dirichlet noise on every root's priors (``Node.add_noise``). Resets each tree's ``sims``."""
    need = [
        i
        for i, (t, (cells, side)) in enumerate(zip(trees, boards))
        if t.root is None or t.root.side != side or not np.array_equal(t.root.cells, cells)
    ]
    if need:
        roots = [Node(np.array(boards[i][0], np.uint8), int(boards[i][1])) for i in need]
        evaluator.expand(roots, trees[0].size)
        for i, new_root in zip(need, roots):
            trees[i].root = new_root
    for tree in trees:
        tree.sims = 0
        root = tree.root
        assert root is not None  # every tree has its root now
        if noise is not None and not root.terminal:
            root.add_noise(*noise)


def best_move(root: Node) -> int:
    """The most visited group of ``root``, then its most visited move; ties go to the higher mean
    value (unvisited: the first-play value), then to the higher prior."""
    q: float | np.ndarray = root.value if root.first_slide is None else root.first_slide
    g = int(
        np.lexsort(
            (root.p_slide, np.where(root.n_slide > 0, root.w_slide / np.maximum(root.n_slide, 1), q), root.n_slide)
        )[-1]
    )
    lo = root.starts[g]
    hi = root.starts[g + 1] if g + 1 < len(root.starts) else len(root.moves)
    q = root.value if root.first_move is None else root.first_move[lo:hi]
    n, w = root.n_move[lo:hi], root.w_move[lo:hi]
    return int(lo + np.lexsort((root.p_move[lo:hi], np.where(n > 0, w / np.maximum(n, 1), q), n))[-1])
