"""`optlib_*`: generic optimisers on the IK cost, with random restarts [R 3.5.3, E Table 3.1].

As in [R 3.5.3] (BioIK's CppNumericalSolvers comparison) the fitness — here the problem's
weighted cost Σ w²‖r‖² of all compiled goals, primary and secondary, with its exact gradient
2·Jeᵀe, plus the cost of goals that call Python (central-difference gradient; these solvers,
but for optlib_newton whose Hessian has no term for them, are the ones that take such
goals) — is handed to a general-purpose minimiser, here from scipy.optimize:

* optlib_bfgs — BFGS;  optlib_cg — nonlinear conjugate gradient (Polak–Ribière);
* optlib_lbfgsb — L-BFGS-B with the joint limits as box constraints;
* optlib_nelder_mead — the Nelder–Mead simplex (no gradient) with the joint limits as bounds;
* optlib_newton — Newton–CG (scipy `Newton-CG`) with the Gauss–Newton Hessian
  H = 2·JeᵀJe (+ the penalty's, see below) from the stacked residual Jacobian: the cost's
  exact Hessian minus the second-order residual terms, positive semi-definite;
* optlib_gd — plain gradient descent (scipy has none): projected steepest descent
  q ← clip(q − α∇f) with a backtracking (Armijo) line search; α starts at twice the last
  accepted step.

Joint limits: L-BFGS-B, Nelder–Mead and our gradient descent keep to them natively. BFGS,
CG and Newton–CG are unbounded; for them the cost is evaluated at the clipped configuration
plus a quadratic penalty k‖q − clip(q)‖² (k = `limit_penalty`), whose gradient pulls the
iterate back inside, and the returned configuration is clipped into the limits — an answer
outside the limits is never returned (and it is the clipped configuration that the
acceptance test checks).

Each restart: one run from the seed (first) or a uniform random configuration, capped at
min(remaining budget, `max_iterations_per_run`) iterations (scipy's res.nit; one line-search
step for gd), checked with the one acceptance test (`Problem.accept`, exact FK); at the
deadline or the budget the lowest-cost run result is returned; a run is cut off at the
deadline (the objective checks the clock after each evaluation) with its best point. Tolerances are tiny (cost
values near a solution are ~1e-10 at 1e-5 m), so a run ends at its cap, at a stationary
point, or when scipy reports a loss of precision.
"""

from __future__ import annotations

import numpy as np

from bioik.problem import Problem
from bioik.solvers.scipy.objective import make_buffers, objective, residuals, restart_search, scipy_bounds, timed
from bioik.solvers.core.family import Family

#: Parameters (floats, in this order in the settings vector):
#: max_iterations_per_run — iteration cap of one run;
#: limit_penalty — k of the penalty k‖q − clip(q)‖² of the unbounded methods (bfgs, cg, newton);
#: tolerance — the methods' gradient (gtol) / value (ftol, fatol, xatol) tolerance.
DEFAULTS = {"max_iterations_per_run": 200, "limit_penalty": 1.0, "tolerance": 1e-14}
NM_DEFAULTS = {"max_iterations_per_run": 2000, "limit_penalty": 1.0, "tolerance": 1e-14}

METHODS = ("bfgs", "cg", "gd", "lbfgsb", "nelder_mead", "newton")
LABELS = {"bfgs": "BFGS", "cg": "conjugate gradient", "gd": "projected gradient descent (Armijo)", "lbfgsb": "L-BFGS-B (bounded)",
          "nelder_mead": "Nelder–Mead simplex (bounded)", "newton": "Newton-CG with Gauss–Newton Hessian"}


def _params(settings, defaults=DEFAULTS) -> dict[str, float]:
    return {k: float(settings[i]) for i, k in enumerate(defaults)}


class PenalisedCost:
    """The IK cost at clip(q) plus k‖q − clip(q)‖²: (value, gradient), Gauss–Newton Hessian."""

    def __init__(self, problem: Problem, k: float):
        self.problem, self.k = problem, k
        self.lower, self.upper = problem.robot.lower, problem.robot.upper
        self.buffers = make_buffers(problem)

    def __call__(self, q):
        c = np.clip(q, self.lower, self.upper)
        value, grad = objective(c, self.problem, self.buffers)
        out = q - c
        grad = np.where(out != 0.0, 0.0, grad) + 2.0 * self.k * out  # ∂clip/∂q = 0 where clipped
        return value + self.k * float(out @ out), grad

    def hessian(self, q):
        c = np.clip(q, self.lower, self.upper)
        H = np.zeros((q.shape[0], q.shape[0]))
        for secondary in (False, True):
            _, Je = residuals(c, self.problem, self.buffers, secondary)
            H += 2.0 * (Je.T @ Je)
        inside = (q == c).astype(float)
        H *= np.outer(inside, inside)
        H += np.diag(2.0 * self.k * (1.0 - inside))
        return H


def gradient_descent(f, x0, lower, upper, maxiter, tol):
    """Projected steepest descent with Armijo backtracking; returns (x, f(x), iterations)."""
    x = np.clip(x0, lower, upper)
    fx, g = f(x)
    alpha = 1.0
    it = 0
    while it < maxiter:
        it += 1
        accepted = False
        a = 2.0 * alpha
        while a > 1e-20:
            y = np.clip(x - a * g, lower, upper)
            fy, gy = f(y)
            if fy <= fx - 1e-4 * float(g @ (x - y)):  # Armijo on the projected step
                accepted = True
                break
            a *= 0.5
        if not accepted:
            break  # stationary (within the limits)
        step = float(np.linalg.norm(y - x))
        x, fx, g, alpha = y, fy, gy, a
        if fx <= tol or step <= 1e-16:
            break
    return x, fx, it


def make_search(method: str):
    """The Family.search function of optlib_<method>."""
    if method not in METHODS:
        raise ValueError(f"unknown optlib method {method!r}; known: {', '.join(METHODS)}")
    defaults = NM_DEFAULTS if method == "nelder_mead" else DEFAULTS

    def search(problem: Problem, q, deadline, budget, seed, mode, settings, random_start=False):
        p = _params(settings, defaults)
        cap, tol = max(1, int(p["max_iterations_per_run"])), p["tolerance"]
        robot = problem.robot
        cost = PenalisedCost(problem, p["limit_penalty"])
        bounds = scipy_bounds(problem)

        def run(start, remaining):
            from scipy.optimize import minimize  # on use: importing scipy.optimize takes ≈ 0.4 s
            maxiter = min(remaining, cap)
            fun = timed(cost, deadline)
            if method == "gd":
                return gradient_descent(fun, start, robot.lower, robot.upper, maxiter, tol)
            if method == "nelder_mead":
                res = minimize(lambda x: fun(x)[0], start, method="Nelder-Mead", bounds=bounds,
                               options={"maxiter": maxiter, "xatol": tol, "fatol": tol, "adaptive": True})
            elif method == "lbfgsb":
                res = minimize(fun, start, jac=True, method="L-BFGS-B", bounds=bounds,
                               options={"maxiter": maxiter, "ftol": tol, "gtol": tol})
            elif method == "bfgs":
                res = minimize(fun, start, jac=True, method="BFGS", options={"maxiter": maxiter, "gtol": tol})
            elif method == "cg":
                res = minimize(fun, start, jac=True, method="CG", options={"maxiter": maxiter, "gtol": tol})
            else:  # newton: the Hessian costs more than the objective, so it checks the clock too

                def hessian(x):
                    fun.raise_if_late()
                    return cost.hessian(x)

                res = minimize(fun, start, jac=True, hess=hessian, method="Newton-CG", options={"maxiter": maxiter, "xtol": tol})
            return res.x, float(res.fun), int(res.nit)

        return restart_search(problem, q, deadline, budget, seed, mode, random_start, run)

    search.__name__ = f"optlib_{method}_search"
    return search


FAMILIES = tuple(
    Family(f"optlib_{m}", NM_DEFAULTS if m == "nelder_mead" else DEFAULTS, make_search(m), python_goals=m != "newton",
           description=f"scipy {LABELS[m]} on the IK cost, random restarts [R 3.5.3, E Table 3.1]")
    for m in METHODS
)
