"""BioIK 2's model of a step: the exact FK at the species' best, extrapolated to score
candidates.

Candidates (children in step 2, line-search points in step 3) are scored on the FK of
step 1 extrapolated as the reference implementation does: positions by the Jacobian
[R 3.7.10] plus, per revolute joint, the second-order pull towards its axis
(`curvature`); rotation quaternions by the Jacobian, not normalised [R 3.8]. The rotation
term of the cost is the square quaternion distance, or for [R Table 3.14]'s ablation one of
the two measures [R 3.8] compares it with (`rotation_distance`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bioik.goals.base import ORIENTATION, POSE, POSITION, PYTHON
from bioik.goals.kernels import KIND, OUT1, SECONDARY, other_residual
from bioik.goals.pose import pose_weights
from bioik.kinematics.frames import JIT, NO, qmul


@njit(inline="always", **JIT)
def offsets(J0, Q0, x0, X, xrow, off, row):
    """off[row] ← J0·Δ + Q0·Δ², Δ = X[xrow] − x0: predicted position and rotation-vector
    change of every link (6 per link)."""
    for k in range(off.shape[1]):
        off[row, k] = 0.0
    for v in range(x0.shape[0]):
        d = X[xrow, v] - x0[v]
        if d != 0.0:
            dd = d * d
            for k in range(off.shape[1]):
                off[row, k] += J0[k, v] * d + Q0[k, v] * dd


@njit(inline="always", **JIT)
def predicted_rotation(qw, qx, qy, qz, o3, o4, o5):
    """Unit quaternion q + ½·(0, ω) ⊗ q, normalised: rotation q moved by the predicted
    rotation vector ω = (o3, o4, o5), for the goals that need a rotation (pose-type goals
    use the unnormalised quaternion, `model_cost`)."""
    rw, rx, ry, rz = qmul(0.0, o3, o4, o5, qw, qx, qy, qz)
    w, x, y, z = qw + 0.5 * rw, qx + 0.5 * rx, qy + 0.5 * ry, qz + 0.5 * rz
    inv = 1.0 / np.sqrt(w * w + x * x + y * y + z * z)
    return w * inv, x * inv, y * inv, z * inv

#: Length of a pose-type goal's row of `goal_models`.
MODEL = 22

#: The rotation distances of [R 3.8] (the `rotation_distance` parameter): min‖u ∓ t‖²,
#: 1 − |û·t| (û = u/‖u‖), and the square of the angle between u and t.
SQUARE_QUATERNION, NORM_DOT, SQUARE_ANGLE = 0, 1, 2


class Expansion(NamedTuple):
    """A step's exact FK at the species' best individual x0 and what extrapolates it."""

    #: The configuration expanded around (n,).
    x0: np.ndarray
    #: Exact frames of the goals' links at x0 (O, 7): position, quaternion.
    frames0: np.ndarray
    #: Their Jacobians (6·O, n) and second-order position terms (`curvature`, 6·O, n).
    J0: np.ndarray
    Q0: np.ndarray
    #: Per pose-type goal, the constants of its cost on the model (G, MODEL; `goal_models`).
    models: np.ndarray


class GoalScratch(NamedTuple):
    """Buffers for scoring a candidate's non-pose goals on predicted frames (`full_score`)."""

    #: Predicted frames (O, 7).
    work: np.ndarray
    #: A goal's residual and its Jacobian rows (unused here: no derivatives).
    r: np.ndarray
    Jr: np.ndarray
    #: `goal_residual`'s scratch.
    scratch: np.ndarray
    #: (primary, secondary) cost of the candidate scored last.
    out: np.ndarray


@njit(inline="always", **JIT)
def goal_models(gi, gf, gw, frames0, models, rotation):
    """models[g] ← the constants of pose-type goal g's cost on the extrapolated model, for
    the step's exact frames: its link's position minus the target, the weighted part
    weights (Wp, Wr), and r0 (4,), K (4, 3) with t* ⊗ u = r0 + K·ω for the rotation u =
    q + ½·(0, ω) ⊗ q extrapolated from the start rotation q by a rotation vector ω:
    r0 = t* ⊗ q, K·ω = ½ t* ⊗ (0, ω) ⊗ q; last, the kind of `rotation_distance`.
    `model_cost` then needs no quaternion product per candidate."""
    for g in range(gi.shape[0]):
        kind = gi[g, KIND]
        if not (kind == POSE or kind == POSITION or kind == ORIENTATION):
            continue
        o = gi[g, OUT1]
        wp, wr = pose_weights(kind, gf, g)
        w2 = gw[g] * gw[g]
        for c in range(3):
            models[g, c] = frames0[o, c] - gf[g, c]
        models[g, 3] = wp * w2
        models[g, 4] = wr * wr * w2
        qw, qx, qy, qz = frames0[o, 3], frames0[o, 4], frames0[o, 5], frames0[o, 6]
        cw, cx, cy, cz = gf[g, 3], -gf[g, 4], -gf[g, 5], -gf[g, 6]
        if wr == 0.0:  # no target rotation (a position goal): any unit quaternion keeps ‖u‖ > 0
            cw, cx, cy, cz = 1.0, 0.0, 0.0, 0.0
        models[g, 5], models[g, 6], models[g, 7], models[g, 8] = qmul(cw, cx, cy, cz, qw, qx, qy, qz)
        for j in range(3):
            pw, px, py, pz = qmul(0.0, 1.0 if j == 0 else 0.0, 1.0 if j == 1 else 0.0, 1.0 if j == 2 else 0.0,
                                  qw, qx, qy, qz)
            kw, kx, ky, kz = qmul(cw, cx, cy, cz, pw, px, py, pz)
            models[g, 9 + j] = 0.5 * kw
            models[g, 12 + j] = 0.5 * kx
            models[g, 15 + j] = 0.5 * ky
            models[g, 18 + j] = 0.5 * kz
        models[g, 21] = rotation


@njit(inline="always", **JIT)
def goal_model(models, g):
    """Row g of `goal_models` as scalars, so that loops over candidates keep it in registers."""
    return (models[g, 0], models[g, 1], models[g, 2], models[g, 3], models[g, 4], models[g, 5], models[g, 6],
            models[g, 7], models[g, 8], models[g, 9], models[g, 10], models[g, 11], models[g, 12], models[g, 13],
            models[g, 14], models[g, 15], models[g, 16], models[g, 17], models[g, 18], models[g, 19], models[g, 20],
            models[g, 21])


@njit(inline="always", **JIT)
def square_quaternion_model(m):
    """A `goal_model` m whose kind is SQUARE_QUATERNION, with the kind a constant: loops
    over candidates that score it compile without `rotation_distance`'s other branches,
    to SIMD code (with the kind read from the row, `line_search_single` took 3× as long)."""
    return m[:21] + (SQUARE_QUATERNION,)


@njit(inline="always", **JIT)
def rotation_distance(s, v1, v2, v3, kind):
    """Distance of a quaternion u from the unit target t, from (s, v) = t* ⊗ u [R 3.8]:
    SQUARE_QUATERNION min‖u ∓ t‖² = (1 − |s|)² + ‖v‖² (u need not be a unit quaternion),
    NORM_DOT 1 − |û·t| = 1 − |s|/‖u‖, SQUARE_ANGLE θ², θ = 2·atan2(‖v‖, |s|) the angle
    between the rotations. All three are even in u (±u is the same rotation)."""
    if kind == SQUARE_QUATERNION:
        a = 1.0 - abs(s)
        return a * a + v1 * v1 + v2 * v2 + v3 * v3
    vv = v1 * v1 + v2 * v2 + v3 * v3
    if kind == NORM_DOT:
        return 1.0 - abs(s) / np.sqrt(s * s + vv)
    angle = 2.0 * np.arctan2(np.sqrt(vv), abs(s))
    return angle * angle


@njit(inline="always", **JIT)
def model_cost(m, o0, o1, o2, o3, o4, o5):
    """Weighted cost of a `goal_model` m for predicted link offsets o0..o5 (position, then
    rotation vector): the frame is the start frame moved by them [R 3.7.10].

    The rotation part is [R eq. 3.5]'s min‖u ∓ t‖² for the extrapolated quaternion u,
    which the reference implementation does not normalise (that would cost a square root
    per candidate, [R 3.8]): with (s, v) = t* ⊗ u (‖u‖² = s² + ‖v‖², t a unit
    quaternion, u·t = s) it is (1 − |s|)² + ‖v‖², which does not cancel near the target;
    or the row's other `rotation_distance`. Loops over candidates call it with
    `square_quaternion_model` where they can, so that the default compiles branch-free."""
    ex, ey, ez, wp, wr, r0, r1, r2, r3, k00, k01, k02, k10, k11, k12, k20, k21, k22, k30, k31, k32, kind = m
    ex, ey, ez = ex + o0, ey + o1, ez + o2
    s = r0 + k00 * o3 + k01 * o4 + k02 * o5
    v1 = r1 + k10 * o3 + k11 * o4 + k12 * o5
    v2 = r2 + k20 * o3 + k21 * o4 + k22 * o5
    v3 = r3 + k30 * o3 + k31 * o4 + k32 * o5
    return wp * (ex * ex + ey * ey + ez * ez) + wr * rotation_distance(s, v1, v2, v3, kind)


@njit(inline="always", **JIT)
def pose_score(gi, models, off, row, out):
    """(primary, secondary) weighted cost of the pose-type goals on the FK model
    extrapolated from the step's exact FK (`goal_models`), for predicted link offsets
    off[row] → out (2,).

    The innermost loop of the solver: rows are indexed, never sliced, and nothing here
    calls a function taking arrays — either makes numba count references per call,
    which cost several times the arithmetic.
    """
    primary = 0.0
    secondary = 0.0
    for g in range(gi.shape[0]):
        kind = gi[g, KIND]
        if kind == POSE or kind == POSITION or kind == ORIENTATION:
            k = 6 * gi[g, OUT1]
            c = model_cost(goal_model(models, g), off[row, k], off[row, k + 1], off[row, k + 2],
                           off[row, k + 3], off[row, k + 4], off[row, k + 5])
            if gi[g, SECONDARY]:
                secondary += c
            else:
                primary += c
    out[0] = primary
    out[1] = secondary


@njit(**JIT)
def full_score(prob, ex, off, row, X, xrow, gs, kinds):
    """`pose_score` plus every other compiled goal (on the predicted frames) for the
    configuration X[xrow] with predicted offsets off[row] → gs.out (2,). kinds: ALL_KINDS,
    or POSE_ONLY to compile without the goal kinds that are not pose-type
    (`bioik.goals.kernels`)."""
    gi, gf, gw, vdata, aux = prob.gi, prob.gf, prob.gw, prob.vdata, prob.aux
    frames0, work, out = ex.frames0, gs.work, gs.out
    pose_score(gi, ex.models, off, row, out)
    for o in range(frames0.shape[0]):
        k = 6 * o
        for c in range(3):
            work[o, c] = frames0[o, c] + off[row, k + c]
        work[o, 3], work[o, 4], work[o, 5], work[o, 6] = predicted_rotation(
            frames0[o, 3], frames0[o, 4], frames0[o, 5], frames0[o, 6], off[row, k + 3], off[row, k + 4], off[row, k + 5])
    q = X[xrow]
    r = gs.r
    for g in range(gi.shape[0]):
        kind = gi[g, KIND]
        if kind == POSE or kind == POSITION or kind == ORIENTATION or kind == PYTHON:
            continue
        size = other_residual(kinds, gi, gf, g, work, ex.J0, q, vdata, aux, r, gs.Jr, NO, gs.scratch)
        c = 0.0
        for k in range(size):
            c += r[k] * r[k]
        out[1 if gi[g, SECONDARY] else 0] += c * gw[g] * gw[g]


@njit(inline="always", **JIT)
def score(prob, ex, off, row, X, xrow, gs, pose_only, kinds):
    """Cost of X[xrow] with predicted offsets off[row] → gs.out: the fast path when all
    goals are pose-type (always with kinds POSE_ONLY), else `full_score`."""
    if kinds is None or pose_only:
        pose_score(prob.gi, ex.models, off, row, gs.out)
    else:
        full_score(prob, ex, off, row, X, xrow, gs, kinds)
