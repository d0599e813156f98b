"""The pseudo-inverse family's shared pieces: stacked twist errors of the pose-type goals,
and the backtracking restart loop `kdl` and `nullspace` both run [E Alg. 3.1].

The loop: at each configuration, exact FK, the twist errors and the acceptance test; if
the error grew, halve the step factor α and retry from the previous point; a stuck
attempt (α below `min_step`, or `attempt_max` steps) restarts from a random
configuration until the deadline; otherwise step q ← clip(q + α·d) along the family's
direction d and let α grow by `growth` (at most 1).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bioik.goals.acceptance import goal_errors_with
from bioik.goals.base import ORIENTATION, POSE, POSITION
from bioik.goals.kernels import KIND, OUT1, SECONDARY
from bioik.kinematics.frames import JIT, qmul
from bioik.kinematics.jacobian import fk_jacobians
from bioik.solvers.core.clock import now
from bioik.solvers.core.islands import flag_raised
from bioik.solvers.core.rng import random_configuration


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


class Walk(NamedTuple):
    """The loop's configurations (n,) and the stacked twist errors at qc."""

    #: Current point, the point the last step started from, that step, the best point seen.
    qc: np.ndarray
    q_prev: np.ndarray
    step: np.ndarray
    best: np.ndarray
    #: Twist errors (≤ 6·G) and their Jacobian rows (≤ 6·G, n).
    e: np.ndarray
    Je: np.ndarray


class Limits(NamedTuple):
    """When the loop stops, restarts and how its step factor grows."""

    deadline: float
    max_iterations: float
    attempt_max: int
    min_step: float
    growth: float
    #: A stop flag (int64, (1,)) another thread may raise (`bioik.solvers.core.islands`),
    #: read where the clock is: the loop ends as at its deadline.
    stop: np.ndarray


@njit(inline="always", **JIT)
def twist_state(prob, kin, q, e, Je, gt, mode, kinds):
    """Exact FK and Jacobians at q (into the `kinematic_buffers` kin), the stacked twist
    errors (`twist_errors`) into e, Je; returns (rows, squared error, q passes the
    acceptance test at tolerances gt). kinds: `bioik.goals.kernels.ALL_KINDS`, or POSE_ONLY
    for a solver of pose-type goals only."""
    seg, frames, J, r, Jr, scratch, errors = kin
    fk_jacobians(prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf, q, seg, frames, J)
    rows = twist_errors(prob.gi, prob.gf, frames, J, e, Je)
    E = 0.0
    for i in range(rows):
        E += e[i] * e[i]
    return rows, E, goal_errors_with(kinds, prob.gi, prob.gf, gt, frames, J, q, prob.vdata, prob.aux, r, Jr, scratch, mode,
                                     errors)


@njit(inline="always", **JIT)
def backtracking_search(prob, kin, walk, limits, gt_inner, mode, rng, direction, extra, kinds):
    """Run the loop from walk.qc (see the module docstring); the best configuration goes
    to walk.best. direction(prob, kin, qc, rows, e, Je, step, extra) writes the step d
    into step (e, Je: the stacked twist errors and their Jacobian at qc; extra: the
    family's own arguments). kin: the `kinematic_buffers`; kinds: as `twist_state`.
    Returns (success, iterations, restarts, rows of the last twist errors)."""
    bounds = prob.bounds
    lo, hi, slo, shi = bounds[0], bounds[1], bounds[2], bounds[3]
    qc, q_prev, step, best, e, Je = walk.qc, walk.q_prev, walk.step, walk.best, walk.e, walk.Je
    deadline, max_iterations, attempt_max = limits.deadline, limits.max_iterations, limits.attempt_max
    min_step, growth, stop = limits.min_step, limits.growth, limits.stop
    n = qc.shape[0]
    best_E = np.inf
    E_prev = np.inf
    alpha = 1.0
    attempt = 0
    it = 0
    restarts = 0
    success = False
    while True:
        rows, E, met = twist_state(prob, kin, qc, e, Je, gt_inner, mode, kinds)
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
        if (it & 7) == 0 and (now() > deadline or flag_raised(stop)):  # the clock costs ≈ 25 ns: every 8th
            break
        if E > E_prev and alpha > min_step:
            alpha *= 0.5  # the error grew: retry a shorter step from the previous point
            for i in range(n):
                qc[i] = min(max(q_prev[i] + alpha * step[i], lo[i]), hi[i])
            continue
        if alpha <= min_step or attempt >= attempt_max:
            if now() > deadline or flag_raised(stop):
                break
            random_configuration(rng, slo, shi, qc)
            restarts += 1
            E_prev, alpha, attempt = np.inf, 1.0, 0
            continue
        direction(prob, kin, qc, rows, e, Je, step, extra)
        q_prev[:] = qc
        E_prev = E
        alpha = min(1.0, growth * alpha)
        for i in range(n):
            qc[i] = min(max(qc[i] + alpha * step[i], lo[i]), hi[i])
        attempt += 1
    return success, it, restarts, rows
