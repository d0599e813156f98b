"""MinDistanceGoal / MaxDistanceGoal: r = max(0, d − ‖p − t‖) / max(0, ‖p − t‖ − d)."""

import numpy as np
import pytest
from goal_helpers import assert_acceptance, assert_jacobian, cost, goal_residual_of, random_unit, tree

from bioik import MaxDistanceGoal, MinDistanceGoal


def test_zero_where_satisfied(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    p = robot.link_pose(q, "tip_a")[:3, 3]
    target = p + 0.5 * random_unit(rng)
    assert cost(robot, MinDistanceGoal("tip_a", target, 0.4), q) == 0.0
    assert cost(robot, MaxDistanceGoal("tip_a", target, 0.6), q) == 0.0
    assert cost(robot, MinDistanceGoal("tip_a", target, 0.7), q) == pytest.approx(0.04)
    assert cost(robot, MaxDistanceGoal("tip_a", target, 0.2, weight=2.0), q) == pytest.approx(4 * 0.09)


def test_residual_matches_definition(rng):
    robot = tree()
    for _ in range(5):
        q = robot.random_configuration(rng)
        target, d = rng.normal(size=3), rng.uniform(0, 2)
        dist = np.linalg.norm(robot.link_pose(q, "tip_b")[:3, 3] - target)
        near, far = MinDistanceGoal("tip_b", target, d), MaxDistanceGoal("tip_b", target, d)
        np.testing.assert_allclose(goal_residual_of(robot, near, q), [max(0.0, d - dist)], atol=1e-12)
        np.testing.assert_allclose(goal_residual_of(robot, far, q), [max(0.0, dist - d)], atol=1e-12)


def test_jacobian_matches_finite_differences(rng):
    robot = tree()
    for link in ("tip_a", "tip_b", "finger"):
        q = robot.random_configuration(rng)
        target = rng.normal(size=3)
        dist = np.linalg.norm(robot.link_pose(q, link)[:3, 3] - target)
        assert_jacobian(robot, MinDistanceGoal(link, target, dist + 0.2), q)
        assert_jacobian(robot, MaxDistanceGoal(link, target, max(dist - 0.2, 0.0)), q)


def test_acceptance(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    target = robot.link_pose(q, "tip_a")[:3, 3] + random_unit(rng)
    dist = 1.0
    for delta in (-0.1, 5e-6, 2e-5, 0.3):
        assert_acceptance(robot, MinDistanceGoal("tip_a", target, dist + delta), q)
        assert_acceptance(robot, MaxDistanceGoal("tip_a", target, dist - delta), q)


@pytest.mark.parametrize("cls", [MinDistanceGoal, MaxDistanceGoal])
@pytest.mark.parametrize(
    "args, field",
    [
        (((0, 0, 0), -0.1), "distance"),
        (((0, 0, 0), np.nan), "distance"),
        (((0, 0, 0), "far"), "distance"),
        (((np.nan, 0, 0), 0.1), "target"),
    ],
)
def test_bad_input(cls, args, field):
    with pytest.raises(ValueError, match=f"{cls.__name__}: {field}"):
        cls("tip_a", *args)
