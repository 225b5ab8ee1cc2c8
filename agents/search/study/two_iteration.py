"""The study's ``two-iteration`` alpha-beta: a node is two loops, each with its own alpha-beta
bookkeeping. The queen level walks the queen moves; for each, the arrow level walks the arrows of
that queen (depth - 1 after the arrow) and hands its best value back to the queen level, which
updates alpha and cuts. Moves are produced lazily, in the same order as ``core.generate_moves``,
so it searches *the same tree* as ``classic`` with the same cutoffs (same root value, same best
move, same node count), but a node that is cut after a few children never builds its full move
list: that is where it is faster.

>>> from amazons_env import Board
>>> from agents.evaluation.evaluator import make_evaluator
>>> from agents.search.study.run import Node, best_of, search_run
>>> board, basic = Board(6), make_evaluator("basic")
>>> position = (board.cells.copy(), board.queens.copy(), board.queen_counts.copy(), board.dirs)
>>> run = search_run()
>>> value = two_iteration(*position, Node(0, 1, -INF, INF, 0), basic.kernel, basic.params, run)
>>> int(run["nodes"][0]), min(best_of(run)) >= 0   # the root and its 544 children, as classic
(545, True)
"""

from __future__ import annotations

from numba import njit, types

from amazons_env import core

from agents.evaluation.evaluator import KERNEL_TYPE
from agents.search.rays import ray_end
from agents.search.study.run import INF, NODE_TYPE, RUN_TYPE, Node, enter

__all__ = ["two_iteration"]

_ARGS = (types.uint8[::1], types.int64[:, ::1], types.int64[::1], types.int64[::1], NODE_TYPE, KERNEL_TYPE,
         types.float64[::1], RUN_TYPE)  # fmt: skip


@njit(types.float64(*_ARGS), cache=True, nogil=True)
def two_iteration(cells, queens, nq, dirs, node, kernel, params, run):
    """Two-iteration alpha-beta (queen level, then arrow level) of the position (the rules core's
    arrays) at ``node``; the record ``run`` (``search_run``) counts the nodes and gets the root move."""
    side, depth, alpha, beta, ply = node
    if enter(run):
        return 0.0
    if not core.has_move(cells, queens, nq, side, dirs):
        return -1.0
    if depth == 0:
        return kernel(cells, queens, nq, side, dirs, params)
    state = run[0]
    piece = side + 1
    value = -INF
    for i in range(nq[side]):
        frm = queens[side, i]
        for d in range(8):
            step = dirs[d]
            for to in range(frm + step, ray_end(cells, frm, step), step):
                cells[frm] = core.EMPTY
                cells[to] = piece
                queens[side, i] = to
                # the arrow level: its own best value and alpha, the same beta
                arrow_value = -INF
                arrow_alpha = alpha
                for e in range(8):
                    astep = dirs[e]
                    for a in range(to + astep, ray_end(cells, to, astep), astep):
                        cells[a] = core.ARROW
                        child = Node(1 - side, depth - 1, -beta, -arrow_alpha, ply + 1)
                        v = -two_iteration(cells, queens, nq, dirs, child, kernel, params, run)
                        cells[a] = core.EMPTY
                        if state.aborted:
                            break
                        if v > arrow_value:
                            arrow_value = v
                            if ply == 0 and v > value:
                                state.best_from, state.best_to, state.best_arrow = frm, to, a
                            if v > arrow_alpha:
                                arrow_alpha = v
                                if arrow_alpha >= beta:
                                    break
                    if state.aborted or arrow_alpha >= beta:
                        break
                cells[to] = core.EMPTY
                cells[frm] = piece
                queens[side, i] = frm
                if state.aborted:
                    return 0.0
                # back at the queen level
                if arrow_value > value:
                    value = arrow_value
                    if value > alpha:
                        alpha = value
                        if alpha >= beta:
                            return value
    return value
