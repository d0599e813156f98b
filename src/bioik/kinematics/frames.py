"""Frames as position + unit quaternion (w, x, y, z): compiled helpers and API conversions.

Kernels store a frame as 7 floats `[px, py, pz, qw, qx, qy, qz]`; the public API speaks
4×4 homogeneous matrices. The scalar helpers here are tiny `njit` functions that numba
inlines into the kernels that call them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

JIT = dict(cache=True, nogil=True, error_model="numpy")

#: For the hot kernels that never allocate (FK, the acceptance test, a BioIK generation,
#: a line search, an LM attempt): compiled without numba's reference counting, their
#: array arguments and views cost no atomic increments. A BioIK 2 step made ≈ 880 of
#: them, a sixth of its time; the arrays they read are owned by the caller for the call.
KERNEL = dict(JIT, _nrt=False)

#: Flags and indices for calls from one kernel to another. numba types a literal `False`
#: or `0` argument as a literal and compiles the callee once per literal value: the goal
#: kernels were compiled twice (≈ 35 s each, cold) for `with_jac` False and True. These
#: numpy scalars are typed as plain bool and int64, so every caller shares one compile.
NO, YES, ZERO = np.bool_(False), np.bool_(True), np.int64(0)


@njit(inline="always", **JIT)
def qmul(aw, ax, ay, az, bw, bx, by, bz):
    """Hamilton product a ⊗ b."""
    return (
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    )


@njit(inline="always", **JIT)
def qrot(w, x, y, z, vx, vy, vz):
    """Rotate vector v by unit quaternion q: v + 2w(u×v) + 2u×(u×v), u = (x, y, z)."""
    tx = 2.0 * (y * vz - z * vy)
    ty = 2.0 * (z * vx - x * vz)
    tz = 2.0 * (x * vy - y * vx)
    return (
        vx + w * tx + y * tz - z * ty,
        vy + w * ty + z * tx - x * tz,
        vz + w * tz + x * ty - y * tx,
    )


@njit(inline="always", **JIT)
def qzaxis(w, x, y, z):
    """Third column of the rotation matrix of q (the frame's z axis)."""
    return 2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)


@njit(inline="always", **JIT)
def frame_to_matrix(f, out):
    """Write frame f (7,) as a 4×4 homogeneous matrix into out."""
    w, x, y, z = f[3], f[4], f[5], f[6]
    out[0, 0] = 1.0 - 2.0 * (y * y + z * z)
    out[0, 1] = 2.0 * (x * y - w * z)
    out[0, 2] = 2.0 * (x * z + w * y)
    out[1, 0] = 2.0 * (x * y + w * z)
    out[1, 1] = 1.0 - 2.0 * (x * x + z * z)
    out[1, 2] = 2.0 * (y * z - w * x)
    out[2, 0] = 2.0 * (x * z - w * y)
    out[2, 1] = 2.0 * (y * z + w * x)
    out[2, 2] = 1.0 - 2.0 * (x * x + y * y)
    out[0, 3] = f[0]
    out[1, 3] = f[1]
    out[2, 3] = f[2]
    out[3, 0] = 0.0
    out[3, 1] = 0.0
    out[3, 2] = 0.0
    out[3, 3] = 1.0


def quat_from_matrix(R: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z) with w ≥ 0 of a 3×3 rotation matrix (Shepperd's method)."""
    R = np.asarray(R, dtype=float)
    t = np.trace(R)
    if t > 0:
        s = 2.0 * np.sqrt(1.0 + t)
        q = np.array([0.25 * s, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s])
    else:
        i = int(np.argmax(np.diag(R)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * np.sqrt(1.0 + R[i, i] - R[j, j] - R[k, k])
        q = np.empty(4)
        q[0] = (R[k, j] - R[j, k]) / s
        q[1 + i] = 0.25 * s
        q[1 + j] = (R[j, i] + R[i, j]) / s
        q[1 + k] = (R[k, i] + R[i, k]) / s
    q /= np.linalg.norm(q)
    return -q if q[0] < 0 else q


def matrix_from_quat(q: np.ndarray) -> np.ndarray:
    """3×3 rotation matrix of quaternion (w, x, y, z) (normalised first)."""
    w, x, y, z = np.asarray(q, dtype=float) / np.linalg.norm(q)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def frame_from_matrix(T: np.ndarray) -> np.ndarray:
    """7-float frame of a 4×4 rigid transform."""
    return np.concatenate([T[:3, 3], quat_from_matrix(T[:3, :3])])


def matrix_from_frame(f: np.ndarray) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = matrix_from_quat(f[3:7])
    T[:3, 3] = f[:3]
    return T


def rotation_about(axis: np.ndarray, angle: float) -> np.ndarray:
    """3×3 rotation by `angle` about unit `axis` (Rodrigues)."""
    x, y, z = axis
    K = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def align_z(axis: np.ndarray) -> np.ndarray:
    """A rotation matrix whose z column is the unit vector `axis`."""
    z = np.asarray(axis, float)
    a, b, c = (float(v) for v in z)
    x = np.array([0.0, -c, b]) if abs(a) < 0.9 else np.array([c, 0.0, -a])  # (1,0,0) × z or (0,1,0) × z
    x /= np.linalg.norm(x)
    p, q, r = (float(v) for v in x)
    return np.array([[p, b * r - c * q, a], [q, c * p - a * r, b], [r, a * q - b * p, c]])
