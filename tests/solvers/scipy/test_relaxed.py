"""`relaxed`: RelaxedIK-style SLSQP on groove/swamp losses [E 3.1.6, 7.2].

Measured (8 FK targets from random seeds, 1000 iterations, tolerance 1e-5): 8/8 on ur5 and
on panda, typically 20–60 SLSQP iterations and 0–2 restarts per target. The tests keep a
margin of one target.
"""

import numpy as np
import pytest

import bioik
from baseline_helpers import check_unreachable, check_within_limits, count_solved, fk_targets
from bioik.problem import Problem
from bioik.solvers.scipy import relaxed
from bioik.goals.swamp import swamp
from bioik.solvers.scipy.groove import SWAMP, groove


@pytest.mark.parametrize("robot_name", ["ur5", "panda"])
def test_relaxed_solves_fk_targets(robot_name):
    assert count_solved(robot_name, "relaxed", 1000) >= 7


@pytest.mark.parametrize("robot_name", ["ur5", "panda"])
def test_relaxed_reports_failure_on_unreachable(robot_name):
    res = check_unreachable(robot_name, "relaxed", 300)
    assert res.goal_errors[0, 0] < 5.0  # its best approximation is closer than the 5 m offset


@pytest.mark.parametrize("robot_name", ["ur5", "panda"])
def test_relaxed_respects_limits(robot_name):
    check_within_limits(robot_name, "relaxed", 200)


def test_parameters_are_relaxedik_pose_parameters():
    d = relaxed.DEFAULTS
    assert (d["position_weight"], d["rotation_weight"]) == (50.0, 40.0)
    assert (d["groove_c"], d["groove_r"], d["groove_g"]) == (0.1, 10.0, 2.0)


def problem_with(robot, goals, q):
    p = Problem(robot, goals)
    p.update(goals, q)
    return p


@pytest.mark.parametrize("robot_name", ["ur5", "panda"])
def test_objective_is_the_weighted_groove_sum_and_its_gradient_is_exact(robot_name):
    robot = bioik.load_robot(robot_name)
    tip = robot.tips[0]
    rng = np.random.default_rng(4)
    T = robot.link_pose(robot.random_configuration(rng), tip)
    goals = [bioik.PoseGoal(tip, T, weight=1.5), bioik.PositionGoal(tip, T[:3, 3] + 0.05, secondary=True),
             bioik.AvoidJointLimitsGoal(weight=0.5)]
    q = robot.random_configuration(rng)
    f = relaxed.RelaxedObjective(problem_with(robot, goals, q), dict(relaxed.DEFAULTS))
    value, grad = f(q)
    # the value: position error norm and rotation angle through the groove, weights 50·w, 40·w
    A = robot.link_pose(q, tip)
    dp = np.linalg.norm(A[:3, 3] - T[:3, 3])
    R = A[:3, :3].T @ T[:3, :3]
    theta = np.arccos(np.clip((np.trace(R) - 1) / 2, -1, 1))
    dp2 = np.linalg.norm(A[:3, 3] - T[:3, 3] - 0.05)
    parts = {(g, what): v for g, what, _, v in f.terms(q)}
    assert set(parts) == {(0, "position"), (0, "rotation"), (1, "position"), (2, "swamp")}
    w = np.array([1.5, 1.0, 0.5]) / 1.5  # the weights divided by the largest primary one (`Problem.update`)
    assert parts[0, "position"] == pytest.approx(50 * w[0] * (groove(dp) + 1), rel=1e-10)
    assert parts[0, "rotation"] == pytest.approx(40 * w[0] * (groove(theta) + 1), rel=1e-7)
    assert parts[1, "position"] == pytest.approx(50 * w[1] * (groove(dp2) + 1), rel=1e-10)  # secondary_weight 1
    assert parts[2, "swamp"] == pytest.approx(50 * w[2] * float(np.sum(swamp(q, robot.lower, robot.upper, **SWAMP) + 1)), rel=1e-12)
    assert value == pytest.approx(sum(parts.values()), rel=1e-12)
    h = 1e-6
    numeric = np.array([(f(q + h * e)[0] - f(q - h * e)[0]) / (2 * h) for e in np.eye(robot.dof)])
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-4 * np.abs(grad).max())


def test_objective_minimum_at_the_target():
    """At an exact solution every pose term is groove(0) + 1 = 0, with zero gradient."""
    robot = bioik.load_robot("panda")
    q = robot.random_configuration(np.random.default_rng(2))
    goals = [bioik.PoseGoal(robot.tips[0], robot.link_pose(q, robot.tips[0]))]
    value, grad = relaxed.RelaxedObjective(problem_with(robot, goals, q), dict(relaxed.DEFAULTS))(q)
    assert abs(value) < 1e-9 and np.abs(grad).max() < 1e-5


def test_secondary_swamp_goal_keeps_primary_exact_and_moves_joints_inward():
    """With AvoidJointLimitsGoal (swamp loss) as a secondary goal the pose is still met to
    1e-5 (the primary polish), and on the redundant panda the joints end further from their
    limits. Measured: 8/8 solved; the largest |x'| (joint offset / half-range) averaged 0.80
    with the swamp against 0.89 without."""
    robot = bioik.load_robot("panda")
    tip = robot.tips[0]
    mid, half = (robot.lower + robot.upper) / 2, (robot.upper - robot.lower) / 2
    solved, with_swamp, without = 0, [], []
    for k, (T, seed) in enumerate(fk_targets(robot, 8, 5)):
        kw = dict(seed=seed, solver="relaxed", timeout=3600.0, max_iterations=1000, random_seed=k)
        res = bioik.solve(robot, [bioik.PoseGoal(tip, T), bioik.AvoidJointLimitsGoal()], **kw)
        ref = bioik.solve(robot, [bioik.PoseGoal(tip, T)], **kw)
        solved += res.success
        with_swamp.append(np.max(np.abs(res.q - mid) / half))
        without.append(np.max(np.abs(ref.q - mid) / half))
        if res.success:
            assert np.linalg.norm(robot.link_pose(res.q, tip)[:3, 3] - T[:3, 3]) <= 1e-5
    assert solved >= 7
    assert np.mean(with_swamp) < np.mean(without) - 0.04


def test_reproducible_and_rejection_sampling():
    robot = bioik.load_robot("ur5")
    tip = robot.tips[0]
    T, seed = fk_targets(robot, 1, 9)[0]
    kw = dict(seed=seed, solver="relaxed", timeout=3600.0, max_iterations=1000, random_seed=3)
    a = bioik.solve(robot, [bioik.PoseGoal(tip, T)], **kw)
    b = bioik.solve(robot, [bioik.PoseGoal(tip, T)], **kw)
    assert a.success and np.array_equal(a.q, b.q)
    seen = []
    c = bioik.solve(robot, [bioik.PoseGoal(tip, T)], callback=lambda q: seen.append(q) or len(seen) >= 2, **kw)
    assert c.success and c.callback_calls == 2 and c.restarts >= 1


@pytest.mark.parametrize("primary_only", [False, True])
def test_compiled_pose_objective_equals_the_python_one(primary_only):
    from bioik.problem import Problem
    from bioik.solvers.scipy.relaxed import DEFAULTS, CompiledPoseObjective, RelaxedObjective, objective_for

    robot = bioik.load_robot("panda")
    rng = np.random.default_rng(4)
    T = robot.link_pose(robot.random_configuration(rng), robot.tips[0])
    U = robot.link_pose(robot.random_configuration(rng), "panda_link5")
    goals = [bioik.PoseGoal(robot.tips[0], T, weight=1.3), bioik.PositionGoal("panda_link5", U[:3, 3], weight=0.4, secondary=True),
             bioik.OrientationGoal("panda_link5", U[:3, :3], weight=0.7)]
    p = Problem(robot, goals)
    fast = objective_for(p, dict(DEFAULTS), primary_only)
    slow = RelaxedObjective(p, dict(DEFAULTS), primary_only)
    assert isinstance(fast, CompiledPoseObjective)
    for _ in range(5):
        q = robot.random_configuration(rng)
        (v1, g1), (v2, g2) = fast(q), slow(q)
        assert v1 == pytest.approx(v2, rel=1e-12) and v1 > 1.0
        np.testing.assert_allclose(g1, g2, rtol=1e-9, atol=1e-9)
    assert isinstance(objective_for(Problem(robot, [*goals, bioik.CenterJointsGoal()]), dict(DEFAULTS)), RelaxedObjective)
