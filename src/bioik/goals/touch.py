"""Touch goal [R 3.8]: a link's collision geometry touches a plane.

The plane is the one through `point` p with outward unit normal n. The goal reads the
link's real collision geometry (its URDF `<collision>` elements), not a sphere cover:
its lowest point along −n, the point x of least height n·(x − p), is

  * for a mesh, a vertex of its convex hull (a linear function is least at a vertex);
  * for a box, a corner; for a sphere (centre c, radius ρ), c − ρn;
  * for a cylinder (centre c, unit axis a, half length h, radius ρ), the point of the
    rim of its lower end e = c − sign(n·a)·h·a that lies furthest along −n:
    e − ρ·m/‖m‖ with m = n − (n·a)a (the end's centre e when n ∥ a).

So the gap n·(x − p) is exact, and the goal is met on the real geometry (the acceptance
test reads this residual). With (t₁, t₂) an orthonormal basis of the plane the residual is

    r = (n·(x − p),  t₁·(x − p),  t₂·(x − p))        (at_point=True, the default)
    r = (n·(x − p),  0,  0)                          (at_point=False: anywhere on the plane)

row 0 the gap (< 0: sunk in), rows 1–2 the contact point's offset from p in the plane.

Derivatives, with e = (n, t₁, t₂): ∂r_i/∂p_link = e_iᵀ, and ∂r_i/∂ω = (w × e_i)ᵀ for a
vertex (w = x − p_link) or a sphere (w its centre: its contact point slides with it); a
cylinder's rim point adds −ρ·e_i·∂m̂/∂ω, m̂ = m/‖m‖ turning with the axis. Where two
elements are equally low the contact point switches between them: row 0 stays continuous
(a minimum), rows 1–2 jump, and the Jacobian is that of the point chosen.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field

import numpy as np
from numba import njit

from bioik.collision.link_geometry import Piece, link_pieces
from bioik.errors import GoalError
from bioik.goals.base import N_PARAMS, Goal, finite_vector, unit_vector
from bioik.goals.spheres import per_robot
from bioik.kinematics.frames import JIT, qrot
from bioik.model.names import suggest

#: Parameter row: point p (3), unit normal n (3), tangents t₁, t₂ (3 each), the number of
#: elements, at_point (1 or 0), then per element: its kind, a point in the link frame, a
#: radius, an axis and a half length (PER_ELEMENT floats; see `support_elements`).
ELEMENT_COUNT, AT_POINT, FIRST_ELEMENT, PER_ELEMENT = 12, 13, 14, 9
#: Element kinds: a point swept by a radius (a vertex: 0; a sphere: its radius), a cylinder.
POINT, CYLINDER = 0, 1

TOUCH = 16


@njit(**JIT)
def touch_residual(p, f, r, A, B):
    """r = x − p in the frame (n, t₁, t₂), x the lowest point of the link's geometry along −n
    (rows 1–2 zero unless at_point)."""
    nx, ny, nz = p[3], p[4], p[5]
    best, kb = np.inf, 0
    for k in range(int(p[ELEMENT_COUNT])):
        height = element_lowest(p, f, FIRST_ELEMENT + PER_ELEMENT * k, nx, ny, nz)[0]
        if height < best:
            best, kb = height, k
    i = FIRST_ELEMENT + PER_ELEMENT * kb
    _, xx, xy, xz, wx, wy, wz, ax, ay, az, na, mx, my, mz, mu = element_lowest(p, f, i, nx, ny, nz)
    rho = p[i + 4]
    dx, dy, dz = f[0] + xx - p[0], f[1] + xy - p[1], f[2] + xz - p[2]
    rows = 3 if p[AT_POINT] != 0.0 else 1
    for row in range(rows):
        e = 3 + 3 * row  # n, t₁, t₂
        ex, ey, ez = p[e], p[e + 1], p[e + 2]
        r[row] = ex * dx + ey * dy + ez * dz
        A[row, 0], A[row, 1], A[row, 2] = ex, ey, ez
        # the rigid part: w (the point, or the sphere's centre, or the cylinder end's centre) turns with the link
        B[row, 0], B[row, 1], B[row, 2] = wy * ez - wz * ey, wz * ex - wx * ez, wx * ey - wy * ex
        if p[i] == CYLINDER and mu > 1e-12:  # and the rim point slides as the axis turns: −ρ·∂m̂/∂ω
            cx, cy, cz = ay * nz - az * ny, az * nx - ax * nz, ax * ny - ay * nx  # a × n
            hx, hy, hz = mx / mu, my / mu, mz / mu
            for k in range(3):
                # δa = e_k × a, δ(n·a) = (a × n)_k, δm = −δ(n·a)·a − (n·a)·δa, δm̂ = (I − m̂m̂ᵀ)δm/μ
                dax, day, daz = (0.0, -az, ay) if k == 0 else ((az, 0.0, -ax) if k == 1 else (-ay, ax, 0.0))
                dna = cx if k == 0 else (cy if k == 1 else cz)
                dmx, dmy, dmz = -dna * ax - na * dax, -dna * ay - na * day, -dna * az - na * daz
                hd = hx * dmx + hy * dmy + hz * dmz
                B[row, k] -= rho * (ex * (dmx - hx * hd) + ey * (dmy - hy * hd) + ez * (dmz - hz * hd)) / mu
    for row in range(rows, 3):
        r[row] = 0.0
    return 3


@njit(inline="always", **JIT)
def element_lowest(p, f, i, nx, ny, nz):
    """The element at p[i:] on the link at frame f: (its least height over the plane through
    the origin along n, its lowest point x and the rigid point w it moves with (both from
    the link origin, world axes), its world axis a, n·a, m = n − (n·a)a and ‖m‖)."""
    wx, wy, wz = qrot(f[3], f[4], f[5], f[6], p[i + 1], p[i + 2], p[i + 3])  # the element's point, from the link origin
    rho = p[i + 4]
    ax, ay, az, na, mx, my, mz, mu = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    if p[i] == CYLINDER:
        ax, ay, az = qrot(f[3], f[4], f[5], f[6], p[i + 5], p[i + 6], p[i + 7])
        na = nx * ax + ny * ay + nz * az
        h = p[i + 8] if na < 0.0 else -p[i + 8]  # to the end lower along n
        wx, wy, wz = wx + h * ax, wy + h * ay, wz + h * az
        mx, my, mz = nx - na * ax, ny - na * ay, nz - na * az
        mu = np.sqrt(mx * mx + my * my + mz * mz)
        xx, xy, xz = wx, wy, wz
        if mu > 1e-12:
            xx, xy, xz = wx - rho * mx / mu, wy - rho * my / mu, wz - rho * mz / mu
    else:
        xx, xy, xz = wx - rho * nx, wy - rho * ny, wz - rho * nz
    return nx * xx + ny * xy + nz * xz, xx, xy, xz, wx, wy, wz, ax, ay, az, na, mx, my, mz, mu


def tangents(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An orthonormal basis (t₁, t₂) of the plane orthogonal to the unit vector n, with
    (n, t₁, t₂) right-handed."""
    a = np.eye(3)[int(np.argmin(np.abs(n)))]  # the axis least parallel to n
    t1 = np.cross(n, a)
    t1 /= np.linalg.norm(t1)
    return t1, np.cross(n, t1)


def _piece_elements(piece: Piece) -> np.ndarray:
    """The element rows (k, PER_ELEMENT) of one collision element, in the link frame."""
    R, t = piece.origin[:3, :3], piece.origin[:3, 3]
    if piece.kind == "sphere":
        return np.array([[POINT, *t, piece.size[0], 0.0, 0.0, 0.0, 0.0]])
    if piece.kind == "cylinder":
        return np.array([[CYLINDER, *t, piece.size[0], *R[:, 2], 0.5 * piece.size[1]]])
    if piece.kind == "box":
        V = piece.vertices()  # its 8 corners, link frame
    else:  # a mesh: its convex hull's vertices hold every lowest point
        try:
            V = piece.mesh.convex_hull.vertices @ R.T + t
        except Exception:  # noqa: BLE001 — a flat or degenerate mesh has no hull: all its vertices
            V = piece.vertices()
    rows = np.zeros((len(V), PER_ELEMENT))
    rows[:, 1:4] = V
    return rows


def support_elements(robot, link: str) -> np.ndarray:
    """The rows (k, PER_ELEMENT) describing `link`'s collision geometry for the touch kernel;
    a GoalError naming the links that have geometry if it has none."""
    model = robot.model
    entry = next((l for l in model.links if l.name == link), None)
    if entry is None:
        robot.model.link_index(link)  # UnknownNameError with the closest names
    if not entry.collision:
        with_geometry = [l.name for l in model.links if l.collision]
        raise GoalError(f"TouchGoal: link {link!r} has no collision geometry; links with geometry: "
                        f"{suggest(str(link), with_geometry)}")
    return np.vstack([_piece_elements(p) for p in link_pieces(entry)])


@dataclass
class TouchGoal(Goal):
    """Touch the plane through `point` with outward `normal` (base frame) with `link`'s
    collision geometry, at `point` (or, with `at_point=False`, anywhere on the plane).

    The lowest point x of the link's real geometry along −normal (mesh hull vertices,
    box corners, sphere and cylinder surfaces: exact) gets onto the plane: residual
    r = x − p in the frame (n, t₁, t₂), rows 1–2 zero without `at_point`, cost ‖r‖²·w²
    (see the module docstring). `normal` is normalised on construction (a zero normal is an
    error).

    Args:
        link: the link that touches.
        point: p, a point of the plane (3,), base frame: where to touch with `at_point`.
        normal: n, the surface's outward normal (3,).
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: met when ‖r‖ ≤ tolerance (m): the gap, and with `at_point` the contact
            point's distance from `point`.
        at_point: also put the contact point at `point` (default True); False: touch the
            plane anywhere ([R 3.8]'s half-space touch).
    """

    link: str
    point: np.ndarray
    normal: np.ndarray
    _: KW_ONLY
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-5
    at_point: bool = True
    kind = TOUCH
    size = 3
    kernel = touch_residual
    #: The link's geometry rows on the robot last asked for.
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        self.point = finite_vector(self.point, 3, "point", "TouchGoal")
        self.normal = unit_vector(self.normal, "normal", "TouchGoal")
        if not isinstance(self.at_point, (bool, np.bool_)):
            raise GoalError(f"TouchGoal: at_point must be True or False; got {self.at_point!r}")

    @property
    def links(self):
        return (self.link,)

    def params(self, robot):
        elements = per_robot(self._cache, robot, lambda r: support_elements(r, self.link), self.link)
        k = len(elements)
        p = np.zeros(max(N_PARAMS, FIRST_ELEMENT + PER_ELEMENT * k))
        p[0:3] = self.point
        p[3:6] = self.normal
        p[6:9], p[9:12] = tangents(self.normal)
        p[ELEMENT_COUNT] = k
        p[AT_POINT] = 1.0 if self.at_point else 0.0
        p[FIRST_ELEMENT : FIRST_ELEMENT + PER_ELEMENT * k] = elements.ravel()
        return p
