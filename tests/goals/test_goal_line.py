"""LineGoal [R eq. 3.7]: r = f − d(d·(f − p)) − p."""

import numpy as np
import pytest
from goal_helpers import assert_acceptance, assert_jacobian, cost, goal_residual_of, random_unit, tree

from bioik import LineGoal


def test_zero_on_the_line(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    d = random_unit(rng)
    goal = LineGoal("tip_a", robot.link_pose(q, "tip_a")[:3, 3] - 0.3 * d, 5.0 * d)
    assert cost(robot, goal, q) < 1e-28
    assert cost(robot, goal, robot.random_configuration(rng)) > 1e-6


def test_residual_matches_definition(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    point, direction = rng.normal(size=3), rng.normal(size=3)
    d = direction / np.linalg.norm(direction)
    f = robot.link_pose(q, "finger")[:3, 3]
    expected = f - d * (d @ (f - point)) - point
    np.testing.assert_allclose(goal_residual_of(robot, LineGoal("finger", point, direction), q), expected, atol=1e-12)


def test_jacobian_matches_finite_differences(rng):
    robot = tree()
    for link in ("tip_a", "tip_b", "slider"):
        assert_jacobian(robot, LineGoal(link, rng.normal(size=3), rng.normal(size=3)), robot.random_configuration(rng))


def test_acceptance(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    f = robot.link_pose(q, "tip_b")[:3, 3]
    d = random_unit(rng)
    n = np.cross(d, random_unit(rng))
    assert_acceptance(robot, LineGoal("tip_b", f + 0.2 * d, d), q)
    assert_acceptance(robot, LineGoal("tip_b", f + 0.2 * d + 3e-6 * n / np.linalg.norm(n), d), q)
    assert_acceptance(robot, LineGoal("tip_b", f + 0.2 * d + 0.1 * n, d, weight=3.0), q)


@pytest.mark.parametrize(
    "args, field",
    [
        (((np.nan, 0, 0), (1, 0, 0)), "point"),
        (((0, 0, 0), (0, 0, 0)), "direction"),
        (((0, 0, 0), (1, 0, np.nan)), "direction"),
        (((0, 0, 0, 0), (1, 0, 0)), "point"),
    ],
)
def test_bad_input(args, field):
    with pytest.raises(ValueError, match=f"LineGoal: {field}"):
        LineGoal("tip_a", *args)
