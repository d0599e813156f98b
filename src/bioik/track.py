"""Trajectory tracking: solve a sequence of goal lists, each warm-started from the last
solution, staying near it with a secondary `MinimalDisplacementGoal` [S 5.5.4].

A joint-step bound (`max_step`) is enforced by rejection sampling through the solution
callback [E 8.1], so a step that cannot meet it fails honestly instead of jumping: with a
bound or a scene, a failed step holds the last configuration, so the path never moves a
joint more than `max_step` at once nor into an obstacle.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bioik.goals.base import Goal
from bioik.goals.joints import MinimalDisplacementGoal
from bioik.goals.pose import PoseGoal
from bioik.kinematics.robot import Robot
from bioik.problem import Problem
from bioik.solvers.api import check_timeout, solve

#: The solve arguments a held step's goal errors are measured with.
TOLERANCES = ("position_tolerance", "rotation_tolerance")


@dataclass(slots=True)
class TrackResult:
    """Outcome of `track`, one row per element of the goal sequence.

    Attributes:
        q: (N, dof) solutions.
        success: (N,) bool, each step's `Result.success`.
        goal_errors: per step, that step's `Result.goal_errors`.
        time: (N,) seconds per step.
        max_joint_step: largest |q_i − q_{i−1}| over all joints and steps (q_{−1}: the seed).
    """

    q: np.ndarray
    success: np.ndarray
    goal_errors: list[np.ndarray]
    time: np.ndarray
    max_joint_step: float


def step_goals(robot: Robot, element: Any, index: int) -> list[Goal]:
    """The goals of one sequence element: a list of goals, or a 4×4 pose for robot.tips[0]."""
    if isinstance(element, Sequence) and element and all(isinstance(g, Goal) for g in element):
        return list(element)
    try:
        T = np.asarray(element, dtype=float)
    except (TypeError, ValueError):
        T = None
    if T is None or T.shape != (4, 4):
        raise ValueError(f"goal_sequence[{index}] must be a non-empty list of goals or a 4×4 pose; "
                         f"got {type(element).__name__}{'' if T is None else f' of shape {T.shape}'}")
    return [PoseGoal(robot.tips[0], T)]


def track(
    robot: Robot,
    goal_sequence: Sequence[Any],
    seed: Any,
    *,
    timeout: float = 0.005,
    solver: str | None = None,
    max_step: float | None = None,
    minimal_displacement: bool = True,
    **solve_kwargs: Any,
) -> TrackResult:
    """Solve each element of `goal_sequence` in turn, seeded with the previous solution.

    Args:
        robot: the robot.
        goal_sequence: each element a list of goals or a 4×4 pose (a `PoseGoal` on
            robot.tips[0]).
        seed: the configuration the path starts from.
        timeout: seconds per element.
        solver: a solver name (None: the default).
        max_step: largest allowed change of any joint (rad or m) between consecutive
            solutions (the first measured from `seed`); a solution that exceeds it is
            rejected and the search goes on until `timeout`; if none fits, the step is
            marked failed and holds the last configuration (its goal errors are those of
            its own goals there). So does a failed step with `scene=`: the path keeps
            clear of the obstacles wherever it starts clear.
        minimal_displacement: add a secondary `MinimalDisplacementGoal` (reference: the
            previous solution) so that redundancy is spent on small joint motion.
        **solve_kwargs: passed to `bioik.solve` (a `callback` there must also accept a
            solution).

    Returns:
        A `TrackResult`.
    """
    if not isinstance(robot, Robot):
        raise TypeError(f"robot must be a bioik.Robot (from bioik.load_robot); got {type(robot).__name__}")
    if isinstance(goal_sequence, np.ndarray) and goal_sequence.ndim == 2:
        goal_sequence = [goal_sequence]  # one 4×4 pose, not a sequence of rows
    if not isinstance(goal_sequence, (Sequence, np.ndarray)) or len(goal_sequence) == 0:
        raise ValueError("goal_sequence must be a non-empty sequence of goal lists or 4×4 poses")
    timeout = check_timeout(timeout)
    if max_step is not None and not (isinstance(max_step, (int, float, np.number)) and 0 < max_step < math.inf):
        raise ValueError(f"max_step must be a finite number > 0 (rad or m per joint and step) or None; got {max_step!r}")
    steps = [step_goals(robot, element, i) for i, element in enumerate(goal_sequence)]
    previous = robot.clip(robot.check(seed, "seed"))
    user_callback = solve_kwargs.pop("callback", None)

    hold = max_step is not None or solve_kwargs.get("scene") is not None  # a failed step stays where it is

    def accept(q: np.ndarray) -> bool:
        ok = user_callback is None or bool(user_callback(q))
        return ok and (max_step is None or float(np.max(np.abs(q - previous))) <= max_step)

    callback = accept if max_step is not None or user_callback is not None else None
    n = len(steps)
    qs = np.empty((n, robot.dof))
    success = np.zeros(n, dtype=bool)
    times = np.empty(n)
    errors = []
    largest = 0.0
    for i, goals in enumerate(steps):
        if minimal_displacement and not any(isinstance(g, MinimalDisplacementGoal) for g in goals):
            goals = [*goals, MinimalDisplacementGoal()]
        res = solve(robot, goals, seed=previous, timeout=timeout, solver=solver, callback=callback, **solve_kwargs)
        if not res.success and hold:
            problem = Problem(robot, goals)
            problem.update(goals, previous, **{k: v for k, v in solve_kwargs.items() if k in TOLERANCES})
            res.q, res.goal_errors = previous.copy(), problem.accept(previous)[1]
        largest = max(largest, float(np.max(np.abs(res.q - previous))))
        qs[i], success[i], times[i] = res.q, res.success, res.time
        errors.append(res.goal_errors)
        previous = res.q.copy()
    return TrackResult(qs, success, errors, times, largest)
