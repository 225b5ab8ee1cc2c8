"""The move a search plays, read from one ``uct_tree`` tree or from several searched at once.

``pick`` walks down from a node level by level (two levels per move in a split tree: the queen
move, then its arrow), taking at each level a proven win if there is one, else the most visited
child (then the best mean), never a proven loss while another child is left. With several trees
(root parallelism: ``agents.search.uct``'s ``threads``, each tree searched by its own thread from
the same position) the children of each level are merged by their action first: the visits and
summed values of the same action add up over the trees, a proof in one tree holds for all, and
the walk goes on in every tree that holds the chosen child. So the queen move is chosen by its
visits over all trees, and its arrow by the visits under that queen move. One tree gives the same
choice as ever.

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
>>> one, other = tree([10, 4]), tree([3, 9])
>>> pick([one], [0], 1).squares, pick([one, other], [0, 0], 1).squares  # 13 visits against 13: the better mean
((11, 21, 31), (11, 21, 31))
>>> pick([one, tree([3, 12])], [0, 0], 1).squares, pick([one], [1], 1) is None  # 13 against 16; no reply
((12, 22, 32), True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from agents.search.uct_tree.nodes import ARROW, FIRST, FROM, NKIDS, SOLVED, STATIC, TO, VISITS, WSUM

__all__ = ["Pick", "pick"]

#: a tree: its ``ni``, ``nf`` and ``st`` arrays (``uct_tree.nodes``)
Tree = tuple[np.ndarray, np.ndarray, np.ndarray]
#: the action columns of a node, merged into one key (padded squares < 2**10 on every board size)
_ACTIONS = (FROM, TO, ARROW)


@dataclass(frozen=True)
class Pick:
    """A move read from the trees: its padded squares ``(from, to, arrow)``, its ``value`` for
    the side that chooses it (a mean, or +-1 if proven), and its node in each tree (-1 where a
    tree does not hold it)."""

    squares: tuple[int, int, int]
    value: float
    nodes: tuple[int, ...]


def _level(trees: Sequence[Tree], nodes: Sequence[int]) -> Optional[tuple[np.ndarray, ...]]:
    """The children of ``nodes[k]`` in each tree ``k``, merged by action: ``(keys, visits, mean,
    solved, rows)`` with ``rows[k, j]`` the row of merged child ``j`` in tree ``k`` (-1 if none);
    None if no tree has expanded its node."""
    blocks = []
    for k, ((ni, _, _), x) in enumerate(zip(trees, nodes)):
        if x >= 0 and ni[x, FIRST] >= 0 and ni[x, NKIDS] > 0:
            first = int(ni[x, FIRST])
            blocks.append((k, np.arange(first, first + int(ni[x, NKIDS]))))
    if not blocks:
        return None
    codes = np.concatenate(
        [(trees[k][0][rows][:, _ACTIONS].astype(np.int64) + 1) @ np.array([1 << 20, 1 << 10, 1]) for k, rows in blocks]
    )
    keys, where, inverse = np.unique(codes, return_index=True, return_inverse=True)
    n = len(keys)
    visits, wsum = np.zeros(n), np.zeros(n)
    won, lost = np.zeros(n, bool), np.zeros(n, bool)
    static = np.concatenate([trees[k][1][rows, STATIC] for k, rows in blocks])[where]
    rows_of = np.full((len(trees), n), -1, dtype=np.int64)
    at = 0
    for k, rows in blocks:
        ni, nf, _ = trees[k]
        merged = inverse[at : at + len(rows)]
        at += len(rows)
        np.add.at(visits, merged, ni[rows, VISITS])
        np.add.at(wsum, merged, nf[rows, WSUM])
        won[merged] |= ni[rows, SOLVED] == 1
        lost[merged] |= ni[rows, SOLVED] == -1
        rows_of[k, merged] = rows
    mean = np.where(visits > 0, wsum / np.maximum(visits, 1), static)
    solved = np.where(won, 1, np.where(lost, -1, 0))
    return keys, visits, mean, solved, rows_of


def pick(trees: Sequence[Tree], nodes: Sequence[int], levels: int) -> Optional[Pick]:
    """The move chosen below ``nodes[k]`` of each tree ``k`` over ``levels`` tree levels (module
    docstring); None if no tree has visited a child there. A split tree's queen move whose arrows
    were never expanded shoots back to the square it came from."""
    first = _level(trees, nodes)
    if first is None or first[1].sum() == 0:
        return None
    squares, value, level = [-1, -1, -1], 0.0, first
    for depth in range(levels):
        if depth > 0:
            found = _level(trees, nodes)
            if found is None:  # a queen move whose arrows were never expanded: shoot back
                squares[2] = squares[0]
                break
            level = found
        keys, visits, mean, solved, rows = level
        rank = np.where(solved == 1, np.inf, np.where(solved == -1, -1.0, visits))
        best = int(np.lexsort((mean, rank))[-1])
        value = float(mean[best]) if solved[best] == 0 else float(solved[best])
        action = [int(keys[best]) >> 20, (int(keys[best]) >> 10) & 1023, int(keys[best]) & 1023]
        squares = [square - 1 if square > 0 else old for square, old in zip(action, squares)]
        nodes = [int(row) for row in rows[:, best]]
    return Pick((squares[0], squares[1], squares[2]), value, tuple(nodes))
