"""LookAtGoal: r = normalize(t − p) − normalize(R·axis)."""

import numpy as np
import pytest
from goal_helpers import assert_acceptance, assert_jacobian, cost, goal_residual_of, random_unit, tree

from bioik import LookAtGoal


def test_zero_when_axis_points_at_target(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    T = robot.link_pose(q, "tip_a")
    axis = random_unit(rng)
    goal = LookAtGoal("tip_a", T[:3, 3] + 0.7 * T[:3, :3] @ axis, axis=axis)
    assert cost(robot, goal, q) < 1e-28
    assert cost(robot, goal, robot.random_configuration(rng)) > 1e-6


def test_residual_matches_definition(rng):
    robot = tree()
    for _ in range(3):
        q = robot.random_configuration(rng)
        target, axis = rng.normal(size=3), rng.normal(size=3)
        T = robot.link_pose(q, "tip_b")
        d = target - T[:3, 3]
        expected = d / np.linalg.norm(d) - T[:3, :3] @ axis / np.linalg.norm(axis)
        np.testing.assert_allclose(goal_residual_of(robot, LookAtGoal("tip_b", target, axis=axis), q), expected, atol=1e-12)


def test_default_axis_is_x():
    assert LookAtGoal("tip_a", (1, 2, 3)).axis.tolist() == [1.0, 0.0, 0.0]


def test_jacobian_matches_finite_differences(rng):
    robot = tree()
    for link in ("tip_a", "tip_b", "l2"):
        q = robot.random_configuration(rng)
        assert_jacobian(robot, LookAtGoal(link, rng.normal(size=3), axis=rng.normal(size=3)), q)


def test_acceptance(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    T = robot.link_pose(q, "tip_a")
    assert_acceptance(robot, LookAtGoal("tip_a", T[:3, 3] + T[:3, 0], weight=2.0), q)
    assert_acceptance(robot, LookAtGoal("tip_a", T[:3, 3] + T[:3, 0] + 1e-3 * T[:3, 1], weight=2.0), q)
    assert_acceptance(robot, LookAtGoal("tip_a", rng.normal(size=3)), q)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(target=(np.nan, 0, 0)), "target"),
        (dict(target=(1, 2)), "target"),
        (dict(target=(1, 2, 3), axis=(0, 0, 0)), "axis"),
        (dict(target=(1, 2, 3), axis=(0, np.inf, 0)), "axis"),
        (dict(target=(1, 2, 3), weight=np.nan), "weight"),
        (dict(target=(1, 2, 3), tolerance=-1.0), "tolerance"),
    ],
)
def test_bad_input(kwargs, field):
    with pytest.raises(ValueError, match=f"LookAtGoal: {field}"):
        LookAtGoal("tip_a", **kwargs)
