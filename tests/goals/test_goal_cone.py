"""ConeGoal: r = [max(0, ∠(R·axis, direction) − angle), pw·(p − p*)]."""

import numpy as np
import pytest
from goal_helpers import assert_acceptance, assert_jacobian, cost, goal_residual_of, random_unit, tree

from bioik import ConeGoal
from bioik.kinematics.frames import rotation_about


def tilted(v, angle, rng):
    """v rotated by `angle` about a random axis orthogonal to it."""
    n = np.cross(v, random_unit(rng))
    return rotation_about(n / np.linalg.norm(n), angle) @ v


def test_zero_inside_the_cone(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    T = robot.link_pose(q, "tip_a")
    direction = tilted(T[:3, 2], 0.25, rng)
    assert cost(robot, ConeGoal("tip_a", direction, 0.3), q) == 0.0
    assert cost(robot, ConeGoal("tip_a", direction, 0.3, position=T[:3, 3], position_weight=2.0), q) < 1e-28
    assert cost(robot, ConeGoal("tip_a", direction, 0.2), q) == pytest.approx(0.05**2)
    off = ConeGoal("tip_a", direction, 0.3, position=T[:3, 3] + [0, 0, 0.1], position_weight=2.0)
    assert cost(robot, off, q) == pytest.approx(0.04)


def test_residual_matches_definition(rng):
    robot = tree()
    for _ in range(5):
        q = robot.random_configuration(rng)
        direction, axis, position = random_unit(rng), random_unit(rng), rng.normal(size=3)
        T = robot.link_pose(q, "tip_b")
        angle = np.arccos(np.clip((T[:3, :3] @ axis) @ direction, -1, 1))
        goal = ConeGoal("tip_b", direction, 0.4, axis=axis, position=position, position_weight=0.7)
        expected = [max(0.0, angle - 0.4), *(0.7 * (T[:3, 3] - position))]
        np.testing.assert_allclose(goal_residual_of(robot, goal, q), expected, atol=1e-12)


def test_jacobian_matches_finite_differences(rng):
    robot = tree()
    for link in ("tip_a", "tip_b", "l2"):
        q = robot.random_configuration(rng)
        axis = random_unit(rng)
        direction = tilted(robot.link_pose(q, link)[:3, :3] @ axis, 1.0, rng)
        assert_jacobian(robot, ConeGoal(link, direction, 0.5, axis=axis), q)
        assert_jacobian(robot, ConeGoal(link, direction, 0.5, axis=axis, position=rng.normal(size=3), position_weight=1.5), q)


def test_acceptance(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    T = robot.link_pose(q, "tip_a")
    direction = tilted(T[:3, 2], 0.3, rng)
    for angle in (0.31, 0.3 - 5e-6, 0.3 - 2e-5, 0.1):
        assert_acceptance(robot, ConeGoal("tip_a", direction, angle), q)
    assert_acceptance(robot, ConeGoal("tip_a", direction, 0.3, position=T[:3, 3] + 1e-3, position_weight=1.0), q)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(direction=(0, 0, 0), angle=0.1), "direction"),
        (dict(direction=(0, 0, 1), angle=np.nan), "angle"),
        (dict(direction=(0, 0, 1), angle=-0.1), "angle"),
        (dict(direction=(0, 0, 1), angle=30.0), "angle"),  # degrees by mistake
        (dict(direction=(0, 0, 1), angle=0.1, axis=(np.nan, 0, 0)), "axis"),
        (dict(direction=(0, 0, 1), angle=0.1, position_weight=1.0), "position_weight"),
        (dict(direction=(0, 0, 1), angle=0.1, position=(0, 0, 0), position_weight=-1.0), "position_weight"),
        (dict(direction=(0, 0, 1), angle=0.1, position=(0, np.nan, 0), position_weight=1.0), "position"),
    ],
)
def test_bad_input(kwargs, field):
    with pytest.raises(ValueError, match=f"ConeGoal: {field}"):
        ConeGoal("tip_a", **kwargs)


def test_a_reassigned_field_is_validated_and_converted_again_before_a_solve():
    """Goals are validated when built; a field assigned later is checked again when a solve
    reads the goal (here: normalised, or refused), never used unchecked."""
    import bioik

    robot = tree()
    g = ConeGoal("tip_a", direction=[0.0, 0.0, 1.0], axis=[0.0, 0.0, 1.0], angle=0.3)
    bioik.solve(robot, [g], seed=robot.center(), solver="lm", max_iterations=5, timeout=3600.0, random_seed=0)
    g.direction = [0.0, 0.0, 2.0]
    bioik.solve(robot, [g], seed=robot.center(), solver="lm", max_iterations=5, timeout=3600.0, random_seed=0)
    np.testing.assert_allclose(g.direction, [0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="read-only"):
        g.direction[0] = 1.0
    g.angle = float("nan")
    with pytest.raises(ValueError, match="ConeGoal: angle"):
        bioik.solve(robot, [g], seed=robot.center(), solver="lm", max_iterations=5, timeout=3600.0, random_seed=0)
