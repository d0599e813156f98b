"""A monotonic wall clock callable from compiled code, so whole solves stay in numba.

`now()` reads CLOCK_MONOTONIC through libc's clock_gettime, declared with an llvmlite
intrinsic (unlike a ctypes call, this keeps `cache=True` working). It is the same clock
as Python's `time.monotonic()`, so deadlines can be set on either side.
"""

from __future__ import annotations

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

CLOCK_MONOTONIC = 1


@intrinsic
def _monotonic_ns(typingctx):
    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        timespec = ir.LiteralStructType([i64, i64])
        ts = cgutils.alloca_once(builder, timespec)
        fnty = ir.FunctionType(ir.IntType(32), [ir.IntType(32), timespec.as_pointer()])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
        builder.call(fn, [ir.Constant(ir.IntType(32), CLOCK_MONOTONIC), ts])
        sec = builder.load(builder.gep(ts, [ir.Constant(ir.IntType(32), 0), ir.Constant(ir.IntType(32), 0)]))
        nsec = builder.load(builder.gep(ts, [ir.Constant(ir.IntType(32), 0), ir.Constant(ir.IntType(32), 1)]))
        return builder.add(builder.mul(sec, ir.Constant(i64, 1_000_000_000)), nsec)

    return types.int64(), codegen


@njit(cache=True, nogil=True)
def now() -> float:
    """Seconds of CLOCK_MONOTONIC (same origin as time.monotonic())."""
    return _monotonic_ns() * 1e-9
