"""The arrays a proof search works in: the position it changes and restores (``ProofPosition``)
and its counters and per-ply rows (``Scratch``), shared by ``dfpn`` and the ``depth_first``
search it hands small positions to.

>>> scratch = new_scratch(empties=3, rows=10, squares=36)
>>> scratch.moves.shape, int(scratch.stats[EMPTIES]), int(scratch.stats[LIMIT]) == NO_LIMIT
((5, 10, 3), 3, True)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import typeof

from amazons_env import core

from agents.search.solver.bounds import Regions, new_regions
from agents.search.solver.lines import Lines, new_lines
from agents.search.solver.table import INF

__all__ = ["ProofPosition", "Scratch", "new_scratch", "NODES", "LIMIT", "EMPTIES", "DEPTH_FIRST", "NO_LIMIT"]

NODES, LIMIT, EMPTIES, DEPTH_FIRST = range(4)  # slots of ``Scratch.stats``
NO_LIMIT = 1 << 62


# not named Position: numba takes two named tuples of one name and the same fields for one type, and
# ``agents.search.move_order.Position`` (which the solver cannot import: it sits above the evaluators)
# has these fields
class ProofPosition(NamedTuple):
    """The rules core's arrays of the position searched, changed and restored by the search."""

    cells: np.ndarray
    queens: np.ndarray
    nq: np.ndarray
    dirs: np.ndarray


class Scratch(NamedTuple):
    """The search's counters ``stats`` (``NODES`` searched, the ``LIMIT`` where it stops, the
    ``EMPTIES`` squares at ply 0, and ``DEPTH_FIRST``: the empty squares at or below which the
    depth-first search takes over) and per-ply rows: the moves of the node at
    that ply, its children's df-pn numbers, keys and depth-first ordering scores, and the
    node's amazons in sealed regions and its filling move (``bounds.side_bounds``), the
    bounds' working arrays (``regions``) and the board's line tables (``lines``)."""

    stats: np.ndarray
    moves: np.ndarray
    phi: np.ndarray
    delta: np.ndarray
    keys: np.ndarray
    scores: np.ndarray
    sealed: np.ndarray
    filling: np.ndarray
    regions: Regions
    lines: Lines


def new_scratch(empties: int, rows: int, squares: int) -> Scratch:
    """Scratch for a search from a position with ``empties`` empty squares (so at most that many
    plies deep), at most ``rows`` moves a node (the children's ``delta`` start at ``INF``: a
    row no node wrote names no lost child), on a board of ``squares`` cells (``cells.shape[0]``)."""
    plies = empties + 2
    return Scratch(
        np.array([0, NO_LIMIT, empties, 0], dtype=np.int64), np.zeros((plies, rows, 3), dtype=np.int64),
        np.zeros((plies, rows), dtype=np.int64), np.full((plies, rows), INF, dtype=np.int64),
        np.zeros((plies, rows), dtype=np.uint64), np.zeros((plies, rows), dtype=np.int64),
        np.full((plies, core.MAX_QUEENS), -1, dtype=np.int64), np.full((plies, 3), -1, dtype=np.int64),
        new_regions(squares), new_lines(squares),
    )  # fmt: skip


_INTS = np.zeros(2, np.int64)
POSITION_TYPE = typeof(ProofPosition(np.zeros(1, np.uint8), np.zeros((2, 1), np.int64), _INTS, _INTS))
SCRATCH_TYPE = typeof(new_scratch(1, 1, 1))
