"""Solvers behind one API: `solve`, `solve_batch`, `Solver`, `Result`; `names()` lists the solvers."""

from bioik.solvers.api import Result, Solver, solve, solve_batch
from bioik.solvers.batch import BatchResult, GoalBatch
from bioik.solvers.core.family import UnsupportedGoalsError
from bioik.solvers.registry import DEFAULT_SOLVER, PYTHON_GOALS_SOLVER, Parameter, names, parameters

__all__ = ["BatchResult", "GoalBatch", "DEFAULT_SOLVER", "PYTHON_GOALS_SOLVER", "Result", "Solver", "UnsupportedGoalsError", "names", "solve", "solve_batch",
           "Parameter", "parameters"]
