"""numba plumbing: keep the on-disk kernel cache consistent with the sources, and call
one-signature kernels without type dispatch.

numba re-validates a cached kernel only against the file that defines it, but our kernels
inline helpers from other modules (goal kernels into solvers, FK into everything). After
an edit — or an upgrade that leaves old cache files behind — a kernel could silently run
stale inlined code. So at import, a stamp of every kernel source file (its path and a hash
of its content: an mtime can stay the same across an edit, or change with none) is
compared with the one stored beside the cache; on a mismatch the whole cache is dropped.

A kernel source file is one that mentions numba, plus each module such a file imports a
module or an UPPER_CASE constant from (compiled code freezes the constants it reads:
`model.robot_model.REVOLUTE`). Compiled code can read nothing else of another module, so
an edit to pure-Python loading code (the URDF or SRDF reader) keeps the cache.

Processes starting at once take turns (`process_lock`, a file lock beside the cache): one
checks the stamp and drops the cache while the others wait, and one prepares (compiles) a
solver's kernels while the others wait for that solver, then load what it wrote instead of
compiling it too. Kernels two solvers share may still be compiled by both at once — wasted
work, never a corrupt cache: numba writes each cache file whole, by rename, and so is the
stamp written here.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).parent
#: Packages whose modules may define compiled kernels.
KERNEL_PACKAGES = ("model", "kinematics", "scene", "collision", "goals", "problem", "solvers")
_KERNEL_MARK = re.compile(rb"numba|njit")
_FROM_IMPORT = re.compile(rb"^[ \t]*from[ \t]+bioik((?:\.\w+)*)\s+import\s+(\([^)]*\)|[^\n]*)", re.MULTILINE)
_IMPORT = re.compile(rb"^[ \t]*import[ \t]+bioik((?:\.\w+)+)", re.MULTILINE)
_NAME = re.compile(rb"\b([A-Za-z_]\w*)(?:\s+as\s+\w+)?")


def kernel_sources(root: Path = ROOT) -> list[Path]:
    """The files whose content compiled kernels depend on: every module under the kernel
    packages that mentions numba, and each bioik module it imports a module or an
    UPPER_CASE constant from."""
    modules = {_dotted(p.relative_to(root)): p for p in root.rglob("*.py") if "__pycache__" not in p.parts}
    found: set[Path] = set()
    for path in (p for pkg in KERNEL_PACKAGES for p in (root / pkg).rglob("*.py")):
        text = path.read_bytes()
        if not _KERNEL_MARK.search(text):
            continue
        found.add(path)
        for m in _IMPORT.finditer(text):
            found.update(p for p in [modules.get(m.group(1).decode())] if p)
        for m in _FROM_IMPORT.finditer(text):
            package = m.group(1).decode()
            for name in _NAME.findall(m.group(2).split(b"#")[0]):
                sub = modules.get(f"{package}.{name.decode()}")
                if sub is not None:
                    found.add(sub)
                elif name.isupper() and package in modules:
                    found.add(modules[package])
    return sorted(found)


def _dotted(relative: Path) -> str:
    """".model.urdf" for model/urdf.py, ".model" for model/__init__.py, "" for __init__.py."""
    parts = relative.with_suffix("").parts
    return "".join(f".{x}" for x in (parts[:-1] if parts[-1] == "__init__" else parts))


def sources_stamp(root: Path = ROOT) -> str:
    """Hash of the paths and contents of every kernel source file under root (≈ 10 ms)."""
    h = hashlib.sha1()
    for p in kernel_sources(root):
        h.update(f"{p.relative_to(root).as_posix()}:".encode())
        h.update(hashlib.sha1(p.read_bytes()).digest())
    return h.hexdigest()


def ensure_fresh(root: Path = ROOT, cached: Path | None = None) -> bool:
    """Delete the numba cache files under `cached` (default: root) if any kernel source
    under root changed since they were written; True if they were dropped.

    A script or a user's module whose cached kernels inline bioik's (a benchmark's timing
    loop around `scene_distance`, say) calls `ensure_fresh(cached=Path(__file__).parent)`
    before its first call to them: numba would revalidate them against that file only."""
    cached = root if cached is None else cached
    marker = cached / "__pycache__" / "kernel-sources.stamp"
    stamp = sources_stamp(root)
    try:
        if marker.read_text() == stamp:
            return False
    except OSError:
        pass
    with process_lock("stamp", cached):
        return _drop_stale(marker, stamp, cached)


def _drop_stale(marker: Path, stamp: str, root: Path) -> bool:
    try:
        if marker.read_text() == stamp:
            return False  # another process dropped and stamped while this one waited
    except OSError:
        pass
    try:
        for f in root.rglob("__pycache__/*.nb[ic]"):
            f.unlink(missing_ok=True)
        marker.parent.mkdir(exist_ok=True)
        partial = marker.with_name(f"{marker.name}.{os.getpid()}")
        partial.write_text(stamp)
        os.replace(partial, marker)  # whole or not at all: a concurrent reader never sees half a stamp
    except OSError:  # read-only install: numba then caches elsewhere or not at all
        pass
    return True


@contextmanager
def process_lock(name: str, root: Path = ROOT) -> Iterator[None]:
    """Hold the inter-process lock `name` (an flock on a file beside the kernel cache) for
    the block; where the file cannot be made (a read-only install) the block runs unlocked."""
    path = root / "__pycache__" / f"bioik-{name}.lock"
    try:
        path.parent.mkdir(exist_ok=True)
        f = open(path, "a+b")  # noqa: SIM115 — held across the yield
    except OSError:
        yield
        return
    with f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def compiled_entry(kernel: Callable[..., object]) -> Callable[..., object]:
    """The compiled entry of a numba kernel with exactly one compiled signature (else the
    kernel itself): calling it skips numba's dispatch on the argument types (≈ 0.4 µs of a
    call with five arrays). Only for call sites that always pass the same argument types."""
    overloads = getattr(kernel, "overloads", None)
    if overloads is not None and len(overloads) == 1:
        return next(iter(overloads.values())).entry_point
    return kernel
