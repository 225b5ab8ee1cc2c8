"""The study's ``move-then-arrow`` alpha-beta: the queen move and the arrow are chosen one after
the other, so a node has about (#queen moves + #arrows) children instead of their product.
Precisely, at a node with depth ``d`` (both halves searched by this same procedure, recursively):

1. *queen half*: each queen move ``m`` is valued as ``-MTA(p + m, d - 1)``, where ``p + m`` is the
   position after the queen move **with no arrow shot**, the opponent to move; ``m*`` is the best
   (exact argmax, first one on ties; the parent's window is not used here).
2. *arrow half*: with ``m*`` played, each arrow ``a`` is valued ``-MTA(p + (m*, a), d - 1)``
   (a normal position after the whole move) under the parent's alpha-beta window; the node's value
   is the best of these, and its move is (``m*``, best arrow).

It can miss moves whose arrow is what makes them good (the queen half never sees arrows). Its
nodes include the queen-half positions.

>>> from amazons_env import Board
>>> from agents.evaluation.evaluator import make_evaluator
>>> from agents.search.study.agent import search_kernel
>>> board = Board(6)
>>> move, value, nodes = search_kernel("move-then-arrow", board, 1, make_evaluator("basic"))
>>> nodes < len(board.legal_moves()), move is not None   # fewer than classic's 545
(True, True)
"""

from __future__ import annotations

from numba import njit, types

from amazons_env import core

from agents.search.rays import ray_end
from agents.search.study.run import INF, KERNEL_ARGS, Node, arrow_level, leaf_value

__all__ = ["move_then_arrow"]


@njit(types.float64(*KERNEL_ARGS), cache=True, nogil=True)
def move_then_arrow(cells, queens, nq, dirs, node, kernel, params, run):
    """Move-then-arrow alpha-beta (module docstring) of the position below ``node``, once
    ``leaf_value`` has counted it and left it open; ``run`` gets the root's move."""
    side, depth, alpha, beta, ply = node
    state = run[0]
    piece = side + 1
    # 1. the queen half: exact argmax over queen moves, no arrow shot
    queen_value = -INF
    best_i = -1
    best_to = -1
    for i in range(nq[side]):
        frm = queens[side, i]
        cells[frm] = core.EMPTY
        for d in range(8):
            step = dirs[d]
            for to in range(frm + step, ray_end(cells, frm, step), step):
                cells[to] = piece
                queens[side, i] = to
                child = Node(1 - side, depth - 1, -INF, -queen_value, ply + 1)
                leaf, v = leaf_value(cells, queens, nq, dirs, child, kernel, params, run)
                v = -(v if leaf else move_then_arrow(cells, queens, nq, dirs, child, kernel, params, run))
                cells[to] = core.EMPTY
                queens[side, i] = frm
                if state.aborted:
                    break
                if v > queen_value:
                    queen_value = v
                    best_i = i
                    best_to = to
            if state.aborted:
                break
        cells[frm] = piece
        if state.aborted:
            return 0.0
    # 2. the arrow half, for the chosen queen move, under the parent's window
    frm = queens[side, best_i]
    to = best_to
    cells[frm] = core.EMPTY
    cells[to] = piece
    queens[side, best_i] = to
    value, arrow = arrow_level(move_then_arrow, cells, queens, nq, dirs, node, to, kernel, params, run)
    if ply == 0:
        state.best_from, state.best_to, state.best_arrow = frm, to, arrow
    cells[to] = core.EMPTY
    cells[frm] = piece
    queens[side, best_i] = frm
    return 0.0 if state.aborted else value
