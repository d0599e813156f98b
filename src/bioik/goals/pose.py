"""Position, orientation and pose goals [R 3.8, eqs. 3.4–3.6].

Orientation residual: r = q_E − s·q_G with s = sign(q_E·q_G), so that
‖r‖² = min(‖q_G − q_E‖², ‖q_G + q_E‖²) — the measure BioIK 2 found best [R Table 3.14].
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from bioik._kernel_cache import compiled_entry
from bioik.goals.base import N_PARAMS, ORIENTATION, POSE, POSITION, Goal, finite_vector, read_only
from bioik.kinematics.frames import JIT, qmul, quat_from_matrix


def goal_quaternion(rotation, goal: str) -> np.ndarray:
    """A unit quaternion (w, x, y, z) from a 3×3 rotation matrix or a quaternion."""
    r = np.asarray(rotation, dtype=float)
    if r.shape == (3, 3):
        if not np.all(np.isfinite(r)):
            raise ValueError(f"{goal}: rotation contains NaN or inf")
        if np.abs(r @ r.T - np.eye(3)).max() > 1e-6 or np.linalg.det(r) < 0:
            raise ValueError(f"{goal}: rotation matrix is not orthonormal with det +1")
        return quat_from_matrix(r)
    q = finite_vector(r, 4, "rotation (3×3 matrix or quaternion w, x, y, z)", goal)
    n = np.linalg.norm(q)
    if abs(n - 1.0) > 1e-6:
        raise ValueError(f"{goal}: quaternion must have unit norm; got norm {n:.6g}")
    return q / n


@njit(**JIT)
def _pose_row(T, row, rotation_scale):
    """The pose goal's parameter row: position and quaternion (w ≥ 0) of a 4×4 rigid
    transform into row[0:7], the rotation scale into row[7], zeros after.

    Returns 0, or 1: NaN/inf, 2: last row not [0 0 0 1], 3: rotation not orthonormal/det +1.
    """
    for i in range(4):
        for j in range(4):
            if not np.isfinite(T[i, j]):
                return 1
    if abs(T[3, 0]) + abs(T[3, 1]) + abs(T[3, 2]) + abs(T[3, 3] - 1.0) > 1e-9:
        return 2
    for i in range(3):
        for j in range(3):
            d = T[0, i] * T[0, j] + T[1, i] * T[1, j] + T[2, i] * T[2, j] - (1.0 if i == j else 0.0)
            if abs(d) > 1e-6:
                return 3
    det = (
        T[0, 0] * (T[1, 1] * T[2, 2] - T[1, 2] * T[2, 1])
        - T[0, 1] * (T[1, 0] * T[2, 2] - T[1, 2] * T[2, 0])
        + T[0, 2] * (T[1, 0] * T[2, 1] - T[1, 1] * T[2, 0])
    )
    if det < 0.0:
        return 3
    t = T[0, 0] + T[1, 1] + T[2, 2]
    if t > 0.0:
        s = 2.0 * np.sqrt(1.0 + t)
        w, x, y, z = 0.25 * s, (T[2, 1] - T[1, 2]) / s, (T[0, 2] - T[2, 0]) / s, (T[1, 0] - T[0, 1]) / s
    elif T[0, 0] > T[1, 1] and T[0, 0] > T[2, 2]:
        s = 2.0 * np.sqrt(1.0 + T[0, 0] - T[1, 1] - T[2, 2])
        w, x, y, z = (T[2, 1] - T[1, 2]) / s, 0.25 * s, (T[0, 1] + T[1, 0]) / s, (T[0, 2] + T[2, 0]) / s
    elif T[1, 1] > T[2, 2]:
        s = 2.0 * np.sqrt(1.0 + T[1, 1] - T[0, 0] - T[2, 2])
        w, x, y, z = (T[0, 2] - T[2, 0]) / s, (T[0, 1] + T[1, 0]) / s, 0.25 * s, (T[1, 2] + T[2, 1]) / s
    else:
        s = 2.0 * np.sqrt(1.0 + T[2, 2] - T[0, 0] - T[1, 1])
        w, x, y, z = (T[1, 0] - T[0, 1]) / s, (T[0, 2] + T[2, 0]) / s, (T[1, 2] + T[2, 1]) / s, 0.25 * s
    k = 1.0 / np.sqrt(w * w + x * x + y * y + z * z)
    if w < 0.0:
        k = -k
    row[0], row[1], row[2] = T[0, 3], T[1, 3], T[2, 3]
    row[3], row[4], row[5], row[6] = w * k, x * k, y * k, z * k
    row[7] = rotation_scale
    row[8:] = 0.0
    return 0


_F64 = np.dtype(np.float64)  # the native float64 dtype (a singleton)

#: How `PoseGoal` calls `_pose_row`: its compiled entry once loaded (the call always passes
#: the same types), saving numba's dispatch in a constructor users call in loops.
_POSE_ROW = [_pose_row]

_POSE_ERRORS = {
    1: "pose contains NaN or inf",
    2: "pose's last row must be [0, 0, 0, 1]",
    3: "pose's rotation part is not orthonormal with determinant +1",
}


@dataclass
class PositionGoal(Goal):
    """Bring the origin of `link` to `position` (base frame): c = ‖p_E − p_G‖²."""

    link: str
    position: np.ndarray
    weight: float = 1.0
    secondary: bool = False
    tolerance: float | None = None
    kind = POSITION
    size = 3
    watch_fields = False  # `params` checks the position itself

    def __post_init__(self):
        super().__post_init__()
        self.position = self._position = finite_vector(self.position, 3, "position", "PositionGoal")

    @property
    def links(self):
        return (self.link,)

    def params(self, robot):
        if self.position is not self._position:  # reassigned: validate again
            self.__post_init__()
        p = np.zeros(N_PARAMS)
        p[0:3] = self.position
        return p


@dataclass
class OrientationGoal(Goal):
    """Match the orientation of `link` (3×3 matrix or quaternion w, x, y, z)."""

    link: str
    rotation: np.ndarray
    weight: float = 1.0
    secondary: bool = False
    tolerance: float | None = None
    kind = ORIENTATION
    size = 4
    watch_fields = False  # `params` checks the rotation itself

    def __post_init__(self):
        super().__post_init__()
        self.quaternion = goal_quaternion(self.rotation, "OrientationGoal")
        self.rotation = self._rotation = read_only(np.array(self.rotation, dtype=float))

    @property
    def links(self):
        return (self.link,)

    def params(self, robot):
        if self.rotation is not self._rotation:  # reassigned: validate and convert again
            self.__post_init__()
        p = np.zeros(N_PARAMS)
        p[3:7] = self.quaternion
        return p


@dataclass
class PoseGoal(Goal):
    """Match position and orientation of `link` to a 4×4 `pose`:
    c = ‖p_E − p_G‖² + min(‖q_G − q_E‖², ‖q_G + q_E‖²)·s_r² [R eq. 3.6]."""

    link: str
    pose: np.ndarray
    weight: float = 1.0
    rotation_scale: float = 0.5
    secondary: bool = False
    position_tolerance: float | None = None
    rotation_tolerance: float | None = None
    kind = POSE
    size = 7
    watch_fields = False  # `params` checks the pose and rotation scale itself

    def __post_init__(self):
        # validation and conversion in one compiled call: users build these in loops
        rs = self.rotation_scale
        if type(rs) is not float:
            rs = float(rs) if isinstance(rs, (int, np.integer, np.floating)) else math.nan
        if not 0 < rs < math.inf:
            raise ValueError(f"PoseGoal: rotation_scale must be a finite number > 0; got {self.rotation_scale!r}")
        if self.weight != 1.0 or self.position_tolerance is not None or self.rotation_tolerance is not None:
            super().__post_init__()
        # a C-ordered float64 copy, so later changes to the caller's array do not leak in
        # (`copy` is a third of the time of `np.array(x, dtype=float)` on the common input)
        T = self.pose
        T = T.copy() if type(T) is np.ndarray and T.dtype is _F64 else np.array(T, dtype=float)
        if T.shape != (4, 4):
            raise ValueError(f"PoseGoal: pose must be a 4×4 homogeneous matrix; got shape {T.shape}")
        row = np.empty(N_PARAMS)
        code = _POSE_ROW[0](T, row, rs)
        if _POSE_ROW[0] is _pose_row:
            _POSE_ROW[0] = compiled_entry(_pose_row)
        if code:
            raise ValueError(f"PoseGoal: {_POSE_ERRORS[code]}")
        self._row = row
        self.pose = self._pose = read_only(T)
        self._rotation_scale = self.rotation_scale

    @property
    def position(self) -> np.ndarray:
        return self._row[0:3].copy()

    @property
    def quaternion(self) -> np.ndarray:
        """Goal orientation as a unit quaternion (w, x, y, z), w ≥ 0."""
        return self._row[3:7].copy()

    @property
    def links(self):
        return (self.link,)

    def params(self, robot):
        if self.pose is not self._pose or self.rotation_scale is not self._rotation_scale:
            self.__post_init__()  # a field was reassigned: validate and convert again
        return self._row


@njit(inline="always", **JIT)
def _orientation(p, f, scale, r, B, row):
    """Rows row..row+3 of r and B (∂r/∂ω) for the orientation part, scaled."""
    gw, gx, gy, gz = p[3], p[4], p[5], p[6]
    w, x, y, z = f[3], f[4], f[5], f[6]
    s = 1.0 if w * gw + x * gx + y * gy + z * gz >= 0.0 else -1.0
    r[row + 0] = scale * (w - s * gw)
    r[row + 1] = scale * (x - s * gx)
    r[row + 2] = scale * (y - s * gy)
    r[row + 3] = scale * (z - s * gz)
    # dq/dω = ½ (0, e_i) ⊗ q for each axis i
    for i in range(3):
        ex = 1.0 if i == 0 else 0.0
        ey = 1.0 if i == 1 else 0.0
        ez = 1.0 if i == 2 else 0.0
        dw, dx, dy, dz = qmul(0.0, ex, ey, ez, w, x, y, z)
        B[row + 0, i] = 0.5 * scale * dw
        B[row + 1, i] = 0.5 * scale * dx
        B[row + 2, i] = 0.5 * scale * dy
        B[row + 3, i] = 0.5 * scale * dz


@njit(**JIT)
def position_residual(p, f, r, A, B):
    for i in range(3):
        r[i] = f[i] - p[i]
        A[i, i] = 1.0
    return 3


@njit(**JIT)
def orientation_residual(p, f, r, A, B):
    _orientation(p, f, 1.0, r, B, 0)
    return 4


@njit(**JIT)
def pose_residual(p, f, r, A, B):
    for i in range(3):
        r[i] = f[i] - p[i]
        A[i, i] = 1.0
    _orientation(p, f, p[7], r, B, 3)
    return 7


@njit(inline="always", **JIT)
def pose_weights(kind, gf, g):
    """(position weight, rotation weight) of goal g's cost: 0 for the part its kind ignores,
    the rotation scale for a pose."""
    wp = 0.0 if kind == ORIENTATION else 1.0
    wr = 0.0 if kind == POSITION else (gf[g, 7] if kind == POSE else 1.0)
    return wp, wr


@njit(inline="always", **JIT)
def pose_cost_to(wp, wr, tx, ty, tz, tw, tqx, tqy, tqz, px, py, pz, w, x, y, z):
    """wp·‖p − t‖² + wr²·min‖q ∓ tq‖²: `pose_cost` against target position t and rotation
    tq, all scalars, so that loops over a population keep the target in registers.
    Branch-free (the sign is a select): such loops compile to SIMD code."""
    ex, ey, ez = px - tx, py - ty, pz - tz
    sgn = 1.0 if w * tw + x * tqx + y * tqy + z * tqz >= 0.0 else -1.0
    qw, qx, qy, qz = w - sgn * tw, x - sgn * tqx, y - sgn * tqy, z - sgn * tqz
    return wp * (ex * ex + ey * ey + ez * ez) + wr * wr * (qw * qw + qx * qx + qy * qy + qz * qz)


@njit(inline="always", **JIT)
def pose_cost(kind, gf, g, px, py, pz, w, x, y, z):
    """Unweighted cost ‖r‖² of position/orientation/pose goal g (row gf[g]) for a frame given
    as scalars, without derivatives: the hot path of the evolutionary solvers. Branch-free
    (weights select the parts): with data-dependent branches numba's code ran 6× slower."""
    wp, wr = pose_weights(kind, gf, g)
    return pose_cost_to(wp, wr, gf[g, 0], gf[g, 1], gf[g, 2], gf[g, 3], gf[g, 4], gf[g, 5], gf[g, 6], px, py, pz, w, x, y, z)
