"""When is a goal met? Computed from exact FK, in one place, for every solver.

Pose-type goals (pose, position, orientation) report the position error norm (m) and the
rotation angle (rad). Acceptance modes:
  "norm" (default): ‖Δp‖ ≤ position tolerance and angle ≤ rotation tolerance;
  "trac": every component of the position error and of the rotation vector, both in
          the goal frame, within the tolerances (TRAC-IK's test [E Alg. 3.2]; admits
          up to √3× larger errors);
  "kdl":  max(‖Δp‖, ‖Δr‖) ≤ position tolerance (KDL's single-threshold test [E Alg. 3.1]).
The scan goal reports its largest criterion in units of its wall and is met when that is
≤ its tolerance (1: inside all three walls, `bioik.goals.scan`). Other goals are met when
‖r‖ ≤ their tolerance (unweighted residual). Secondary goals never block success.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.goals.base import ORIENTATION, POSE, POSITION, SCAN
from bioik.goals.pose import pose_errors, pose_met
from bioik.goals.scan import scan_reach
from bioik.goals.kernels import ALL_KINDS, KIND, OUT1, SECONDARY, goal_residual, other_residual
from bioik.kinematics.frames import JIT, KERNEL, NO

MODES = {"norm": 0, "trac": 1, "kdl": 2}


@njit(**KERNEL)
def goal_errors(gi, gf, gt, frames, J, q, vdata, aux, r, Jr, scratch, mode, errors):
    """errors (G, 2): (position error, rotation angle) for pose-type goals, (largest
    criterion / its wall, 0) for scan goals, (‖r‖, 0) otherwise; returns True when every
    primary goal is met under `mode`.

    gt (G, 2): position (or residual) tolerance and rotation tolerance per goal. r (≥ 6
    rows, as every residual buffer is) also holds a pose goal's error components: solvers
    call this every step, and an allocation here cost as much as the test itself.
    """
    return goal_errors_with(ALL_KINDS, gi, gf, gt, frames, J, q, vdata, aux, r, Jr, scratch, mode, errors)


@njit(inline="always", **KERNEL)
def _measured(kind, g, gi, gf, gt, frames, r, mode, errors):
    """Goal g's errors if it is pose-type (position error, rotation angle; r: scratch for
    the error components) or a scan (its largest criterion, 0), into errors[g]: is it met?"""
    if kind == SCAN:
        errors[g, 0], errors[g, 1] = scan_reach(gf[g], frames[gi[g, OUT1]]), 0.0
        return errors[g, 0] <= gt[g, 0]
    pose_errors(kind, gf[g], frames[gi[g, OUT1]], r)
    dp, dr, met = pose_met(r, gt[g, 0], gt[g, 1], mode)
    errors[g, 0], errors[g, 1] = dp, dr
    return met


@njit(inline="always", **KERNEL)
def goal_errors_with(kinds, gi, gf, gt, frames, J, q, vdata, aux, r, Jr, scratch, mode, errors):
    """`goal_errors` for `kinds` (`bioik.goals.kernels.ALL_KINDS`, or POSE_ONLY in a kernel
    that only ever sees pose-type goals: it then compiles without the other kinds)."""
    ok = True
    for g in range(gi.shape[0]):
        kind = gi[g, KIND]
        if kind == POSE or kind == POSITION or kind == ORIENTATION or kind == SCAN:
            met = _measured(kind, g, gi, gf, gt, frames, r, mode, errors)
        else:
            d = other_residual(kinds, gi, gf, g, frames, J, q, vdata, aux, r, Jr, NO, scratch)
            s = 0.0
            for i in range(d):
                s += r[i] * r[i]
            errors[g, 0], errors[g, 1] = np.sqrt(s), 0.0
            met = errors[g, 0] <= gt[g, 0]
        if not met and not gi[g, SECONDARY]:
            ok = False
    return ok


@njit(**JIT)
def goal_errors_costs(gi, gf, gw, gt, frames, J, q, vdata, aux, r, Jr, scratch, mode, errors, costs):
    """`goal_errors`, and each goal's weighted cost ‖r‖²·w² into costs (G,), in one pass: a
    goal that is neither pose-type nor a scan has its residual computed once for both (a
    collision goal's is most of an acceptance test). Returns (every primary goal met,
    primary cost, secondary cost)."""
    ok = True
    primary = secondary = 0.0
    for g in range(gi.shape[0]):
        kind = gi[g, KIND]
        measured = kind == POSE or kind == POSITION or kind == ORIENTATION or kind == SCAN
        met = _measured(kind, g, gi, gf, gt, frames, r, mode, errors) if measured else True
        d = goal_residual(gi, gf, g, frames, J, q, vdata, aux, r, Jr, NO, scratch)
        c = 0.0
        for i in range(d):
            c += r[i] * r[i]
        if not measured:  # ‖r‖, from the residual the cost is made of
            errors[g, 0], errors[g, 1] = np.sqrt(c), 0.0
            met = errors[g, 0] <= gt[g, 0]
        if not met and not gi[g, SECONDARY]:
            ok = False
        c *= gw[g] * gw[g]
        costs[g] = c
        if gi[g, SECONDARY]:
            secondary += c
        else:
            primary += c
    return ok, primary, secondary


@njit(**JIT)
def acceptable_cost(gi, gf, gw, gt):
    """An upper bound of E = ½Σ w²‖r‖² over the primary goals at any configuration that
    passes the acceptance test in any mode: above it the (costlier) test can be skipped.
    Per goal w²·3·t²·(1 + s²) with t the larger tolerance and s the rotation scale: the
    position rows contribute ≤ 3t² (TRAC-IK's per-component test), the quaternion rows
    ≤ (s·t/2)²·3."""
    E = 0.0
    for g in range(gi.shape[0]):
        if not gi[g, SECONDARY]:
            E += goal_cost_bound(gi, gf, gw, gt, g)
    return E


@njit(inline="always", **JIT)
def goal_cost_bound(gi, gf, gw, gt, g):
    """Goal g's term of `acceptable_cost`: w²·3·t²·(1 + s²)."""
    t = max(gt[g, 0], gt[g, 1])
    s = gf[g, 7] if gi[g, KIND] == POSE else 1.0
    return gw[g] * gw[g] * 3.0 * t * t * (1.0 + s * s)
