"""`lm` for the case users call in loops: one pose, position or orientation goal, nothing else.

The same search as `lm_search` — same parameters, damping λ = k·E with every step accepted,
clamping to the limits, restarts on stalls, the same internal acceptance margin — but FK,
the residual and its Jacobian are computed in one pass over the chain, with no allocation
and no goal dispatch inside the loop. The seed's check and clipping, the turn wrapping
and the exact final acceptance test (FK at the returned configuration, then `pose_met`,
the test `evaluate` applies to every solver's answer) run inside the same compiled call,
so a query costs one dispatch.

The step works on an equivalent 6-row problem instead of the 7 rows of the pose residual.
The quaternion rows' Jacobian ½·(0, J_ω·dq) ⊗ q_E spans only the tangent space at q_E, so
writing the quaternion error e_q = ½·(0, u) ⊗ q_E + α·q_E splits ‖J_q·dq + e_q‖² into
¼‖w·J_ω·dq + u‖² + α²: the damped least-squares step is exactly that of the rows
½·w·J_ω with residual ½u = −w·sign·vec(q_G ⊗ q_E*). Same steps, a 6×6 system.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.goals.acceptance import _pose_errors, pose_met
from bioik.goals.base import ORIENTATION, POSE, POSITION
from bioik.goals.joints import REFERENCE
from bioik.goals.layout import unpack
from bioik.kinematics.fk import _segment
from bioik.kinematics.frames import JIT, qmul, qrot, qzaxis
from bioik.kinematics.limits import wrap_near
from bioik.solvers.linalg import damped_step
from bioik.solvers.lm import RESTART, STOP, next_move
from bioik.solvers.rng import random_configuration

REVOLUTE = 1

#: Layout of the `io` array. In, per query: run arguments, the goal's weight and
#: tolerances. Out: counters and the acceptance report (`evaluate`'s layout for one
#: goal). In, set once per solver: its 4 settings (as `lm.DEFAULTS`) and the robot's
#: multiturn flags (n) — fewer arguments make the compiled call cheaper.
DEADLINE, BUDGET, SEED, MODE, RANDOM_START, WEIGHT, POSITION_TOL, ROTATION_TOL = range(8)
ITERATIONS, RESTARTS, CLIPPED = 8, 9, 10
REPORT = 11
SETTINGS = REPORT + 6
MULTITURN = SETTINGS + 4


def new_io(settings: np.ndarray, multiturn: np.ndarray) -> np.ndarray:
    """The `io` array for a solver with these settings on a robot with these multiturn flags."""
    return np.concatenate([np.zeros(SETTINGS), settings[: MULTITURN - SETTINGS], multiturn])


@njit(inline="always", **JIT)
def _tip_frame(seg_i, seg_f, q, seg, tip, tf):
    """Exact FK of the chain; the goal link's frame as (px, py, pz, qw, qx, qy, qz)."""
    for s in range(seg_i.shape[0]):
        _segment(seg_i, seg_f, q, s, seg)
    if tip < 0:
        return tf[0], tf[1], tf[2], tf[3], tf[4], tf[5], tf[6]
    Pw, Px, Py, Pz = seg[tip, 3], seg[tip, 4], seg[tip, 5], seg[tip, 6]
    rx, ry, rz = qrot(Pw, Px, Py, Pz, tf[0], tf[1], tf[2])
    qw, qx, qy, qz = qmul(Pw, Px, Py, Pz, tf[3], tf[4], tf[5], tf[6])
    return seg[tip, 0] + rx, seg[tip, 1] + ry, seg[tip, 2] + rz, qw, qx, qy, qz


@njit(inline="always", **JIT)
def _residual(g, has_p, has_r, wp, wr, r0, px, py, pz, qw, qx, qy, qz, e):
    """E = ½‖r‖² of the weighted residual of goal row g (position rows with weight wp,
    quaternion rows q_E − sign(q_E·q_G)·q_G with weight wr), and into e the reduced
    residual the step works on: the position rows, then from row r0 the quaternion part
    as −wr·sign·vec(q_G ⊗ q_E*) (see the module docstring)."""
    E = 0.0
    if has_p:
        e[0], e[1], e[2] = wp * (px - g[0]), wp * (py - g[1]), wp * (pz - g[2])
        E += e[0] * e[0] + e[1] * e[1] + e[2] * e[2]
    if has_r:
        sg = 1.0 if qw * g[3] + qx * g[4] + qy * g[5] + qz * g[6] >= 0.0 else -1.0
        dw, dx, dy, dz = qw - sg * g[3], qx - sg * g[4], qy - sg * g[5], qz - sg * g[6]
        E += wr * wr * (dw * dw + dx * dx + dy * dy + dz * dz)
        _, vx, vy, vz = qmul(g[3], g[4], g[5], g[6], qw, -qx, -qy, -qz)
        c = -wr * sg
        e[r0], e[r0 + 1], e[r0 + 2] = c * vx, c * vy, c * vz
    return 0.5 * E


@njit(inline="always", **JIT)
def _met(kind, g, px, py, pz, qw, qx, qy, qz, frame, err, tp, tr, mode):
    """(position error, rotation angle, met) of the goal at this frame."""
    frame[0], frame[1], frame[2] = px, py, pz
    frame[3], frame[4], frame[5], frame[6] = qw, qx, qy, qz
    _pose_errors(kind, g, frame, err)
    return pose_met(err, tp, tr, mode)


@njit(**JIT)
def lm_pose_search(ibuf, fbuf, row, q, io):
    """Search for the goal with parameter row `row` from the seed in q (clipped into the
    limits; or a random start if io[RANDOM_START]); q ← the best configuration found,
    wrapped to the turn nearest the reference. Returns 1 if the internal test passed, 0 if
    not, −1 if the seed is not finite (nothing searched). The goal's row, weight and
    tolerances are stored into the problem's buffers first; io[REPORT:] receives the
    acceptance report at q."""
    seg_i, seg_f, out_seg, out_tf, gi, gf, gw, gt, vdata, bounds = unpack(ibuf, fbuf)
    gf[0, : row.shape[0]] = row
    gw[0], gt[0, 0], gt[0, 1] = io[WEIGHT], io[POSITION_TOL], io[ROTATION_TOL]
    lo, hi, slo, shi = bounds[0], bounds[1], bounds[2], bounds[3]
    n = q.shape[0]
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(int(io[SEED]))
    clipped = 0.0
    if io[RANDOM_START] > 0.0:
        random_configuration(rng, slo, shi, q)
    else:
        for i in range(n):
            if not np.isfinite(q[i]):
                return -1
            if q[i] < lo[i] or q[i] > hi[i]:
                q[i] = min(max(q[i], lo[i]), hi[i])
                clipped = 1.0
        vdata[:, REFERENCE] = q  # the turn wrapping refers to the clipped seed
    deadline, max_iterations, mode = io[DEADLINE], io[BUDGET], int(io[MODE])
    k_damp, stall_ratio, attempt_max, margin = io[SETTINGS], io[SETTINGS + 1], int(io[SETTINGS + 2]), io[SETTINGS + 3]

    kind = gi[0, 0]
    g = gf[0]
    w = gw[0]
    scale = g[7] if kind == POSE else 1.0
    has_p, has_r = kind != ORIENTATION, kind != POSITION  # position rows, quaternion rows
    wp, wr = w, w * scale  # their weights
    r0 = 3 if has_p else 0  # first rotation row
    R = r0 + (3 if has_r else 0)
    tp, tr = gt[0, 0] * margin, gt[0, 1] * margin
    t = max(tp, tr)
    E_max = w * w * 3.0 * t * t * (1.0 + scale * scale)  # as `acceptable_cost`
    tip = out_seg[0]
    tf = out_tf[0]

    seg = np.empty((max(seg_i.shape[0], 1), 7))
    e = np.empty(R)
    Je = np.empty((R, n))
    m = max(R, n)
    M = np.empty((m, m))
    b = np.empty(m)
    dq = np.empty(n)
    frame = np.empty(7)
    err = np.empty(6)
    qc = q.copy()
    best = q.copy()
    best_E = np.inf
    E_prev = np.inf
    stalls = 0
    attempt = 0
    it = 0
    restarts = 0
    found = 0
    while True:
        px, py, pz, qw, qx, qy, qz = _tip_frame(seg_i, seg_f, qc, seg, tip, tf)
        E = _residual(g, has_p, has_r, wp, wr, r0, px, py, pz, qw, qx, qy, qz, e)
        if E < best_E:
            best_E = E
            best[:] = qc
        if E <= E_max and _met(kind, g, px, py, pz, qw, qx, qy, qz, frame, err, tp, tr, mode)[2]:
            best[:] = qc
            found = 1
            break
        it += 1
        move, stalls = next_move(it, E, E_prev, stalls, attempt, max_iterations, stall_ratio, attempt_max, deadline)
        if move == STOP:
            break
        if move == RESTART:
            random_configuration(rng, slo, shi, qc)
            restarts += 1
            E_prev, stalls, attempt = np.inf, 0, 0
            continue
        E_prev = E
        # Jacobian of the reduced residual: position rows wp·(a × (p − o)), rotation rows
        # ½·wr·a per unit joint rate, summed over the goal link's ancestors
        Je[:, :] = 0.0
        h = 0.5 * wr
        s = tip
        while s >= 0:
            ax, ay, az = qzaxis(seg[s, 3], seg[s, 4], seg[s, 5], seg[s, 6])
            v = seg_i[s, 2]
            mult = seg_f[s, 7]
            if seg_i[s, 1] == REVOLUTE:
                if has_p:
                    dx, dy, dz = px - seg[s, 0], py - seg[s, 1], pz - seg[s, 2]
                    c = wp * mult
                    Je[0, v] += c * (ay * dz - az * dy)
                    Je[1, v] += c * (az * dx - ax * dz)
                    Je[2, v] += c * (ax * dy - ay * dx)
                if has_r:
                    c = h * mult
                    Je[r0, v] += c * ax
                    Je[r0 + 1, v] += c * ay
                    Je[r0 + 2, v] += c * az
            elif has_p:
                c = wp * mult
                Je[0, v] += c * ax
                Je[1, v] += c * ay
                Je[2, v] += c * az
            s = seg_i[s, 0]
        if not damped_step(Je, e, R, n, k_damp * E + 1e-12, M, b, dq):
            dq[:] = 0.0
        for i in range(n):
            qc[i] = min(max(qc[i] + dq[i], lo[i]), hi[i])
        attempt += 1
    q[:] = best
    wrap_near(q, vdata[:, REFERENCE], lo, hi, io[MULTITURN:])
    # the exact acceptance test at the returned q (not at the search's last iterate)
    px, py, pz, qw, qx, qy, qz = _tip_frame(seg_i, seg_f, q, seg, tip, tf)
    cost = 2.0 * _residual(g, has_p, has_r, wp, wr, r0, px, py, pz, qw, qx, qy, qz, e)
    dp, dr, met = _met(kind, g, px, py, pz, qw, qx, qy, qz, frame, err, gt[0, 0], gt[0, 1], mode)
    report = io[REPORT:]
    report[0], report[1], report[2] = 1.0 if met else 0.0, cost, 0.0
    report[3], report[4], report[5] = dp, dr, cost
    io[ITERATIONS], io[RESTARTS], io[CLIPPED] = it, restarts, clipped
    return found
