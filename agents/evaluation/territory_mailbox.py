"""The mailbox kernel of the ``territory`` evaluation (``agents.evaluation.territory`` says what it
computes): distance maps by breadth-first search over the padded ``cells`` array. It is the
reference the bitboard kernel (``agents.evaluation.territory_bitboard``) is tested against, and the
kernel on boards too large for bitboards.

>>> from amazons_env import Board
>>> board = Board(8)
>>> params = np.array([0.1, 0.1, 10.0, 0.6, 0.2, 0.4, 0.5, 0.0])
>>> v = territory_kernel(board.cells, board.queens, board.queen_counts, 0, board.dirs, params)
>>> 0 < v < 0.5
True
"""

from __future__ import annotations

import numpy as np
from numba import njit

from amazons_env import core

from agents.evaluation.evaluator import KERNEL_SIGNATURE

__all__ = [
    "territory_kernel",
    "distance_maps",
    "features",
    "terms",
    "TERM_NAMES",
    "phase_score",
    "mobility_penalty",
    "squash",
    "FAR",
    "PARAM_NAMES",
    "KERNELS",
]

FAR = 127  # "unreachable" distance
KERNELS = ("bitboard", "mailbox")  # the same value either way; the mailbox kernel is the reference
PARAM_NAMES = ("kappa", "scale", "mob", "a1", "a2", "a3", "a4", "scale_phase")
KAPPA, SCALE, MOB, A1, A2, A3, A4, SCALE_PHASE = range(len(PARAM_NAMES))
_HALF_POWERS = 0.5 ** np.arange(FAR + 1, dtype=np.float64)  # 2^-d by table: pow() is slow in the loop
# indices into ``features`` (White's point of view)
T1, T2, C1, C2, W = range(5)
#: what ``terms`` holds: the evaluation's sums with no parameter inside (White's point of view)
TERM_NAMES = ("t1", "n1", "t2", "n2", "c1", "c2", "w", "m")
N_TERMS = len(TERM_NAMES)


@njit(cache=True, inline="always")
def _start_bfs(queens, nq, side, dist, queue):
    """Both BFS start the same way: every square ``FAR`` but ``side``'s amazons (distance 0, queued).
    Returns the queue's length."""
    dist[:] = FAR
    for i in range(nq[side]):
        dist[queens[side, i]] = 0
        queue[i] = queens[side, i]
    return nq[side]


@njit(cache=True)
def _queen_bfs(cells, queens, nq, side, dirs, dist, queue):
    """``dist``: fewest queen moves from ``side``'s amazons to each empty square (``FAR`` if none)."""
    walked = np.zeros(cells.shape[0], dtype=np.uint8)  # bit k: a walk in direction k passed here
    tail = _start_bfs(queens, nq, side, dist, queue)
    head = 0
    while head < tail:
        s = queue[head]
        head += 1
        reach = dist[s] + 1
        for k in range(8):
            step = dirs[k]
            bit = np.uint8(1 << k)
            t = s + step
            # not ``agents.search.rays.ray_end``: this walk also stops early, and the evaluators
            # may not import the searches (they import the evaluators).
            # a square already passed in this direction by a walk from a square dequeued earlier
            # (so no farther than s) got everything beyond it at distance <= reach: stop there;
            # so every (square, direction) is walked once
            while cells[t] == core.EMPTY and not (walked[t] & bit):
                walked[t] |= bit
                if dist[t] > reach:
                    dist[t] = reach
                    queue[tail] = t
                    tail += 1
                t += step


@njit(cache=True)
def _king_bfs(cells, queens, nq, side, dirs, dist, queue):
    """``dist``: fewest king moves from ``side``'s amazons to each empty square (``FAR`` if none)."""
    tail = _start_bfs(queens, nq, side, dist, queue)
    head = 0
    while head < tail:
        s = queue[head]
        head += 1
        for k in range(8):
            t = s + dirs[k]
            if cells[t] == core.EMPTY and dist[t] == FAR:
                dist[t] = dist[s] + 1
                queue[tail] = t
                tail += 1


@njit(cache=True)
def distance_maps(cells, queens, nq, dirs):
    """``int64[4, W*W]``: queen distances of White, Black, then king distances of White, Black."""
    maps = np.empty((4, cells.shape[0]), dtype=np.int64)
    queue = np.empty(cells.shape[0], dtype=np.int64)
    _queen_bfs(cells, queens, nq, 0, dirs, maps[0], queue)
    _queen_bfs(cells, queens, nq, 1, dirs, maps[1], queue)
    _king_bfs(cells, queens, nq, 0, dirs, maps[2], queue)
    _king_bfs(cells, queens, nq, 1, dirs, maps[3], queue)
    return maps


@njit(cache=True)
def _free_neighbours(cells, dirs):
    """``N(b)``: the number of empty king neighbours of every square."""
    free = np.zeros(cells.shape[0], dtype=np.int64)
    width = dirs[2]
    for b in range(width + 1, cells.shape[0] - width - 1):
        if cells[b] == core.EMPTY:
            for e in range(8):
                if cells[b + dirs[e]] == core.EMPTY:
                    free[b] += 1
    return free


@njit(cache=True)
def _mobility_alpha(cells, dirs, square, opponent_queen_dist, free):
    """Lieberum's alpha for the amazon on ``square`` (``free``: ``_free_neighbours``)."""
    alpha = 0.0
    for k in range(8):
        step = dirs[k]
        b = square + step
        weight = 0.5
        # the queen line of ``agents.search.rays``, walked here: the evaluators may not import the searches
        while cells[b] == core.EMPTY:
            if opponent_queen_dist[b] < FAR:
                alpha += weight * free[b]
            weight *= 0.5
            b += step
    return alpha


@njit(cache=True)
def features(cells, queens, nq, side, dirs, kappa):
    """``float64[5]``: t1, t2, c1, c2 and w of the position, from White's point of view, ties worth
    ``kappa`` to ``side``."""
    out = np.zeros(5)
    _accumulate(cells, distance_maps(cells, queens, nq, dirs), side, kappa, out)
    return out


@njit(cache=True)
def _accumulate(cells, maps, side, kappa, out):
    """Add t1, t2, c1, c2, w of this position into ``out[T1:W+1]``."""
    tie = kappa if side == 0 else -kappa
    for p in range(cells.shape[0]):
        if cells[p] != core.EMPTY:
            continue
        qw, qb, kw, kb = maps[0, p], maps[1, p], maps[2, p], maps[3, p]
        if qw < FAR or qb < FAR:
            out[T1] += 1.0 if qw < qb else (-1.0 if qw > qb else tie)
            out[C1] += 2.0 * (_HALF_POWERS[qw] - _HALF_POWERS[qb])
            if qw < FAR and qb < FAR:
                out[W] += _HALF_POWERS[abs(qw - qb)]
        if kw < FAR or kb < FAR:
            out[T2] += 1.0 if kw < kb else (-1.0 if kw > kb else tie)
            out[C2] += min(1.0, max(-1.0, (kb - kw) / 6.0))


@njit(cache=True)
def terms(cells, queens, nq, dirs):
    """``float64[8]`` (``TERM_NAMES``): the sums the evaluation weighs, free of its parameters, from
    White's point of view, so that a fit (``training.tuning``) can weigh them afresh without a
    breadth-first search per trial: ``t1``/``t2`` without the ties, ``n1``/``n2`` the tied squares
    (``features``' t1 is ``t1 + kappa n1`` for White to move), ``c1``, ``c2``, ``w``, and ``m``
    the mobility sum ``sum 2^(-alpha/4)`` over Black's amazons minus White's (the penalty is
    ``mob s m``).

    >>> from amazons_env import Board
    >>> board = Board(8)
    >>> t = terms(board.cells, board.queens, board.queen_counts, board.dirs)
    >>> f = features(board.cells, board.queens, board.queen_counts, 0, board.dirs, 0.1)
    >>> bool(abs(t[0] + 0.1 * t[1] - f[T1]) < 1e-12), bool(abs(t[7]) < 1e-12)   # a symmetric start: m = 0
    (True, True)
    """
    maps = distance_maps(cells, queens, nq, dirs)
    plain = np.zeros(5)
    tied = np.zeros(5)
    _accumulate(cells, maps, 0, 0.0, plain)
    _accumulate(cells, maps, 0, 1.0, tied)  # ties worth 1: the difference counts them
    mobility = 0.0
    free = _free_neighbours(cells, dirs)
    for j in range(2):
        sign = 1.0 if j == 1 else -1.0  # as in the kernel: Black's penalties count for White
        for i in range(nq[j]):
            mobility += sign * 2.0 ** (-_mobility_alpha(cells, dirs, queens[j, i], maps[1 - j], free) / 4.0)
    out = np.empty(N_TERMS)
    out[0], out[1] = plain[T1], tied[T1] - plain[T1]
    out[2], out[3] = plain[T2], tied[T2] - plain[T2]
    out[4], out[5], out[6], out[7] = plain[C1], plain[C2], plain[W], mobility
    return out


@njit(cache=True)
def phase_score(f, params, squares):
    """``(s, t)``: the phase ``s`` and the weighted territory score ``t`` (White's point of view)
    of the features ``f`` (``features``) on a board of ``squares`` squares."""
    s = min(1.0, np.sqrt(f[W] / squares))
    return s, (
        (1.0 - params[A1] * s) * f[T1] + params[A2] * s * f[T2] + params[A3] * s * f[C1] + params[A4] * s * f[C2]
    )


@njit(cache=True)
def mobility_penalty(alpha, s, params):
    """The penalty of an amazon with Lieberum's ``alpha`` at phase ``s``."""
    return params[MOB] * s * 2.0 ** (-alpha / 4.0)


@njit(cache=True)
def squash(score, side, s, params, squares):
    """White's ``score`` as the value for ``side`` (to move) at phase ``s``, in (-1, 1): the tanh's
    scale is ``scale * exp(scale_phase * s)`` (a count decides more surely as the board closes;
    ``scale_phase = 0``, the study's, leaves it ``scale`` exactly; a parameter array of the seven
    earlier weights has none)."""
    if side == 1:
        score = -score
    scale = params[SCALE]
    if params.shape[0] > SCALE_PHASE and params[SCALE_PHASE] != 0.0:  # no exp() for the study set
        scale *= np.exp(params[SCALE_PHASE] * s)
    return np.tanh(score / (scale * squares))


@njit(KERNEL_SIGNATURE, cache=True)
def territory_kernel(cells, queens, nq, side, dirs, params):
    """Lieberum's evaluation for ``side`` (to move), squashed into (-1, 1) (module docstring)."""
    if not core.has_move(cells, queens, nq, side, dirs):
        return -1.0
    maps = distance_maps(cells, queens, nq, dirs)
    f = np.zeros(5)
    _accumulate(cells, maps, side, params[KAPPA], f)
    size = dirs[2] - 2
    squares = float(size * size)
    s, score = phase_score(f, params, squares)
    if s > 0.0 and params[MOB] != 0.0:
        free = _free_neighbours(cells, dirs)
        for j in range(2):
            sign = 1.0 if j == 1 else -1.0  # a penalty for Black's amazons counts for White
            for i in range(nq[j]):
                alpha = _mobility_alpha(cells, dirs, queens[j, i], maps[1 - j], free)
                score += sign * mobility_penalty(alpha, s, params)
    return squash(score, side, s, params, squares)
