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


def test_accept_rows_equals_accept_one_query_at_a_time():
    """A batch's acceptance tests in one compiled call: goal 0's row varies per query, the
    other goals (a scene's collision costs, a secondary goal of its own weight) stay."""
    robot = bioik.load_robot("ur5")
    scene = bioik.Scene()
    box = np.eye(4)
    box[:3, 3] = (0.4, 0.1, 0.2)
    scene.add_box("post", (0.1, 0.1, 0.4), box)
    rng = np.random.default_rng(5)
    Q = robot.random_configuration(rng, 12).reshape(12, robot.dof)
    targets = robot.fk(robot.random_configuration(rng, 12).reshape(12, robot.dof), ["tool0"])[:, 0]
    pose = bioik.PoseGoal("tool0", targets[0], weight=2.0)
    goals = [pose, bioik.CollisionAvoidanceGoal(scene), bioik.MinimalDisplacementGoal(weight=0.3, secondary=True)]
    problem = bioik.Problem(robot, goals)
    rows = pose.target_rows(robot, targets)
    index = np.array([0, 3, 4, 11])
    reports = np.zeros((12, 3 + 3 * len(goals)))
    problem.accept_rows(rows, Q, index, 0, reports)
    ok, errors, pc, sc = problem.report_arrays(reports)
    assert np.all(reports[np.setdiff1d(np.arange(12), index)] == 0.0)  # only the indexed rows are written
    for k in index:
        problem.update([bioik.PoseGoal("tool0", targets[k], weight=2.0), *goals[1:]])
        want = problem.accept(Q[k], 0)
        assert (ok[k], pc[k], sc[k]) == (want[0], want[2], want[3]) and np.array_equal(errors[k], want[1])
    assert errors[index, 1, 0].max() > 0.0 and pc[index].min() > 0.0  # the post and the poses count


def test_accept_rows_refuses_goals_that_call_python():
    robot = bioik.load_robot("ur5")
    goals = [bioik.PoseGoal("tool0", np.eye(4)), bioik.JointFunctionGoal(lambda q: q.copy())]  # through Python
    problem = bioik.Problem(robot, goals)
    with pytest.raises(ValueError, match="accept_rows: goals that call Python"):
        problem.accept_rows(np.zeros((1, 16)), robot.center()[None], np.array([0]), 0, np.zeros((1, 9)))
