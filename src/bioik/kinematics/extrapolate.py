"""Jacobian-extrapolated forward kinematics, as BioIK 2 uses inside a step [R 3.7.10].

From one exact FK at q0 and the Jacobians of the link frames there, the frames at
q0 + dq are predicted to first order: p ≈ p0 + J_v·dq, and the orientation is turned by
the rotation vector ω = J_ω·dq via the quaternion derivative q ≈ normalise(q0 + ½ ω ⊗ q0).
The error is O(‖dq‖²), far cheaper than exact FK for the many small mutations of a step.
`curvature` gives the second-order position terms that BioIK 2's reference implementation
adds to the prediction, one per variable (no cross terms).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.kinematics.frames import JIT, qmul


@njit(inline="always", **JIT)
def extrapolate_frame(frames0, o, J, dq, out, k):
    """Predicted frame of link o (frames0[o], Jacobian rows 6o..6o+5) at offset dq → out[k]."""
    rows = 6 * o
    dx = dy = dz = wx = wy = wz = 0.0
    for v in range(dq.shape[0]):
        d = dq[v]
        if d != 0.0:
            dx += J[rows + 0, v] * d
            dy += J[rows + 1, v] * d
            dz += J[rows + 2, v] * d
            wx += J[rows + 3, v] * d
            wy += J[rows + 4, v] * d
            wz += J[rows + 5, v] * d
    out[k, 0] = frames0[o, 0] + dx
    out[k, 1] = frames0[o, 1] + dy
    out[k, 2] = frames0[o, 2] + dz
    qw, qx, qy, qz = frames0[o, 3], frames0[o, 4], frames0[o, 5], frames0[o, 6]
    rw, rx, ry, rz = qmul(0.0, wx, wy, wz, qw, qx, qy, qz)
    w = qw + 0.5 * rw
    x = qx + 0.5 * rx
    y = qy + 0.5 * ry
    z = qz + 0.5 * rz
    inv = 1.0 / np.sqrt(w * w + x * x + y * y + z * z)
    out[k, 3], out[k, 4], out[k, 5], out[k, 6] = w * inv, x * inv, y * inv, z * inv


@njit(**JIT)
def extrapolate_frames(frames0, J, dQ, out):
    """Frames of O links for M offsets: frames0 (O, 7), J (6·O, n), dQ (M, n) → out (M, O, 7)."""
    for m in range(dQ.shape[0]):
        for o in range(frames0.shape[0]):
            extrapolate_frame(frames0, o, J, dQ[m], out[m], o)


@njit(inline="always", **JIT)
def curvature(J0, Q0):
    """Q0 (6·O, n) ← the second-order position terms of the links whose Jacobians are J0
    (6·O, n): moving variable v alone by Δ moves link o by J0[6o:6o+3, v]·Δ +
    Q0[6o:6o+3, v]·Δ² + O(Δ³), with Q0 = −½·(∂p/∂v × ∂ω/∂v) — for a revolute joint −½ times
    the link's offset from the joint axis (the pull of the circle it moves on, which a
    first-order model misses at a stretched elbow), 0 for a prismatic one. Rotation rows:
    0."""
    for o in range(J0.shape[0] // 6):
        k = 6 * o
        for v in range(J0.shape[1]):
            px, py, pz = J0[k, v], J0[k + 1, v], J0[k + 2, v]
            ax, ay, az = J0[k + 3, v], J0[k + 4, v], J0[k + 5, v]
            Q0[k, v] = -0.5 * (py * az - pz * ay)
            Q0[k + 1, v] = -0.5 * (pz * ax - px * az)
            Q0[k + 2, v] = -0.5 * (px * ay - py * ax)
            Q0[k + 3, v] = 0.0
            Q0[k + 4, v] = 0.0
            Q0[k + 5, v] = 0.0
