"""The goal registry: kind code → goal class, residual kernel, residual size, links read.

Each goal class declares what the compiled layer needs beside its own code (class
attributes `kind`, `kernel`, `size`, `link_count`); `Goal.__init_subclass__` records them
here. `bioik.goals.kernels` generates the compiled dispatcher from this registry and
`bioik.problem` reads residual sizes from it, so no other file lists the goal kinds.

Adding a goal (one file, plus its tests):
  1. Write src/bioik/goals/<name>.py: a `Goal` dataclass with its fields, `links` (the
     link names it reads, for link goals), `params(robot)` (its parameter row), and
       kind = <a code no other goal uses; 0 is PYTHON>
       size = <residual rows>, or PER_VARIABLE (one row per active variable)
       link_count = 1 (the default), 0 or ANY_LINKS: which kernel signature it has
       kernel = <its @njit(**JIT) residual kernel, defined above the class>
  2. Import and export the class by name in `bioik.goals` and in `bioik` (both `__init__.py`,
     and their `__all__`): importing it registers it, and type checkers see it
     (tests/goals/test_exports.py fails until both list it).
  3. Add tests/goals/test_goal_<name>.py and an example of the goal to `EXAMPLES` in
     tests/goals/test_goal_registry.py (which checks that every registered kind is
     dispatched and differentiated).
  The edit under goals/ drops numba's on-disk cache (`bioik._kernel_cache`), so every kernel
  is compiled with the new kind.

Kernel signatures (residual into r; derivative arrays are zeroed by the caller; the kernel
returns its number of rows):
  link_count 1:  kernel(p, f, r, A, B): p the parameter row, f the link frame
                 (position, quaternion); A = ∂r/∂p, B = ∂r/∂ω of that link.
  link_count 0:  kernel(p, q, vdata, r, Jq): joint values q, joint data vdata
                 (`bioik.goals.joints`); Jq = ∂r/∂q.
  ANY_LINKS:     kernel(gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch), the
                 signature of `goal_residual`: the kernel finds its links in the goal
                 table and applies the chain rule itself (`bioik.goals.kernels`).

Goals defined outside bioik.goals (a plugin, a test) register the same way, but bioik's
kernels are cached beside its sources and that cache is checked against those sources
only, so it cannot know about an outside goal: such goals are left out of the dispatcher
unless numba caches elsewhere (NUMBA_CACHE_DIR, a directory for this set of goals), and
`bioik.Problem` refuses them otherwise. Any goal must be registered before the dispatcher is
generated, i.e. before the first goal kernel is compiled in the process.
"""

from __future__ import annotations

from dataclasses import dataclass

from numba.core import config
from numba.core.dispatcher import Dispatcher

from bioik.errors import GoalRegistryError as GoalRegistryError

#: Kind of the goals evaluated in Python (user callables): any number of classes, no kernel.
PYTHON = 0
#: `size` of goals with one residual row per active variable.
PER_VARIABLE = -1
#: `link_count` of goals that read any number of links (their kernel has the full signature).
ANY_LINKS = -1


@dataclass(frozen=True)
class GoalKind:
    """What the compiled layer knows of a goal kind."""

    kind: int
    goal: type
    #: Residual kernel (a numba dispatcher); None for PYTHON goals.
    kernel: Dispatcher | None
    #: Residual rows, or PER_VARIABLE.
    size: int
    #: Links the kernel reads: 0, 1 or ANY_LINKS (see the module docstring).
    link_count: int

    def rows(self, n: int) -> int:
        """Residual rows on a robot with n active variables (0: evaluated in Python)."""
        if self.kernel is None:
            return 0
        return n if self.size == PER_VARIABLE else self.size

    @property
    def inside(self) -> bool:
        """Whether the goal lives in bioik.goals (covered by bioik's kernel cache)."""
        return self.goal.__module__.startswith("bioik.goals.")


#: Compiled goal kinds by code.
KINDS: dict[int, GoalKind] = {}
#: Every registered goal class (PYTHON ones too).
CLASSES: dict[type, GoalKind] = {}
#: Kinds the compiled dispatcher of this process holds (None: not generated here yet).
_generated: frozenset[int] | None = None


def register(cls: type) -> GoalKind:
    """Record a goal class's declarations (`Goal.__init_subclass__` calls this for every
    class that sets `kind`). Raises GoalRegistryError on a code already taken."""
    name = f"{cls.__module__}.{cls.__qualname__}"
    kind, kernel = cls.kind, getattr(cls, "kernel", None)
    size, link_count = getattr(cls, "size", None), getattr(cls, "link_count", None)
    if type(kind) is not int or kind < 0:
        raise GoalRegistryError(f"{name}: kind must be an int >= 0; got {kind!r}")
    if kind == PYTHON:
        if kernel is not None:
            raise GoalRegistryError(f"{name}: kind PYTHON ({PYTHON}) goals are evaluated in Python and take no kernel")
    else:
        if not isinstance(kernel, Dispatcher):
            raise GoalRegistryError(f"{name}: kind {kind} needs `kernel`, its numba @njit residual kernel; got {kernel!r}")
        if link_count not in (0, 1, ANY_LINKS):
            raise GoalRegistryError(f"{name}: link_count must be 0, 1 or ANY_LINKS ({ANY_LINKS}); got {link_count!r}")
        if type(size) is not int or not (size >= 1 or size == PER_VARIABLE):
            raise GoalRegistryError(f"{name}: size must be an int >= 1 or PER_VARIABLE ({PER_VARIABLE}); got {size!r}")
        taken = KINDS.get(kind)
        if taken is not None and _name(taken.goal) != name:  # the same class again: a module reload
            raise GoalRegistryError(f"{name}: goal kind {kind} is already taken by {_name(taken.goal)}; "
                                    f"codes in use: {sorted(KINDS)}")
    entry = GoalKind(kind, cls, kernel, size, link_count)
    if kind != PYTHON:
        KINDS[kind] = entry
    CLASSES[cls] = entry
    return entry


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _compilable(entry: GoalKind) -> bool:
    """Whether the dispatcher may include the kind: bioik's own goals always; outside ones
    only when numba caches outside the package (else the package's cache would hold
    code compiled from files it does not check)."""
    return entry.inside or bool(config.CACHE_DIR)


def dispatched() -> list[GoalKind]:
    """The compiled kinds, in code order, that the dispatcher includes; `bioik.goals.kernels`
    calls this when it generates the dispatcher, which fixes the set for the process."""
    global _generated
    entries = [e for _, e in sorted(KINDS.items()) if _compilable(e)]
    _generated = frozenset(e.kind for e in entries) | (_generated or frozenset())
    return entries


def residual_size(kind: int, n: int, links: int) -> int:
    """Residual rows of a goal kind on a robot with n active variables, for a goal that reads
    `links` links (0 for PYTHON). Raises GoalRegistryError if this process's compiled
    kernels cannot hold the kind, or if its kernel takes another number of links."""
    if kind == PYTHON:
        return 0
    entry = KINDS.get(kind)
    if entry is None:
        raise GoalRegistryError(f"goal kind {kind} is not registered; codes in use: {sorted(KINDS)}")
    if entry.link_count not in (ANY_LINKS, links):
        raise GoalRegistryError(f"{_name(entry.goal)} reads {links} links but declares link_count = {entry.link_count}")
    if not _compilable(entry):
        raise GoalRegistryError(
            f"{_name(entry.goal)} (kind {kind}) is defined outside bioik.goals, and bioik's compiled kernels are "
            "cached beside its sources, checked against them only: put the goal in src/bioik/goals/, or run with "
            "NUMBA_CACHE_DIR set to a cache directory for this set of goals")
    if _generated is not None and kind not in _generated:
        raise GoalRegistryError(
            f"{_name(entry.goal)} (kind {kind}) was registered after the compiled goal dispatcher was generated "
            "in this process: import the goal's module before the first solve")
    return entry.rows(n)
