"""`kdl`: Newton–Raphson with the Jacobian pseudo-inverse, as KDL's solver [E Alg. 3.1].

Each iteration computes the twist error of every pose-type goal — position difference and
the axis-angle vector of R_goal·R_currentᵀ, both in the base frame — stacks the goal
Jacobians, and steps q ← clip(q + α·J⁺·Δtwist). As in KDL since 2019, the step factor α is
halved (and the step retried) when the error grows, and grows back after a success. A
stuck attempt (α below `min_step`, or `attempt_iterations` steps) restarts from a random
configuration until the deadline.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.goals.acceptance import goal_errors
from bioik.goals.base import ORIENTATION, POSE, POSITION
from bioik.goals.kernels import KIND, OUT1, SECONDARY
from bioik.problem.layout import BUDGET, DEADLINE, ITERATIONS, MODE, RESTARTS, unpack
from bioik.kinematics.frames import JIT, qmul
from bioik.kinematics.jacobian import fk_jacobians
from bioik.solvers.core.clock import now
from bioik.solvers.core.pose_query import search_query
from bioik.solvers.core.rng import random_configuration
from bioik.solvers.core.workspace import kinematic_buffers, search_start
from bioik.solvers.core.settings import slots
from bioik.solvers.core.family import POSE_KINDS, Family, compiled

DEFAULTS = {"attempt_iterations": 100, "min_step": 1e-3, "tolerance_scale": 0.5}
SETTING = slots(DEFAULTS)


@njit(**JIT)
def twist_errors(gi, gf, frames, J, e, Je):
    """Stacked twist errors of the primary pose-type goals and their Jacobian rows; returns rows."""
    rows = 0
    n = J.shape[1]
    for g in range(gi.shape[0]):
        kind = gi[g, KIND]
        if gi[g, SECONDARY] or not (kind == POSE or kind == POSITION or kind == ORIENTATION):
            continue
        o = gi[g, OUT1]
        f = frames[o]
        p = gf[g]
        if kind != ORIENTATION:
            for k in range(3):
                e[rows + k] = p[k] - f[k]
                for v in range(n):
                    Je[rows + k, v] = J[6 * o + k, v]
            rows += 3
        if kind != POSITION:
            # rotation vector of q_goal ⊗ q_current⁻¹ (base frame)
            w, x, y, z = qmul(p[3], p[4], p[5], p[6], f[3], -f[4], -f[5], -f[6])
            if w < 0.0:
                w, x, y, z = -w, -x, -y, -z
            s = np.sqrt(x * x + y * y + z * z)
            k_ = 2.0 * np.arctan2(s, w) / s if s > 1e-300 else 2.0
            e[rows], e[rows + 1], e[rows + 2] = k_ * x, k_ * y, k_ * z
            for k in range(3):
                for v in range(n):
                    Je[rows + k, v] = J[6 * o + 3 + k, v]
            rows += 3
    return rows


@njit(inline="always", **JIT)
def twist_state(seg_i, seg_f, out_seg, out_tf, gi, gf, gt, vdata, q, seg, frames, J, e, Je, r, Jr, scratch, mode,
                errors):
    """Exact FK and Jacobians at q, the stacked twist errors (`twist_errors`) into e, Je;
    returns (rows, squared error, q passes the acceptance test at tolerances gt)."""
    fk_jacobians(seg_i, seg_f, out_seg, out_tf, q, seg, frames, J)
    rows = twist_errors(gi, gf, frames, J, e, Je)
    E = 0.0
    for i in range(rows):
        E += e[i] * e[i]
    return rows, E, goal_errors(gi, gf, gt, frames, J, q, vdata, r, Jr, scratch, mode, errors)


@njit(**JIT)
def kdl_search(ibuf, fbuf, q, settings, run, stats):
    """Search from q (overwritten with the best configuration); True on success.

    settings: attempt_iterations, min_step, tolerance_scale. run/stats: as `lm_search`.
    """
    prob = unpack(ibuf, fbuf)
    seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
    gi, gf, gt, vdata, bounds = prob.gi, prob.gf, prob.gt, prob.vdata, prob.bounds
    lo, hi, slo, shi = bounds[0], bounds[1], bounds[2], bounds[3]
    deadline, max_iterations, mode = run[DEADLINE], run[BUDGET], int(run[MODE])
    n = q.shape[0]
    rng = search_start(run, slo, shi, q)
    seg, frames, J, r, Jr, scratch, errors = kinematic_buffers(seg_i, out_seg, gi, n)
    G = gi.shape[0]
    R = 6 * G
    e = np.empty(R)
    Je = np.empty((R, n))
    gt_inner = gt * settings[SETTING.tolerance_scale]
    attempt_max, min_step = int(settings[SETTING.attempt_iterations]), settings[SETTING.min_step]

    qc = q.copy()
    q_prev = q.copy()
    step = np.zeros(n)
    best = q.copy()
    best_E = np.inf
    E_prev = np.inf
    alpha = 1.0
    attempt = 0
    it = 0
    restarts = 0
    success = False
    while True:
        rows, E, met = twist_state(seg_i, seg_f, out_seg, out_tf, gi, gf, gt_inner, vdata, qc, seg, frames, J, e, Je,
                                   r, Jr, scratch, mode, errors)
        if E < best_E:
            best_E = E
            best[:] = qc
        if met:
            best[:] = qc
            success = True
            break
        it += 1
        if it >= max_iterations:
            break
        if E > E_prev and alpha > min_step:
            alpha *= 0.5  # error grew: retry a shorter step from the previous point
            for i in range(n):
                qc[i] = min(max(q_prev[i] + alpha * step[i], lo[i]), hi[i])
            continue
        if alpha <= min_step or attempt >= attempt_max:
            if now() > deadline:
                break
            random_configuration(rng, slo, shi, qc)
            restarts += 1
            E_prev = np.inf
            alpha = 1.0
            attempt = 0
            continue
        if (it & 31) == 0 and now() > deadline:
            break
        step[:] = np.linalg.pinv(Je[:rows]) @ e[:rows]
        q_prev[:] = qc
        E_prev = E
        alpha = min(1.0, 2.0 * alpha)
        for i in range(n):
            qc[i] = min(max(qc[i] + alpha * step[i], lo[i]), hi[i])
        attempt += 1
    q[:] = best
    stats[ITERATIONS] = it
    stats[RESTARTS] = restarts
    return success


@njit(**JIT)
def kdl_pose_query(ibuf, fbuf, row, q, io):
    """`kdl_search` as a whole query for one pose-type goal (`bioik.solvers.core.pose_query`)."""
    return search_query(ibuf, fbuf, row, q, io, kdl_search, ())


FAMILIES = (
    Family("kdl", DEFAULTS, compiled(kdl_search), kinds=POSE_KINDS, single_pose=kdl_pose_query,
           description="KDL-style Newton–Raphson, pseudo-inverse, restarts"),
)
