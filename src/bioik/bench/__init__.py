"""The benchmark (EBIKE-style [E 4–6], FK/IK test [R 3.2]): reproducible targets, SQLite results, runner, report, plots.

Modules: `targets` (target generation), `store` (the results database), `runner` (timed,
self-checked solves), `report` (markdown tables), `plot` (cumulative solve-rate plots).
"""

from bioik.bench.store import BenchError, ResultStore
from bioik.bench.targets import TESTS, Targets, generate

__all__ = ["TESTS", "BenchError", "ResultStore", "Targets", "generate"]
