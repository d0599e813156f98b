"""Islands on threads: one compiled search per island, run at once with the GIL released.

BioIK 2 runs each island "independently from the other islands on a separate thread.
When a solution is found, evolution is stopped on all islands and the best result is
selected" ([R] Ruppel 2017, BioIK 2 master thesis, §3.7.4; §3.9.4: a *finished* flag
signals completion, and data that the threads modify is copied once per thread). The
islands exchange nothing else while they run; here:

  * `run_islands` runs island 0 in the calling thread (so Ctrl-C reaches it through the
    compiled clock) and the others on a shared pool of worker threads, and returns when
    all have returned;
  * the *stop flag* is one int64 word that the islands share: an island raises it
    (`raise_flag`) when it succeeds or its clock runs out, and every island reads it
    (`flag_raised`) between species and stops. Both are relaxed atomic accesses of that
    one word: no torn reads, and the compiler may not hoist the read out of the loop;
  * each island writes only its own arrays (its answer, counters, scratch, a copy of the
    problem's float buffer), which the caller reads after `run_islands` returns — the
    worker threads' completion orders those writes before the reads, so nothing else
    needs a lock.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

#: Worker threads of the shared pool: enough for the largest island count (`threads` ≤ 64)
#: of one search; concurrent searches queue behind each other's islands.
MAX_WORKERS = 63

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _word(context, builder, sig, args):
    """A pointer to element 0 of the int64 array argument."""
    return make_array(sig.args[0])(context, builder, args[0]).data


@intrinsic
def flag_raised(typingctx, flag):
    """flag[0] != 0, read with a relaxed atomic load (anew at every call)."""
    if not (isinstance(flag, types.Array) and flag.dtype == types.int64):
        return None

    def codegen(context, builder, sig, args):
        value = builder.load_atomic(_word(context, builder, sig, args), "monotonic", 8)
        return builder.icmp_signed("!=", value, ir.Constant(ir.IntType(64), 0))

    return types.boolean(flag), codegen


@intrinsic
def raise_flag(typingctx, flag):
    """flag[0] ← 1, a relaxed atomic store."""
    if not (isinstance(flag, types.Array) and flag.dtype == types.int64):
        return None

    def codegen(context, builder, sig, args):
        builder.store_atomic(ir.Constant(ir.IntType(64), 1), _word(context, builder, sig, args), "monotonic", 8)
        return context.get_dummy_value()

    return types.none(flag), codegen


def _workers() -> ThreadPoolExecutor:
    """The shared pool (started on first use; its threads idle between searches)."""
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(MAX_WORKERS, thread_name_prefix="bioik-island")
    return _pool


def _forget_pool() -> None:
    """In a forked child: the parent's pool threads do not exist there, so a search would
    wait forever on islands given to them; the child starts a pool of its own."""
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_pool)


def run_islands(calls: Sequence[Callable[[], object]], stop: np.ndarray) -> list[object]:
    """calls[0]() in this thread, the others at once on the pool; their results in order,
    once every call has returned. If one raises (or Ctrl-C arrives), the islands' stop
    flag `stop` (int64, (1,)) is raised so that the others end early, and the error is
    raised once they have."""
    pool = _workers()
    futures: list[Future] = [pool.submit(call) for call in calls[1:]]
    try:
        first = calls[0]()
        return [first, *(f.result() for f in futures)]
    except BaseException:
        stop[0] = 1
        for f in futures:
            f.exception()  # wait: the islands write into the caller's arrays
        raise
