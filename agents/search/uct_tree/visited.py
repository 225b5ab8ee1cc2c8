"""The part of a ``uct_tree`` tree the simulations have settled in: its expanded nodes visited at
least ``n`` times, each with its position; and the values an evaluator gives those positions,
backed up into the tree.

A search spends most of its simulations under a few nodes; an evaluator too slow for every node
(``agents.search.net_guide``'s policy-value net) can give those nodes its priors between two calls of
``simulation.run``. ``visited`` walks the tree breadth first from the root through such nodes
only (a child has at most its parent's visits, so nothing below a node with fewer is reached) and
writes each node's row, its parent's entry and the position at it (the padded cells, the queens
and the side to act: after a queen move of a split tree, the same side, its arrow to come).
``back_up`` then counts an evaluator's value of such a position as simulations that ended there.

>>> import numpy as np
>>> from amazons_env import Board
>>> from agents.evaluation.evaluator import make_evaluator
>>> from agents.search.move_order import Position
>>> from agents.search.uct_tree import NF, NI, NST, RNG, ROOT, Budget, SearchConfig, Tree, leaves, new_root, run
>>> from agents.search.uct_tree import scratch
>>> board, evaluator = Board(6), make_evaluator("territory")
>>> tree = Tree(np.empty((1 << 14, NI), np.int32), np.empty((1 << 14, NF)), np.zeros(NST, np.int64))
>>> new_root(*tree)
>>> tree.st[RNG] = 1
>>> position = Position(board.cells.copy(), board.queens.copy(), board.queen_counts.copy(), board.dirs)
>>> played = run(position, int(board.turn), evaluator.kernel, evaluator.params, SearchConfig(max_kids=80, fast=1), tree,
...              Budget(500, np.full(2, 1 << 62), 0), scratch(6), leaves.buffers(0, 6))
>>> ni, nf, st = tree
>>> found = Visited(board, 64)
>>> k = found.scan(ni, int(st[ROOT]), 50, board)
>>> int(found.nodes[0]), int(found.parents[0]), bool(np.array_equal(found.cells[0], board.cells))
(0, -1, True)
>>> bool(np.all(ni[found.nodes[:k], VISITS] >= 50)) and bool(np.all(ni[found.nodes[:k], FIRST] >= 0))
True
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from amazons_env import Board, core

from agents.search.uct_tree.nodes import ARROW, FIRST, FROM, KIND, KIND_ARROW, NKIDS, SOLVED, TO, VISITS, WSUM

__all__ = ["Visited", "visited", "back_up"]


@njit(
    types.int64(
        types.int32[:, ::1],
        types.int64,
        types.int64,
        types.int64[::1],
        types.int64[::1],
        types.int64[::1],
        types.uint8[:, ::1],
        types.int64[:, :, ::1],
        types.int64[::1],
    ),
    cache=True,
)
def visited(ni, root, least, nq, nodes, parents, cells, queens, sides):
    """Fill the entries from 1 on (entry 0, the root's position, is the caller's) with the
    expanded nodes under ``root`` visited at least ``least`` times, breadth first; returns the
    entries filled (all of them, root included, stopping when the arrays are full)."""
    nodes[0] = root
    parents[0] = -1
    count = 1
    head = 0
    while head < count:
        x = nodes[head]
        first = ni[x, FIRST]
        n = ni[x, NKIDS] if first >= 0 else 0
        for c in range(first, first + n):
            if ni[c, VISITS] < least or ni[c, FIRST] < 0:
                continue  # too few visits, or a leaf: nothing to give priors to
            if count == len(nodes):
                return count
            side = sides[head]
            cells[count] = cells[head]
            queens[count] = queens[head]
            if ni[c, KIND] == KIND_ARROW:  # the queen move of a split tree: its arrow to come
                i = core.find_queen(queens[count], nq, side, ni[c, FROM])
                cells[count, ni[c, FROM]] = core.EMPTY
                cells[count, ni[c, TO]] = side + 1
                queens[count, side, i] = ni[c, TO]
            elif ni[c, FROM] < 0:  # its arrow
                cells[count, ni[c, ARROW]] = core.ARROW
                side = 1 - side
            else:  # a whole move
                i = core.find_queen(queens[count], nq, side, ni[c, FROM])
                core.make_move(cells[count], queens[count], side, i, ni[c, TO], ni[c, ARROW])
                side = 1 - side
            nodes[count] = c
            parents[count] = head
            sides[count] = side
            count += 1
        head += 1
    return count


@njit(
    types.void(
        types.int32[:, ::1],
        types.float64[:, ::1],
        types.int64[::1],
        types.int64[::1],
        types.int64[::1],
        types.int64[::1],
        types.float64[::1],
        types.int64,
    ),
    cache=True,
)
def back_up(ni, nf, nodes, parents, sides, entries, values, visits):
    """Count ``visits`` simulations that ended at the node of each ``visited`` entry ``entries[j]``
    with the value ``values[j]`` (for the side to act at its position), as ``simulation.run``'s
    backup counts one: every node on the way to the root gains the visits and their value for the
    side that chose it (the side acting at its parent), a proven node's proof standing for the value
    from there up; the root gains the visits. An entry whose own node is proven is left out."""
    for j in range(len(entries)):
        e = entries[j]
        if ni[nodes[e], SOLVED] != 0:
            continue
        value, side = values[j], sides[e]  # ``value`` is for ``side``
        while parents[e] >= 0:
            x, chooser = nodes[e], sides[parents[e]]
            if ni[x, SOLVED] != 0:
                value, side = float(ni[x, SOLVED]), chooser
            ni[x, VISITS] += visits
            nf[x, WSUM] += visits * (value if chooser == side else -value)
            e = parents[e]
        ni[nodes[e], VISITS] += visits


class Visited:
    """Room for up to ``capacity`` entries of ``visited`` on boards shaped as ``board``:
    ``nodes``, ``parents``, ``cells``, ``queens``, ``sides`` (the entries of the last ``scan``)."""

    def __init__(self, board: Board, capacity: int) -> None:
        self.nodes = np.empty(capacity, np.int64)
        self.parents = np.empty(capacity, np.int64)
        self.cells = np.empty((capacity, board.cells.size), np.uint8)
        self.queens = np.empty((capacity, *board.queens.shape), np.int64)
        self.sides = np.empty(capacity, np.int64)

    def scan(self, ni: np.ndarray, root: int, least: int, board: Board) -> int:
        """``visited`` from ``root``, the node of ``board``'s position; returns the entries."""
        self.cells[0], self.queens[0], self.sides[0] = board.cells, board.queens, int(board.turn)
        nq = board.queen_counts.astype(np.int64)
        return int(visited(ni, root, least, nq, self.nodes, self.parents, self.cells, self.queens, self.sides))
