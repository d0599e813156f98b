"""`nullspace`: pseudo-inverse IK with joint centring (or secondary goals) in the null space [L]."""

import numpy as np
import pytest

import bioik
from baseline_helpers import check_unreachable, check_within_limits, count_solved


@pytest.mark.parametrize("robot_name", ["ur5", "panda"])
def test_solves_fk_targets(robot_name):
    assert count_solved(robot_name, "nullspace", 1000) == 8


@pytest.mark.parametrize("robot_name", ["ur5", "panda"])
def test_unreachable_target_reports_failure(robot_name):
    check_unreachable(robot_name, "nullspace", 300)


def test_never_leaves_limits():
    check_within_limits("panda", "nullspace", 200)


def met_pose_on_panda(seed=3):
    robot = bioik.load_robot("panda")
    rng = np.random.default_rng(seed)
    q0 = robot.random_configuration(rng)
    tip = robot.tips[0]
    return robot, q0, bioik.PoseGoal(tip, robot.link_pose(q0, tip))


def test_centring_moves_joints_not_the_tool():
    robot, q0, goal = met_pose_on_panda()
    c = robot.center()
    plain = bioik.solve(robot, [goal], seed=q0, solver="nullspace", timeout=3600.0, max_iterations=300, random_seed=0)
    assert plain.success and plain.iterations == 0 and np.allclose(plain.q, q0)  # met at the seed: nothing to do
    res = bioik.solve(robot, [goal], seed=q0, solver="nullspace", timeout=3600.0, max_iterations=300, random_seed=0, centering_steps=200)
    assert res.success
    assert np.linalg.norm(res.q - c) < 0.95 * np.linalg.norm(q0 - c)  # the null-space motion centred the joints (3.92 → 3.52)
    assert np.linalg.norm(res.q - q0) > 1e-2  # ... by a real motion
    assert res.goal_errors[0, 0] <= 1e-5 and res.goal_errors[0, 1] <= 1e-5  # and the tool stayed
    A = robot.link_pose(res.q, goal.link)
    assert np.linalg.norm(A[:3, 3] - goal.pose[:3, 3]) <= 1e-5


def test_secondary_goal_drives_the_null_space():
    robot, q0, goal = met_pose_on_panda()
    j = robot.variable_names[2]
    target = float(np.clip(q0[2] + 0.5, robot.lower[2], robot.upper[2]))
    sec = bioik.JointVariableGoal(j, target, secondary=True)
    res = bioik.solve(robot, [goal, sec], seed=q0, solver="nullspace", timeout=3600.0, max_iterations=300, random_seed=0, centering_steps=200)
    assert res.success
    assert abs(res.q[2] - target) < 0.8 * abs(q0[2] - target)  # moved toward the secondary goal
    assert res.goal_errors[0, 0] <= 1e-5 and res.goal_errors[0, 1] <= 1e-5


def test_refuses_primary_goals_of_other_types():
    robot = bioik.load_robot("ur5")
    with pytest.raises(ValueError, match="nullspace.*only position, orientation and pose goals"):
        bioik.solve(robot, [bioik.LookAtGoal("tool0", [1.0, 0.0, 0.0])], solver="nullspace")
