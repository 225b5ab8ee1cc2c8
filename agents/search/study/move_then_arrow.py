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
>>> from agents.search.study.run import Node, best_of, search_run
>>> board, basic = Board(6), make_evaluator("basic")
>>> position = (board.cells.copy(), board.queens.copy(), board.queen_counts.copy(), board.dirs)
>>> run = search_run()
>>> value = move_then_arrow(*position, Node(0, 1, -INF, INF, 0), basic.kernel, basic.params, run)
>>> int(run["nodes"][0]) < len(board.legal_moves()), min(best_of(run)) >= 0   # fewer than classic's 545
(True, True)
"""

from __future__ import annotations

from numba import njit, types

from amazons_env import core

from agents.evaluation.evaluator import KERNEL_TYPE
from agents.search.rays import ray_end
from agents.search.study.run import INF, NODE_TYPE, RUN_TYPE, Node, enter

__all__ = ["move_then_arrow"]

_ARGS = (types.uint8[::1], types.int64[:, ::1], types.int64[::1], types.int64[::1], NODE_TYPE, KERNEL_TYPE,
         types.float64[::1], RUN_TYPE)  # fmt: skip


@njit(types.float64(*_ARGS), cache=True, nogil=True)
def move_then_arrow(cells, queens, nq, dirs, node, kernel, params, run):
    """Move-then-arrow alpha-beta (module docstring) of the position (the rules core's arrays) at
    ``node``; the record ``run`` (``search_run``) counts the nodes and gets the root move."""
    side, depth, alpha, beta, ply = node
    if enter(run):
        return 0.0
    if not core.has_move(cells, queens, nq, side, dirs):
        return -1.0
    if depth == 0:
        return kernel(cells, queens, nq, side, dirs, params)
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
                v = -move_then_arrow(cells, queens, nq, dirs, child, kernel, params, run)
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
    value = -INF
    for e in range(8):
        astep = dirs[e]
        for a in range(to + astep, ray_end(cells, to, astep), astep):
            cells[a] = core.ARROW
            child = Node(1 - side, depth - 1, -beta, -alpha, ply + 1)
            v = -move_then_arrow(cells, queens, nq, dirs, child, kernel, params, run)
            cells[a] = core.EMPTY
            if state.aborted:
                break
            if v > value:
                value = v
                if ply == 0:
                    state.best_from, state.best_to, state.best_arrow = frm, to, a
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        if state.aborted or alpha >= beta:
            break
    cells[to] = core.EMPTY
    cells[frm] = piece
    queens[side, best_i] = frm
    return 0.0 if state.aborted else value
