"""Target surfaces: flat and curved patches that tool poses are sampled on.

Each patch knows its area and draws uniform points on itself, with the unit normal that
points away from the obstacle's material (into free space). A set of patches is sampled
area-weighted, so every square centimetre of target surface is equally likely, as with
the mesh sampling of [E 4]. The tool pose at a point has its z axis along the reversed
normal (pointing into the surface) and a uniformly random roll about that axis ([E 4]
gives fully constrained poses; which roll is not stated).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def _unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def _basis(axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors completing `axis` (unit) to a right-handed frame."""
    helper = np.array([1.0, 0.0, 0.0]) if abs(axis[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    e1 = _unit(np.cross(helper, axis))
    return e1, np.cross(axis, e1)


@dataclass(frozen=True)
class Flat:
    """The parallelogram corner + s·u + t·v (s, t in [0, 1]), or with `triangle` its half
    s + t ≤ 1; free side along `normal`."""

    corner: tuple
    u: tuple
    v: tuple
    normal: tuple
    triangle: bool = False

    @property
    def area(self) -> float:
        return float(np.linalg.norm(np.cross(self.u, self.v))) * (0.5 if self.triangle else 1.0)

    def sample(self, rng, n):
        s, t = rng.uniform(0.0, 1.0, (2, n, 1))
        if self.triangle:
            fold = s + t > 1.0
            s, t = np.where(fold, 1.0 - s, s), np.where(fold, 1.0 - t, t)
        p = np.asarray(self.corner, float) + s * np.asarray(self.u, float) + t * np.asarray(self.v, float)
        return p, np.broadcast_to(_unit(self.normal), p.shape)


def rect(centre, u, v, normal) -> Flat:
    """The rectangle centre ± u/2 ± v/2 (u, v: full edge vectors)."""
    c, u, v = (np.asarray(x, float) for x in (centre, u, v))
    return Flat(tuple(c - u / 2 - v / 2), tuple(u), tuple(v), tuple(normal))


def triangle(a, b, c, normal) -> Flat:
    a, b, c = (np.asarray(x, float) for x in (a, b, c))
    return Flat(tuple(a), tuple(b - a), tuple(c - a), tuple(normal), triangle=True)


@dataclass(frozen=True)
class Disk:
    """A disk of `radius` around `centre` in the plane normal to `normal` (its free side)."""

    centre: tuple
    radius: float
    normal: tuple

    @property
    def area(self) -> float:
        return float(np.pi * self.radius**2)

    def sample(self, rng, n):
        nrm = _unit(self.normal)
        e1, e2 = _basis(nrm)
        r = self.radius * np.sqrt(rng.uniform(0.0, 1.0, (n, 1)))
        phi = rng.uniform(0.0, 2 * np.pi, (n, 1))
        p = np.asarray(self.centre, float) + r * (np.cos(phi) * e1 + np.sin(phi) * e2)
        return p, np.broadcast_to(nrm, p.shape)


@dataclass(frozen=True)
class Mantle:
    """The side of a cylinder (centre, unit axis, radius, length); `inward` when the free
    side is inside it (a tank's wall seen from within), else outside (a can on a table)."""

    centre: tuple
    axis: tuple
    radius: float
    length: float
    inward: bool = False

    @property
    def area(self) -> float:
        return float(2 * np.pi * self.radius * self.length)

    def sample(self, rng, n):
        ax = _unit(self.axis)
        e1, e2 = _basis(ax)
        phi = rng.uniform(0.0, 2 * np.pi, (n, 1))
        t = rng.uniform(-0.5, 0.5, (n, 1)) * self.length
        radial = np.cos(phi) * e1 + np.sin(phi) * e2
        p = np.asarray(self.centre, float) + self.radius * radial + t * ax
        return p, -radial if self.inward else radial


Patch = Flat | Disk | Mantle


def sample_points(patches, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """n points (n, 3) uniform over the patches' total area, and their free-side normals."""
    areas = np.array([p.area for p in patches])
    which = rng.choice(len(patches), size=n, p=areas / areas.sum())
    points, normals = np.empty((n, 3)), np.empty((n, 3))
    for k, patch in enumerate(patches):
        rows = np.flatnonzero(which == k)
        if rows.size:
            points[rows], normals[rows] = patch.sample(rng, rows.size)
    return points, normals


def tool_poses(points: np.ndarray, normals: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(n, 4, 4) poses at `points` whose z axis is the reversed normal (into the surface),
    with a uniform random roll about it."""
    n = len(points)
    out = np.zeros((n, 4, 4))
    out[:, 3, 3] = 1.0
    roll = rng.uniform(0.0, 2 * np.pi, n)
    for i in range(n):
        z = -_unit(normals[i])
        e1, e2 = _basis(z)
        x = np.cos(roll[i]) * e1 + np.sin(roll[i]) * e2
        out[i, :3, 0], out[i, :3, 1], out[i, :3, 2], out[i, :3, 3] = x, np.cross(z, x), z, points[i]
    return out
