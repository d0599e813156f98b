"""`jac`: multi-goal damped pseudo-inverse Jacobian method [R 3.5.1]."""

import numpy as np
import pytest

import bioik
from baseline_helpers import check_unreachable, check_within_limits, count_solved


@pytest.mark.parametrize("robot_name", ["ur5", "panda"])
def test_solves_fk_targets(robot_name):
    assert count_solved(robot_name, "jac", 1000) == 8


@pytest.mark.parametrize("robot_name", ["ur5", "panda"])
def test_unreachable_target_reports_failure(robot_name):
    res = check_unreachable(robot_name, "jac", 300)
    assert res.restarts > 0  # stalls restart the attempt


def test_never_leaves_limits():
    check_within_limits("panda", "jac", 200)


def test_two_pose_goals_at_once():
    robot = bioik.load_robot("dual_ur5")
    rng = np.random.default_rng(2)
    q = robot.random_configuration(rng)
    goals = [bioik.PoseGoal(tip, robot.link_pose(q, tip)) for tip in robot.tips]
    res = bioik.solve(robot, goals, seed=robot.random_configuration(rng), solver="jac", timeout=3600.0, max_iterations=3000, random_seed=1)
    assert res.success
    for g in goals:
        A = robot.link_pose(res.q, g.link)
        assert np.linalg.norm(A[:3, 3] - g.pose[:3, 3]) <= 1e-5


def test_refuses_other_goal_types(ur5):
    with pytest.raises(ValueError, match="jac.*only position, orientation and pose goals"):
        bioik.solve(ur5, [bioik.LookAtGoal("tool0", [1.0, 0.0, 0.0])], solver="jac")


@pytest.fixture
def ur5():
    return bioik.load_robot("ur5")
