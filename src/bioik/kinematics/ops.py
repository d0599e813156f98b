"""Two scalar operations numba does not offer, for the hottest kernels (the scene's signed
distance is read once per robot sphere per cost evaluation).

- `fma(a, b, c)`: a·b + c with ONE rounding (LLVM's `llvm.fma`, one instruction where the
  CPU has FMA). numba never fuses a·b + c by itself (that needs fastmath, which would
  change every kernel's results), so a kernel asks for it where it wants it.
- `at(data, i)`: data[i] for an index known to be ≥ 0. numba wraps a negative signed
  index (data[-1] is the last element), which costs a compare and a select per read; an
  unsigned index has no such case. A negative i is a bug, as out of bounds as any other.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from bioik.kinematics.frames import JIT


@intrinsic
def fma(typingctx, a, b, c):
    """a·b + c rounded once (float64 arguments)."""
    if not all(isinstance(x, types.Float) for x in (a, b, c)):
        return None
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        return builder.fma(*args)

    return sig, codegen


@njit(inline="always", **JIT)
def at(data, i):
    """data[i], i ≥ 0, read without numba's negative-index wrap."""
    return data[np.uint64(i)]
