"""When a ``uct_tree`` search may stop early: ``sure`` of its move, or its move ``settled``.

``simulation.run`` looks at the root's counts every ``SCAN_NS`` past the deadline's stop (is it
``sure``? else it goes on, up to the deadline's last instant) and, under a game clock, before it
(is the move ``settled``: can no runner-up overtake it in the simulations left?).

>>> import numpy as np
>>> from agents.search.uct_tree.nodes import FIRST, KIND, KIND_MOVE, NF, NI, NKIDS, VISITS, WSUM
>>> ni, nf = np.zeros((3, NI), np.int32), np.zeros((3, NF))
>>> ni[0, FIRST], ni[0, NKIDS], ni[1:, KIND], ni[1:, FIRST] = 1, 2, KIND_MOVE, -1
>>> ni[1:, VISITS], nf[1:, WSUM] = [30, 10], [15.0, 2.0]  # means 0.5 and 0.2
>>> bool(sure(ni, nf, 0, SURE_LEAD)), bool(settled(ni, 0, 19)), bool(settled(ni, 0, 20))
(True, True, False)
"""

from __future__ import annotations

from numba import njit

from agents.search.uct_tree.nodes import FIRST, KIND, KIND_ARROW, NKIDS, SOLVED, VISITS, WSUM

__all__ = ["sure", "settled", "SURE_LEAD", "SCAN_NS"]

#: nanoseconds between two looks at the root's counts (settled? sure?): a scan of the root's
#: children costs up to a few microseconds, too much for every clock reading
SCAN_NS = 1_000_000
#: the default of ``SearchConfig.sure`` (uct's ``sure``): sure of its move, the most visited root
#: child has at least this many times the runner-up's visits, and a mean at least as good
SURE_LEAD = 1.5


@njit(cache=True)
def _top_two(ni, x):
    """The most visited child of ``x`` and the runner-up (-1 where there is none), lost children
    left out: the move ``uct`` chooses at ``x`` and the one that could overtake it."""
    best = -1
    second = -1
    first = ni[x, FIRST]
    n = ni[x, NKIDS] if first >= 0 else 0
    for c in range(first, first + n):
        if ni[c, SOLVED] == -1:
            continue
        if best < 0 or ni[c, VISITS] > ni[best, VISITS]:
            second = best
            best = c
        elif second < 0 or ni[c, VISITS] > ni[second, VISITS]:
            second = c
    return best, second


@njit(cache=True)
def settled(ni, root, remaining):
    """Whether the move chosen at ``root`` (its most visited child, and under a queen move that
    one's most visited arrow) leads its runner-up at each level by more than ``remaining``
    simulations: none of them can then overtake it (short of a proof)."""
    x = root
    while True:
        best, second = _top_two(ni, x)
        if best < 0 or second >= 0 and ni[best, VISITS] - ni[second, VISITS] <= remaining:
            return False
        if ni[best, KIND] != KIND_ARROW:
            return True
        x = best  # a queen move: its arrow is part of the move


@njit(cache=True)
def sure(ni, nf, root, lead):
    """Whether the search is sure of the root's move: its most visited child leads the runner-up
    by ``lead`` times the visits and has a mean at least as good."""
    best, second = _top_two(ni, root)
    if best < 0 or second < 0 or ni[second, VISITS] == 0:
        return True
    if ni[best, VISITS] < lead * ni[second, VISITS]:
        return False
    return nf[best, WSUM] / ni[best, VISITS] >= nf[second, WSUM] / ni[second, VISITS]
