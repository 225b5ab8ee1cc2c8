"""The one clock that every numba search reads: ``now_ns()``, ``time.perf_counter_ns()`` callable
from compiled code, without taking Python's GIL where the platform allows.

A search checks its deadline every ``CHECK_EVERY`` evaluator calls (or nodes) by comparing
``now_ns()`` with a deadline in the same units (``as_ns``; ``NEVER`` for none). Where
``perf_counter`` is ``clock_gettime(CLOCK_MONOTONIC)`` (64-bit Linux: ``DIRECT``), ``now_ns`` calls
that C function directly from the compiled code, so a search on one thread never waits for
another thread that holds the GIL (an opponent's Python search while ``uct`` ponders, the engine
loop reading its input). Elsewhere it is ``object_mode_ns``, the same reading through numba's
object mode, which takes the GIL. ``benchmarks/search/clock_reads.py`` measures both.

>>> before = time.perf_counter_ns()
>>> before <= now_ns() <= object_mode_ns() <= time.perf_counter_ns()
True
>>> as_ns(1.5), as_ns(float("inf")) == NEVER
(1500000000, True)
"""

from __future__ import annotations

import sys
import time

from llvmlite import ir
from numba import njit, objmode, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["now_ns", "as_ns", "object_mode_ns", "monotonic_ns", "DIRECT", "NEVER", "CHECK_EVERY"]

#: evaluator calls (or nodes) between two readings of the clock inside a search
CHECK_EVERY = 64
#: a deadline that never comes
NEVER = 1 << 62
#: ``CLOCK_MONOTONIC``'s id on Linux
_CLOCK_MONOTONIC = 1


@intrinsic
def _clock_gettime_ns(typingctx):  # type: ignore[no-untyped-def]  # numba's intrinsic protocol
    """``clock_gettime(CLOCK_MONOTONIC)`` in nanoseconds, called from compiled code (a C call
    resolved from the process's C library when the code is loaded)."""

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        i64 = ir.IntType(64)
        timespec = ir.LiteralStructType([i64, i64])  # time_t tv_sec, long tv_nsec: 64-bit Linux
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(32), [ir.IntType(32), timespec.as_pointer()]), "clock_gettime"
        )
        spec = cgutils.alloca_once(builder, timespec)
        builder.call(function, [ir.Constant(ir.IntType(32), _CLOCK_MONOTONIC), spec])
        seconds = builder.load(cgutils.gep_inbounds(builder, spec, 0, 0))
        nanoseconds = builder.load(cgutils.gep_inbounds(builder, spec, 0, 1))
        return builder.add(builder.mul(seconds, ir.Constant(i64, 1_000_000_000)), nanoseconds)

    return types.int64(), codegen


@njit(types.int64(), cache=True, nogil=True)
def monotonic_ns():
    """``clock_gettime(CLOCK_MONOTONIC)`` in nanoseconds, without the GIL (64-bit Linux only:
    ``DIRECT``)."""
    return _clock_gettime_ns()


@njit(types.int64(), cache=True)
def object_mode_ns():
    """``time.perf_counter_ns()`` through numba's object mode: any platform, takes the GIL."""
    with objmode(t="int64"):
        t = time.perf_counter_ns()
    return t


#: whether ``now_ns`` reads the clock directly: 64-bit Linux, where ``perf_counter`` is
#: ``clock_gettime(CLOCK_MONOTONIC)``
DIRECT = (
    sys.platform.startswith("linux")
    and sys.maxsize > 2**32
    and time.get_clock_info("perf_counter").implementation == "clock_gettime(CLOCK_MONOTONIC)"
)
#: ``time.perf_counter_ns()`` for compiled code (module docstring)
now_ns = monotonic_ns if DIRECT else object_mode_ns


def as_ns(deadline: float) -> int:
    """A ``perf_counter`` deadline in ``perf_counter_ns`` units, as a numba search compares it
    with ``now_ns()`` (``NEVER`` if infinite)."""
    return NEVER if deadline == float("inf") else int(deadline * 1e9)
