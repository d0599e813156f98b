"""RCMGoal [E 2.12, 8.5]: trocar − p_rcm for the best consecutive link pair, or a link's z axis."""

import numpy as np
import pytest
from goal_helpers import assert_acceptance, assert_jacobian, cost, goal_residual_of, random_unit, tree

from bioik import Problem, RCMGoal
from bioik.goals.kernels import GI_COLUMNS

CHAIN = ("l1", "l2", "l3", "tip_a")


def segment_residual(t, p1, p2):
    """t − p_rcm with the projection clamped to the segment [E 8.5]."""
    s = p2 - p1
    lam = np.clip((t - p1) @ s / (s @ s), 0.0, 1.0)
    return t - (p1 + lam * s)


def origins(robot, q, links):
    return [robot.link_pose(q, l)[:3, 3] for l in links]


def test_zero_when_the_segment_passes_the_trocar(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    p1, p2, p3, p4 = origins(robot, q, CHAIN)
    assert cost(robot, RCMGoal(("l2", "l3"), p2 + 0.4 * (p3 - p2)), q) < 1e-28
    assert cost(robot, RCMGoal(CHAIN, p3 + 0.7 * (p4 - p3)), q) < 1e-28
    T = robot.link_pose(q, "tip_b")
    assert cost(robot, RCMGoal("tip_b", T[:3, 3] - 0.3 * T[:3, 2]), q) < 1e-28  # the whole z line
    off = np.cross(p3 - p2, random_unit(rng))
    assert cost(robot, RCMGoal(("l2", "l3"), p2 + 0.4 * (p3 - p2) + off), q) == pytest.approx(off @ off)


def test_projection_is_clamped_to_the_segment(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    p2, p3 = origins(robot, q, ("l2", "l3"))
    beyond = p3 + 0.5 * (p3 - p2)
    np.testing.assert_allclose(goal_residual_of(robot, RCMGoal(("l2", "l3"), beyond), q), beyond - p3, atol=1e-12)
    before = p2 - 0.5 * (p3 - p2)
    np.testing.assert_allclose(goal_residual_of(robot, RCMGoal(("l2", "l3"), before), q), before - p2, atol=1e-12)


def test_residual_matches_definition(rng):
    robot = tree()
    for _ in range(5):
        q = robot.random_configuration(rng)
        t = rng.normal(scale=0.5, size=3)
        ps = origins(robot, q, CHAIN)
        candidates = [segment_residual(t, a, b) for a, b in zip(ps, ps[1:])]
        best = min(candidates, key=np.linalg.norm)
        np.testing.assert_allclose(goal_residual_of(robot, RCMGoal(CHAIN, t), q), best, atol=1e-12)
        np.testing.assert_allclose(goal_residual_of(robot, RCMGoal(CHAIN[1:3], t), q), candidates[1], atol=1e-12)
        T = robot.link_pose(q, "finger")
        z = T[:3, 2]
        expected = (np.eye(3) - np.outer(z, z)) @ (t - T[:3, 3])
        np.testing.assert_allclose(goal_residual_of(robot, RCMGoal("finger", t), q), expected, atol=1e-12)


def test_jacobian_matches_finite_differences(rng):
    robot = tree()
    for _ in range(4):
        q = robot.random_configuration(rng)
        ps = origins(robot, q, CHAIN)
        t = ps[1] + 0.3 * (ps[2] - ps[1]) + 0.05 * random_unit(rng)  # interior of a segment
        assert_jacobian(robot, RCMGoal(("l2", "l3"), t), q)
        assert_jacobian(robot, RCMGoal(CHAIN, t), q)
        assert_jacobian(robot, RCMGoal(CHAIN, rng.normal(size=3)), q)
        assert_jacobian(robot, RCMGoal("tip_b", rng.normal(size=3)), q)
        assert_jacobian(robot, RCMGoal(("tip_b", "l1"), rng.normal(size=3)), q)


def test_acceptance(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    ps = origins(robot, q, CHAIN)
    n = np.cross(ps[2] - ps[1], random_unit(rng))
    n /= np.linalg.norm(n)
    for eps in (0.0, 5e-6, 2e-5, 0.1):
        assert_acceptance(robot, RCMGoal(CHAIN, ps[1] + 0.5 * (ps[2] - ps[1]) + eps * n), q)


def test_many_links_share_the_problem_with_other_goals(rng):
    """A chain RCM next to two-link goals: every goal in the table keeps its own links."""
    robot = tree()
    q = robot.random_configuration(rng)
    t = rng.normal(size=3)
    goals = [RCMGoal(("tip_b", "finger"), t), RCMGoal(CHAIN, t, weight=2.0), RCMGoal("l2", t)]
    problem = Problem(robot, goals)
    assert problem.gi.shape == (3, GI_COLUMNS + 2)  # CHAIN reads four links: two extra columns
    singles = [Problem(robot, [g]).cost(q)[0] for g in goals]
    assert problem.cost(q)[0] == pytest.approx(sum(singles))


@pytest.mark.parametrize(
    "links, trocar, field",
    [
        ((), (0, 0, 0), "links"),
        (("l1", 3), (0, 0, 0), "links"),
        (("l1", "l1", "l2"), (0, 0, 0), "links"),
        (None, (0, 0, 0), "links"),
        (("l1", "l2"), (0, np.nan, 0), "trocar"),
        (("l1", "l2"), (0, 0), "trocar"),
    ],
)
def test_bad_input(links, trocar, field):
    with pytest.raises(ValueError, match=f"RCMGoal: {field}"):
        RCMGoal(links, trocar)
