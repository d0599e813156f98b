"""A monotonic wall clock callable from compiled code, so whole solves stay in numba, and
Ctrl-C for the solves that run on it.

`now()` reads CLOCK_MONOTONIC through libc's clock_gettime, declared with an llvmlite
intrinsic (unlike a ctypes call, this keeps `cache=True` working). It is the same clock
as Python's `time.monotonic()`, so deadlines can be set on either side.

Ctrl-C: Python handles SIGINT between bytecodes, never inside compiled code, so a long
compiled solve would run to its deadline before KeyboardInterrupt. `stoppable` arms a
compiled call made from the main thread with more than `LONG` seconds to go: a small
compiled SIGINT handler, chained in front of Python's own, marks the signal in a word
that `now()` reads, and from then on `now()` answers +inf in the main thread — every
search's next clock read (`now() > deadline`) ends it, within a millisecond. Python's
handler has run too, so KeyboardInterrupt follows as soon as the call returns. Short
calls and calls from other threads are not armed (they run to their deadline, as a
solve in a worker thread does), and the check costs one read of one word per clock read.
"""

from __future__ import annotations

import ctypes
import signal
import threading
import time

import llvmlite.binding as llvm
from llvmlite import ir
from numba import cfunc, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

CLOCK_MONOTONIC = 1

#: A compiled call from the main thread with more than this many seconds before its
#: deadline is armed for Ctrl-C (a shorter one returns about as fast anyway).
LONG = 0.05

#: The words the handler and `now()` share: armed (a main-thread call runs), stop (SIGINT
#: came while armed), the main thread's id, and the handler it chains to.
ARMED, STOP, MAIN, NEXT = range(4)
_STATE = (ctypes.c_int64 * 4)()
_STATE[MAIN] = threading.main_thread().ident or 0
_SYMBOL = "bioik_sigint_state"
llvm.add_symbol(_SYMBOL, ctypes.addressof(_STATE))  # compiled code finds it by name, cache or not


def _state_word(builder, index):
    """A pointer to word `index` of the shared state, declared by name in this module."""
    words = ir.ArrayType(ir.IntType(64), 4)
    g = builder.module.globals.get(_SYMBOL)
    if g is None:
        g = ir.GlobalVariable(builder.module, words, _SYMBOL)
        g.linkage = "external"
    return builder.gep(g, [ir.Constant(ir.IntType(32), 0), ir.Constant(ir.IntType(32), index)])


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


@intrinsic
def _stopped_here(typingctx):
    """True if SIGINT came during an armed call and this is the main thread."""

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        stop = builder.load(_state_word(builder, STOP))
        stop.set_metadata("volatile", builder.module.add_metadata([]))  # read anew each time
        result = cgutils.alloca_once_value(builder, ir.Constant(ir.IntType(1), 0))
        with builder.if_then(builder.icmp_unsigned("!=", stop, ir.Constant(i64, 0)), likely=False):
            self_fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, []), "pthread_self")
            main = builder.load(_state_word(builder, MAIN))
            builder.store(builder.icmp_unsigned("==", builder.call(self_fn, []), main), result)
        return builder.load(result)

    return types.boolean(), codegen


@intrinsic
def _mark_and_chain(typingctx, sig):
    """In the handler: set STOP if armed, then call the handler chained to with `sig`."""

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        armed = builder.load(_state_word(builder, ARMED))
        with builder.if_then(builder.icmp_unsigned("!=", armed, ir.Constant(i64, 0))):
            builder.store(ir.Constant(i64, 1), _state_word(builder, STOP))
        nxt = builder.load(_state_word(builder, NEXT))
        fnty = ir.FunctionType(ir.VoidType(), [ir.IntType(32)])
        with builder.if_then(builder.icmp_unsigned(">", nxt, ir.Constant(i64, 1))):  # not SIG_DFL/SIG_IGN
            builder.call(builder.inttoptr(nxt, fnty.as_pointer()), [args[0]])
        return context.get_dummy_value()

    return types.none(sig), codegen


@njit(cache=True, nogil=True)
def now() -> float:
    """Seconds of CLOCK_MONOTONIC (same origin as time.monotonic()); +inf in the main
    thread once Ctrl-C came during an armed call (`stoppable`), so the search ends."""
    if _stopped_here():
        return float("inf")
    return _monotonic_ns() * 1e-9


def _on_sigint(sig):
    """The SIGINT handler's body (compiled on first use by `_Sigaction`): async-signal-safe,
    it only stores a word and calls Python's handler."""
    _mark_and_chain(sig)


class _Sigaction:
    """Installs `_on_sigint` in front of Python's SIGINT handler, through libc's sigaction.
    Only the handler pointer, the first field of `struct sigaction` on every POSIX libc,
    is replaced; the rest (mask, flags) stays Python's."""

    def __init__(self) -> None:
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.sigaction.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
        self.size = 512  # more than any libc's struct sigaction
        self.python = None  # the address of Python's own handler, once known
        self.ours = cfunc(types.void(types.int32), cache=True)(_on_sigint).address

    def current(self) -> tuple[int, ctypes.Array]:
        buf = ctypes.create_string_buffer(self.size)
        if self.libc.sigaction(signal.SIGINT, None, buf) != 0:
            return 0, buf
        return ctypes.c_void_p.from_buffer(buf).value or 0, buf

    def install(self) -> bool:
        """Ours in front of Python's handler; False where that cannot be (Python does not
        handle SIGINT at all, or something else installed its own handler)."""
        if not callable(signal.getsignal(signal.SIGINT)):
            return False
        handler, buf = self.current()
        ours = self.ours
        if handler == ours:
            return True
        if self.python is None:
            signal.signal(signal.SIGINT, signal.getsignal(signal.SIGINT))  # Python's C handler, for sure
            handler, buf = self.current()
            self.python = handler
        if handler != self.python or handler <= 1:
            return False  # someone else's handler: leave it alone
        _STATE[NEXT] = handler
        ctypes.c_void_p.from_buffer(buf).value = ours
        return self.libc.sigaction(signal.SIGINT, buf, None) == 0


_sigaction: _Sigaction | None = None
_get_ident = threading.get_ident
_monotonic = time.monotonic


def stoppable(kernel, deadline: float, *args):
    """kernel(*args), armed for Ctrl-C if called from the main thread with more than
    `LONG` seconds before `deadline` (see the module docstring)."""
    if deadline - _monotonic() <= LONG or _get_ident() != _STATE[MAIN]:
        return kernel(*args)
    global _sigaction
    if _sigaction is None:
        _sigaction = _Sigaction()
    if not _sigaction.install():
        return kernel(*args)
    _STATE[STOP] = 0
    _STATE[ARMED] = 1
    try:
        return kernel(*args)
    finally:
        _STATE[ARMED] = 0
        _STATE[STOP] = 0  # Python's handler has the signal: KeyboardInterrupt comes next
