"""Partial restarts: the variables of the unsettled goals are drawn anew, the rest kept;
a full restart when no goal or every goal is settled, and after PARTIAL_RUN partial ones."""

import numpy as np
import pytest

import bioik
from bioik.kinematics.jacobian import fk_jacobians
from bioik.problem.layout import unpack
from bioik.solvers.core.linalg import stack_residuals
from bioik.solvers.core.restarts import PARTIAL_RUN, restart

TOL = np.array([1e-5, 1e-5])


def _state(robot, goals, q):
    """Everything `restart` reads, at q (tolerances 1e-5 for every goal)."""
    p = bioik.problem.Problem(robot, goals)
    prob = unpack(p.ibuf, p.fbuf)
    n = robot.dof
    frames, J = np.empty((len(p.links), 7)), np.empty((6 * len(p.links), n))
    fk_jacobians(prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf, q, np.empty((prob.seg_i.shape[0], 7)), frames, J)
    R = 7 * len(goals)
    e, Je = np.empty(R), np.empty((R, n))
    r, Jr, scratch = np.empty(max(8, n)), np.empty((max(8, n), n)), np.empty((32, 3))
    stack_residuals(prob.gi, prob.gf, prob.gw, frames, J, q, prob.vdata, prob.aux, r, Jr, scratch, e, Je, False)
    gt = np.tile(TOL, (len(goals), 1))
    return prob.gi, prob.gf, prob.gw, gt, e, Je


def _restart(robot, goals, q, partial_run=0, seed=3, partial=True):
    gi, gf, gw, gt, e, Je = _state(robot, goals, q)
    out = q.copy()
    rng = np.array([seed], dtype=np.uint64)
    G, n = len(goals), robot.dof  # one component: every label 0
    run = restart(gi, gf, gw, gt, e, Je, rng, robot.sample_lower, robot.sample_upper, out, partial, partial_run,
                  np.empty(n, dtype=np.bool_), np.zeros(G, np.int64), np.zeros(n, np.int64), 0)
    return out, run


@pytest.fixture(scope="module")
def dual():
    robot = bioik.load_robot("dual_ur5", group="torso_both_arms")
    rng = np.random.default_rng(5)
    q = robot.random_configuration(rng)
    far = robot.random_configuration(rng)
    left = [i for i, v in enumerate(robot.variable_names) if v.startswith("left")]
    right = [i for i, v in enumerate(robot.variable_names) if v.startswith("right")]
    assert len(left) == len(right) == 6 and robot.dof > 12  # and a torso joint under both
    return robot, q, far, left, right


def test_a_met_arm_keeps_its_joints_and_the_other_arm_is_drawn_anew(dual):
    robot, q, far, left, right = dual
    goals = [bioik.PoseGoal("left_tool0", robot.link_pose(q, "left_tool0")),  # met at q
             bioik.PoseGoal("right_tool0", robot.link_pose(far, "right_tool0"))]  # far from q
    out, run = _restart(robot, goals, q)
    assert run == 1
    np.testing.assert_array_equal(out[left], q[left])
    assert np.all(out[right] != q[right])
    assert robot.within_limits(out)
    shared = [i for i in range(robot.dof) if i not in left and i not in right]  # the torso moves both tools
    assert np.all(out[shared] != q[shared])


def test_a_goal_within_settled_distance_counts_as_settled(dual):
    robot, q, far, left, right = dual
    near = robot.link_pose(q, "left_tool0")
    near[:3, 3] += 5e-4  # 0.5 mm off: converging, far below 100 × the tolerance in cost
    goals = [bioik.PoseGoal("left_tool0", near), bioik.PoseGoal("right_tool0", robot.link_pose(far, "right_tool0"))]
    out, _ = _restart(robot, goals, q)
    np.testing.assert_array_equal(out[left], q[left])


@pytest.mark.parametrize("case", ["none settled", "all settled", "one goal", "run used up", "switched off"])
def test_full_restarts(dual, case):
    robot, q, far, left, right = dual
    poses = {"none settled": (far, far), "all settled": (q, q), "run used up": (q, far), "switched off": (q, far)}
    if case == "one goal":
        goals = [bioik.PoseGoal("left_tool0", robot.link_pose(far, "left_tool0"))]
    else:
        a, b = poses[case]
        goals = [bioik.PoseGoal("left_tool0", robot.link_pose(a, "left_tool0")),
                 bioik.PoseGoal("right_tool0", robot.link_pose(b, "right_tool0"))]
    out, run = _restart(robot, goals, q, partial_run=PARTIAL_RUN if case == "run used up" else 0, partial=case != "switched off")
    assert run == 0
    expected = q.copy()
    rng = np.array([3], dtype=np.uint64)
    from bioik.solvers.core.rng import random_configuration

    random_configuration(rng, robot.sample_lower, robot.sample_upper, expected)
    np.testing.assert_array_equal(out, expected)  # the same draw as a plain random restart
