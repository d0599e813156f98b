"""The slower path for problems with user callables (LinkFunctionGoal, JointFunctionGoal).

Compiled kernels cannot call Python, so such problems are minimised in Python: the
objective is the weighted primary cost plus secondary cost, the compiled goals' gradient
comes exact from their residual Jacobians (Jᵀe), the Python goals' by central differences,
and scipy's L-BFGS-B respects the joint limits. Random restarts until the deadline or the
iteration budget; each local result is checked with the one acceptance test
(`Problem.accept`, exact FK), so success means the same as for every other solver.
The shared pieces (buffers, objective, restart loop) are in `bioik.solvers.scipy.objective`.
"""

from __future__ import annotations

from scipy.optimize import minimize

from bioik.problem import Problem
from bioik.solvers.scipy.objective import FD_STEP, make_buffers, objective, restart_search, scipy_bounds

__all__ = ["FD_STEP", "objective", "python_goal_search"]


def python_goal_search(problem: Problem, q, deadline, budget, seed, mode, settings, random_start=False):
    """Family.search protocol for problems with Python goals: (found, iterations, restarts)."""
    buffers = make_buffers(problem)
    bounds = scipy_bounds(problem)

    def run(start, remaining):
        res = minimize(objective, start, args=(problem, buffers), jac=True, method="L-BFGS-B", bounds=bounds,
                       options={"maxiter": max(1, min(200, remaining))})
        return res.x, float(res.fun), int(res.nit)

    return restart_search(problem, q, deadline, budget, seed, mode, random_start, run)
