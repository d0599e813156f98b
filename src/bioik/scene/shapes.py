"""Obstacle shapes, each in its own frame: what a scene holds, before any distance field.

Primitives follow URDF conventions: a box is centred on its frame; a cylinder and a
capsule run along the frame's z axis, centred on the origin (`length` is the straight
part; a capsule adds hemispherical caps of `radius` at both ends). A `Solid` is a closed
triangle mesh (watertight, consistently wound) with an inside and an outside.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import trimesh


def _positive(value: float, what: str, shape: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{shape}: {what} must be a number; got {value!r}") from None
    if not np.isfinite(v) or v <= 0.0:
        raise ValueError(f"{shape}: {what} must be finite and > 0; got {value!r}")
    return v


@dataclass(frozen=True)
class Box:
    """A box with edge lengths `size` (x, y, z), centred on its frame."""

    size: tuple[float, float, float]

    def __post_init__(self):
        s = np.asarray(self.size, dtype=float).ravel() if np.ndim(self.size) else None
        if s is None or s.shape != (3,):
            raise ValueError(f"Box: size must be 3 edge lengths (x, y, z); got {self.size!r}")
        object.__setattr__(self, "size", tuple(_positive(v, "size", "Box") for v in s))

    def trimesh(self) -> trimesh.Trimesh:
        return trimesh.creation.box(extents=self.size)


@dataclass(frozen=True)
class Sphere:
    """A sphere of `radius` around its frame's origin."""

    radius: float

    def __post_init__(self):
        object.__setattr__(self, "radius", _positive(self.radius, "radius", "Sphere"))

    def trimesh(self) -> trimesh.Trimesh:
        return trimesh.creation.icosphere(subdivisions=3, radius=self.radius)


@dataclass(frozen=True)
class Cylinder:
    """A cylinder of `radius` and `length` along z, centred on its frame (as in URDF)."""

    radius: float
    length: float

    def __post_init__(self):
        object.__setattr__(self, "radius", _positive(self.radius, "radius", "Cylinder"))
        object.__setattr__(self, "length", _positive(self.length, "length", "Cylinder"))

    def trimesh(self) -> trimesh.Trimesh:
        return trimesh.creation.cylinder(radius=self.radius, height=self.length, sections=64)


@dataclass(frozen=True)
class Capsule:
    """The points within `radius` of the segment of `length` along z, centred on its frame."""

    radius: float
    length: float

    def __post_init__(self):
        object.__setattr__(self, "radius", _positive(self.radius, "radius", "Capsule"))
        object.__setattr__(self, "length", _positive(self.length, "length", "Capsule"))

    def trimesh(self) -> trimesh.Trimesh:
        return trimesh.creation.capsule(height=self.length, radius=self.radius, count=(32, 32))


@dataclass(frozen=True, eq=False)
class Solid:
    """A closed triangle mesh in its own frame (any file trimesh loads, or a boolean of
    shapes); its signed distance comes from a grid (`bioik.scene.grid`)."""

    mesh: trimesh.Trimesh

    def trimesh(self) -> trimesh.Trimesh:
        return self.mesh


Shape = Box | Sphere | Cylinder | Capsule | Solid
