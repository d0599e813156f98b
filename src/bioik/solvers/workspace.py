"""What a solve writes, kept apart per call: the one-call kernel's `io` array and the
call's own copies of the prepared problems (`Workspace`). A solver keeps idle workspaces;
a solve takes one for its whole duration, so threads and nested solves (a solve inside a
callback) never share a buffer."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from bioik.goals.base import Goal
from bioik.goals.pose import OrientationGoal, PoseGoal, PositionGoal
from bioik.kinematics.robot import Robot
from bioik.problem import Problem
from bioik.solvers.core.pose_query import new_io

#: Goal types whose structure is fixed by (type, link, secondary) alone.
POSE_TYPES = (PoseGoal, PositionGoal, OrientationGoal)

#: Goal structures a solver (and each workspace) keeps prepared.
MAX_STRUCTURES = 32


class Workspace:
    """A solve's buffers: `io` (arguments and results of the single-pose kernel, see
    `bioik.solvers.core.pose_query`) and copies of the templates `prepare(goals)` gives."""

    __slots__ = ("prepare", "io", "io_bytes", "problems", "last", "last_problem")

    def __init__(self, robot: Robot, settings: np.ndarray, prepare: Callable[[Sequence[Goal], bool], Problem]):
        self.prepare = prepare
        self.io = new_io(settings, robot.multiturn, robot.program.n_segments)
        self.io_bytes = memoryview(self.io).cast("B")  # struct packs 8 slots in one call
        self.problems: dict[tuple, Problem] = {}
        self.last: tuple | None = None  # (type, link, secondary) of the last single pose-type goal
        self.last_problem: Problem | None = None

    def problem(self, goals: Sequence[Goal], checked: bool = False) -> Problem:
        """This workspace's copy of the prepared problem for the goals' structure (checked:
        the caller has just checked the goals, `check_goals`)."""
        if type(goals) is list and len(goals) == 1 and type(goals[0]) in POSE_TYPES:  # the common case, in a loop: a cheaper key
            g = goals[0]
            g.refresh()  # a link or secondary reassigned since the goal was built is checked before the key reads it
            last = (type(g), g.link, g.secondary)
            if last == self.last:
                return self.last_problem
            self.last, self.last_problem = last, self._problem(goals)
            return self.last_problem
        return self._problem(goals, checked)

    def _problem(self, goals: Sequence[Goal], checked: bool = False) -> Problem:
        prepared = self.prepare(goals, checked)
        p = self.problems.get(prepared.key)
        if p is None or p.template is not prepared:
            if len(self.problems) >= MAX_STRUCTURES:
                self.problems.pop(next(iter(self.problems)))
            p = self.problems[prepared.key] = prepared.copy()
        return p
