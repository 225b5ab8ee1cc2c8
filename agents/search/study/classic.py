"""The study's ``classic`` alpha-beta: a node generates its full list of (queen move, arrow) pairs
up front (``core.generate_moves``) and searches each with depth - 1. The strongest of the three
per depth, and the slowest: every node builds its whole move list, even one cut after a few children.

>>> import numpy as np
>>> from amazons_env import Board, core
>>> from agents.evaluation.evaluator import make_evaluator
>>> from agents.search.study.run import Node, best_of, search_run
>>> board, basic = Board(6), make_evaluator("basic")
>>> position = (board.cells.copy(), board.queens.copy(), board.queen_counts.copy(), board.dirs)
>>> buf = np.empty((2, core.max_moves(6, 4), 3), dtype=np.int64)
>>> run = search_run()
>>> value = classic(*position, Node(0, 1, -INF, INF, 0), basic.kernel, basic.params, run, buf)
>>> int(run["nodes"][0]), len(board.legal_moves()), min(best_of(run)) >= 0   # the root's children
(544, 544, True)
"""

from __future__ import annotations

from numba import njit, types

from amazons_env import core

from agents.search.study.run import INF, KERNEL_ARGS, Node, leaf_value

__all__ = ["classic"]


# nogil (the three searches): the engine's command loop (``stop``) runs beside them
@njit(types.float64(*KERNEL_ARGS, types.int64[:, :, ::1]), cache=True, nogil=True)
def classic(cells, queens, nq, dirs, node, kernel, params, run, buf):
    """Classic alpha-beta below ``node`` (counted and open: ``leaf_value``) of the position (the
    rules core's arrays); the record ``run`` (``search_run``) counts the nodes and gets the root
    move; ``buf[depth]`` holds the moves of a node ``depth`` whole moves from the leaves."""
    side, depth, alpha, beta, ply = node
    state = run[0]
    moves = buf[depth]
    n = core.generate_moves(cells, queens, nq, side, dirs, moves)
    value = -INF
    for k in range(n):
        frm, to, arrow = moves[k, 0], moves[k, 1], moves[k, 2]
        index = core.find_queen(queens, nq, side, frm)
        core.make_move(cells, queens, side, index, to, arrow)
        child = Node(1 - side, depth - 1, -beta, -alpha, ply + 1)
        leaf, v = leaf_value(cells, queens, nq, dirs, child, kernel, params, run)
        v = -(v if leaf else classic(cells, queens, nq, dirs, child, kernel, params, run, buf))
        core.unmake_move(cells, queens, side, index, frm, to, arrow)
        if state.aborted:
            return 0.0
        if v > value:
            value = v
            if ply == 0:
                state.best_from, state.best_to, state.best_arrow = frm, to, arrow
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    return value
