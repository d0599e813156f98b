"""Goals with user Python callables [R 3.8]: LinkFunction and JointFunction.

They are evaluated in Python (`Problem.python_costs`), outside the compiled kernels, so
only solvers that accept Python goals can use them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass

import numpy as np

from bioik.errors import GoalError
from bioik.goals.base import PYTHON, Goal
from bioik.kinematics.frames import matrix_from_frame


def _check_callable(function, goal: str) -> None:
    if not callable(function):
        raise GoalError(f"{goal}: function must be callable; got {type(function).__name__}")


@dataclass
class LinkFunctionGoal(Goal):
    """A user cost of the pose of `link`: cost = function(T)·w², with T the link's 4×4 pose
    in the base frame and function(T) a finite number ≥ 0. Met when √function(T) ≤
    tolerance. Evaluated in Python.

    Args:
        link: the link whose pose the function reads.
        function: T ↦ a finite cost ≥ 0, T the link's 4×4 pose in the base frame.
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: met when √function(T) ≤ tolerance.
    """

    link: str
    function: Callable[[np.ndarray], float]
    _: KW_ONLY
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-5
    kind = PYTHON

    def __post_init__(self):
        super().__post_init__()
        _check_callable(self.function, "LinkFunctionGoal")

    @property
    def links(self):
        return (self.link,)

    def cost(self, robot, q: np.ndarray, frames_by_link: dict[str, np.ndarray]) -> float:
        """Unweighted cost at q, from the link frame (7 floats) in frames_by_link."""
        value = self.function(matrix_from_frame(frames_by_link[self.link]))
        if np.ndim(value) != 0:
            raise GoalError(f"LinkFunctionGoal: function must return one number; got shape {np.shape(value)}")
        try:
            c = float(value)
        except (TypeError, ValueError):
            raise GoalError(f"LinkFunctionGoal: function must return a number; got {value!r}") from None
        if not (np.isfinite(c) and c >= 0.0):
            raise GoalError(f"LinkFunctionGoal: function must return a finite cost >= 0; got {c}")
        return c


@dataclass
class JointFunctionGoal(Goal):
    """A user constraint on the joint values [R 3.8]: function(q) returns the values the
    active variables should have; cost = Σ(function(q)_i − q_i)²·w² (the BioIK source's
    formula). The function gets a copy of q. Met when √cost ≤ tolerance. Evaluated in
    Python.

    Args:
        function: q ↦ the values the active variables should have.
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: met when √cost ≤ tolerance.
    """

    function: Callable[[np.ndarray], np.ndarray]
    _: KW_ONLY
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-5
    kind = PYTHON

    def __post_init__(self):
        super().__post_init__()
        _check_callable(self.function, "JointFunctionGoal")

    def cost(self, robot, q: np.ndarray, frames_by_link: dict[str, np.ndarray]) -> float:
        """Unweighted cost at q (frames_by_link is not read)."""
        value = self.function(q.copy())
        try:
            target = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise GoalError(f"JointFunctionGoal: function must return {robot.dof} numbers; got {value!r}") from None
        if target.shape != q.shape:
            raise GoalError(f"JointFunctionGoal: function must return {robot.dof} values; got shape {target.shape}")
        if not np.all(np.isfinite(target)):
            raise GoalError("JointFunctionGoal: function returned NaN or inf")
        return float(np.sum((target - q) ** 2))
