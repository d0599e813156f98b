"""The prepared problem: goals whose fields were reassigned since they were built are
checked before the problem reads them."""

import numpy as np
import pytest

import bioik


def test_reassigned_fields_are_checked_before_the_problem_reads_them():
    robot = bioik.load_robot("ur5")
    goal = bioik.PositionGoal("tool0", [0.3, 0.1, 0.4])
    problem = bioik.Problem(robot, [goal])
    goal.weight = []  # the weights are compared and scaled first thing in `update`
    with pytest.raises(TypeError, match="PositionGoal: weight must be a number"):
        problem.update([goal])
    goal.weight, goal.link = 1.0, ["tool0"]  # the link keys the problem
    with pytest.raises(TypeError, match="PositionGoal: link must be a link name"):
        bioik.Problem(robot, [goal])
    goal.link = "tool0"
    problem.update([goal])
    assert problem.gw[0] == 1.0 and np.array_equal(problem.gf[0, :3], [0.3, 0.1, 0.4])
