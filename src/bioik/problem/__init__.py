"""The compiled problem: a robot and a goal list packed into named buffer sections that
every compiled solver reads (`Problem`, `unpack`), and its acceptance test."""

from bioik.problem.layout import ProblemViews, unpack, views
from bioik.problem.problem import Problem, structure_key

__all__ = ["Problem", "ProblemViews", "structure_key", "unpack", "views"]
