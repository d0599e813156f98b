"""`relaxed`: a RelaxedIK-style optimiser [E 3.1.6, 7.2].

The objective is a weighted sum of objectives, each a scalar error passed through the
groove loss (`bioik.solvers.scipy.groove`, parameters of RelaxedIK's pose objectives: s = 0,
c = 0.1, n = 1, r = 10, g = 2) — or through the swamp loss for a ranged objective — and it is
minimised with scipy's SLSQP under the joint-limit bounds, as RelaxedIK does [E 3.1.6]:

* a pose or position goal contributes its position error x = ‖p_E − p_G‖ (m) with weight
  `position_weight`·w (RelaxedIK's 50); a pose or orientation goal its rotation angle
  x = θ = 4·asin(‖q_E − ±q_G‖/2) (rad) with weight `rotation_weight`·w (RelaxedIK's 40).
  These are the quantities the acceptance test bounds (1e-5 m, 1e-5 rad), so the groove is
  centred on exactly what must vanish; the pose goal's `rotation_scale` is replaced by the
  40/50 ratio. [E] does not say which rotation measure its implementation feeds the
  groove; we chose the angle.
* every other compiled goal contributes x = ‖r‖ (its unweighted residual norm; these
  residuals are one-sided where the goal is, e.g. Min/MaxDistanceGoal) with weight
  `other_weight`·w;
* `AvoidJointLimitsGoal` is the ranged objective: each joint with finite limits contributes
  swamp(q_j; l_j, u_j) (flat inside the range, walls at its ends [E 3.1.6, RangedIK]) with
  weight `other_weight`·w (swamp parameters: `groove.SWAMP`);
* secondary goals are scaled further by `secondary_weight`.

w is the goal's own weight. Each term is shifted by +1 (its minimum −1 becomes 0): a
constant, so the minimiser is unchanged, but SLSQP's absolute `ftol` then measures progress
near the optimum instead of being lost in the constant −Σw.

Gradient: analytic, by the chain rule through the losses from the goals' residual
Jacobians (∂groove(‖r‖)/∂q = groove'(x)/x · rᵀ∂r/∂q, finite at r = 0), where RelaxedIK's
C++ port uses forward differences with step 1e-7 [E 7.2].

Search: one SLSQP run from the seed, then from uniform random configurations
(rng = default_rng(seed)) until success, the deadline or the iteration budget; each run is
capped at min(remaining budget, `max_iterations_per_run`) SLSQP iterations (res.nit counts)
and cut off at the deadline with its best point (the objective checks the clock).
A run's result is checked with the one acceptance test (`Problem.accept`, exact FK). When
secondary goals are present and pull a result off the primary goals, a second SLSQP run
from there on the primary objectives alone (the "polish") is tried before the restart —
RelaxedIK relaxes goals against each other by design, our success test does not. Rejection
sampling (a solution callback refusing an answer) is done by the API layer [E 8.1].

When every goal is a pose, position or orientation goal (the common case), the objective
and its gradient are one compiled call (`pose_groove_objective`, ≈ 3 µs against ≈ 110 µs
assembled in Python); other problems take the Python objective.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.goals.base import AVOID_JOINT_LIMITS, ORIENTATION, POSE, POSITION
from bioik.goals.kernels import KIND, OUT1
from bioik.problem.layout import unpack
from bioik.problem import Problem
from bioik.kinematics.frames import JIT
from bioik.kinematics.jacobian import fk_jacobians
from bioik.goals.swamp import swamp, swamp_derivative
from bioik.solvers.scipy.groove import POSE_GROOVE, SWAMP, groove, groove_derivative_over_offset
from bioik.solvers.scipy.objective import goal_blocks, make_buffers, restart_search, scipy_bounds, timed
from bioik.solvers.core.family import Family

#: Parameters (floats, in this order in the settings vector):
#: max_iterations_per_run — SLSQP iteration cap of one run;
#: position_weight, rotation_weight — RelaxedIK's weights of the position and rotation
#: objectives of a pose goal (50, 40);
#: other_weight — weight of the other goals' objectives (like a position objective);
#: secondary_weight — extra factor for secondary goals;
#: groove_c, groove_r, groove_g — the groove loss's width, polynomial weight and degree
#: (s = 0 and n = 1 are fixed: every objective is an error that should vanish);
#: ftol — SLSQP's absolute tolerance on the objective change between iterations.
DEFAULTS = {
    "max_iterations_per_run": 100,
    "position_weight": 50.0,
    "rotation_weight": 40.0,
    "other_weight": 50.0,
    "secondary_weight": 1.0,
    "groove_c": POSE_GROOVE["c"],
    "groove_r": POSE_GROOVE["r"],
    "groove_g": POSE_GROOVE["g"],
    "ftol": 1e-15,
}


def _params(settings) -> dict[str, float]:
    return {k: float(settings[i]) for i, k in enumerate(DEFAULTS)}


class RelaxedObjective:
    """The weighted groove/swamp objective of a problem; call it for (value, gradient)."""

    def __init__(self, problem: Problem, params: dict[str, float], primary_only: bool = False):
        self.problem = problem
        self.buffers = make_buffers(problem)
        self.p = params
        self.primary_only = primary_only
        self.loss = dict(s=0.0, c=params["groove_c"], r=params["groove_r"], g=params["groove_g"], n=1)
        robot = problem.robot
        self.finite = np.isfinite(robot.lower) & np.isfinite(robot.upper) & (robot.upper > robot.lower)

    def _term(self, x: float, weight: float):
        """Weighted groove of a norm-type error x: (value + shift, factor f with ∂/∂q = f·rᵀJ/…)."""
        value = weight * (float(groove(x, **self.loss)) + 1.0)
        return value, weight * float(groove_derivative_over_offset(x, **self.loss))

    def terms(self, q: np.ndarray):
        """[(goal index, what, loss value without weight, weight)] at q — for inspection."""
        return self._evaluate(q, detail=True)

    def __call__(self, q: np.ndarray) -> tuple[float, np.ndarray]:
        return self._evaluate(q, detail=False)

    def _evaluate(self, q: np.ndarray, detail: bool):
        p, goals, robot = self.p, self.problem.goals, self.problem.robot
        value, grad, parts = 0.0, np.zeros(q.shape[0]), []
        for g, kind, r, Jr in goal_blocks(q, self.problem, self.buffers):
            goal = goals[g]
            if goal.is_secondary and self.primary_only:
                continue
            w = self.problem.weight(g) * (p["secondary_weight"] if goal.is_secondary else 1.0)
            if kind in (POSE, POSITION, ORIENTATION):
                k = 0
                if kind != ORIENTATION:
                    e, Je = r[:3], Jr[:3]
                    x = float(np.linalg.norm(e))
                    v, f = self._term(x, p["position_weight"] * w)
                    value += v
                    grad += f * (Je.T @ e)  # ∂x/∂q = eᵀJe/x, f = W·groove'(x)/x
                    parts.append((g, "position", x, v))
                    k = 3
                if kind != POSITION:
                    e, Je = r[k : k + 4], Jr[k : k + 4]
                    d = float(np.linalg.norm(e))
                    theta = 4.0 * np.arcsin(min(1.0, 0.5 * d))
                    v, f = self._term(theta, p["rotation_weight"] * w)
                    # ∂θ/∂q = θ'(d)·eᵀJe/d with θ'(d) = 2/√(1 − d²/4); θ/d → 2 as d → 0
                    ratio = theta / d if d > 1e-12 else 2.0
                    dtheta = 2.0 / np.sqrt(max(1e-300, 1.0 - 0.25 * d * d))
                    value += v
                    grad += f * ratio * dtheta * (Je.T @ e)
                    parts.append((g, "rotation", theta, v))
                continue
            if kind == AVOID_JOINT_LIMITS:
                lo, hi = robot.lower[self.finite], robot.upper[self.finite]
                W = p["other_weight"] * w
                qs = q[self.finite]
                v = W * float(np.sum(swamp(qs, lo, hi, **SWAMP) + 1.0))
                value += v
                grad[self.finite] += W * swamp_derivative(qs, lo, hi, **SWAMP)
                parts.append((g, "swamp", float(np.max(np.abs((2 * qs - lo - hi) / (hi - lo)), initial=0.0)), v))
                continue
            x = float(np.linalg.norm(r))
            v, f = self._term(x, p["other_weight"] * w)
            value += v
            grad += f * (Jr.T @ r)
            parts.append((g, "residual", x, v))
        return parts if detail else (value, grad)


@njit(**JIT)
def pose_groove_objective(ibuf, fbuf, q, seg, frames, J, W, c, r, g, grad):
    """The objective of `RelaxedObjective` for pose-type goals only, compiled: W[k] =
    (position weight, rotation weight) of goal k (0: term left out). Returns its value;
    its gradient goes to grad."""
    prob = unpack(ibuf, fbuf)
    seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
    gi, gf = prob.gi, prob.gf
    fk_jacobians(seg_i, seg_f, out_seg, out_tf, q, seg, frames, J)
    n = q.shape[0]
    grad[:] = 0.0
    value = 0.0
    for k in range(gi.shape[0]):
        kind, o = gi[k, KIND], gi[k, OUT1]
        row = 6 * o
        if kind != ORIENTATION and W[k, 0] > 0.0:
            ex, ey, ez = frames[o, 0] - gf[k, 0], frames[o, 1] - gf[k, 1], frames[o, 2] - gf[k, 2]
            x = np.sqrt(ex * ex + ey * ey + ez * ez)
            value += W[k, 0] * (groove(x, 0.0, c, r, g, 1) + 1.0)
            f = W[k, 0] * groove_derivative_over_offset(x, 0.0, c, r, g, 1)
            for v in range(n):
                grad[v] += f * (J[row, v] * ex + J[row + 1, v] * ey + J[row + 2, v] * ez)
        if kind != POSITION and W[k, 1] > 0.0:
            qw, qx, qy, qz = frames[o, 3], frames[o, 4], frames[o, 5], frames[o, 6]
            sg = 1.0 if qw * gf[k, 3] + qx * gf[k, 4] + qy * gf[k, 5] + qz * gf[k, 6] >= 0.0 else -1.0
            ew, ex, ey, ez = qw - sg * gf[k, 3], qx - sg * gf[k, 4], qy - sg * gf[k, 5], qz - sg * gf[k, 6]
            d = np.sqrt(ew * ew + ex * ex + ey * ey + ez * ez)
            theta = 4.0 * np.arcsin(min(1.0, 0.5 * d))
            value += W[k, 1] * (groove(theta, 0.0, c, r, g, 1) + 1.0)
            ratio = theta / d if d > 1e-12 else 2.0
            f = W[k, 1] * groove_derivative_over_offset(theta, 0.0, c, r, g, 1) * ratio * 2.0 / np.sqrt(max(1e-300, 1.0 - 0.25 * d * d))
            for v in range(n):  # ∂q_E/∂q_v = ½ (0, ω_v) ⊗ q_E
                ax, ay, az = J[row + 3, v], J[row + 4, v], J[row + 5, v]
                dw = -ax * qx - ay * qy - az * qz
                dx = ax * qw + ay * qz - az * qy
                dy = ay * qw + az * qx - ax * qz
                dz = az * qw + ax * qy - ay * qx
                grad[v] += f * 0.5 * (ew * dw + ex * dx + ey * dy + ez * dz)
    return value


class CompiledPoseObjective:
    """`RelaxedObjective` for problems of pose-type goals only, as one compiled call."""

    def __init__(self, problem: Problem, params: dict[str, float], primary_only: bool = False):
        self.problem = problem
        seg, frames, J = make_buffers(problem)[:3]
        self.buffers = (seg, frames, J)
        self.W = np.zeros((len(problem.goals), 2))
        for k, goal in enumerate(problem.goals):
            if goal.is_secondary and primary_only:
                continue
            w = problem.weight(k) * (params["secondary_weight"] if goal.is_secondary else 1.0)
            self.W[k] = params["position_weight"] * w, params["rotation_weight"] * w
        self.loss = params["groove_c"], params["groove_r"], params["groove_g"]

    def __call__(self, q: np.ndarray) -> tuple[float, np.ndarray]:
        grad = np.empty(q.shape[0])
        value = pose_groove_objective(self.problem.ibuf, self.problem.fbuf, q, *self.buffers, self.W, *self.loss, grad)
        return value, grad


def objective_for(problem: Problem, params: dict[str, float], primary_only: bool = False):
    """The compiled objective when every goal is pose-type, else the Python one."""
    pose_only = not problem.python_goals and all(g.kind in (POSE, POSITION, ORIENTATION) for g in problem.goals)
    return (CompiledPoseObjective if pose_only else RelaxedObjective)(problem, params, primary_only)


def relaxed_search(problem: Problem, q, deadline, budget, seed, mode, settings, random_start=False):
    """Family.search protocol: SLSQP on the groove objective with random restarts."""
    p = _params(settings)
    fun = objective_for(problem, p)
    has_secondary = any(g.is_secondary for g in problem.goals)
    polish = objective_for(problem, p, primary_only=True) if has_secondary else None
    bounds = scipy_bounds(problem)
    cap = max(1, int(p["max_iterations_per_run"]))

    def slsqp(f, start, maxiter):
        from scipy.optimize import minimize  # on use: importing scipy.optimize takes ≈ 0.4 s
        res = minimize(timed(f, deadline), start, jac=True, method="SLSQP", bounds=bounds, options={"maxiter": max(1, maxiter), "ftol": p["ftol"]})
        return np.clip(res.x, problem.robot.lower, problem.robot.upper), float(res.fun), max(int(res.nit), 1)

    def run(start, remaining):
        x, value, its = slsqp(fun, start, min(remaining, cap))
        if polish is not None and its < remaining and not problem.accept(x, mode)[0]:
            x2, _, its2 = slsqp(polish, x, min(remaining - its, cap))
            its += its2
            if problem.accept(x2, mode)[0]:
                return x2, fun(x2)[0], its
        return x, value, its

    return restart_search(problem, q, deadline, budget, seed, mode, random_start, run)


FAMILIES = (
    Family("relaxed", DEFAULTS, relaxed_search,
           description="RelaxedIK-style: SLSQP on a weighted sum of groove/swamp losses, restarts [E 3.1.6, 7.2]"),
)
