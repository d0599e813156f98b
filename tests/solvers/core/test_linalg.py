"""Solver linear algebra against numpy, and the pose fast path against the goal kernels."""

import numpy as np
import pytest

import bioik
from bioik.goals.kernels import goal_residual
from bioik.problem.layout import unpack
from bioik.kinematics.jacobian import fk_jacobians
from bioik.solvers.core.linalg import (HELD, SECONDARY_RATIO_MIN, cholesky_solve, damped_step, held_step, limit_sides,
                                       null_space_scratch, null_space_step, shrink_secondary_bound, stack_residuals)


def test_cholesky_solve_matches_numpy(rng):
    A = rng.normal(size=(6, 6))
    M = A @ A.T + 0.1 * np.eye(6)
    b = rng.normal(size=6)
    x = b.copy()
    assert cholesky_solve(M.copy(), x, 6)
    np.testing.assert_allclose(x, np.linalg.solve(M, b), rtol=1e-10)
    assert not cholesky_solve(-np.eye(3), np.ones(3), 3)


@pytest.mark.parametrize("rows, n", [(7, 6), (6, 30)])  # joint-space and task-space forms
def test_damped_step_solves_the_regularised_least_squares(rng, rows, n):
    J = rng.normal(size=(rows, n))
    e = rng.normal(size=rows)
    lam = 0.05
    dq = np.empty(n)
    m = max(rows, n)
    assert damped_step(J, e, rows, n, lam, np.empty((m, m)), np.empty(m), dq)
    expected = -np.linalg.solve(J.T @ J + lam * np.eye(n), J.T @ e)
    np.testing.assert_allclose(dq, expected, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("rows, n", [(12, 9), (6, 14)])  # joint-space and task-space forms
@pytest.mark.parametrize("trial", range(5))
def test_held_step_holds_the_joints_pressing_out_of_their_limits_and_solves_with_the_rest(rng, rows, n, trial):
    J = rng.normal(size=(rows, n))
    e = rng.normal(size=rows)
    lam, m = 0.05, max(rows, n)
    lo, hi = -np.ones(n), np.ones(n)
    q = rng.uniform(-0.5, 0.5, size=n)
    q[:4] = [-1.0, 1.0, -1.0, 1.0]  # four joints on a limit
    side, dq = np.empty(n), np.empty(n)
    limit_sides(q, lo, hi, side)
    assert list(side[:5]) == [-1.0, 1.0, -1.0, 1.0, 0.0]
    assert held_step(J, e, rows, n, lam, np.empty((m, m)), np.empty(m), dq, side, np.empty((m, m)), np.empty(m))
    held = side == HELD
    assert not held[4:].any() and np.all(dq[held] == 0.0)
    free = ~held
    Jf = J[:, free]  # the free joints take the damped step of the problem without the held ones
    np.testing.assert_allclose(dq[free], -np.linalg.solve(Jf.T @ Jf + lam * np.eye(free.sum()), Jf.T @ e), rtol=1e-8, atol=1e-12)
    at = np.array([-1.0, 1.0, -1.0, 1.0])  # no free joint on a limit steps out of it
    assert np.all(at[free[:4]] * dq[:4][free[:4]] <= 0.0)
    unheld = np.zeros(n)  # with no joint on a limit it is the damped step
    assert held_step(J, e, rows, n, lam, np.empty((m, m)), np.empty(m), dq, unheld, np.empty((m, m)), np.empty(m))
    whole = np.empty(n)
    assert damped_step(J, e, rows, n, lam, np.empty((m, m)), np.empty(m), whole)
    np.testing.assert_array_equal(dq, whole)


def test_held_step_holds_a_joint_whose_step_leaves_its_range():
    J = np.array([[1.0, 0.2], [0.0, 1.0]])  # joint 0 at its upper limit, the error asks it to grow
    e = np.array([-1.0, 0.0])
    dq, side = np.empty(2), np.array([1.0, 0.0])
    assert held_step(J, e, 2, 2, 1e-9, np.empty((2, 2)), np.empty(2), dq, side, np.empty((2, 2)), np.empty(2))
    assert side[0] == HELD and dq[0] == 0.0 and dq[1] == pytest.approx(0.2 / 1.04, rel=1e-6)  # joint 1 does what it can


def test_null_space_step_leaves_the_primary_task_alone(rng):
    J = rng.normal(size=(3, 7))
    Js = np.eye(7)
    es = rng.normal(size=7)
    dq0 = rng.normal(size=7)  # the primary step
    dq = dq0.copy()
    null_space_step(J, 3, Js, es, 7, 7, 1e-12, 1e-9, 8.0, dq, null_space_scratch(7, 7))
    np.testing.assert_allclose(J @ (dq - dq0), 0, atol=1e-6)  # no primary motion
    assert np.linalg.norm(es + dq) < np.linalg.norm(es + dq0)  # the secondary residual shrinks


@pytest.mark.parametrize("primary, ratio", [(1e-3, 0.5), (1.0, 2.0)])
def test_null_space_step_is_at_most_the_ratio_times_the_primary_step(rng, primary, ratio):
    """A large secondary residual: the step in the null space is cut to ratio·‖dq‖ (same
    direction); with no primary step the secondary goals do not move."""
    n, rows = 7, 3
    J, Js, es = rng.normal(size=(rows, n)), np.eye(n), 10.0 * rng.normal(size=n)
    N = np.eye(n) - J.T @ np.linalg.solve(J @ J.T + 1e-12 * np.eye(rows), J)
    z = np.linalg.solve(N.T @ N + 1e-9 * np.eye(n), -N.T @ (es + primary * np.ones(n)))
    dq = primary * np.ones(n)
    null_space_step(J, rows, Js, es, n, n, 1e-12, 1e-9, ratio, dq, null_space_scratch(n, n))
    step = dq - primary * np.ones(n)
    np.testing.assert_allclose(np.linalg.norm(step), ratio * primary * np.sqrt(n), rtol=1e-9)
    np.testing.assert_allclose(step / np.linalg.norm(step), N @ z / np.linalg.norm(N @ z), atol=1e-9)
    dq = np.zeros(n)
    null_space_step(J, rows, Js, es, n, n, 1e-12, 1e-9, ratio, dq, null_space_scratch(n, n))
    assert not dq.any()


def test_the_secondary_bound_shrinks_on_a_stall_down_to_its_floor_then_off():
    assert shrink_secondary_bound(8.0, 1.0, 2.0, 0.7) == (8.0, 2.0)  # E fell enough: unchanged
    assert shrink_secondary_bound(8.0, 1.9, 2.0, 0.7) == (2.0, np.inf)  # a stall: shrunk, not counted
    assert shrink_secondary_bound(2.0, 1.9, 2.0, 0.7) == (SECONDARY_RATIO_MIN, np.inf)
    assert shrink_secondary_bound(SECONDARY_RATIO_MIN, 1.9, 2.0, 0.7) == (0.0, np.inf)  # off, still not counted
    assert shrink_secondary_bound(0.0, 1.9, 2.0, 0.7) == (0.0, 2.0)  # off (or none): counted as a stall


def test_null_space_step_matches_its_formula_with_scratch_larger_than_the_rows(rng):
    n, rows, srows, lam, mu = 6, 3, 2, 0.01, 0.02
    J, Js = rng.normal(size=(rows, n)), rng.normal(size=(srows, n))
    es, dq0 = rng.normal(size=srows), rng.normal(size=n)
    N = np.eye(n) - J.T @ np.linalg.solve(J @ J.T + lam * np.eye(rows), J)
    B = Js @ N
    z = np.linalg.solve(B.T @ B + mu * np.eye(n), -B.T @ (es + Js @ dq0))
    z *= min(1.0, 0.5 * np.linalg.norm(dq0) / np.linalg.norm(N @ z))
    big = 9  # capacity beyond the rows used, as the solvers allocate it once per search
    Jb, Jsb, esb = np.full((big, n), np.nan), np.full((big, n), np.nan), np.full(big, np.nan)
    Jb[:rows], Jsb[:srows], esb[:srows] = J, Js, es
    dq = dq0.copy()
    null_space_step(Jb, rows, Jsb, esb, srows, n, lam, mu, 0.5, dq, null_space_scratch(big, n))
    np.testing.assert_allclose(dq, dq0 + N @ z, rtol=1e-8, atol=1e-10)


def test_pose_fast_path_equals_the_goal_kernels(rng):
    robot = bioik.load_robot("dual_ur5")
    q = robot.random_configuration(rng)
    goals = [
        bioik.PoseGoal("left_tool0", robot.link_pose(robot.random_configuration(rng), "left_tool0"), weight=2.0, rotation_scale=0.7),
        bioik.PositionGoal("right_tool0", [0.3, -0.4, 1.0], weight=0.5),
        bioik.OrientationGoal("right_tool0", robot.link_pose(robot.random_configuration(rng), "right_tool0")[:3, :3]),
        bioik.CenterJointsGoal(secondary=False, weight=0.1),
    ]
    p = bioik.problem.Problem(robot, goals)
    prob = unpack(p.ibuf, p.fbuf)
    seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
    gi, gf, gw, vdata, aux = prob.gi, prob.gf, prob.gw, prob.vdata, prob.aux
    n = robot.dof
    frames, J = np.empty((len(p.links), 7)), np.empty((6 * len(p.links), n))
    fk_jacobians(seg_i, seg_f, out_seg, out_tf, q, np.empty((seg_i.shape[0], 7)), frames, J)
    R = 7 + 3 + 4 + n
    e, Je = np.empty(R), np.empty((R, n))
    r, Jr, scratch = np.empty(max(8, n)), np.empty((max(8, n), n)), np.empty((32, 3))
    rows, E = stack_residuals(gi, gf, gw, frames, J, q, vdata, aux, r, Jr, scratch, e, Je, False)
    expected_e, expected_J = [], []
    for g in range(len(goals)):
        d = goal_residual(gi, gf, g, frames, J, q, vdata, aux, r, Jr, True, scratch)
        expected_e.append(gw[g] * r[:d].copy())
        expected_J.append(gw[g] * Jr[:d].copy())
    assert rows == R
    np.testing.assert_allclose(e[:rows], np.concatenate(expected_e), atol=1e-14)
    np.testing.assert_allclose(Je[:rows], np.vstack(expected_J), atol=1e-14)
    assert E == pytest.approx(0.5 * np.sum(e[:rows] ** 2))
