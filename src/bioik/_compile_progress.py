"""Say what is compiling while a first run compiles numba kernels: a first run that
compiles in silence looks broken.

`compile_notice(what)` wraps a block that may compile (a solver's preparation). After
`NOTICE_AFTER` seconds it logs (logger "bioik", a warning: shown on stderr by default)
that it is compiling, then every `PROGRESS_EVERY` seconds how long it has taken, how many
kernels are compiled and which one is compiling now (numba's "numba:compile" events of
the block's own thread); at the end, how long the block took. A command that prepares
several solvers names its step around each (`compile_step("solver 2 of 3")`), and the
notices say it, so a first run also tells how far the whole command is. Kernels loaded from numba's
disk cache raise no such event, so a warm run says nothing.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from numba.core import event

log = logging.getLogger("bioik")

#: Seconds of preparation after which a block says it is compiling.
NOTICE_AFTER = 1.0
#: Seconds between two progress lines while it compiles.
PROGRESS_EVERY = 10.0

#: The step of a longer command the notices name (`compile_step`); "" outside one.
_STEP: ContextVar[str] = ContextVar("bioik_compile_step", default="")


class _Compiles(event.Listener):
    """Counts the kernels one thread compiles and knows which one it is compiling."""

    def __init__(self, thread: int):
        self.thread = thread
        self.done = 0
        self.stack: list[str] = []

    def on_start(self, ev: event.Event) -> None:
        if threading.get_ident() == self.thread:
            self.stack.append(getattr(ev.data["dispatcher"], "__name__", "?"))

    def on_end(self, ev: event.Event) -> None:
        if threading.get_ident() == self.thread and self.stack:
            self.stack.pop()
            self.done += 1

    def status(self) -> str:
        stack = list(self.stack)  # the compiling thread may change it meanwhile
        now = f", now {stack[0]}" if stack else ""
        return f"{self.done} kernel{'s' if self.done != 1 else ''} compiled{now}"


@contextmanager
def compile_notice(what: str) -> Iterator[None]:
    """Log the compiling of `what` (e.g. "the lm kernels") while the block takes longer
    than NOTICE_AFTER seconds: a first line, progress lines, and the time it took."""
    t0 = time.monotonic()
    step = _STEP.get()
    what = f"{what} ({step})" if step else what
    compiles = _Compiles(threading.get_ident())
    stop = threading.Event()

    def report() -> None:
        if stop.wait(NOTICE_AFTER):
            return
        log.warning("bioik: compiling %s for this CPU — once; later runs load them from the cache "
                    "(`bioik warmup` compiles ahead of time)", what)
        while not stop.wait(PROGRESS_EVERY):
            log.warning("bioik: compiling %s: %.0f s, %s", what, time.monotonic() - t0, compiles.status())

    reporter = threading.Thread(target=report, name="bioik-compile-notice", daemon=True)
    event.register("numba:compile", compiles)
    reporter.start()
    try:
        yield
    finally:
        stop.set()
        event.unregister("numba:compile", compiles)
        if time.monotonic() - t0 > NOTICE_AFTER:
            log.warning("bioik: %s ready after %.1f s (%s)", what, time.monotonic() - t0, compiles.status())


@contextmanager
def compile_step(step: str) -> Iterator[None]:
    """Name the step of a longer command ("solver 2 of 3") in the compile notices of the
    block (in this thread or context)."""
    token = _STEP.set(step)
    try:
        yield
    finally:
        _STEP.reset(token)
