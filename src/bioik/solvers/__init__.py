"""Solvers behind one API: `solve`, `Solver`, `Result`; `names()` lists the solvers."""

from bioik.solvers.api import Result, Solver, solve
from bioik.solvers.registry import DEFAULT_SOLVER, names

__all__ = ["DEFAULT_SOLVER", "Result", "Solver", "names", "solve"]
