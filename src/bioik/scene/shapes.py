"""Obstacle shapes, each in its own frame: what a scene holds, before any distance field.

Primitives follow URDF conventions: a box is centred on its frame; a cylinder and a
capsule run along the frame's z axis, centred on the origin (`length` is the straight
part; a capsule adds hemispherical caps of `radius` at both ends). A `Solid` is a closed
triangle mesh (watertight) with an inside and an outside; a `Surface` is any triangle
mesh taken as an infinitely thin sheet (its distance is unsigned, never negative). Both
get their distance from a grid (`bioik.scene.grid`); `resolution` (metres) overrides the
grid's default spacing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from bioik.scene.errors import SceneError

if TYPE_CHECKING:  # trimesh takes about a second to import: modules import it where they use it
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
        import trimesh
        return trimesh.creation.box(extents=self.size)


@dataclass(frozen=True)
class Sphere:
    """A sphere of `radius` around its frame's origin."""

    radius: float

    def __post_init__(self):
        object.__setattr__(self, "radius", _positive(self.radius, "radius", "Sphere"))

    def trimesh(self) -> trimesh.Trimesh:
        import trimesh
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
        import trimesh
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
        import trimesh
        return trimesh.creation.capsule(height=self.length, radius=self.radius, count=(32, 32))


def _mesh_label(mesh) -> str:
    """How an error names a mesh: its file if trimesh recorded one, else its size."""
    import trimesh
    name = getattr(mesh, "metadata", {}).get("file_name") if isinstance(mesh, trimesh.Trimesh) else None
    if name:
        return repr(name)
    return f"with {len(mesh.faces)} faces" if isinstance(mesh, trimesh.Trimesh) else repr(mesh)


def _resolution(value, shape: str) -> float | None:
    return None if value is None else _positive(value, "resolution", shape)


def _mesh(mesh, shape: str) -> trimesh.Trimesh:
    import trimesh
    if not isinstance(mesh, trimesh.Trimesh):
        raise TypeError(f"{shape}: mesh must be a trimesh.Trimesh; got {type(mesh).__name__}")
    if len(mesh.faces) == 0:
        raise ValueError(f"{shape}: the mesh {_mesh_label(mesh)} has no faces")
    if not np.all(np.isfinite(mesh.vertices)):
        raise ValueError(f"{shape}: the mesh {_mesh_label(mesh)} has non-finite vertices")
    return mesh


@dataclass(frozen=True, eq=False)
class Solid:
    """A closed triangle mesh in its own frame (any file trimesh loads, or a boolean of
    shapes); its signed distance comes from a grid (`bioik.scene.grid`) of spacing
    `resolution` (metres; None: the default rule there).

    The mesh must be watertight: an open mesh has no inside, so it is refused with a
    ValueError pointing at `Surface` (`Scene.add_mesh(..., solid=False)`)."""

    mesh: trimesh.Trimesh
    resolution: float | None = None

    def __post_init__(self):
        _mesh(self.mesh, "Solid")
        if not self.mesh.is_watertight:
            raise SceneError(
                f"Solid: the mesh {_mesh_label(self.mesh)} is not watertight, so it has no inside; "
                "to treat it as a thin surface (unsigned distance, never negative) pass solid=False "
                "to Scene.add_mesh (or use bioik.scene.Surface)"
            )
        object.__setattr__(self, "resolution", _resolution(self.resolution, "Solid"))

    def trimesh(self) -> trimesh.Trimesh:
        return self.mesh


@dataclass(frozen=True, eq=False)
class Surface:
    """A triangle mesh taken as a thin sheet (need not be closed): its distance is the
    unsigned distance to the triangles, from a grid like a `Solid`'s."""

    mesh: trimesh.Trimesh
    resolution: float | None = None

    def __post_init__(self):
        _mesh(self.mesh, "Surface")
        object.__setattr__(self, "resolution", _resolution(self.resolution, "Surface"))

    def trimesh(self) -> trimesh.Trimesh:
        return self.mesh


Shape = Box | Sphere | Cylinder | Capsule | Solid | Surface
