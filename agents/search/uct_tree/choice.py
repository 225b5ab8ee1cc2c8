"""The move a search plays, read from a ``uct_tree`` tree.

``pick`` walks down from a node level by level (two levels per move in a split tree: the queen
move, then its arrow), taking at each level a proven win if there is one, else the most visited
child (then the best mean, then the larger action), never a proven loss while another child is
left.

The move's reply (``uct``'s ``ponder`` stat, the move ``amazons engine`` ponders on) is the same
walk from the chosen move's node, when its children were visited.

>>> import numpy as np
>>> from agents.search.uct_tree.nodes import NF, NI, NST, new_root
>>> def tree(visits):  # a root with two whole moves (from, to, arrow), visited as given
...     ni, nf, st = np.zeros((3, NI), np.int32), np.zeros((3, NF)), np.zeros(NST, np.int64)
...     new_root(ni, nf, st)
...     ni[0, FIRST], ni[0, NKIDS] = 1, 2
...     ni[1:, FROM], ni[1:, TO], ni[1:, ARROW], ni[1:, FIRST] = [11, 12], [21, 22], [31, 32], -1
...     ni[1:, VISITS], nf[1:, WSUM] = visits, [0.5 * visits[0], 0.25 * visits[1]]  # means 0.5, 0.25
...     return ni, nf, st
>>> pick(tree([10, 4]), 0, 1).squares, pick(tree([3, 9]), 0, 1).squares  # the most visited
((11, 21, 31), (12, 22, 32))
>>> pick(tree([4, 4]), 0, 1).squares, pick(tree([10, 4]), 1, 1) is None  # equal visits: the better mean; no reply
((11, 21, 31), True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from amazons_env import core

from agents.search.uct_tree.nodes import ARROW, FIRST, FROM, NKIDS, ROOT, SOLVED, STATIC, TO, VISITS, WSUM, Tree

__all__ = ["Pick", "pick", "kids", "visit_shares"]

#: the action columns of a node (padded squares < 2**10 on every board size: a key of three)
_ACTIONS = (FROM, TO, ARROW)


@dataclass(frozen=True)
class Pick:
    """A move read from a tree: its padded squares ``(from, to, arrow)``, its ``value`` for the
    side that chooses it (a mean, or +-1 if proven), and its node."""

    squares: tuple[int, int, int]
    value: float
    node: int


def _level(ni: np.ndarray, nf: np.ndarray, x: int) -> Optional[tuple[np.ndarray, ...]]:
    """The children of node ``x``: ``(rows, visits, mean, solved)``; None if it is not expanded."""
    if x < 0 or ni[x, FIRST] < 0 or ni[x, NKIDS] == 0:
        return None
    first = int(ni[x, FIRST])
    rows = np.arange(first, first + int(ni[x, NKIDS]))
    visits = ni[rows, VISITS].astype(np.float64)
    mean = np.where(visits > 0, nf[rows, WSUM] / np.maximum(visits, 1), nf[rows, STATIC])
    return rows, visits, mean, ni[rows, SOLVED]


def pick(tree: Tree, node: int, levels: int) -> Optional[Pick]:
    """The move chosen below ``node`` of ``tree`` over ``levels`` tree levels (module docstring);
    None if no child of it was visited. A split tree's queen move whose arrows were never
    expanded shoots back to the square it came from."""
    ni, nf, _ = tree
    level = _level(ni, nf, node)
    if level is None or level[1].sum() == 0:
        return None
    squares, value, proven = [-1, -1, -1], 0.0, False
    for depth in range(levels):
        if depth > 0:
            found = _level(ni, nf, node)
            if found is None:  # a queen move whose arrows were never expanded: shoot back
                squares[2] = squares[0]
                break
            level = found
        rows, visits, mean, solved = level
        actions = ni[rows][:, _ACTIONS].astype(np.int64)
        codes = (actions + 1) @ np.array([1 << 20, 1 << 10, 1])  # ties: the larger action, as ever
        rank = np.where(solved == 1, np.inf, np.where(solved == -1, -1.0, visits))
        best = int(np.lexsort((codes, mean, rank))[-1])
        if not proven:  # a proof at the queen move holds for its arrows too
            value = float(mean[best]) if solved[best] == 0 else float(solved[best])
            proven = solved[best] != 0
        squares = [int(square) if square >= 0 else old for square, old in zip(actions[best], squares)]
        node = int(rows[best])
    return Pick((squares[0], squares[1], squares[2]), value, node)


def kids(ni: np.ndarray, x: int) -> range:
    """The rows of node ``x``'s children (empty if it is not expanded)."""
    first = int(ni[x, FIRST])
    return range(first, first + int(ni[x, NKIDS])) if first >= 0 else range(0)


def visit_shares(tree: Tree, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The root visit shares of a split ``tree`` of a ``size`` x ``size`` board over whole moves:
    ``(moves uint8[M, 3] of public squares, probs float32[M])``, a queen move's share split over its
    arrows by their visits. No rows where no whole move was visited (a search of a simulation or
    two, or one that proved its root before an arrow was visited)."""
    public = core.public_index(size)
    ni, _, st = tree
    moves, visits = [], []
    for q in kids(ni, int(st[ROOT])):
        for a in kids(ni, q) if ni[q, VISITS] > 0 else ():
            if ni[a, VISITS] > 0:  # a tree holds each whole move once
                moves.append((int(public[ni[q, FROM]]), int(public[ni[q, TO]]), int(public[ni[a, ARROW]])))
                visits.append(float(ni[a, VISITS]))
    if not moves:
        return np.zeros((0, 3), np.uint8), np.zeros(0, np.float32)
    weights = np.array(visits)
    return np.array(moves, np.uint8), (weights / weights.sum()).astype(np.float32)
