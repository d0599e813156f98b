"""Solvers behind one API: `solve`, `Solver`, `Result`; `names()` lists the solvers."""

from bioik.solvers.api import Result, Solver, solve
from bioik.solvers.core.family import UnsupportedGoalsError
from bioik.solvers.registry import DEFAULT_SOLVER, PYTHON_GOALS_SOLVER, names

__all__ = ["DEFAULT_SOLVER", "PYTHON_GOALS_SOLVER", "Result", "Solver", "UnsupportedGoalsError", "names", "solve"]
