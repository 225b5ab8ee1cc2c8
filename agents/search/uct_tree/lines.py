"""Lines: the names of a ``uct_tree`` tree's nodes that outlive the tree's rows.

A tree may reach one position by two orders of moves, and tree reuse moves every row of the kept
subtree, so a node is named by its *line*: the tree actions (``actions``: each node's padded
from, to and arrow) from the game's start down to it, as bytes. ``game_line`` is the line of a
board's position (its root), ``Position`` a position of the tree in Python with its line, so that
walking down the tree extends both. ``agents.search.net_guide`` records by line the nodes the net has
guided, so that it never mixes its priors into one node twice; ``kept_node`` finds the node of a
kept tree that a board's last moves reached (tree reuse).

>>> import numpy as np
>>> from amazons_env import Board
>>> from agents.search.uct_tree.nodes import NI
>>> board = Board(6)
>>> ni = np.full((2, NI), -1, np.int32)
>>> ni[1, [FROM, TO]] = core.padded_index(6)[[1, 13]]  # a queen move b1-b3 (arrow to come)
>>> root = Position(board.cells.copy(), board.queens.copy(), board.queen_counts, int(board.turn), game_line(board))
>>> after = root.after(ni, 1)
>>> after.side == root.side, after.line == root.line + actions(ni, 1).tobytes()
(True, True)
"""

from __future__ import annotations

import numpy as np

from amazons_env import Board, core

from agents.search.uct_tree.nodes import ARROW, FIRST, FROM, NKIDS, ROOT, TO, Tree

__all__ = ["Position", "actions", "action", "game_line", "kept_node"]


class Position:
    """A position of the tree in Python: padded ``cells``, ``queens``, counts, the side to act and
    its ``line``: the tree actions (``action``) from the game's start to its node, which name the
    node (a tree may reach one position by two orders of moves; only one of them was guided)."""

    def __init__(self, cells: np.ndarray, queens: np.ndarray, nq: np.ndarray, side: int, line: bytes) -> None:
        self.cells, self.queens, self.nq, self.side, self.line = cells, queens, nq, side, line

    def after(self, ni: np.ndarray, x: int) -> "Position":
        """The position after node ``x``'s action (a queen move, an arrow or a whole move)."""
        cells, queens, side = self.cells.copy(), self.queens.copy(), self.side
        frm, to, arrow = (int(v) for v in ni[x, [FROM, TO, ARROW]])
        if frm >= 0:
            i = int(np.flatnonzero(queens[side, : self.nq[side]] == frm)[0])
            cells[to], cells[frm] = cells[frm], core.EMPTY
            queens[side, i] = to
        if arrow >= 0:
            cells[arrow] = core.ARROW
            side = 1 - side
        return Position(cells, queens, self.nq, side, self.line + action(ni, x))


def actions(ni: np.ndarray, rows: "int | np.ndarray") -> np.ndarray:
    """The actions of the nodes ``rows`` as parts of lines: their padded (from, to, arrow), -1 where
    unused, as ``int16`` (one row's bytes a part)."""
    return ni[rows, FROM : ARROW + 1].astype(np.int16)


def action(ni: np.ndarray, x: int) -> bytes:
    """Node ``x``'s action, as a part of a line (``actions``)."""
    return actions(ni, x).tobytes()


def game_line(board: Board) -> bytes:
    """The line of ``board``'s position: its moves so far as a split tree's actions (a queen move,
    then its arrow), so that the line of a node is its root's line and the actions down to it."""
    padded = core.padded_index(board.size)
    actions = [
        (int(padded[m.from_square]), int(padded[m.to_square]), -1, -1, -1, int(padded[m.arrow]))
        for m in board.move_stack
    ]
    return np.array(actions, np.int16).tobytes()


def kept_node(tree: Tree, cells: bytes, ply: int, board: Board, split: bool) -> "int | None":
    """The node of ``tree`` (searched from ``cells`` at ``ply``) for ``board``: its root if ``board``
    is that position, the node reached by ``board``'s last two moves if it is two plies on (each a
    queen move and its arrow in a ``split`` tree); None if the tree holds no such node."""
    ni, _, st = tree
    node = int(st[ROOT])
    plies = board.ply - ply
    if len(cells) != len(board.cells) or plies not in (0, 2) or len(board.move_stack) < plies:
        return None
    position = np.frombuffer(cells, dtype=np.uint8).copy()
    padded = core.padded_index(board.size)
    for move in board.move_stack[len(board.move_stack) - plies :]:
        frm, to, arrow = (int(padded[s]) for s in (move.from_square, move.to_square, move.arrow))
        position[to], position[frm], position[arrow] = position[frm], core.EMPTY, core.ARROW
        steps = (((FROM, TO), (frm, to)), ((ARROW,), (arrow,))) if split else (((FROM, TO, ARROW), (frm, to, arrow)),)
        for columns, value in steps:
            first, n = int(ni[node, FIRST]), int(ni[node, NKIDS])
            if first < 0:
                return None
            hit = np.flatnonzero(np.all(ni[first : first + n][:, list(columns)] == np.array(value), axis=1))
            if len(hit) == 0:
                return None
            node = first + int(hit[0])
    return node if np.array_equal(position, board.cells) else None
