"""Scan goal [E 8.13]: a camera on a link inspects a surface point, scored by swamp losses."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from typing import ClassVar

import numpy as np
from numba import njit

from bioik.errors import GoalError
from bioik.goals.base import N_PARAMS, SCAN, Goal, finite_number, finite_vector, unit_vector
from bioik.goals.swamp import swamp_b, swamp_rows
from bioik.kinematics.frames import JIT, qrot

#: Swamp parameters of the three criteria: a1 = 1, a2 = 0.1, n = 8 are [E 8.13]'s. [E]
#: leaves the polynomial degree m open; m = 2, as in `bioik.solvers.scipy.groove.SWAMP` and
#: in RangedIK's own swamp, whose parameters (f1, f2, p1) are exactly the three [E] gives:
#: beyond the walls the cost grows as 0.1·x'², quadratic like every other goal's.
A1, A2, M, NW = 1.0, 0.1, 2.0, 8.0
#: b from 1 − exp(−1/b^n) = 0.95 [E 3.1.6]: b = (1/ln 20)^(1/8) ≈ 0.872.
WALL_B = swamp_b(NW)


@njit(inline="always", **JIT)
def scan_geometry(p, f):
    """The three criteria's geometry for the link frame f and parameter row p.

    Returns d = ‖t − p‖, u = (t − p)/d (0 when d = 0), a × u and ‖a × u‖ with the FOV angle
    θ_f = ∠(a, u), and a × n and ‖a × n‖ with the normal angle θ_n = ∠(−a, n), where
    a = R·axis is the camera axis. Angles by atan2(‖cross‖, dot): exact near 0 and π.
    """
    ax, ay, az = qrot(f[3], f[4], f[5], f[6], p[3], p[4], p[5])
    dx, dy, dz = p[0] - f[0], p[1] - f[1], p[2] - f[2]
    d = np.sqrt(dx * dx + dy * dy + dz * dz)
    u = (dx / d, dy / d, dz / d) if d > 0.0 else (0.0, 0.0, 0.0)
    cf = (ay * u[2] - az * u[1], az * u[0] - ax * u[2], ax * u[1] - ay * u[0])
    sf = np.sqrt(cf[0] * cf[0] + cf[1] * cf[1] + cf[2] * cf[2])
    theta_f = np.arctan2(sf, ax * u[0] + ay * u[1] + az * u[2])
    nx, ny, nz = p[6], p[7], p[8]
    cn = (ay * nz - az * ny, az * nx - ax * nz, ax * ny - ay * nx)
    sn = np.sqrt(cn[0] * cn[0] + cn[1] * cn[1] + cn[2] * cn[2])
    theta_n = np.arctan2(sn, -(ax * nx + ay * ny + az * nz))
    return d, u, cf, sf, theta_f, cn, sn, theta_n


@njit(**JIT)
def scan_reach(p, f):
    """The largest criterion in units of its wall, max(|d − standoff|/band, θ_f/fov_angle,
    θ_n/normal_angle): ≤ 1 exactly when the camera is inside all three walls."""
    d, _, _, _, theta_f, _, _, theta_n = scan_geometry(p, f)
    return max(abs(d - p[9]) / p[10], theta_f / p[11], theta_n / p[12])


@njit(inline="always", **JIT)
def _swamp_pair(x, r, A, B, row, gp, gw):
    """Rows row and row + 1 for criterion x (in units of its wall): the swamp's wall and
    polynomial rows (`swamp_rows`); their A and B rows are the rows' slopes times x's
    gradients gp = ∂x/∂p and gw = ∂x/∂ω."""
    w, dw, v, dv = swamp_rows(x, A1, A2, M, NW, WALL_B)
    r[row], r[row + 1] = w, v
    for i in range(3):
        A[row, i], A[row + 1, i] = dw * gp[i], dv * gp[i]
        B[row, i], B[row + 1, i] = dw * gw[i], dv * gw[i]


@njit(**JIT)
def scan_residual(p, f, r, A, B):
    """Six rows, (wall, polynomial) swamp rows of the distance, the FOV angle and the normal
    angle (`ScanGoal`). p: target, axis, normal, then standoff, distance band, FOV angle and
    normal angle (p[9:13])."""
    d, u, cf, sf, theta_f, cn, sn, theta_n = scan_geometry(p, f)
    zero = (0.0, 0.0, 0.0)
    # distance: ∂d/∂p = −u
    k = 1.0 / p[10]
    _swamp_pair((d - p[9]) * k, r, A, B, 0, (-k * u[0], -k * u[1], -k * u[2]), zero)
    # FOV angle: with e = (a × u)/‖a × u‖, ∂θ_f/∂ω = −e and ∂θ_f/∂p = −(e × u)/d
    gp, gw = zero, zero
    if sf > 0.0:
        k = 1.0 / (p[11] * sf)
        gw = (-k * cf[0], -k * cf[1], -k * cf[2])
        k /= d
        gp = (-k * (cf[1] * u[2] - cf[2] * u[1]), -k * (cf[2] * u[0] - cf[0] * u[2]), -k * (cf[0] * u[1] - cf[1] * u[0]))
    _swamp_pair(theta_f / p[11], r, A, B, 2, gp, gw)
    # normal angle: ∂θ_n/∂ω = (a × n)/‖a × n‖
    gw = zero
    if sn > 0.0:
        k = 1.0 / (p[12] * sn)
        gw = (k * cn[0], k * cn[1], k * cn[2])
    _swamp_pair(theta_n / p[12], r, A, B, 4, zero, gw)
    return 6


@dataclass
class ScanGoal(Goal):
    """Inspect the surface point `target` (base frame), whose surface normal is `normal`,
    with a camera at the origin of `link` looking along `axis` (link frame) [E 8.13].

    Three criteria, each scaled by its wall to x' (the swamp's x' = (2x − l − u)/(u − l)
    for walls [l, u] is (x − centre)/half-width):
      distance      d = ‖t − p‖,              x_d = (d − standoff)/distance_band;
      FOV angle     θ_f = ∠(R·axis, t − p),   x_f = θ_f/fov_angle   (target centred in view);
      normal angle  θ_n = ∠(−R·axis, normal), x_n = θ_n/normal_angle (looking down the normal).
    Each is scored by the swamp loss [E 3.1.6] with [E]'s a1 = 1, a2 = 0.1, n = 8, b from
    1 − exp(−1/b⁸) = 0.95, and m = 2 (see `M`): the cost Σ w²(swamp(x') + 1) over the three
    is ≈ 0 inside the walls (swamp + 1 ≤ 3.3·x'⁸ there), ≈ 1.05 at a wall and 1 + 0.1·x'²
    beyond it.

    Residual: two rows per criterion whose squares sum to swamp + 1 (`swamp_rows`): the
    wall row w = √(a1·W) and the polynomial row v = √a2·x'·√W, W = 1 − exp(−(x'/b)⁸). Not
    one row ρ = ±√(swamp + 1), though its square is the same: beyond a wall ρ ≈ √(1 + 0.1x'²)
    is almost flat at 1, and a Gauss–Newton step, aiming at ρ = 0 along its tangent, lands
    at x' ≈ −10/x', across the other wall for 1 < |x'| < 10, and `lm` oscillates (measured,
    40 random starts, 2000 iterations: 22 and 1 solved on the UR5 and ELISE cases of
    tests/goals/test_goal_scan.py with one row, 40 and 40 with two). Split, the
    wall row is flat there (no pull) and v ≈ √a2·x' is linear, so the step aims at the
    centre as for a position error; inside, both rows fall as x'⁴, x'⁵. A sign on ρ would
    change no step (flipping a row and its Jacobian row leaves JᵀJ and Jᵀr alone). Both
    rows are smooth: √W = (x'/b)⁴·√((1 − e^(−s))/s), s = (x'/b)⁸, is analytic, and so are w
    and v in x' (v carries the sign of x_d); for the angles they are smooth in θ² or
    (v ∝ θ⁵) C⁴ at θ = 0, where θ's own gradient changes direction. The residual kinks only
    where the camera faces exactly away (θ = π) or sits on the target (d = 0; there u and
    θ_f count as 0).

    Derivatives (link position p, rotation ω; a = R·axis): w' = √a1·(√W)', v' = √a2·(√W +
    x'(√W)'), (√W)' = 8s·e^(−s)/(2x'√W); ∂d/∂p = −u with u = (t − p)/d; with
    e_f = unit(a × u), ∂θ_f/∂ω = −e_f and ∂θ_f/∂p = −(e_f × u)/d; with e_n = unit(a × n),
    ∂θ_n/∂ω = e_n.

    Defaults are [E]'s walls: the distance within [0.0, 0.02] m, i.e. `standoff` 0.01 ±
    `distance_band` 0.01 (its targets are the tool-tip poses themselves, so the camera comes
    within 2 cm), both angles within [−0.2, 0.2] rad (they are ≥ 0, so ≤ 0.2). For a camera
    with a working distance D, set standoff = D and the band to its depth of field. [E]'s
    normal angle is "between the normal … and the camera", small "for a camera positioned
    above the target": the angle of the view direction is used here; the camera position's
    angle off the normal, ∠(p − t, n), is at most θ_f + θ_n.

    Met (the acceptance test, [E]'s termination criterion) exactly when all three criteria
    are inside their walls: max(|x_d|, x_f, x_n) ≤ 1, which is the goal's error
    (`Result.goal_errors[g, 0]`) and its fixed `tolerance` = 1; solvers stop at their usual
    margin (`tolerance_scale`) of it. `normal` and `axis` are normalised on construction.

    Args:
        link: the camera link (camera at its origin).
        target: t, the surface point to inspect (3,), base frame.
        normal: the surface normal at t (3,).
        standoff: the camera's working distance (m).
        distance_band: the distance's half-width of tolerance (m).
        fov_angle: the largest angle (rad) between the view axis and the target.
        normal_angle: the largest angle (rad) between the view axis and −normal.
        axis: the camera's view axis (3,), link frame.
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
    """

    link: str
    target: np.ndarray
    normal: np.ndarray
    _: KW_ONLY
    standoff: float = 0.01
    distance_band: float = 0.01
    fov_angle: float = 0.2
    normal_angle: float = 0.2
    axis: np.ndarray = (0.0, 0.0, 1.0)
    weight: float = 1.0
    secondary: bool = False
    #: The walls are the tolerances: met when the largest scaled criterion is ≤ 1.
    tolerance: ClassVar[float] = 1.0
    kind = SCAN
    size = 6
    kernel = scan_residual

    def __post_init__(self) -> None:
        super().__post_init__()
        self.target = finite_vector(self.target, 3, "target", "ScanGoal")
        self.normal = unit_vector(self.normal, "normal", "ScanGoal")
        self.axis = unit_vector(self.axis, "axis", "ScanGoal")
        self.standoff = finite_number(self.standoff, "standoff (m)", "ScanGoal", minimum=0.0)
        self.distance_band = finite_number(self.distance_band, "distance_band (m)", "ScanGoal", minimum=0.0)
        if self.distance_band == 0.0:
            raise GoalError("ScanGoal: distance_band (m) must be > 0 (the half-width of the accepted distances)")
        for name in ("fov_angle", "normal_angle"):
            angle = finite_number(getattr(self, name), f"{name} (radians)", "ScanGoal", minimum=0.0)
            if not 0.0 < angle <= np.pi:
                raise GoalError(f"ScanGoal: {name} must be in (0, π] radians (not degrees); got {angle}")
            setattr(self, name, angle)

    @property
    def links(self) -> tuple[str, ...]:
        return (self.link,)

    def params(self, robot) -> np.ndarray:
        p = np.zeros(N_PARAMS)
        p[0:3] = self.target
        p[3:6] = self.axis
        p[6:9] = self.normal
        p[9:13] = self.standoff, self.distance_band, self.fov_angle, self.normal_angle
        return p
