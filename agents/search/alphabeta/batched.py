"""Alpha-beta for evaluators without a numba kernel (the CNN): one ``evaluate_batch`` call per node.

A neural net costs about as much for one position as for a few hundred in one forward pass, so
this search scores all the children of a node at once instead of one leaf at a time. It is plain
negamax with alpha-beta in Python over the rules core's arrays; two searches use it:

* ``two-iteration`` (``agents.search.study.agent.batch_two_iteration``): full width, moves in the order
  ``core.generate_moves`` lists them (the study's tree); only depth-1 nodes call the net, so the
  root value equals the kernel searches' with the same evaluation.
* ``alphabeta`` (``agents.search.alphabeta.agent.batch_search``): every node scores its children, searches
  them best first and only the best ``k``; its moves may come from a cheap kernel's shortlist
  (``shortlister``: the best of ``move_order.candidates``).

>>> from amazons_env import Board
>>> from agents.evaluation.evaluator import make_evaluator
>>> result = batched_alphabeta(Board(6), 1, make_evaluator("basic"))
>>> result.nodes, result.evals, Board(6).is_legal(result.move)
(545, 544, True)
"""

from __future__ import annotations

import time as _time
from typing import Callable, Optional

import numpy as np

from amazons_env import Board, Move, core

from agents.evaluation.evaluator import Evaluator
from agents.search.move_order import MoveLists, candidates, search_stats
from agents.search.result import SearchResult

__all__ = ["batched_alphabeta", "shortlister", "MoveSource", "Pace"]

INF = 1e30
NO_LIMIT = 1 << 62
#: with a ``Pace``, a node's children are scored in calls of at most this many positions, the
#: deadline checked before each: a whole 10x10 frontier in one call would overrun short deadlines
#: (frontier sizes and inference speeds: benchmarks/README.md, "CNN value net")
CHUNK = 512

# (cells, queens, nq, side, dirs, out) -> n: writes a node's moves (padded from, to, arrow) to out[:n]
MoveSource = Callable[[np.ndarray, np.ndarray, np.ndarray, int, np.ndarray, np.ndarray], int]


class _OutOfBudget(Exception):
    pass


class Pace:
    """The measured cost of ``score_moves`` per position, so that a search with a deadline stops
    *before* a forward pass that would end after it (a pass over a 10x10 frontier takes a third
    of a second: checking the clock after it is not enough). An agent keeps one across its
    searches: the first search of a game measures, the later ones predict.

    >>> pace = Pace()
    >>> pace.record(1000, 0.2)
    >>> round(pace.predict(500), 3)
    0.1
    """

    def __init__(self) -> None:
        self.per_position = 0.0

    def record(self, positions: int, seconds: float) -> None:
        """Learn from one call that scored ``positions`` in ``seconds``: a moving average, in
        which one slow call (the process descheduled on a busy machine) counts as at most twice
        the average, so that it does not make the next moves stop early; small calls, dominated
        by their fixed cost, are left out."""
        if positions >= 32:
            rate = seconds / positions
            if self.per_position == 0.0:
                self.per_position = rate
            else:
                self.per_position = 0.7 * self.per_position + 0.3 * min(rate, 2 * self.per_position)

    def predict(self, positions: int) -> float:
        """Seconds to score ``positions`` (0 until something was recorded)."""
        return positions * self.per_position


def batched_alphabeta(
    board: Board,
    depth: int,
    evaluator: Evaluator,
    *,
    k: int = 0,
    ordered: bool = True,
    win: float = 1.0,
    deadline: float = float("inf"),
    node_limit: int = NO_LIMIT,
    moves_of: Optional[MoveSource] = None,
    pace: Optional[Pace] = None,
    first: Optional[Move] = None,
    root_memo: Optional[list] = None,
) -> SearchResult:
    """Search ``board`` to ``depth`` whole moves with ``evaluator.score_moves`` (module docstring):
    a ``SearchResult`` with the ``move`` (None when the budget ran out first), its ``value`` for
    the side to move, the ``depth`` (0 for a search cut by its budget), ``nodes`` (positions
    entered plus the leaves scored), and in its stats
    ``evals`` (positions sent to the evaluator) and ``complete`` (below).

    ``ordered``: interior nodes score their children too and search them best first, only the
    best ``k`` (``k=0``: all); otherwise they search every move in list order and only depth-1
    nodes are scored. ``win``: the value of a position whose opponent has no move. The search
    stops with ``move=None`` once ``time.perf_counter()`` passes ``deadline`` or more than
    ``node_limit`` nodes were counted, or (with a ``pace``, which it also trains) before a
    ``score_moves`` call (of at most ``CHUNK`` positions) predicted to end after ``deadline``.
    ``moves_of``: where a node's moves come from (default ``core.generate_moves``: all of them).
    ``first``: a root move to search
    before the others (the last iteration's best); once its subtree is done, a search cut by its
    budget still returns the best root move so far (``complete=False``): every root move after
    the first replaces it only with a better value, so it is at least as good. ``root_memo``: a
    list kept by iterative deepening for one position: the first search stores the root's moves
    and scores in it and the later ones reuse them (the root's forward pass is the same in every
    iteration). The board is left unchanged."""
    cells, queens, nq = board.cells.copy(), board.queens.copy(), board.queen_counts.copy()
    dirs = board.dirs
    generate = core.generate_moves if moves_of is None else moves_of
    buf = np.empty((depth + 1, core.max_moves(board.size, int(nq.max())), 3), dtype=np.int64)
    count = [0, 0]  # nodes, evals
    best: list[Optional[np.ndarray]] = [None]
    root = [0, -INF]  # root moves searched, the root's value so far
    if first is not None:
        first_padded = core.padded_index(board.size)[[first.from_square, first.to_square, first.arrow]]

    def scored(side: int, moves: np.ndarray, n: int) -> np.ndarray:
        if pace is None:
            return evaluator.score_moves(cells, queens, nq, side, dirs, moves, n, win)
        scores = np.empty(n)
        for lo in range(0, n, CHUNK):
            m = min(CHUNK, n - lo)
            began = _time.perf_counter()
            if began + pace.predict(m) > deadline:
                raise _OutOfBudget
            scores[lo : lo + m] = evaluator.score_moves(cells, queens, nq, side, dirs, moves[lo:], m, win)
            pace.record(m, _time.perf_counter() - began)
        return scores

    def search(side: int, depth: int, alpha: float, beta: float, ply: int) -> float:
        count[0] += 1
        if count[0] > node_limit or _time.perf_counter() > deadline:
            raise _OutOfBudget
        if not core.has_move(cells, queens, nq, side, dirs):
            return -win
        moves = buf[depth]
        if ply == 0 and root_memo:
            n = len(root_memo[0])
            moves[:n], scores = root_memo
        else:
            n = generate(cells, queens, nq, side, dirs, moves)
            if depth == 1 or ordered:
                scores = scored(side, moves, n)
                count[1] += n
                if ply == 0 and root_memo is not None:
                    root_memo[:] = [moves[:n].copy(), scores]
        if depth == 1:
            count[0] += n
            j = int(np.argmax(scores))
            if ply == 0:
                best[0] = moves[j].copy()
            return float(scores[j])
        order = np.argsort(-scores, kind="stable")[: k if k > 0 else n] if ordered else np.arange(n)
        if ply == 0 and first is not None:
            at = np.flatnonzero((moves[:n] == first_padded).all(axis=1))
            order = np.concatenate([at, order[order != at[0]]]) if len(at) else order
        value = -INF
        for j in order:
            frm, to, arrow = (int(x) for x in moves[j])
            index = core.find_queen(queens, nq, side, frm)
            core.make_move(cells, queens, side, index, to, arrow)
            try:
                v = -search(1 - side, depth - 1, -beta, -alpha, ply + 1)
            finally:
                core.unmake_move(cells, queens, side, index, frm, to, arrow)
            if v > value:
                value = v
                if ply == 0:
                    best[0] = moves[j].copy()
                alpha = max(alpha, v)
                if alpha >= beta:
                    break
            if ply == 0:
                root[0], root[1] = root[0] + 1, value
        return value

    try:
        value = search(int(board.turn), depth, -INF, INF, 0)
    except _OutOfBudget:
        if first is None or root[0] == 0:
            return _result(None, 0.0, 0, count, complete=False)
        assert best[0] is not None  # a root move was searched: the best so far is set
        return _result(_public(best[0], board.size), float(root[1]), 0, count, complete=False)
    assert best[0] is not None, "batched_alphabeta: the root has no move"  # SearchAgent never searches those
    return _result(_public(best[0], board.size), float(value), depth, count, complete=True)


def _result(move: Optional[Move], value: float, depth: int, count: list[int], complete: bool) -> SearchResult:
    return SearchResult(move, value, depth, count[0], stats={"evals": count[1], "complete": complete})


def _public(padded: np.ndarray, size: int) -> Move:
    public = core.public_index(size)
    frm, to, arrow = (int(public[p]) for p in padded)
    return Move(frm, to, arrow, size)


def shortlister(board: Board, prefilter: Evaluator, shortlist: int, kq: int) -> MoveSource:
    """A move source giving the ``shortlist`` best of ``prefilter``'s ``candidates`` (``kq`` queen
    moves kept), for ``batched_alphabeta``'s ``moves_of``."""
    rows = core.max_moves(board.size, int(board.queen_counts.max()))
    scratch = (np.empty(rows), np.empty((rows, 2), dtype=np.int64), np.empty(rows))
    stats = search_stats()

    def moves_of(cells, queens, nq, side, dirs, out) -> int:
        lists = MoveLists(out, *scratch)
        return min(
            shortlist, candidates(cells, queens, nq, side, dirs, prefilter.kernel, prefilter.params, kq, lists, stats)
        )

    return moves_of
