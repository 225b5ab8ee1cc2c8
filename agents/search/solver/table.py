"""The proof searches' transposition table: per position its df-pn numbers, shared by ``dfpn`` and
the ``depth_first`` search below it.

An entry holds the position's key (``agents.search.zobrist``), its ``phi`` and ``delta`` for the
side to move (``phi = 0``: won, ``delta = 0``: lost, ``INF`` the other number of a proven pair) and
the nodes searched below it (``work``, saturating). Entries sit in two-way buckets; a new key
replaces the bucket's entry with less work below it, so the proofs that cost most stay longest.
Amazons has no cycles (every move burns a square), so a proven entry is exact.

>>> table = new_table(4, 4)
>>> store(table, np.uint64(12345), 0, INF, 7)
>>> found, phi, delta = probe(table, np.uint64(12345))
>>> bool(found), int(phi), int(delta) == INF
(True, 0, True)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, typeof

from agents.search.zobrist import zobrist_table

__all__ = ["Table", "new_table", "probe", "store", "INF", "TABLE_TYPE"]

INF = (1 << 32) - 1  # a proven side's number; unproven sums stop just below it


class Table(NamedTuple):
    """The keys of squares and pieces that index the table (``zobrist[4, W*W]``,
    ``zobrist.zobrist_table``), and per entry the position's key, its ``phi`` and ``delta`` and the
    nodes searched below it (``work``)."""

    zobrist: np.ndarray
    keys: np.ndarray
    phi: np.ndarray
    delta: np.ndarray
    work: np.ndarray


def new_table(bits: int, size: int) -> Table:
    """An empty table of ``2**bits`` entries (20 bytes each) for a ``size`` x ``size`` board."""
    n = 1 << bits
    return Table(
        zobrist_table(size + 2), np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=np.uint32),
        np.zeros(n, dtype=np.uint32), np.zeros(n, dtype=np.uint32),
    )  # fmt: skip


TABLE_TYPE = typeof(new_table(1, 4))


@njit(cache=True)
def probe(table, h):
    """``(found, phi, delta)`` of the entry for key ``h``."""
    i = np.int64(h & np.uint64(table.keys.shape[0] - 1)) & ~np.int64(1)
    for s in range(i, i + 2):
        if table.keys[s] == h:
            return True, np.int64(table.phi[s]), np.int64(table.delta[s])
    return False, np.int64(0), np.int64(0)


@njit(cache=True)
def store(table, h, phi, delta, work):
    """Keep ``(phi, delta)`` for key ``h``: in its own slot, else over the bucket's lighter entry."""
    i = np.int64(h & np.uint64(table.keys.shape[0] - 1)) & ~np.int64(1)
    if table.keys[i] == h:
        s = i
    elif table.keys[i + 1] == h:
        s = i + 1
    elif table.work[i] <= table.work[i + 1]:
        s = i
    else:
        s = i + 1
    table.keys[s] = h
    table.phi[s] = phi
    table.delta[s] = delta
    table.work[s] = min(work, INF)
