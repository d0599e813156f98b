"""`jac`: the multi-goal pseudo-inverse Jacobian method of BioIK 2's comparison [R 3.5.1].

All primary pose-type goals are handled at once [R 3.5.1: "a custom multi-goal version of
the popular pseudo-inverse Jacobian method ... support is limited to pose goals"]: their
errors — position difference and axis-angle vector of R_goal·R_currentᵀ, base frame — are
stacked into e, the analytic goal Jacobians into J, and every iteration takes the full step

    q ← clip(q + J⁺e),   J⁺ = Jᵀ(JJᵀ + λI)⁻¹  (or (JᵀJ + λI)⁻¹Jᵀ if J is tall),

with a small constant damping λ (`damping`) so that the step stays bounded at
singularities. Unlike `kdl` there is no step-size control; unlike `lm` the damping does not
follow the error. As [R 3.5] runs further threads from random starts, an attempt restarts
from a random configuration when the squared error fails to fall below `stall_ratio` × its
previous value twice in a row or after `attempt_iterations` steps, until the deadline or
the iteration budget. Success is the acceptance test of every solver (at
`tolerance_scale` × the tolerances). Secondary goals are not optimised, so they are refused.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.goals.kernels import POSE_ONLY
from bioik.problem.layout import BUDGET, DEADLINE, ITERATIONS, MODE, RESTARTS, unpack
from bioik.kinematics.frames import JIT
from bioik.solvers.local.twist import twist_state
from bioik.solvers.core.batch import batch_queries
from bioik.solvers.core.linalg import damped_step
from bioik.solvers.local.lm import RESTART, STOP, next_move
from bioik.solvers.core.pose_query import search_query
from bioik.solvers.core.rng import random_configuration
from bioik.solvers.core.workspace import kinematic_buffers, search_start
from bioik.solvers.core.settings import slots
from bioik.solvers.core.family import POSE_KINDS, Family, compiled

#: Tunable parameters and their defaults.
DEFAULTS = {"damping": 1e-4, "stall_ratio": 0.9, "attempt_iterations": 60, "tolerance_scale": 0.5}
SETTING = slots(DEFAULTS)


@njit(**JIT)
def jac_search(ibuf, fbuf, q, settings, run, stats):
    """Search from q (overwritten with the best configuration found); True on success.

    settings: damping, stall_ratio, attempt_iterations, tolerance_scale. run/stats: as
    `lm_search`.
    """
    prob = unpack(ibuf, fbuf)
    gi, gt, bounds = prob.gi, prob.gt, prob.bounds
    lo, hi, slo, shi = bounds[0], bounds[1], bounds[2], bounds[3]
    deadline, max_iterations, mode = run[DEADLINE], run[BUDGET], int(run[MODE])
    n = q.shape[0]
    rng = search_start(run, slo, shi, q)
    kin = kinematic_buffers(prob.seg_i, prob.out_seg, gi, n)
    R = 6 * gi.shape[0]
    e = np.empty(R)
    Je = np.empty((R, n))
    m = max(R, n)
    M = np.empty((m, m))
    b = np.empty(m)
    dq = np.empty(n)
    lam, stall_ratio = settings[SETTING.damping], settings[SETTING.stall_ratio]
    attempt_max = int(settings[SETTING.attempt_iterations])
    gt_inner = gt * settings[SETTING.tolerance_scale]

    qc = q.copy()
    best = q.copy()
    best_E = np.inf
    E_prev = np.inf
    stalls = 0
    attempt = 0
    it = 0
    restarts = 0
    success = False
    while True:
        rows, E, met = twist_state(prob, kin, qc, e, Je, gt_inner, mode, POSE_ONLY)
        if E < best_E:
            best_E = E
            best[:] = qc
        if met:
            best[:] = qc
            success = True
            break
        if it >= max_iterations:  # the budget counts steps
            break
        it += 1
        move, stalls = next_move(it, E, E_prev, stalls, attempt, stall_ratio, attempt_max, deadline)
        if move == STOP:
            break
        if move == RESTART:
            random_configuration(rng, slo, shi, qc)
            restarts += 1
            E_prev, stalls, attempt = np.inf, 0, 0
            continue
        E_prev = E
        # e is goal − current, so J⁺e = −(JᵀJ + λI)⁻¹Jᵀ(−e): damped_step on −e
        for i in range(rows):
            e[i] = -e[i]
        if not damped_step(Je, e, rows, n, lam, M, b, dq):
            dq[:] = 0.0
        for i in range(n):
            qc[i] = min(max(qc[i] + dq[i], lo[i]), hi[i])
        attempt += 1
    q[:] = best
    stats[ITERATIONS] = it
    stats[RESTARTS] = restarts
    return success


@njit(**JIT)
def jac_pose_query(ibuf, fbuf, row, q, io):
    """`jac_search` as a whole query for one pose-type goal (`bioik.solvers.core.pose_query`)."""
    return search_query(ibuf, fbuf, row, q, io, jac_search, ())


@njit(**JIT)
def jac_pose_batch(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base):
    """`jac_pose_query` over a chunk of a batch (`bioik.solvers.core.batch`)."""
    return batch_queries(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base, jac_pose_query, ())


FAMILIES = (
    Family("jac", DEFAULTS, compiled(jac_search), kinds=POSE_KINDS, secondary_goals=False, single_pose=jac_pose_query,
           single_pose_batch=jac_pose_batch,
           description="multi-goal damped pseudo-inverse Jacobian, restarts [R 3.5.1]"),
)
