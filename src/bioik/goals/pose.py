"""Position, orientation and pose goals [R 3.8, eqs. 3.4–3.6].

Orientation residual: r = q_E − s·q_G with s = sign(q_E·q_G), so that
‖r‖² = min(‖q_G − q_E‖², ‖q_G + q_E‖²) — the measure BioIK 2 found best [R Table 3.14].
"""

from __future__ import annotations

import math
from dataclasses import KW_ONLY, dataclass

import numpy as np
from numba import njit

from bioik._kernel_cache import compiled_entry
from bioik.errors import GoalError
from bioik.goals.base import N_PARAMS, ORIENTATION, POSE, POSITION, Goal, finite_vector, read_only
from bioik.kinematics.frames import JIT, qmul, qrot, quat_from_matrix


def goal_quaternion(rotation, goal: str) -> np.ndarray:
    """A unit quaternion (w, x, y, z) from a 3×3 rotation matrix or a quaternion."""
    try:
        r = np.asarray(rotation, dtype=float)
    except (TypeError, ValueError, OverflowError):  # not numbers (OverflowError: an int past the float range)
        raise GoalError(f"{goal}: rotation must be a 3×3 matrix or a quaternion w, x, y, z; got {rotation!r}") from None
    if r.shape == (3, 3):
        if not np.all(np.isfinite(r)):
            raise GoalError(f"{goal}: rotation contains NaN or inf")
        if np.abs(r @ r.T - np.eye(3)).max() > 1e-6 or np.linalg.det(r) < 0:
            raise GoalError(f"{goal}: rotation matrix is not orthonormal with det +1")
        return quat_from_matrix(r)
    q = finite_vector(r, 4, "rotation (3×3 matrix or quaternion w, x, y, z)", goal)
    n = np.linalg.norm(q)
    if abs(n - 1.0) > 1e-6:
        raise GoalError(f"{goal}: quaternion must have unit norm; got norm {n:.6g}")
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


@njit(**JIT)
def _pose_rows(T, rows, rotation_scale):
    """`_pose_row` of each pose T[i] into rows[i]: (index, code) of the first bad pose, or (−1, 0)."""
    for i in range(T.shape[0]):
        code = _pose_row(T[i], rows[i], rotation_scale)
        if code:
            return i, code
    return -1, 0


_F64 = np.dtype(np.float64)  # the native float64 dtype (a singleton)

#: How `PoseGoal` calls `_pose_row`: its compiled entry once loaded (the call always passes
#: the same types), saving numba's dispatch in a constructor users call in loops.
_POSE_ROW = [_pose_row]

_POSE_ERRORS = {
    1: "pose contains NaN or inf",
    2: "pose's last row must be [0, 0, 0, 1]",
    3: "pose's rotation part is not orthonormal with determinant +1",
}


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


def _reassigned(goal: PositionGoal | OrientationGoal, target) -> bool:
    """Whether the goal's `target` (its position or rotation), weight, link, secondary or
    tolerance is not the object its last check saw: identity tests only, as `params` runs
    this in every solve."""
    checked_target, weight, link, secondary, tolerance = goal._checked
    return (target is not checked_target or goal.weight is not weight or goal.link is not link
            or goal.secondary is not secondary or goal.tolerance is not tolerance)


@dataclass
class PositionGoal(Goal):
    """Bring the origin of `link` to `position` (base frame): c = ‖p_E − p_G‖².

    Args:
        link: the link whose origin is placed.
        position: the goal position (3,), base frame.
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: position error (m) that counts as met (None: the solve's `position_tolerance`).
    """

    link: str
    position: np.ndarray
    _: KW_ONLY
    weight: float = 1.0
    secondary: bool = False
    tolerance: float | None = None
    kind = POSITION
    size = 3
    target_field = "position"
    kernel = position_residual
    watch_fields = False  # `refresh` is its own, cheaper: `params` runs it in every solve

    def __post_init__(self):
        super().__post_init__()
        self.position = finite_vector(self.position, 3, "position", "PositionGoal")
        self._checked = (self.position, self.weight, self.link, self.secondary, self.tolerance)

    def refresh(self) -> None:
        """Validate again if a field was reassigned since the last check."""
        if _reassigned(self, self.position):
            self.__post_init__()

    @property
    def links(self):
        return (self.link,)

    def params(self, robot):
        self.refresh()
        p = np.zeros(N_PARAMS)
        p[0:3] = self.position
        return p


@dataclass
class OrientationGoal(Goal):
    """Match the orientation of `link` (3×3 matrix or quaternion w, x, y, z).

    Args:
        link: the link to orient.
        rotation: the goal orientation, a 3×3 rotation matrix or a unit quaternion (w, x, y, z),
            base frame.
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: rotation angle (rad) that counts as met (None: the solve's
            `rotation_tolerance`).
    """

    link: str
    rotation: np.ndarray
    _: KW_ONLY
    weight: float = 1.0
    secondary: bool = False
    tolerance: float | None = None
    kind = ORIENTATION
    size = 4
    target_field = "rotation"
    kernel = orientation_residual
    watch_fields = False  # `refresh` is its own, cheaper: `params` runs it in every solve

    def __post_init__(self):
        super().__post_init__()
        self.quaternion = goal_quaternion(self.rotation, "OrientationGoal")
        self.rotation = read_only(np.array(self.rotation, dtype=float))
        self._checked = (self.rotation, self.weight, self.link, self.secondary, self.tolerance)

    def refresh(self) -> None:
        """Validate and convert again if a field was reassigned since the last check."""
        if _reassigned(self, self.rotation):
            self.__post_init__()

    @property
    def links(self):
        return (self.link,)

    def params(self, robot):
        self.refresh()
        p = np.zeros(N_PARAMS)
        p[3:7] = self.quaternion
        return p


@dataclass
class PoseGoal(Goal):
    """Match position and orientation of `link` to a 4×4 `pose`:
    c = ‖p_E − p_G‖² + min(‖q_G − q_E‖², ‖q_G + q_E‖²)·s_r² [R eq. 3.6].

    Args:
        link: the link to place.
        pose: the goal pose, a 4×4 rigid transform in the base frame.
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        rotation_scale: s_r, the rotation term's weight relative to the position term.
        secondary: steer the search without deciding success (default False).
        position_tolerance: position error (m) that counts as met (None: the solve's).
        rotation_tolerance: rotation angle (rad) that counts as met (None: the solve's).
    """

    link: str
    pose: np.ndarray
    _: KW_ONLY
    weight: float = 1.0
    rotation_scale: float = 0.5
    secondary: bool = False
    position_tolerance: float | None = None
    rotation_tolerance: float | None = None
    kind = POSE
    size = 7
    target_field = "pose"
    kernel = pose_residual
    watch_fields = False  # `refresh` is its own, cheaper: `params` runs it in every solve

    def __post_init__(self):
        # validation and conversion in one compiled call: users build these in loops
        rs = self.rotation_scale
        if type(rs) is not float:
            try:
                rs = float(rs) if isinstance(rs, (int, np.integer, np.floating)) else math.nan
            except OverflowError:  # an int past the float range
                rs = math.inf
        if not 0 < rs < math.inf:
            raise GoalError(f"PoseGoal: rotation_scale must be a finite number > 0; got {self.rotation_scale!r}")
        if not (type(self.weight) is float and self.weight == 1.0 and self.position_tolerance is None
                and self.rotation_tolerance is None and type(self.secondary) is bool and type(self.link) is str):
            super().__post_init__()  # anything but the defaults (and a plain link name) is checked there
        # a C-ordered float64 copy, so later changes to the caller's array do not leak in
        # (`copy` is a third of the time of `np.array(x, dtype=float)` on the common input)
        T = self.pose
        try:
            T = T.copy() if type(T) is np.ndarray and T.dtype is _F64 else np.array(T, dtype=float)
        except (TypeError, ValueError, OverflowError):  # not numbers (OverflowError: an int past the float range)
            raise GoalError(f"PoseGoal: pose must be a 4×4 homogeneous matrix; got {T!r}") from None
        if T.shape != (4, 4):
            raise GoalError(f"PoseGoal: pose must be a 4×4 homogeneous matrix; got shape {T.shape}")
        row = np.empty(N_PARAMS)
        code = _POSE_ROW[0](T, row, rs)
        if _POSE_ROW[0] is _pose_row:
            _POSE_ROW[0] = compiled_entry(_pose_row)
        if code:
            raise GoalError(f"PoseGoal: {_POSE_ERRORS[code]}")
        self._row = row
        self.pose = read_only(T)
        self._checked = (self.pose, self.rotation_scale, self.weight, self.link, self.secondary, self.position_tolerance,
                         self.rotation_tolerance)

    def refresh(self) -> None:
        """Validate and convert again if a field was reassigned since the last check (identity tests)."""
        pose, rotation_scale, weight, link, secondary, position_tolerance, rotation_tolerance = self._checked
        if (self.pose is not pose or self.rotation_scale is not rotation_scale or self.weight is not weight or self.link is not link
                or self.secondary is not secondary or self.position_tolerance is not position_tolerance
                or self.rotation_tolerance is not rotation_tolerance):
            self.__post_init__()

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
        self.refresh()
        return self._row

    def target_rows(self, robot, targets) -> np.ndarray:
        """The rows for N poses (an array (N, 4, 4)) in one compiled loop."""
        self.refresh()
        try:
            T = np.ascontiguousarray(targets, dtype=float)
        except (TypeError, ValueError, OverflowError):
            raise GoalError("PoseGoal targets must be N 4×4 poses (an array (N, 4, 4))") from None
        if not T.flags.writeable:  # a read-only array would compile the loop again for its type
            T = T.copy()
        if T.ndim != 3 or T.shape[1:] != (4, 4):
            raise GoalError(f"PoseGoal targets must be N 4×4 poses (an array (N, 4, 4)); got shape {T.shape}")
        rows = np.zeros((len(T), N_PARAMS))
        i, code = _pose_rows(T, rows, self._row[7])
        if code:
            raise GoalError(f"PoseGoal targets[{i}]: {_POSE_ERRORS[code]}")
        return rows


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


@njit(inline="always", **JIT)
def pose_errors(kind, p, f, out):
    """Position error (goal frame) and rotation vector of goal⁻¹·current into out (6,): what
    the acceptance test measures."""
    gw, gx, gy, gz = p[3], p[4], p[5], p[6]
    if kind == POSITION:
        gw, gx, gy, gz = 1.0, 0.0, 0.0, 0.0
    dx, dy, dz = f[0] - p[0], f[1] - p[1], f[2] - p[2]
    if kind == ORIENTATION:
        dx = dy = dz = 0.0
    ex, ey, ez = qrot(gw, -gx, -gy, -gz, dx, dy, dz)
    out[0], out[1], out[2] = ex, ey, ez
    if kind == POSITION:
        out[3] = out[4] = out[5] = 0.0
        return
    w, x, y, z = qmul(gw, -gx, -gy, -gz, f[3], f[4], f[5], f[6])
    if w < 0.0:
        w, x, y, z = -w, -x, -y, -z
    s = np.sqrt(x * x + y * y + z * z)
    angle = 2.0 * np.arctan2(s, w)
    k = angle / s if s > 1e-300 else 2.0
    out[3], out[4], out[5] = k * x, k * y, k * z


@njit(inline="always", **JIT)
def pose_met(e, tp, tr, mode):
    """(position error, rotation angle, met) of a pose-type goal from its error vector e
    (position error and rotation vector, `pose_errors`), tolerances tp, tr and `mode`."""
    dp = np.sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2])
    dr = np.sqrt(e[3] * e[3] + e[4] * e[4] + e[5] * e[5])
    if mode == 1:
        met = True
        for k in range(3):
            if abs(e[k]) > tp or abs(e[3 + k]) > tr:
                met = False
    elif mode == 2:
        met = max(dp, dr) <= tp
    else:
        met = dp <= tp and dr <= tr
    return dp, dr, met


@njit(inline="always", **JIT)
def reduced_pose_residual(g, has_p, has_r, wp, wr, r0, px, py, pz, qw, qx, qy, qz, e):
    """E = ½‖r‖² of the weighted residual of goal row g (position rows with weight wp,
    quaternion rows q_E − sign(q_E·q_G)·q_G with weight wr), and into e the reduced
    residual the step works on: the position rows, then from row r0 the quaternion part
    as −wr·sign·vec(q_G ⊗ q_E*).

    Why reduced: the quaternion rows' Jacobian ½·(0, J_ω·dq) ⊗ q_E spans only the tangent
    space at q_E, so writing the quaternion error e_q = ½·(0, u) ⊗ q_E + α·q_E splits
    ‖J_q·dq + e_q‖² into ¼‖w·J_ω·dq + u‖² + α²: a damped least-squares step on the rows
    ½·w·J_ω with residual ½u = −w·sign·vec(q_G ⊗ q_E*) is exactly the step on the 7-row
    pose residual, with a 6×6 system (`bioik.solvers.core.pose_query`)."""
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
