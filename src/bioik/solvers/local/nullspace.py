"""`nullspace`: pseudo-inverse IK with a secondary task in the Jacobian null space [L, Eq. 1].

Each iteration moves q by  q̇ = J⁺ξ + (I − J⁺J)·b  [L, Eq. 1]: ξ stacks, per primary
pose-type goal, the position error and the axis-angle vector of R_goal·R_currentᵀ (the
"displacement and axis" of [L], both in the base frame; several pose goals are stacked), J
the matching rows of the goal Jacobians, J⁺ its pseudo-inverse. The secondary task b is
joint centring, b = −k·(q − centre) with centre the mid-range configuration [L, "Secondary
Task"], or — if the problem has secondary goals — the negative gradient of their cost,
b = −J_sᵀ·r_s. Projected by I − J⁺J, b does not move the goals to first order [L, Eq. 2].

Adaptive step [L, Analysis item 4]: q ← clip(q + α·q̇); α is halved (the step retried from
the previous point) when the error grows, and grows back by `step_growth` after a success.
An attempt restarts from a random configuration when α falls below `min_step` or after
`attempt_iterations` steps, until the deadline or the iteration budget. Success is the
acceptance test of every solver (at `tolerance_scale` × the tolerances). With
`centering_steps` > 0 the search then goes on with up to that many null-space steps, each
followed by up to `CORRECTIONS` pure J⁺ξ steps that undo the second-order drift, keeping a
step only when the goals are met afterwards (else α is halved): a more centred (or, with
secondary goals, better) solution at the same goal accuracy, until the deadline.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.goals.acceptance import goal_errors
from bioik.goals.kernels import ALL_KINDS, SECONDARY, SIZE
from bioik.problem.layout import BUDGET, DEADLINE, ITERATIONS, MODE, RESTARTS, unpack
from bioik.kinematics.frames import JIT, YES
from bioik.kinematics.jacobian import fk_jacobians
from bioik.solvers.local.twist import Limits, Walk, backtracking_search, twist_errors
from bioik.solvers.core.batch import batch_queries
from bioik.solvers.core.clock import now
from bioik.solvers.core.linalg import stack_residuals
from bioik.solvers.core.pose_query import search_query
from bioik.solvers.core.workspace import kinematic_buffers, search_start
from bioik.solvers.core.settings import slots
from bioik.solvers.core.family import POSE_KINDS, Family, compiled

#: Tunable parameters and their defaults.
DEFAULTS = {
    "centering_gain": 0.5,
    "attempt_iterations": 100,
    "min_step": 1e-3,
    "step_growth": 1.5,
    "tolerance_scale": 0.5,
    "centering_steps": 0,
}
SETTING = slots(DEFAULTS)

#: Pure J⁺ξ corrections after each refinement step (see `nullspace_search`).
CORRECTIONS = 3


@njit(**JIT)
def secondary_task(prob, kin, q, es, Js, has_secondary, gain, centre, b):
    """b: −J_sᵀ·r_s (the descent direction of the secondary goals' cost, from the frames
    and Jacobians at q in the `kinematic_buffers` kin) if there are secondary goals, else
    joint centring −k·(q − centre)."""
    n = q.shape[0]
    if has_secondary:
        _, frames, J, r, Jr, scratch, _ = kin
        srows, _ = stack_residuals(prob.gi, prob.gf, prob.gw, frames, J, q, prob.vdata, prob.aux, r, Jr, scratch, es, Js, YES)
        for v in range(n):
            s = 0.0
            for i in range(srows):
                s += Js[i, v] * es[i]
            b[v] = -s
    else:
        for v in range(n):
            b[v] = -gain * (q[v] - centre[v])


@njit(**JIT)
def null_space_velocity(Je, xi, rows, b, qdot):
    """qdot = J⁺ξ + (I − J⁺J)·b for the first `rows` rows of Je, ξ."""
    P = np.linalg.pinv(Je[:rows])
    Jb = Je[:rows] @ b
    qdot[:] = P @ (xi[:rows] - Jb) + b


@njit(inline="always", **JIT)
def null_space_direction(prob, kin, qc, rows, xi, Je, qdot, extra):
    """The step q̇ = J⁺ξ + (I − J⁺J)·b, b the secondary task (`backtracking_search`'s direction)."""
    es, Js, has_secondary, gain, centre, b = extra
    secondary_task(prob, kin, qc, es, Js, has_secondary, gain, centre, b)
    null_space_velocity(Je, xi, rows, b, qdot)


@njit(**JIT)
def nullspace_search(ibuf, fbuf, q, settings, run, stats):
    """Search from q (overwritten with the best configuration found); True on success.

    settings: centering_gain, attempt_iterations, min_step, step_growth, tolerance_scale,
    centering_steps. run/stats: as `lm_search`.
    """
    prob = unpack(ibuf, fbuf)
    seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
    gi, gf, gt, vdata, aux, bounds = prob.gi, prob.gf, prob.gt, prob.vdata, prob.aux, prob.bounds
    lo, hi, slo, shi = bounds[0], bounds[1], bounds[2], bounds[3]
    deadline, max_iterations, mode = run[DEADLINE], run[BUDGET], int(run[MODE])
    n = q.shape[0]
    rng = search_start(run, slo, shi, q)
    kin = kinematic_buffers(seg_i, out_seg, gi, n)
    seg, frames, J, r, Jr, scratch, errors = kin
    G = gi.shape[0]
    xi = np.empty(6 * G)
    Je = np.empty((6 * G, n))
    Rs = 1
    has_secondary = False
    for g in range(G):
        if gi[g, SECONDARY]:
            has_secondary = True
            Rs += gi[g, SIZE]
    es = np.empty(Rs)
    Js = np.empty((Rs, n))
    centre = 0.5 * (slo + shi)
    gain, attempt_max = settings[SETTING.centering_gain], int(settings[SETTING.attempt_iterations])
    min_step, growth = settings[SETTING.min_step], settings[SETTING.step_growth]
    gt_inner = gt * settings[SETTING.tolerance_scale]
    centering_steps = int(settings[SETTING.centering_steps])

    qc = q.copy()
    qdot = np.zeros(n)
    step = np.empty(n)
    b = np.empty(n)
    best = q.copy()
    extra = (es, Js, has_secondary, gain, centre, b)
    walk = Walk(qc, q.copy(), qdot, best, xi, Je)
    limits = Limits(deadline, max_iterations, attempt_max, min_step, growth, np.zeros(1, dtype=np.int64))
    success, it, restarts, rows = backtracking_search(prob, kin, walk, limits, gt_inner, mode, rng, null_space_direction, extra,
                                                       ALL_KINDS)
    if success:  # optional refinement: null-space steps that keep the goals met
        alpha = 1.0
        fresh = True
        for _ in range(centering_steps):
            if it >= max_iterations or alpha < min_step or ((it & 7) == 7 and now() > deadline):
                break
            it += 1
            if fresh:  # q̇ at the last configuration that met the goals (frames are there)
                secondary_task(prob, kin, best, es, Js, has_secondary, gain, centre, b)
                null_space_velocity(Je, xi, rows, b, qdot)
            for i in range(n):
                qc[i] = min(max(best[i] + alpha * qdot[i], lo[i]), hi[i])
            for k in range(CORRECTIONS + 1):  # back onto the goal manifold: q += J⁺ξ
                fk_jacobians(seg_i, seg_f, out_seg, out_tf, qc, seg, frames, J)
                fresh = goal_errors(gi, gf, gt_inner, frames, J, qc, vdata, aux, r, Jr, scratch, mode, errors)
                rows = twist_errors(gi, gf, frames, J, xi, Je)
                if fresh or k == CORRECTIONS:
                    break
                b[:] = 0.0
                null_space_velocity(Je, xi, rows, b, step)
                for i in range(n):
                    qc[i] = min(max(qc[i] + step[i], lo[i]), hi[i])
            if fresh:
                best[:] = qc
                alpha = min(1.0, growth * alpha)
            else:
                alpha *= 0.5  # second-order drift broke a goal: a shorter step
    q[:] = best
    stats[ITERATIONS] = it
    stats[RESTARTS] = restarts
    return success


@njit(**JIT)
def nullspace_pose_query(ibuf, fbuf, row, q, io):
    """`nullspace_search` as a whole query for one pose-type goal (`bioik.solvers.core.pose_query`)."""
    return search_query(ibuf, fbuf, row, q, io, nullspace_search, ())


@njit(**JIT)
def nullspace_pose_batch(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base):
    """`nullspace_pose_query` over a chunk of a batch (`bioik.solvers.core.batch`)."""
    return batch_queries(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base, nullspace_pose_query, ())


FAMILIES = (
    Family("nullspace", DEFAULTS, compiled(nullspace_search), kinds=POSE_KINDS, any_secondary=True, single_pose=nullspace_pose_query,
           single_pose_batch=nullspace_pose_batch,
           description="pseudo-inverse with joint centring (or secondary goals) in the null space [L]"),
)
