"""The benchmark (EBIKE-style [E 4–6], FK/IK test [R 3.2]): reproducible targets, SQLite results, runner, report, plots.

Modules: `targets` (target generation), `store` (the results database), `runner` (timed,
self-checked solves), `report` (markdown tables), `plot` (cumulative solve-rate plots).
What this package exports is imported on first use: every `bioik` command builds the
parser of `bioik reach` (its cluster options come from `bioik.bench.distributed`), and the
targets and results database modules would slow the others' start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what `__getattr__` imports on first use
    from bioik.bench.store import BenchError, ResultStore
    from bioik.bench.targets import TESTS, Targets, generate

__all__ = ["TESTS", "BenchError", "ResultStore", "Targets", "generate"]


def __getattr__(name: str) -> Any:
    if name in ("BenchError", "ResultStore"):
        from bioik.bench import store

        return getattr(store, name)
    if name in ("TESTS", "Targets", "generate"):
        from bioik.bench import targets

        return getattr(targets, name)
    raise AttributeError(f"module 'bioik.bench' has no attribute {name!r}")
