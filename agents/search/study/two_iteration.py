"""The study's ``two-iteration`` alpha-beta: a node is two loops, each with its own alpha-beta
bookkeeping. The queen level walks the queen moves; for each, the arrow level walks the arrows of
that queen (depth - 1 after the arrow) and hands its best value back to the queen level, which
updates alpha and cuts. Moves are produced lazily, in the same order as ``core.generate_moves``,
so it searches *the same tree* as ``classic`` with the same cutoffs (same root value, same best
move, same node count), but a node that is cut after a few children never builds its full move
list: that is where it is faster.

>>> from amazons_env import Board
>>> from agents.evaluation.evaluator import make_evaluator
>>> from agents.search.study.agent import search_kernel
>>> move, value, nodes = search_kernel("two-iteration", Board(6), 1, make_evaluator("basic"))
>>> nodes, str(move)   # the root and its 544 children, as classic
(545, 'b1-b5/e5')
"""

from __future__ import annotations

from numba import njit, types

from amazons_env import core

from agents.search.rays import ray_end
from agents.search.study.run import INF, KERNEL_ARGS, Node, arrow_level

__all__ = ["two_iteration"]


@njit(types.float64(*KERNEL_ARGS), cache=True, nogil=True)
def two_iteration(cells, queens, nq, dirs, node, kernel, params, run):
    """The value for ``node.side`` of the two-iteration alpha-beta (queen level, then arrow level)
    below ``node``, a node ``leaf_value`` counted and left open (arguments: ``KERNEL_ARGS``)."""
    side, depth, alpha, beta, ply = node
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
                # the arrow level: its own best value and alpha, from the queen level's window
                window = Node(side, depth, alpha, beta, ply)
                arrow_value, arrow = arrow_level(
                    two_iteration, cells, queens, nq, dirs, window, to, kernel, params, run
                )
                cells[to] = core.EMPTY
                cells[frm] = piece
                queens[side, i] = frm
                if state.aborted:
                    return 0.0
                # back at the queen level
                if arrow_value > value:
                    value = arrow_value
                    if ply == 0:
                        state.best_from, state.best_to, state.best_arrow = frm, to, arrow
                    if value > alpha:
                        alpha = value
                        if alpha >= beta:
                            return value
    return value
