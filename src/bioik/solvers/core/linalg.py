"""Small dense linear algebra for the solver kernels, without allocation.

Damped least squares: dq = argmin ‖J·dq + e‖² + λ‖dq‖², solved through the smaller of
the two normal-equation systems — (JᵀJ + λI)·dq = −Jᵀe (joint space) or
(JJᵀ + λI)·y = −e, dq = Jᵀy (task space, cheaper for long chains like a 180-joint snake).

The solve functions are inlined into the search loops that call them: a compiled call
that passes arrays costs more than a 7×7 Cholesky factorisation.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.goals.base import ORIENTATION, POSE, POSITION
from bioik.goals.kernels import ALL_KINDS, KIND, OUT1, SECONDARY, other_residual
from bioik.kinematics.frames import JIT, KERNEL, YES


@njit(inline="always", **JIT)
def cholesky_solve(M, b, m):
    """Solve M[:m, :m]·x = b[:m] in place (x in b) for symmetric positive definite M.

    Reads only the lower triangle of M and overwrites it with the Cholesky factor (the
    diagonal holding reciprocals). Returns False if M is not positive definite.
    """
    for j in range(m):
        s = M[j, j]
        for k in range(j):
            s -= M[j, k] * M[j, k]
        if s <= 0.0:
            return False
        d = 1.0 / np.sqrt(s)
        M[j, j] = d
        for i in range(j + 1, m):
            s = M[i, j]
            for k in range(j):
                s -= M[i, k] * M[j, k]
            M[i, j] = s * d
    for i in range(m):
        s = b[i]
        for k in range(i):
            s -= M[i, k] * b[k]
        b[i] = s * M[i, i]
    for i in range(m - 1, -1, -1):
        s = b[i]
        for k in range(i + 1, m):
            s -= M[k, i] * b[k]
        b[i] = s * M[i, i]
    return True


@njit(inline="always", **JIT)
def normal_equations(Je, e, rows, n, lam, M, b):
    """The damped normal equations of the first `rows` rows of Je, e, in the smaller space:
    joint space (rows ≥ n) M = JᵀJ + λI, b = −Jᵀe; task space M = JJᵀ + λI, b = −e (lower
    triangle of M). Returns their size."""
    if rows >= n:
        for i in range(n):
            for j in range(i + 1):
                s = 0.0
                for k in range(rows):
                    s += Je[k, i] * Je[k, j]
                M[i, j] = s
            M[i, i] += lam
            s = 0.0
            for k in range(rows):
                s += Je[k, i] * e[k]
            b[i] = -s
        return n
    for i in range(rows):
        for j in range(i + 1):
            s = 0.0
            for k in range(n):
                s += Je[i, k] * Je[j, k]
            M[i, j] = s
        M[i, i] += lam
        b[i] = -e[i]
    return rows


@njit(inline="always", **JIT)
def _step_from(Je, rows, n, b, dq):
    """dq from the solved normal equations (b): b itself in joint space, Jᵀb in task space."""
    if rows >= n:
        for i in range(n):
            dq[i] = b[i]
    else:
        for k in range(n):
            s = 0.0
            for i in range(rows):
                s += Je[i, k] * b[i]
            dq[k] = s


@njit(inline="always", **JIT)
def damped_step(Je, e, rows, n, lam, M, b, dq):
    """dq = −(JᵀJ + λI)⁻¹Jᵀe for the first `rows` rows of Je, e. M, b: scratch (≥ max(rows, n))."""
    if not cholesky_solve(M, b, normal_equations(Je, e, rows, n, lam, M, b)):
        return False
    _step_from(Je, rows, n, b, dq)
    return True


HELD = 2.0  # a `held_step` side: the joint's column is dropped


@njit(inline="always", **JIT)
def held_step(Je, e, rows, n, lam, M, b, dq, side, N, g):
    """`damped_step`, with the joints that press against a limit held: side[i] is −1 for a
    joint at its lower limit, +1 at its upper one, else 0 (overwritten). A joint whose step
    points out of its range is held (its column dropped) and the step solved again, until
    no joint presses out; held joints do not move. Clamping such a step instead loses the
    part the held joint was to make, which the other joints could have made: an arm on
    tight wrist limits then stalls and needs many restarts. N, g: scratch like M, b (the
    normal equations are formed once; holding joints edits a copy of them). Returns False
    where a system is not positive definite."""
    m = normal_equations(Je, e, rows, n, lam, N, g)
    for _ in range(n + 1):
        for i in range(m):
            for j in range(i + 1):
                M[i, j] = N[i, j]
            b[i] = g[i]
        if rows >= n:  # joint space: a held joint's row and column become the identity's
            for i in range(n):
                if side[i] == HELD:
                    for j in range(i):
                        M[i, j] = 0.0
                    for j in range(i + 1, n):
                        M[j, i] = 0.0
                    M[i, i] = 1.0
                    b[i] = 0.0
        else:  # task space: JJᵀ loses the held columns' outer products
            for v in range(n):
                if side[v] == HELD:
                    for i in range(rows):
                        for j in range(i + 1):
                            M[i, j] -= Je[i, v] * Je[j, v]
        if not cholesky_solve(M, b, m):
            return False
        _step_from(Je, rows, n, b, dq)
        pressed = False
        for i in range(n):
            if side[i] == HELD:
                dq[i] = 0.0
            elif side[i] * dq[i] > 0.0:
                side[i] = HELD
                pressed = True
        if not pressed:
            return True
    return True


@njit(inline="always", **JIT)
def limit_side(x, lo, hi):
    """−1 for a value at its lower limit, +1 at its upper one, else 0 (a `held_step` side)."""
    return -1.0 if x <= lo else (1.0 if x >= hi else 0.0)


@njit(inline="always", **JIT)
def limit_sides(q, lo, hi, side):
    """side[i] = `limit_side` of q[i] (for `held_step`)."""
    for i in range(q.shape[0]):
        side[i] = limit_side(q[i], lo[i], hi[i])


@njit(**JIT)
def stack_residuals(gi, gf, gw, frames, J, q, vdata, aux, r, Jr, scratch, e, Je, secondary):
    """Weighted residuals w·r and their Jacobians of the primary (secondary=False) or the
    secondary goals, stacked into e and Je. Returns the number of rows and E = ½‖e‖².

    Position, orientation and pose goals take a direct path (the residual kernels' math,
    written out: ∂r/∂q is J_v for the position rows and ½(0, J_ω)⊗q_E for the quaternion
    rows); the others go through `goal_residual`.
    """
    return stack_residuals_with(ALL_KINDS, gi, gf, gw, frames, J, q, vdata, aux, r, Jr, scratch, e, Je, secondary)


@njit(inline="always", **JIT)
def stack_residuals_with(kinds, gi, gf, gw, frames, J, q, vdata, aux, r, Jr, scratch, e, Je, secondary):
    """`stack_residuals` for `kinds` (`bioik.goals.kernels.ALL_KINDS`, or POSE_ONLY in a
    kernel that only ever sees pose-type goals: it then compiles without the other kinds)."""
    rows = 0
    n = q.shape[0]
    for g in range(gi.shape[0]):
        if (gi[g, SECONDARY] != 0) != secondary:
            continue
        kind = gi[g, KIND]
        w = gw[g]
        if kind == POSE or kind == POSITION or kind == ORIENTATION:
            o = gi[g, OUT1]
            base = 6 * o
            if kind != ORIENTATION:
                for k in range(3):
                    e[rows + k] = w * (frames[o, k] - gf[g, k])
                    for v in range(n):
                        Je[rows + k, v] = w * J[base + k, v]
                rows += 3
            if kind != POSITION:
                ws = w * (gf[g, 7] if kind == POSE else 1.0)
                qw, qx, qy, qz = frames[o, 3], frames[o, 4], frames[o, 5], frames[o, 6]
                gw_, gx, gy, gz = gf[g, 3], gf[g, 4], gf[g, 5], gf[g, 6]
                sg = 1.0 if qw * gw_ + qx * gx + qy * gy + qz * gz >= 0.0 else -1.0
                e[rows] = ws * (qw - sg * gw_)
                e[rows + 1] = ws * (qx - sg * gx)
                e[rows + 2] = ws * (qy - sg * gy)
                e[rows + 3] = ws * (qz - sg * gz)
                h = 0.5 * ws
                for v in range(n):  # ½ (0, ω) ⊗ q for ω = J_ω[:, v]
                    ax, ay, az = J[base + 3, v], J[base + 4, v], J[base + 5, v]
                    Je[rows, v] = h * (-ax * qx - ay * qy - az * qz)
                    Je[rows + 1, v] = h * (ax * qw + ay * qz - az * qy)
                    Je[rows + 2, v] = h * (ay * qw + az * qx - ax * qz)
                    Je[rows + 3, v] = h * (az * qw + ax * qy - ay * qx)
                rows += 4
            continue
        d = other_residual(kinds, gi, gf, g, frames, J, q, vdata, aux, r, Jr, YES, scratch)
        for i in range(d):
            e[rows + i] = w * r[i]
            for v in range(n):
                Je[rows + i, v] = w * Jr[i, v]
        rows += d
    E = 0.0
    for i in range(rows):
        E += e[i] * e[i]
    return rows, 0.5 * E


#: Bounds of the secondary goals' null-space step, as multiples of the primary step's length
#: (`null_space_step`, `shrink_secondary_bound`): a search starts at the largest and shrinks
#: the bound 4× after each step that failed to cut the primary cost, down to the smallest,
#: and after one more such step to 0 (the secondary goals are then off for the rest of the
#: search). Measured (10 seeds, lm): a fixed 0.5 solved every humanoid reach step and pinch
#: but let a slow lift drift (0.05 m where the unbounded step kept it within 2e-5 m, [R 4.3]);
#: a fixed 2 or more left humanoid steps unsolved; starting at 8 does both. Held at 0.5, they
#: kept three touch goals of a hand from converging near the seed 0.3° away (the stalls
#: restarted the search far off, joints jumping by 2.9 rad); switched off, 14 iterations.
SECONDARY_RATIO_MAX = 8.0
SECONDARY_RATIO_MIN = 0.5


@njit(inline="always", **JIT)
def shrink_secondary_bound(ratio, E, E_prev, stall_ratio):
    """(ratio, E_prev) after a step that reached primary cost E from E_prev: if E did not fall
    below stall_ratio·E_prev while the bound is above 0, the secondary goals may have caused
    it: the bound shrinks 4× (below SECONDARY_RATIO_MIN: to 0) and E_prev comes back as ∞,
    so that the step does not count as a stall (nor lead to a restart). A search without
    secondary goals starts with ratio = 0 and never enters here."""
    if E > stall_ratio * E_prev and ratio > 0.0:
        return (0.25 * ratio if ratio > SECONDARY_RATIO_MIN else 0.0), np.inf
    return ratio, E_prev


@njit(**JIT)
def null_space_scratch(R, n):
    """Scratch of `null_space_step` for up to R primary and R secondary rows and n variables."""
    m = max(R, n)
    return (np.empty((R, R)), np.empty((R, R)), np.empty(R), np.empty((R, n)), np.empty((n, n)), np.empty((R, n)),
            np.empty(R), np.empty((m, m)), np.empty(m), np.empty(n))


@njit(**KERNEL)
def null_space_step(Je, rows, Js, es, srows, n, lam, mu, ratio, dq, work):
    """Add to the primary step dq the secondary task's best step in the primary null space
    (task priority): N = I − J⁺J with J⁺ = Jᵀ(JJᵀ + λI)⁻¹, then
    z = argmin ‖Js·(dq + N·z) + es‖² + μ‖z‖² and dq ← dq + s·N·z, the scale s ≤ 1 keeping
    ‖s·N·z‖ ≤ ratio·‖dq‖. work: `null_space_scratch`.

    Why the bound: N is the null space of the primary Jacobian, not of the primary goals;
    a null-space step of length d still moves them by O(d²) (curvature). Unbounded, the
    Gauss–Newton z grew to radians near a solution (μ → 0, Js·N nearly singular) and its
    curvature error cancelled the primary step's progress — the searches stalled with the
    primary goals millimetres off [R 3.7.3 describes the same standoff for selection].
    Bounded by the primary step, that error is O(‖dq‖²), below the primary's own
    quadratic convergence, and the secondary goals steer while the primary ones converge."""
    if srows == 0:
        return
    A, F, col, X, N, B, rhs, M, b, z = work
    for i in range(rows):
        for j in range(i + 1):
            s = 0.0
            for k in range(n):
                s += Je[i, k] * Je[j, k]
            A[i, j] = s
            A[j, i] = s
        A[i, i] += lam
    for k in range(n):  # X = (JJᵀ + λI)⁻¹ J, column by column
        for i in range(rows):
            col[i] = Je[i, k]
            for j in range(rows):
                F[i, j] = A[i, j]
        if not cholesky_solve(F, col, rows):
            return
        for i in range(rows):
            X[i, k] = col[i]
    for i in range(n):
        for j in range(n):
            s = 1.0 if i == j else 0.0
            for k in range(rows):
                s -= Je[k, i] * X[k, j]
            N[i, j] = s
    for i in range(srows):
        s = es[i]
        for k in range(n):
            s += Js[i, k] * dq[k]
        rhs[i] = s
        for j in range(n):
            t = 0.0
            for k in range(n):
                t += Js[i, k] * N[k, j]
            B[i, j] = t
    if not damped_step(B, rhs, srows, n, mu, M, b, z):
        return
    primary = 0.0
    for i in range(n):
        primary += dq[i] * dq[i]
    secondary = 0.0
    for i in range(n):  # b (scratch of damped_step, ≥ n entries) now holds N·z
        s = 0.0
        for k in range(n):
            s += N[i, k] * z[k]
        b[i] = s
        secondary += s * s
    scale = 1.0
    if secondary > ratio * ratio * primary:
        scale = ratio * np.sqrt(primary / secondary)
    for i in range(n):
        dq[i] += scale * b[i]
