"""The slower path for problems with user callables (LinkFunctionGoal, JointFunctionGoal).

Compiled kernels cannot call Python, so such problems are minimised in Python: the
objective is the weighted primary cost plus secondary cost, the compiled goals' gradient
comes exact from their residual Jacobians (Jᵀe), the Python goals' by central differences,
and scipy's L-BFGS-B respects the joint limits. Random restarts until the deadline or the
iteration budget; each local result is checked with the one acceptance test
(`Problem.accept`, exact FK), so success means the same as for every other solver.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.optimize import minimize

from bioik.goals.layout import unpack
from bioik.goals.problem import Problem
from bioik.kinematics.jacobian import fk_jacobians
from bioik.solvers.linalg import stack_residuals

#: Central-difference step for the gradient of user callables.
FD_STEP = 1e-7


def objective(q: np.ndarray, problem: Problem, buffers: tuple) -> tuple[float, np.ndarray]:
    """Total weighted cost at q and its gradient."""
    seg_i, seg_f, out_seg, out_tf, gi, gf, gw, gt, vdata, bounds = unpack(problem.ibuf, problem.fbuf)
    seg, frames, J, r, Jr, scratch, e, Je = buffers
    fk_jacobians(seg_i, seg_f, out_seg, out_tf, q, seg, frames, J)
    value, grad = 0.0, np.zeros(q.shape[0])
    for secondary in (False, True):
        rows, E = stack_residuals(gi, gf, gw, frames, J, q, vdata, r, Jr, scratch, e, Je, secondary)
        value += 2.0 * E
        grad += 2.0 * (Je[:rows].T @ e[:rows])
    weights = np.array([problem.goals[k].weight ** 2 for k in problem.python_goals])
    value += float(weights @ problem.python_costs(q))
    for v in range(q.shape[0]):
        qp, qm = q.copy(), q.copy()
        qp[v] += FD_STEP
        qm[v] -= FD_STEP
        grad[v] += float(weights @ (np.array(problem.python_costs(qp)) - np.array(problem.python_costs(qm)))) / (2 * FD_STEP)
    return value, grad


def python_goal_search(problem: Problem, q, deadline, budget, seed, mode, settings, random_start=False):
    """Family.search protocol for problems with Python goals: (found, iterations, restarts)."""
    robot = problem.robot
    rng = np.random.default_rng(seed)
    n = robot.dof
    O, S = max(len(problem.links), 1), max(problem.program.n_segments, 1)
    R = int(problem.gi[:, 5].sum()) + 1
    buffers = (np.empty((S, 7)), np.empty((O, 7)), np.empty((6 * O, n)), np.empty(max(8, n)), np.empty((max(8, n), n)),
               np.empty((32, 3)), np.empty(R), np.empty((R, n)))
    bounds = list(zip(robot.lower, robot.upper))
    start = robot.random_configuration(rng) if random_start else q.copy()
    best, best_value = start.copy(), np.inf
    iterations = restarts = 0
    while True:
        res = minimize(objective, start, args=(problem, buffers), jac=True, method="L-BFGS-B", bounds=bounds,
                       options={"maxiter": max(1, min(200, budget - iterations))})
        iterations += max(int(res.nit), 1)
        x = np.clip(res.x, robot.lower, robot.upper)
        if res.fun < best_value:
            best, best_value = x, float(res.fun)
        if problem.accept(x, mode)[0]:
            q[:] = x
            return True, iterations, restarts
        if iterations >= budget or time.monotonic() >= deadline:
            break
        start = robot.random_configuration(rng)
        restarts += 1
    q[:] = best
    return False, iterations, restarts
