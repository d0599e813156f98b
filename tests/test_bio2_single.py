"""bio2's single-pose kernels (`evolve_single`, `line_search_single`) make the same draws
and the same arithmetic as the general ones (`evolve_pose`, `line_search`): equal results."""

import numpy as np
import pytest

import bioik
from bioik.goals.layout import unpack
from bioik.goals.problem import Problem
from bioik.kinematics.jacobian import fk_jacobians
from bioik.solvers import bio2

P, C = 2, 16


@pytest.fixture(scope="module", params=["ur5", "panda"])
def setup(request):
    robot = bioik.load_robot(request.param)
    rng = np.random.default_rng(3)
    T = robot.link_pose(robot.random_configuration(rng), robot.tips[0])
    p = Problem(robot, [bioik.PoseGoal(robot.tips[0], T, weight=1.3)])
    seg_i, seg_f, out_seg, out_tf, gi, gf, gw, gt, vdata, bounds = unpack(p.ibuf, p.fbuf)
    x0 = robot.random_configuration(rng)
    frames0, J0 = np.empty((1, 7)), np.empty((6, robot.dof))
    fk_jacobians(seg_i, seg_f, out_seg, out_tf, x0, np.empty((max(seg_i.shape[0], 1), 7)), frames0, J0)
    return robot, x0, frames0, J0, gi, gf, gw, vdata, bounds


def population(robot, x0):
    n = robot.dof
    genes = np.tile(x0, (P, 1))
    genes[1] += 0.01
    return [genes, np.zeros((P, n)), np.array([2.0, 3.0]), np.zeros((P, 6)), np.empty((C + P, n)), np.empty((C + P, n)),
            np.empty((C + P, 2)), np.empty((C + P, 6)), np.empty(C + P, dtype=np.int64)]


def test_evolve_single_equals_evolve_pose(setup):
    robot, x0, frames0, J0, gi, gf, gw, vdata, bounds = setup
    lo, hi, span = bounds[0], bounds[1], bounds[3] - bounds[2]
    a, b = population(robot, x0), population(robot, x0)
    ra, rb = np.array([11], dtype=np.uint64), np.array([11], dtype=np.uint64)
    bio2.evolve_pose(*a, frames0, J0, gi, gf, gw, lo, hi, span, bio2.NORMALS, ra, C, 8, 0.3, False, np.empty(2))
    bio2.evolve_single(*b, frames0, J0, gi, gf, gw, lo, hi, span, bio2.NORMALS, rb, C, 8, 0.3)
    for u, v in zip(a[:4], b[:4]):  # genes, momenta, fitness, offsets of the population
        np.testing.assert_array_equal(u, v)
    assert ra[0] == rb[0] and not np.array_equal(a[0], population(robot, x0)[0])  # same draws, and it moved


@pytest.mark.parametrize("variant", [bio2.QUADRATIC, bio2.LINEAR])
def test_line_search_single_equals_line_search(setup, variant):
    robot, x0, frames0, J0, gi, gf, gw, vdata, bounds = setup
    n = robot.dof
    lo, hi = bounds[0], bounds[1]
    start = x0 + 0.02
    poff, f2 = np.zeros((1, 6)), np.empty(2)
    bio2.offsets(J0, x0, start[None, :], 0, poff, 0)
    bio2.pose_score(gi, gf, gw, frames0, poff, 0, f2)
    fx = f2[0]
    xa, xb = start.copy(), start.copy()
    ra, rb = np.array([5], dtype=np.uint64), np.array([5], dtype=np.uint64)
    fa = bio2.line_search(xa, fx, x0, frames0, J0, gi, gf, gw, vdata, lo, hi, ra, 8, 1e-6, variant, np.empty((2, 6)),
                          np.empty((1, n)), np.empty(n), np.empty(n), np.empty((1, 7)), np.empty(8), np.empty((8, n)),
                          np.empty((32, 3)), f2, True)
    fb = bio2.line_search_single(xb, fx, x0, frames0, J0, gi, gf, gw, lo, hi, rb, 8, 1e-6, variant, np.empty(n), np.empty(n), np.empty(n))
    assert fa == fb and fa <= fx
    assert fa < fx or variant == bio2.LINEAR  # the linear step aims at f = 0 and may overshoot
    np.testing.assert_array_equal(xa, xb)
    assert ra[0] == rb[0]
