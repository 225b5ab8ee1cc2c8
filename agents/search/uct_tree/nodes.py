"""The rows of a ``uct_tree`` tree: what each column of a node holds, the indices of the
configuration and state arrays, a fresh root, a node's block of children written best first with
their priors (``write_children``), and the copy of a subtree that tree reuse keeps.

A tree (``Tree``) is two arrays of ``M`` rows, ``ni`` (``int32[M, NI]``) and ``nf``
(``float64[M, NF]``), one node per row (the package docstring describes the fields), and a state
``st`` (``int64[NST]``): the root's row, the first free row, the counters and random state of the
simulations, and why the last ``run`` returned (an index into ``STOPS``). The kernels take their
arguments in named bundles: ``Tree``, ``SearchConfig`` (the options of a search) and ``Budget``
(simulations, deadline, game clock), with ``move_order.Position`` (a position's arrays).

>>> import numpy as np
>>> ni, nf, st = np.empty((8, NI), np.int32), np.empty((8, NF)), np.zeros(NST, np.int64)
>>> new_root(ni, nf, st)
>>> int(st[ROOT]), int(st[FREE]), int(ni[0, FIRST]), int(ni[0, VISITS])
(0, 1, -1, 0)
>>> compact(ni, nf, 0, np.empty((4, NI), np.int32), np.empty((4, NF)))  # the root alone: one row
1
>>> arrows = np.array([[-1, -1, 20], [-1, -1, 30]])  # two arrows of a queen move, scored 0.1 and 0.5
>>> write_children(ni, nf, 1, 2, arrows, np.array([0.1, 0.5]), KIND_MOVE, 0.1, True)
>>> ni[1:3, ARROW].tolist(), bool(nf[1, PRIOR] > nf[2, PRIOR]), float(nf[1:3, PRIOR].sum())
([30, 20], True, 1.0)
>>> SearchConfig().c_puct, SearchConfig(split=0).split
(1.0, 0)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types

__all__ = [
    "Tree",
    "SearchConfig",
    "Budget",
    "TREE_TYPE",
    "CONFIG_TYPE",
    "BUDGET_TYPE",
    "NI",
    "NF",
    "FROM",
    "TO",
    "ARROW",
    "FIRST",
    "NKIDS",
    "VISITS",
    "SOLVED",
    "KIND",
    "COMPLETE",
    "WSUM",
    "STATIC",
    "PRIOR",
    "KIND_MOVE",
    "KIND_ARROW",
    "FAST_QUEENS",
    "FAST_ARROWS",
    "ROOT",
    "FREE",
    "SIMS",
    "EVALS",
    "RNG",
    "STOPPED",
    "LIMIT",
    "NST",
    "STOPS",
    "STOP_SIMULATIONS",
    "STOP_TIME",
    "STOP_TIME_MAX",
    "STOP_SETTLED",
    "STOP_PROVEN",
    "STOP_BATCH",
    "PENDING",
    "new_root",
    "compact",
    "write_children",
]

FROM, TO, ARROW, FIRST, NKIDS, VISITS, SOLVED, KIND, COMPLETE = range(9)  # columns of ``ni``
NI = 9
WSUM, STATIC, PRIOR = range(3)  # columns of ``nf``
NF = 3
KIND_MOVE, KIND_ARROW = 0, 1  # a position with a side to move / a queen moved, its arrow to come
FAST_QUEENS, FAST_ARROWS = 1, 2  # bits of ``SearchConfig.fast``: the levels ordered by cheap scores
#: state ``st``, one per thread searching the tree; ``LIMIT``: the end of the rows this thread
#: allocates from (``FREE`` up to it), 0 for the whole tree; ``PENDING``: the positions recorded for
#: an outside evaluator (``leaves``)
ROOT, FREE, SIMS, EVALS, RNG, STOPPED, LIMIT, PENDING = range(8)
NST = 8
#: why ``run`` returned (``st[STOPPED]`` holds the index): its simulation budget, the deadline's
#: ``stop`` (sure of its move), past ``stop`` until sure or the deadline's ``last``, a root whose
#: move can no longer change before ``stop``, a solved root, the buffers of the positions recorded
#: for an outside evaluator full (``leaves``: the caller has them valued and runs on)
STOPS = ("simulations", "time", "time_max", "settled", "proven", "batch")
STOP_SIMULATIONS, STOP_TIME, STOP_TIME_MAX, STOP_SETTLED, STOP_PROVEN, STOP_BATCH = range(6)


class Tree(NamedTuple):
    """A tree's arrays: node rows ``ni`` and ``nf``, state ``st`` (module docstring)."""

    ni: np.ndarray
    nf: np.ndarray
    st: np.ndarray


class SearchConfig(NamedTuple):
    """The options of a search (``agents.search.uct``'s, the package docstring's rules).

    ``c_puct`` the exploration constant, ``tau`` the prior temperature, ``pw_c``/``pw_a`` the
    progressive widening (``pw_c * N^pw_a`` children open, ``pw_c = 0``: all), ``sure`` the lead
    at which a search past its stop is sure of its move (``simulation.sure``); ``split`` 1 for a
    split tree, ``kq`` queen moves kept per position (0: all), ``keep`` whole moves kept per position
    of a move tree (0: all), ``expand_at`` the visits before a leaf is expanded, ``playout`` random
    plies before a leaf's evaluation, ``endgame`` the fill-search budget (0: off), ``max_kids`` the
    most children one expansion writes (rows kept free for it), ``fast`` the levels ordered by
    cheap scores (``FAST_QUEENS``, ``FAST_ARROWS``), ``vloss`` the threads searching the tree when
    several do (a virtual loss each), else 0; ``leaf_at`` the visits at which a move node is recorded
    for an outside evaluator (``leaves``, where ``run`` has buffers for them)."""

    c_puct: float = 1.0
    tau: float = 0.1
    pw_c: float = 2.0
    pw_a: float = 0.5
    sure: float = 1.5
    split: int = 1
    kq: int = 0
    keep: int = 0
    expand_at: int = 1
    playout: int = 0
    endgame: int = 0
    max_kids: int = 0
    fast: int = 0
    vloss: int = 0
    leaf_at: int = 1


class Budget(NamedTuple):
    """What ends a ``run``: ``sims`` simulations, the ``deadline`` (``Deadline.ns``: stop, last) and
    ``settle`` (1 under a game clock: stop early once the move is settled)."""

    sims: int
    deadline: np.ndarray
    settle: int


TREE_TYPE = types.NamedTuple((types.int32[:, ::1], types.float64[:, ::1], types.int64[::1]), Tree)
CONFIG_TYPE = types.NamedTuple((types.float64,) * 5 + (types.int64,) * 10, SearchConfig)
BUDGET_TYPE = types.NamedTuple((types.int64, types.int64[::1], types.int64), Budget)


@njit(cache=True)
def new_root(ni, nf, st):
    """Reset the tree to one unexpanded move node (row 0)."""
    ni[0, :] = -1
    ni[0, VISITS] = 0
    ni[0, SOLVED] = 0
    ni[0, NKIDS] = 0
    ni[0, KIND] = KIND_MOVE
    ni[0, COMPLETE] = 0
    nf[0, :] = 0.0
    st[ROOT] = 0
    st[FREE] = 1


@njit(
    types.int64(types.int32[:, ::1], types.float64[:, ::1], types.int64, types.int32[:, ::1], types.float64[:, ::1]),
    cache=True,
)
def compact(ni, nf, root, out_i, out_f):
    """Copy the subtree of ``root`` into ``out_i``/``out_f`` (root at row 0, children blocks kept
    contiguous); returns its node count, or -1 if it does not fit."""
    capacity = out_i.shape[0]
    out_i[0, :] = ni[root, :]
    out_f[0, :] = nf[root, :]
    free = 1
    head = 0
    while head < free:
        first, n = out_i[head, FIRST], out_i[head, NKIDS]
        if first >= 0:
            if free + n > capacity:
                return -1
            out_i[free : free + n, :] = ni[first : first + n, :]
            out_f[free : free + n, :] = nf[first : first + n, :]
            out_i[head, FIRST] = free
            free += n
        head += 1
    return free


@njit(cache=True)
def write_children(ni, nf, first, n, moves, scores, kind, tau, evaluated):
    """Write ``n`` children of ``kind`` into rows ``first .. first + n``, best first: the padded
    ``(from, to, arrow)`` of ``moves[:n]`` (-1 where a level leaves one out) with their scores
    ``scores[:n]`` (for the side choosing them). Each gets its prior (softmax of score / ``tau``),
    a score above 1 makes it a proven win, and its first-play value is its score if ``evaluated``,
    else NaN (evaluated when first visited)."""
    order = np.argsort(-scores[:n])
    total = 0.0
    best = scores[order[0]] if n > 0 else 0.0
    for r in range(n):
        src = order[r]
        x = first + r
        ni[x, FROM], ni[x, TO], ni[x, ARROW] = moves[src, 0], moves[src, 1], moves[src, 2]
        ni[x, FIRST] = -1
        ni[x, NKIDS] = 0
        ni[x, VISITS] = 0
        ni[x, KIND] = kind
        ni[x, COMPLETE] = 0
        v = scores[src]
        ni[x, SOLVED] = 1 if v > 1.0 else 0
        nf[x, STATIC] = min(v, 1.0) if evaluated or v > 1.0 else np.nan
        nf[x, WSUM] = 0.0
        p = np.exp((min(v, 1.0) - min(best, 1.0)) / tau)
        nf[x, PRIOR] = p
        total += p
    for r in range(n):
        nf[first + r, PRIOR] /= total
