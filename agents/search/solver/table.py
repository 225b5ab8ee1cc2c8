"""The proof searches' transposition table: per position its df-pn numbers, shared by ``dfpn`` and
the ``depth_first`` search below it.

An entry holds the position's key (``agents.search.zobrist``), its ``phi`` and ``delta`` for the
side to move (``phi = 0``: won, ``delta = 0``: lost, ``INF`` the other number of a proven pair) and
the nodes searched below it (``work``, saturating). Entries sit in two-way buckets; a new key
replaces the bucket's entry with less work below it, so the proofs that cost most stay longest.
Amazons has no cycles (every move burns a square), so a proven entry is exact.

An entry is a row of ``entries``: its numbers packed in one word (``phi | delta << 32``) and the
key XORed with that word. Threads share one table (``prover.Solver(threads=...)``) without a
lock: a row read while another thread writes it can mix two entries' words, and then its key
check fails, so it reads as absent and never as another position's numbers (the lockless table
of Hyatt and Mann, 2002). A bucket's two rows are 32 bytes side by side: one cache miss a probe,
which the searches make for every child they generate, so ``child_keys`` requests a node's
children's buckets all at once before the first probe. ``work`` is read only to replace an
entry, and sits apart (a race there only changes which entry is replaced).

>>> table = new_table(4, 4)
>>> store(table, np.uint64(12345), 0, INF, 7)
>>> found, phi, delta = probe(table, np.uint64(12345))
>>> bool(found), int(phi), int(delta) == INF
(True, 0, True)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import njit, typeof, types
from numba.core import cgutils
from numba.extending import intrinsic

from agents.search.zobrist import move_key, zobrist_table

__all__ = ["Table", "new_table", "probe", "store", "child_keys", "INF", "TABLE_TYPE"]

INF = (1 << 32) - 1  # a proven side's number; unproven sums stop just below it
LOW = np.uint64(INF)  # the packed word's phi


class Table(NamedTuple):
    """The keys of squares and pieces that index the table (``zobrist[4, W*W]``,
    ``zobrist.zobrist_table``), and per entry a row of ``entries`` (the position's key XOR its
    numbers, and its numbers ``phi | delta << 32``) and the nodes searched below it (``work``)."""

    zobrist: np.ndarray
    entries: np.ndarray
    work: np.ndarray


def new_table(bits: int, size: int) -> Table:
    """An empty table of ``2**bits`` entries (20 bytes each: two words and ``work``) for a ``size`` x ``size`` board."""
    n = 1 << bits
    return Table(zobrist_table(size + 2), np.zeros((n, 2), dtype=np.uint64), np.zeros(n, dtype=np.uint32))


TABLE_TYPE = typeof(new_table(1, 4))


@intrinsic
def _prefetch_row(typingctx, rows, i):
    """Ask the CPU to load row ``i`` of the 2-D array ``rows`` into its caches (LLVM's
    ``prefetch``: a hint, no effect on any value)."""
    sig = types.void(rows, i)

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        array = context.make_array(array_type)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        pointer = cgutils.get_item_pointer(context, builder, array_type, array, [args[1], zero], wraparound=False)
        byte = ir.IntType(8).as_pointer()
        word = ir.IntType(32)
        function = builder.module.declare_intrinsic(
            "llvm.prefetch", [byte], ir.FunctionType(ir.VoidType(), [byte, word, word, word])
        )
        # read (0), keep in every cache level (3), data (1)
        builder.call(function, [builder.bitcast(pointer, byte), word(0), word(3), word(1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True)
def child_keys(table, h, side, rows, n, keys):
    """Write to ``keys[:n]`` the keys of the positions after ``side``'s moves ``rows[:n]`` (from,
    to, arrow) from the position keyed ``h``, and start loading each one's bucket: the searches
    probe every child they make, and this way the cache misses overlap instead of coming one
    after another."""
    entries, last = table.entries, np.uint64(table.entries.shape[0] - 1)
    for j in range(n):
        child = move_key(h, table.zobrist, side, rows[j, 0], rows[j, 1], rows[j, 2])
        keys[j] = child
        _prefetch_row(entries, np.int64(child & last) & ~np.int64(1))


@njit(cache=True)
def probe(table, h):
    """``(found, phi, delta)`` of the entry for key ``h``."""
    entries = table.entries
    i = np.int64(h & np.uint64(entries.shape[0] - 1)) & ~np.int64(1)
    for s in range(i, i + 2):
        numbers = entries[s, 1]
        if entries[s, 0] ^ numbers == h:
            return True, np.int64(numbers & LOW), np.int64(numbers >> np.uint64(32))
    return False, np.int64(0), np.int64(0)


@njit(cache=True)
def store(table, h, phi, delta, work):
    """Keep ``(phi, delta)`` for key ``h``: in its own slot, else over the bucket's lighter entry."""
    entries = table.entries
    i = np.int64(h & np.uint64(entries.shape[0] - 1)) & ~np.int64(1)
    if entries[i, 0] ^ entries[i, 1] == h:
        s = i
    elif entries[i + 1, 0] ^ entries[i + 1, 1] == h:
        s = i + 1
    elif table.work[i] <= table.work[i + 1]:
        s = i
    else:
        s = i + 1
    numbers = np.uint64(phi) | (np.uint64(delta) << np.uint64(32))
    entries[s, 0] = h ^ numbers
    entries[s, 1] = numbers
    table.work[s] = min(work, INF)
