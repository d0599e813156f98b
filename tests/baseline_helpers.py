"""Shared pieces of the baseline-solver tests (nullspace, jac, gd)."""

import numpy as np

import bioik


def fk_targets(robot, n, seed):
    """n (target pose of the first tip, random seed configuration) pairs."""
    rng = np.random.default_rng(seed)
    tip = robot.tips[0]
    return [(robot.link_pose(robot.random_configuration(rng), tip), robot.random_configuration(rng)) for _ in range(n)]


def count_solved(robot_name, solver, budget, n=8, **kw):
    """Solve n FK targets; check every answer against the goal; return how many succeeded."""
    robot = bioik.load_robot(robot_name)
    tip = robot.tips[0]
    tol = kw.get("position_tolerance", 1e-5)
    solved = 0
    for k, (T, seed) in enumerate(fk_targets(robot, n, 5)):
        res = bioik.solve(robot, [bioik.PoseGoal(tip, T)], seed=seed, solver=solver, timeout=3600.0, max_iterations=budget, random_seed=k, **kw)
        assert np.all(res.q >= robot.lower) and np.all(res.q <= robot.upper)
        if res.success:
            A = robot.link_pose(res.q, tip)
            assert np.linalg.norm(A[:3, 3] - T[:3, 3]) <= tol
        solved += res.success
    return solved


def check_unreachable(robot_name, solver, budget):
    """A target 5 m away: failure reported, q within limits, errors above tolerance."""
    robot = bioik.load_robot(robot_name)
    tip = robot.tips[0]
    T = robot.link_pose(robot.center(), tip)
    T[:3, 3] += [5.0, 0.0, 0.0]
    res = bioik.solve(robot, [bioik.PoseGoal(tip, T)], seed=robot.center(), solver=solver, timeout=3600.0, max_iterations=budget, random_seed=3)
    assert not res.success
    assert np.all(res.q >= robot.lower) and np.all(res.q <= robot.upper)
    assert res.goal_errors[0, 0] > 1e-5
    assert 0 < res.iterations <= budget
    return res


def check_within_limits(robot_name, solver, budget, n=6):
    """Targets outside reach and seeds at the limits: every answer stays within limits."""
    robot = bioik.load_robot(robot_name)
    tip = robot.tips[0]
    rng = np.random.default_rng(11)
    for k in range(n):
        T = robot.link_pose(robot.random_configuration(rng), tip)
        T[:3, 3] *= 1.0 + 0.5 * k / n  # some beyond the workspace
        seed = np.where(rng.random(robot.dof) < 0.5, robot.lower, robot.upper)
        res = bioik.solve(robot, [bioik.PoseGoal(tip, T)], seed=seed, solver=solver, timeout=3600.0, max_iterations=budget, random_seed=k)
        assert np.all(res.q >= robot.lower) and np.all(res.q <= robot.upper)
