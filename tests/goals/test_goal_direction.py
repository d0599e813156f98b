"""DirectionGoal (= AlignmentGoal): r = R·axis − direction."""

import numpy as np
import pytest
from goal_helpers import assert_acceptance, assert_jacobian, cost, goal_residual_of, random_unit, tree

from bioik import AlignmentGoal, DirectionGoal


def test_alignment_is_direction():
    assert AlignmentGoal is DirectionGoal


def test_zero_when_aligned(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    axis = random_unit(rng)
    goal = DirectionGoal("tip_b", robot.link_pose(q, "tip_b")[:3, :3] @ axis, axis=axis)
    assert cost(robot, goal, q) < 1e-28
    assert cost(robot, goal, robot.random_configuration(rng)) > 1e-6


def test_residual_matches_definition(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    direction = rng.normal(size=3)
    expected = robot.link_pose(q, "l3")[:3, 2] - direction / np.linalg.norm(direction)
    np.testing.assert_allclose(goal_residual_of(robot, DirectionGoal("l3", direction), q), expected, atol=1e-12)


def test_jacobian_matches_finite_differences(rng):
    robot = tree()
    for link in ("tip_a", "finger", "l1"):
        assert_jacobian(robot, DirectionGoal(link, rng.normal(size=3), axis=rng.normal(size=3)), robot.random_configuration(rng))


def test_acceptance(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    R = robot.link_pose(q, "tip_a")[:3, :3]
    assert_acceptance(robot, DirectionGoal("tip_a", R[:, 2]), q)
    assert_acceptance(robot, DirectionGoal("tip_a", R[:, 2] + 2e-5 * R[:, 0], weight=0.5), q)
    assert_acceptance(robot, DirectionGoal("tip_a", rng.normal(size=3)), q)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(direction=(np.nan, 0, 1)), "direction"),
        (dict(direction=(0, 0, 0)), "direction"),
        (dict(direction=(0, 0, 1), axis=(0, 0, 0)), "axis"),
        (dict(direction=(0, 0, 1), axis="z"), "axis"),
    ],
)
def test_bad_input(kwargs, field):
    with pytest.raises(ValueError, match=f"DirectionGoal: {field}"):
        DirectionGoal("tip_a", **kwargs)
