"""Array primitives the env kernels need and numba does not give: arrays without reference
counting, and byte stores without numba's negative-index fix-up (memset, unaligned 8-byte
stores, prefetch, bit rows expanded to bytes).

>>> import numpy as np
>>> from numba import njit
>>> @njit
... def demo(out):
...     fill_bytes(out, 0, 0, 4, 1)
...     expand_row(out, 1, 0, 0b101, 3)   # bits 0 and 2; zeroes bytes 3..7 as well
>>> out = np.zeros((2, 8), np.int8); demo(out); out.tolist()
[[1, 1, 1, 1, 0, 0, 0, 0], [1, 0, 1, 0, 0, 0, 0, 0]]
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["borrowed", "fill_bytes", "store_u64", "prefetch_write", "EXPAND", "expand_row"]


def _borrow(context, builder, array_type, value):
    """Codegen of ``value`` (of ``array_type``) with a null ``meminfo`` and ``parent``."""
    source = context.make_array(array_type)(context, builder, value)
    borrowed = context.make_array(array_type)(context, builder)
    for field in ("nitems", "itemsize", "data", "shape", "strides"):
        setattr(borrowed, field, getattr(source, field))
    borrowed.meminfo = cgutils.get_null_value(borrowed.meminfo.type)
    borrowed.parent = cgutils.get_null_value(borrowed.parent.type)
    return borrowed._getvalue()


@intrinsic
def borrowed(typingctx, value):
    """``value`` without its reference counts: an array with a null ``meminfo``, or a named tuple
    (a kernel's bundle of arrays, e.g. ``game.Positions``) whose arrays all are. Numba counts
    references to every array variable and view with atomic instructions (a profile of a step
    puts many of its samples on them, though removing them gains much less: they are barriers
    where the cost of earlier stores shows); on a borrowed array they are a test of a null pointer. Only
    for arrays that outlive the kernel call (its arguments)."""
    if not isinstance(value, (types.Array, types.BaseNamedTuple)):
        return None

    def codegen(context, builder, signature, args):
        kind = signature.args[0]
        if isinstance(kind, types.Array):
            return _borrow(context, builder, kind, args[0])
        fields = []
        for k, field in enumerate(kind.types):
            item = builder.extract_value(args[0], k)
            fields.append(_borrow(context, builder, field, item) if isinstance(field, types.Array) else item)
        return context.make_tuple(builder, kind, fields)

    return value(value), codegen


def _byte_pointer(context, builder, signature, args):
    """Codegen of the address of ``array[g, k]`` (the first three arguments) in a 2-D byte array
    with unit inner stride, with no negative-index fix-up and no bounds check."""
    row, col = (context.cast(builder, v, t, types.intp) for v, t in zip(args[1:3], signature.args[1:3]))
    data = context.make_array(signature.args[0])(context, builder, args[0])
    stride = cgutils.unpack_tuple(builder, data.strides)[0]
    return builder.gep(data.data, [builder.add(builder.mul(row, stride), col)])


@intrinsic
def fill_bytes(typingctx, array, g, lo, hi, value):
    """``array[g, lo:hi] = value`` on a 2-D byte array with unit inner stride, as one memset.
    A slice would be a counted view, and a loop is no memset: numba's handling of negative
    indices turns it into one scattered byte store per entry."""

    def codegen(context, builder, signature, args):
        count = builder.sub(
            context.cast(builder, args[3], signature.args[3], types.intp),
            context.cast(builder, args[2], signature.args[2], types.intp),
        )
        value = context.cast(builder, args[4], signature.args[4], types.int8)
        cgutils.memset(builder, _byte_pointer(context, builder, signature, args), count, value)
        return context.get_dummy_value()

    return types.void(array, g, lo, hi, value), codegen


@intrinsic
def store_u64(typingctx, array, g, k, value):
    """Store the 8 bytes of the int64 ``value`` (little-endian) at ``array[g, k:k + 8]`` of a
    2-D byte array with unit inner stride, unaligned and unchecked: the caller keeps it inside
    the array. One store instead of eight (see ``expand_row``)."""

    def codegen(context, builder, signature, args):
        at = builder.bitcast(_byte_pointer(context, builder, signature, args), ir.IntType(64).as_pointer())
        builder.store(context.cast(builder, args[3], signature.args[3], types.int64), at, align=1)
        return context.get_dummy_value()

    return types.void(array, g, k, value), codegen


@intrinsic
def prefetch_write(typingctx, array, g, k):
    """Ask the CPU to fetch the cache line of ``array[g, k]`` (a 2-D byte array with unit inner
    stride) for writing; no effect on the program's results, even out of bounds."""

    def codegen(context, builder, signature, args):
        at = _byte_pointer(context, builder, signature, args)
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [at.type, i32, i32, i32]), "llvm.prefetch"
        )
        builder.call(fn, [at, i32(1), i32(3), i32(1)])  # write, keep in all cache levels, data
        return context.get_dummy_value()

    return types.void(array, g, k), codegen


# EXPAND[b]: the 8 bits of b as 8 bytes 0/1 (bit i in byte i)
EXPAND = np.array([sum(((b >> i) & 1) << (8 * i) for i in range(8)) for b in range(256)], dtype=np.int64)


@njit(cache=True, inline="always")
def expand_row(out, g, at, bits, size):
    """``out[g, at + c] = bit c of bits`` for ``c < size``, in whole 8-byte stores: it also
    writes zeros up to 7 bytes past the row (``size`` 6: 2, 10: 6), so rows must be written in
    increasing order and the bytes after the last row written afterwards."""
    store_u64(out, g, at, EXPAND[bits & 255])
    if size > 8:
        store_u64(out, g, at + 8, EXPAND[(bits >> 8) & 255])
