"""What a solve returns (`Result`) and the checks every entry runs on its inputs first:
the timeout, the goal list and a solution callback's verdict."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bioik.goals.base import Goal
from bioik.model.names import UnknownNameError, suggest
from bioik.solvers.core.params import TIMEOUT
from bioik.solvers.registry import DEFAULT_SOLVER, SOLVERS, Family


@dataclass(slots=True)
class Result:
    """Outcome of a solve.

    Attributes:
        q: the configuration (always within limits).
        success: every primary goal passed its acceptance test on exact FK (and the callback,
            if any, accepted q).
        cost: weighted primary + secondary cost.
        goal_errors: per goal (position error m, rotation angle rad) for pose-type goals,
            (largest criterion / its wall, 0) for scan goals, (‖residual‖, 0) otherwise.
        time: seconds spent in the call.
        callback_calls: calls of the solution callback.
        restarts: random restarts.
        iterations: solver iterations.
        seed_clipped: the seed was outside limits and clipped.
        solver: the name of the solver that ran.
        primary_cost: the weighted cost of the primary goals.
        secondary_cost: the weighted cost of the secondary goals.
    """

    q: np.ndarray
    success: bool
    cost: float
    goal_errors: np.ndarray
    time: float
    callback_calls: int = 0
    restarts: int = 0
    iterations: int = 0
    seed_clipped: bool = False
    solver: str = ""
    primary_cost: float = field(default=0.0, repr=False)
    secondary_cost: float = field(default=0.0, repr=False)


def check_timeout(timeout: Any) -> float:
    """The timeout in seconds as a float, or a ParameterError/ParameterTypeError naming it."""
    return TIMEOUT.check("timeout", timeout)


def verdict(answer: Any) -> bool:
    """A solution callback's answer, which must be a bool (True: accept)."""
    if not isinstance(answer, (bool, np.bool_)):
        raise TypeError(f"the solution callback must return True (accept) or False (reject); got {answer!r}")
    return bool(answer)


def check_goals(goals: Any) -> None:
    """goals must be a non-empty list of goals; a goal whose fields were reassigned since it
    was built is validated again here, before anything (the problem's key) reads them."""
    if isinstance(goals, Goal):
        raise TypeError(f"goals must be a list of goals, e.g. [bioik.PoseGoal(link, pose)]; got one {type(goals).__name__}")
    if not isinstance(goals, Sequence) or isinstance(goals, (str, bytes)):
        raise TypeError(f"goals must be a list of goals, e.g. [bioik.PoseGoal(link, pose)]; got {type(goals).__name__}")
    if not goals:
        raise ValueError("no goals given: pass at least one goal, e.g. bioik.PoseGoal(link, pose)")
    for k, g in enumerate(goals):
        if not isinstance(g, Goal):
            raise TypeError(f"goals[{k}] is a {type(g).__name__}, not a bioik goal (expected e.g. bioik.PoseGoal(link, pose))")
        g.refresh()


def family(name: str | None) -> Family:
    """The solver family registered as `name` (None: the default), or an error naming the
    closest names."""
    name = DEFAULT_SOLVER if name is None else name
    try:
        return SOLVERS[name]
    except (KeyError, TypeError):
        raise UnknownNameError(f"unknown solver {name!r}; {suggest(str(name), SOLVERS, n=8)}") from None
