"""SideGoal: r = max(0, (R·axis)·direction)."""

import numpy as np
import pytest
from goal_helpers import assert_acceptance, assert_jacobian, cost, goal_residual_of, random_unit, tree

from bioik import SideGoal


def test_zero_when_pointing_away(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    v = robot.link_pose(q, "tip_a")[:3, 2]
    assert cost(robot, SideGoal("tip_a", -v + 0.5 * random_unit(rng)), q) == 0.0
    assert cost(robot, SideGoal("tip_a", v), q) == pytest.approx(1.0)


def test_residual_matches_definition(rng):
    robot = tree()
    for _ in range(5):
        q = robot.random_configuration(rng)
        direction, axis = random_unit(rng), random_unit(rng)
        expected = max(0.0, (robot.link_pose(q, "l2")[:3, :3] @ axis) @ direction)
        np.testing.assert_allclose(goal_residual_of(robot, SideGoal("l2", direction, axis=axis), q), [expected], atol=1e-12)


def test_jacobian_matches_finite_differences(rng):
    robot = tree()
    for link in ("tip_a", "tip_b", "l3"):
        q = robot.random_configuration(rng)
        axis = random_unit(rng)
        direction = robot.link_pose(q, link)[:3, :3] @ axis + 0.5 * random_unit(rng)  # active side
        assert_jacobian(robot, SideGoal(link, direction, axis=axis), q)


def test_acceptance(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    v = robot.link_pose(q, "tip_b")[:3, 2]
    n = np.cross(v, random_unit(rng))
    n /= np.linalg.norm(n)
    for eps in (-1e-3, 5e-6, 2e-5, 0.3):
        assert_acceptance(robot, SideGoal("tip_b", n + eps * v), q)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(direction=(0, 0, 0)), "direction"),
        (dict(direction=(1, np.nan, 0)), "direction"),
        (dict(direction=(1, 0, 0), axis=(0, 0, 0)), "axis"),
    ],
)
def test_bad_input(kwargs, field):
    with pytest.raises(ValueError, match=f"SideGoal: {field}"):
        SideGoal("tip_a", **kwargs)
