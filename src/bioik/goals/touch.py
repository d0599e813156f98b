"""Touch goal [R 3.8]: a link's surface touches a surface point at a given normal.

The link's surface is its collision geometry as spheres (`bioik.collision.sphere_model`);
the surface to touch is the plane through `point` p with outward unit normal n. The
sphere that touches is the link's deepest along −n, the one with the least

    h_k = n·(c_k − p) − ρ_k             (c_k its world centre, ρ_k its radius):

the signed height of its lowest point over the plane (< 0: sunk in). For that sphere
(centre c, radius ρ) the residual is

    r = (n·(c − p) − ρ,  t₁·(c − p),  t₂·(c − p)),

(t₁, t₂) an orthonormal basis of the plane: row 0 puts the sphere's surface on the plane,
rows 1–2 put its touching point c − ρn at p. So r is c − ρn − p in the frame (n, t₁, t₂)
and ‖r‖ the touching point's distance from p. The choice is discrete: where two spheres
are equally deep it switches, row 0 staying continuous (a minimum) while rows 1–2 jump
from one sphere's touching point to the other's, so a solver's step may change the
sphere that touches (and the Jacobian is that of the sphere chosen, with no term for
the switch); for a link of one sphere the residual is smooth.

Derivatives: with u = c − p_link = R·c_l, ∂r_i/∂p_link = e_iᵀ and ∂r_i/∂ω = (u × e_i)ᵀ
for e = (n, t₁, t₂) (∂c/∂ω = −[u]×).
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field

import numpy as np
from numba import njit

from bioik.collision.spheres import SphereModel
from bioik.goals.base import N_PARAMS, Goal, finite_vector, unit_vector
from bioik.goals.spheres import cover, link_spheres, per_robot
from bioik.kinematics.frames import JIT, qrot

#: Parameter row: point p (3), unit normal n (3), tangents t₁, t₂ (3 each), the number of
#: spheres, then per sphere its centre in the link frame and its radius (4 each).
SPHERE_COUNT, FIRST_SPHERE, PER_SPHERE = 12, 13, 4

TOUCH = 16


@njit(**JIT)
def touch_residual(p, f, r, A, B):
    """r = c − ρn − p in the frame (n, t₁, t₂) for the link's deepest sphere along −n."""
    nx, ny, nz = p[3], p[4], p[5]
    best, rho, ux, uy, uz = np.inf, 0.0, 0.0, 0.0, 0.0
    for k in range(int(p[SPHERE_COUNT])):
        i = FIRST_SPHERE + PER_SPHERE * k
        vx, vy, vz = qrot(f[3], f[4], f[5], f[6], p[i], p[i + 1], p[i + 2])
        h = nx * (f[0] + vx) + ny * (f[1] + vy) + nz * (f[2] + vz) - p[i + 3]
        if h < best:
            best, rho, ux, uy, uz = h, p[i + 3], vx, vy, vz
    dx, dy, dz = f[0] + ux - p[0], f[1] + uy - p[1], f[2] + uz - p[2]
    for row in range(3):
        e = 3 + 3 * row  # n, t₁, t₂
        ex, ey, ez = p[e], p[e + 1], p[e + 2]
        r[row] = ex * dx + ey * dy + ez * dz
        A[row, 0], A[row, 1], A[row, 2] = ex, ey, ez
        B[row, 0], B[row, 1], B[row, 2] = uy * ez - uz * ey, uz * ex - ux * ez, ux * ey - uy * ex
    r[0] -= rho
    return 3


def tangents(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An orthonormal basis (t₁, t₂) of the plane orthogonal to the unit vector n, with
    (n, t₁, t₂) right-handed."""
    a = np.eye(3)[int(np.argmin(np.abs(n)))]  # the axis least parallel to n
    t1 = np.cross(n, a)
    t1 /= np.linalg.norm(t1)
    return t1, np.cross(n, t1)


@dataclass
class TouchGoal(Goal):
    """Touch the plane through `point` with outward `normal` (base frame) with `link`'s
    surface, at `point`.

    The link's deepest sphere along −normal (its collision geometry as spheres) gets its
    surface onto the plane and its touching point onto `point`: residual r = c − ρn − p
    in the frame (n, t₁, t₂), cost ‖r‖²·w² (see the module docstring; the sphere chosen
    switches discretely as the link turns). `normal` is normalised on construction (a
    zero normal is an error).

    Args:
        link: the link that touches.
        point: p, the point to touch (3,), base frame.
        normal: n, the surface's outward normal (3,).
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: met when ‖r‖ ≤ tolerance (m).
        spheres: the robot's sphere cover (None: `sphere_model(robot)`).
    """

    link: str
    point: np.ndarray
    normal: np.ndarray
    _: KW_ONLY
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-5
    spheres: SphereModel | None = None
    kind = TOUCH
    size = 3
    kernel = touch_residual
    #: The link's spheres on the robot last asked for (centres (S, 3), radii (S,)).
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        self.point = finite_vector(self.point, 3, "point", "TouchGoal")
        self.normal = unit_vector(self.normal, "normal", "TouchGoal")

    @property
    def links(self):
        return (self.link,)

    def layout_key(self):
        return None if self.spheres is None else id(self.spheres)

    def _link_spheres(self, robot) -> tuple[np.ndarray, np.ndarray]:
        model = cover(self.spheres, robot)
        index = link_spheres(model, self.link, "TouchGoal")
        return model.centres[index], model.radii[index]

    def params(self, robot):
        centres, radii = per_robot(self._cache, robot, self._link_spheres, self.link, self.spheres)
        S = len(radii)
        p = np.zeros(max(N_PARAMS, FIRST_SPHERE + PER_SPHERE * S))
        p[0:3] = self.point
        p[3:6] = self.normal
        p[6:9], p[9:12] = tangents(self.normal)
        p[SPHERE_COUNT] = S
        spheres = p[FIRST_SPHERE : FIRST_SPHERE + PER_SPHERE * S].reshape(S, PER_SPHERE)
        spheres[:, :3] = centres
        spheres[:, 3] = radii
        return p
