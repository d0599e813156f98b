"""The neural solvers' inputs, computed by one compiled code for training and for search.

- `joint_features`: joint values scaled to [−1, 1] by the sampling limits, their sines
  and cosines.
- `goal_difference` (neural2): goal minus tip in the robot's base frame: the position
  difference (m) and the rotation vector of q_G ⊗ q_E* (rad). The base frame, because
  the network also sees the joint values: the map (q, Δx) ↦ Δq it has to learn is then
  the local inverse of the base-frame Jacobian, Δq ≈ J(q)⁺·Δx, with no further frame
  change to learn (`bioik.solvers.neural.train`).
- `pose_features` (neural): the goal position and the first two columns of its rotation
  matrix (a continuous encoding of the orientation, unlike a quaternion's sign).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.kinematics.frames import JIT, qmul

#: Number of goal-difference values (position, rotation vector) and of pose inputs.
DIFFERENCE = 6
POSE = 9


#: Inputs per joint value (`joint_features`).
PER_JOINT = 3


@njit(inline="always", **JIT)
def joint_features(q, slo, shi, x):
    """x[:3n] ← q scaled to [−1, 1] by the sampling box [slo, shi], then sin q and cos q:
    FK and its Jacobian are sums of products of those, which a small tanh network fits far
    more easily than the angles (and a full-turn joint's pose repeats with them)."""
    n = q.shape[0]
    for i in range(n):
        x[i] = (2.0 * q[i] - slo[i] - shi[i]) / (shi[i] - slo[i])
        x[n + i] = np.sin(q[i])
        x[2 * n + i] = np.cos(q[i])


@njit(inline="always", **JIT)
def goal_difference(g, px, py, pz, qw, qx, qy, qz, x, k):
    """x[k:k+6] ← goal row g (position, quaternion w x y z) minus the frame: position
    difference, then the rotation vector of q_G ⊗ q_E*, base frame."""
    x[k], x[k + 1], x[k + 2] = g[0] - px, g[1] - py, g[2] - pz
    dw, dx, dy, dz = qmul(g[3], g[4], g[5], g[6], qw, -qx, -qy, -qz)
    if dw < 0.0:  # the shorter way round
        dw, dx, dy, dz = -dw, -dx, -dy, -dz
    s = np.sqrt(dx * dx + dy * dy + dz * dz)
    f = 2.0 * np.arctan2(s, dw) / s if s > 1e-12 else 2.0
    x[k + 3], x[k + 4], x[k + 5] = f * dx, f * dy, f * dz


@njit(inline="always", **JIT)
def pose_features(g, x):
    """x[:9] ← goal row g as position and the first two columns of its rotation matrix."""
    w, a, b, c = g[3], g[4], g[5], g[6]
    x[0], x[1], x[2] = g[0], g[1], g[2]
    x[3], x[4], x[5] = 1.0 - 2.0 * (b * b + c * c), 2.0 * (a * b + w * c), 2.0 * (a * c - w * b)
    x[6], x[7], x[8] = 2.0 * (a * b - w * c), 1.0 - 2.0 * (a * a + c * c), 2.0 * (b * c + w * a)


@njit(**JIT)
def pose_inputs(G, X):
    """X[i] ← neural's inputs for goal row G[i]."""
    for i in range(G.shape[0]):
        pose_features(G[i], X[i])
