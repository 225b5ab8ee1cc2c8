"""The clock the ``uct_tree`` simulations read, without taking Python's GIL where the platform allows.

``agents.search.clock.now_ns`` reads ``time.perf_counter_ns`` through numba's object mode: about a
microsecond, and it takes the GIL, so a search on one thread waits for whichever other thread holds
it. A Python thread that computes (an opponent's Python search in the same process, while ``uct``
ponders) keeps it for up to its switch interval (5 ms): measured beside a busy Python loop, a
one-second search played 22% of its simulations. Where ``perf_counter`` is ``clock_gettime
(CLOCK_MONOTONIC)`` (Linux), ``clock_ns`` calls that C function directly from the compiled code
instead: the same clock, about 60 ns a reading, no GIL. Elsewhere ``clock_ns`` is ``now_ns``.

>>> import time
>>> before = time.perf_counter_ns()
>>> before <= clock_ns() <= time.perf_counter_ns()
True
"""

from __future__ import annotations

import sys
import time

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from agents.search.clock import now_ns

__all__ = ["clock_ns", "monotonic_ns", "DIRECT"]

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
    """``clock_gettime(CLOCK_MONOTONIC)`` in nanoseconds (Linux only: ``DIRECT``)."""
    return _clock_gettime_ns()


#: whether ``clock_ns`` reads the clock directly: 64-bit Linux, where ``perf_counter`` is
#: ``clock_gettime(CLOCK_MONOTONIC)``
DIRECT = (
    sys.platform.startswith("linux")
    and sys.maxsize > 2**32
    and time.get_clock_info("perf_counter").implementation == "clock_gettime(CLOCK_MONOTONIC)"
)
#: ``time.perf_counter_ns()`` for compiled code (module docstring)
clock_ns = monotonic_ns if DIRECT else now_ns
