"""Bitboards for numba kernels: a board up to 8x8 in one ``uint64``, up to 11x11 in a ``(lo, hi)``
pair of ``uint64`` (a ``UniTuple(uint64, 2)``, kept in registers).

Bit ``rank * size + file`` is the *public* square of the same number (a1 = bit 0), so there is no
frame: a shift that would wrap from one edge file to the other is cut by the file masks of
``masks`` (``NOT_FIRST_FILE`` for the shifts towards higher files, ``NOT_LAST_FILE`` towards lower
ones), and bits past the last square are cut by ``BOARD`` (or by any subset of it, such as the empty
squares). The operations below are written once and work on both kinds: numba picks the
implementation from the type of the first argument, so a kernel written with them compiles to
single-word code for 8x8 and to two-word code for 10x10. ``zero`` arguments only carry that type.

>>> import numpy as np
>>> from numba import njit
>>> @njit
... def demo(zero):
...     b = bit(zero, 0)                    # a1
...     b = bor(b, shl(b, 9))               # and one rank up on a 9x9 board: a2
...     return count(b), count(band(b, bit(zero, 9))), count(band(b, bit(zero, 1)))
>>> demo(np.uint64(0)), demo((np.uint64(0), np.uint64(0)))
((2, 1, 0), (2, 1, 0))
"""

from __future__ import annotations

import inspect

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic, overload

__all__ = [
    "ONE_WORD_MAX",
    "MAX_BITBOARD_SIZE",
    "BOARD",
    "NOT_FIRST_FILE",
    "NOT_LAST_FILE",
    "masks",
    "popcount",
    "zero_bytes",
    "band",
    "bor",
    "bxor",
    "bandnot",
    "nonzero",
    "count",
    "shl",
    "shr",
    "bit",
    "words",
    "load",
    "store",
]

ONE_WORD_MAX = 8  # 8 * 8 = 64 bits: one word
MAX_BITBOARD_SIZE = 11  # 11 * 11 = 121 bits: two words; 12x12 needs a third
BOARD, NOT_FIRST_FILE, NOT_LAST_FILE = range(3)  # rows of ``masks``
_U64 = (1 << 64) - 1


def _split(value: int) -> tuple[int, int]:
    return value & _U64, value >> 64


def masks() -> np.ndarray:
    """``uint64[MAX_BITBOARD_SIZE + 1, 3, 2]``: for each size, the (lo, hi) words of ``BOARD``,
    ``NOT_FIRST_FILE`` and ``NOT_LAST_FILE`` (one-word sizes leave ``hi`` zero)."""
    out = np.zeros((MAX_BITBOARD_SIZE + 1, 3, 2), dtype=np.uint64)
    for size in range(1, MAX_BITBOARD_SIZE + 1):
        board = (1 << size * size) - 1
        first = sum(1 << r * size for r in range(size))
        for row, value in (
            (BOARD, board),
            (NOT_FIRST_FILE, board & ~first),
            (NOT_LAST_FILE, board & ~(first << size - 1)),
        ):
            out[size, row] = _split(value)
    return out


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of a ``uint64`` (LLVM's ctpop: one instruction on x86-64)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@intrinsic
def _load8(typingctx, array, index):
    """The eight bytes ``array[index:index + 8]`` of a ``uint8`` array as one little-endian
    ``uint64``, whatever their alignment. No bounds check: the caller keeps ``index + 8`` inside."""
    if not (isinstance(array, types.Array) and array.dtype == types.uint8 and array.layout == "C"):
        return None

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        pointer = builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(64).as_pointer())
        return builder.load(pointer, align=1)

    return types.uint64(array, types.int64), codegen


@njit(cache=True, inline="always")
def zero_bytes(array, start, n):
    """Bit ``f`` set iff ``array[start + f] == 0``, for ``f < n``, ``1 <= n <= 16``; reads
    ``array[start:start + max(n, 8)]``, which must exist. A byte at a time would be a loop of ``n``
    dependent steps; this is two loads and a dozen operations."""
    low = np.uint64(0x7F7F7F7F7F7F7F7F)
    gather = np.uint64(0x0102040810204080)  # byte k's low bit to bit 56 + k, no carries
    x = _load8(array, start)
    flags = (~(((x & low) + low) | x) & ~low) >> np.uint64(7)  # 1 in each zero byte
    bits = (flags * gather) >> np.uint64(56)
    if n > 8:  # the last n - 8 of the 8 bytes ending at start + n
        x = _load8(array, start + n - 8)
        flags = (~(((x & low) + low) | x) & ~low) >> np.uint64(7)
        bits |= ((flags * gather) >> np.uint64(56 + 16 - n)) << np.uint64(8)
    return bits & ((np.uint64(1) << np.uint64(n)) - np.uint64(1))


def _generic(name: str, one, two):
    """A numba function ``name`` that runs ``one`` when its first argument is a ``uint64`` and
    ``two`` when it is a ``(lo, hi)`` pair (both take the same parameters). Called from plain
    Python it raises: it exists only inside kernels."""

    def stub(*args):
        raise TypeError(f"bitboards.{name} runs only inside numba kernels")

    def chooser(*args):
        if isinstance(args[0], types.Integer):
            return one
        if isinstance(args[0], types.UniTuple) and args[0].count == 2:
            return two
        return None

    stub.__name__ = stub.__qualname__ = name
    # numba matches the parameters of the stub, the chooser and the implementation by name;
    # inspect.signature reads ``__signature__``, an attribute typeshed's functions do not declare
    chooser.__signature__ = stub.__signature__ = inspect.signature(one)  # type: ignore[attr-defined]
    overload(stub)(chooser)
    return stub


def _shl2(b, n):
    # 0 < n < 64: the bits leaving ``lo`` at the top enter ``hi``
    return (b[0] << n, (b[1] << n) | (b[0] >> (64 - n)))


def _shr2(b, n):
    return ((b[0] >> n) | (b[1] << (64 - n)), b[1] >> n)


def _bit2(zero, i):
    return (np.uint64(1) << i, np.uint64(0)) if i < 64 else (np.uint64(0), np.uint64(1) << (i - 64))


def _store1(value, table, a, b):
    table[a, b, 0] = value


def _store2(value, table, a, b):
    table[a, b, 0] = value[0]
    table[a, b, 1] = value[1]


band = _generic("band", lambda a, b: a & b, lambda a, b: (a[0] & b[0], a[1] & b[1]))
bor = _generic("bor", lambda a, b: a | b, lambda a, b: (a[0] | b[0], a[1] | b[1]))
bxor = _generic("bxor", lambda a, b: a ^ b, lambda a, b: (a[0] ^ b[0], a[1] ^ b[1]))
bandnot = _generic("bandnot", lambda a, b: a & ~b, lambda a, b: (a[0] & ~b[0], a[1] & ~b[1]))
nonzero = _generic("nonzero", lambda a: a != 0, lambda a: (a[0] | a[1]) != 0)
# numba passes an intrinsic's typing context itself: a kernel calls ``popcount(x)`` with one argument
count = _generic(
    "count",
    lambda a: np.int64(popcount(a)),  # type: ignore[call-arg]
    lambda a: np.int64(popcount(a[0])) + np.int64(popcount(a[1])),  # type: ignore[call-arg]
)
shl = _generic("shl", lambda b, n: b << n, _shl2)  # towards higher squares, 0 < n < 64
shr = _generic("shr", lambda b, n: b >> n, _shr2)  # towards lower squares, 0 < n < 64
bit = _generic("bit", lambda zero, i: np.uint64(1) << i, _bit2)  # square i alone
words = _generic("words", lambda zero, lo, hi: lo, lambda zero, lo, hi: (lo, hi))  # from (lo, hi)
# tables are uint64[..., ..., 2] arrays of (lo, hi) rows
load = _generic(
    "load", lambda zero, table, a, b: table[a, b, 0], lambda zero, table, a, b: (table[a, b, 0], table[a, b, 1])
)
store = _generic("store", _store1, _store2)
