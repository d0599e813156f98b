"""The shared objective of the scipy searches: value and exact gradient."""

import numpy as np
import pytest

import bioik
from bioik.problem import Problem
from bioik.solvers.scipy.objective import compiled_cost, make_buffers, objective, residuals


@pytest.fixture(scope="module")
def problem():
    robot = bioik.load_robot("panda")
    rng = np.random.default_rng(12)
    T = robot.link_pose(robot.random_configuration(rng), robot.tips[0])
    goals = [bioik.PoseGoal(robot.tips[0], T, weight=1.7), bioik.CenterJointsGoal(weight=0.3)]
    return Problem(robot, goals), robot.random_configuration(rng)


def test_cost_is_the_squared_weighted_residual(problem):
    p, q = problem
    buffers = make_buffers(p)
    expected = sum(float(np.sum(residuals(q, p, buffers, secondary)[0] ** 2)) for secondary in (False, True))
    grad = np.empty(q.shape[0])
    assert compiled_cost(p.ibuf, p.fbuf, q, *buffers, grad) == pytest.approx(expected, rel=1e-12)
    assert expected > 0.1


def test_gradient_matches_central_differences(problem):
    p, q = problem
    buffers = make_buffers(p)
    value, grad = objective(q, p, buffers)
    h = 1e-6
    fd = np.array([(objective(q + h * np.eye(len(q))[v], p, buffers)[0] - objective(q - h * np.eye(len(q))[v], p, buffers)[0]) / (2 * h)
                   for v in range(len(q))])
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-7)
