"""`Scene`: named obstacles with poses in the robot's base frame, packed for compiled code.

A scene is edited in Python (add, remove, move) and read by kernels as one float64 blob
(`pack()`, layout in `bioik.scene.sdf`). Obstacle k of the blob is the k-th name in
insertion order. Two counters tell a holder of a blob what went stale: `layout_version`
(add/remove: pack again) and `pose_version` (move: `write_poses` refreshes the transforms
in place, no grid is rebuilt). Both come from one process-wide counter, so a blob packed
from another scene never passes as current.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from bioik.scene import sdf
from bioik.scene.errors import SceneError
from bioik.scene.poses import validate_pose
from bioik.scene.shapes import Box, Capsule, Cylinder, Shape, Solid, Sphere, Surface

# imported where used: trimesh (about a second), and the mesh grids and the file reader,
# which a solve without such a scene does not need (every goal module imports this one)
if TYPE_CHECKING:
    import trimesh

    from bioik.scene.grid import SDFGrid

_VERSIONS = itertools.count(1)

_KINDS = {Box: sdf.BOX, Sphere: sdf.SPHERE, Cylinder: sdf.CYLINDER, Capsule: sdf.CAPSULE}

#: How far (× h) `pack(lowered=True)` lowers a mesh obstacle's grid so that its field never
#: says a point is farther from the mesh than it is: trilinear interpolation of a distance
#: field errs by at most √3/2·h plus the nodes' own error (at most 0.22·h too large,
#: measured; see `bioik.scene.grid`). A solver settles spheres exactly on the grid's
#: surface (the cost is zero there), which left links up to 3 mm inside a mesh that coal's
#: exact check then found (`CollisionAvoidanceGoal(lower_grids=True)` packs so).
GRID_SLACK = math.sqrt(3.0) / 2.0 + 0.22


@dataclass(frozen=True, eq=False)
class Obstacle:
    """One obstacle: its name, its shape (in its own frame) and the pose of that frame in
    the robot's base frame (4×4, read-only)."""

    name: str
    shape: Shape
    pose: np.ndarray


class Scene:
    """Named obstacles (boxes, spheres, cylinders, capsules, meshes and boolean solids) with
    exact signed distances (negative inside) for collision avoidance.

        scene = Scene()
        scene.add_box("table", (1.2, 0.8, 0.05), pose)
        d, grad = scene.distance(points)
        blob = scene.pack()            # for compiled code: sdf.scene_distance(blob, …)
    """

    def __init__(self) -> None:
        self._obstacles: dict[str, Obstacle] = {}
        self._grids: dict[str, tuple[Shape, SDFGrid]] = {}
        self._layout_version = next(_VERSIONS)
        self._pose_version = next(_VERSIONS)
        self._packed: tuple[int, int, np.ndarray] | None = None
        self._contacts: dict[tuple[str, str], None] = {}  # (link, obstacle), in order

    # ---- reading from a file -------------------------------------------------------------
    @classmethod
    def from_file(cls, path: str | os.PathLike) -> Scene:
        """A scene from a TOML file (schema in `bioik.scene.file` and docs/scene-format.md).

        Args:
            path: the file.

        Returns:
            The `Scene`.
        """
        from bioik.scene.file import read_scene_file

        scene = cls()
        for name, shape, pose, touch in read_scene_file(path):
            scene.add(name, shape, pose)
            if touch:
                scene.allow_contact(name, *touch)
        return scene

    # ---- editing -------------------------------------------------------------------------
    def add(self, name: str, shape: Shape, pose=None) -> Obstacle:
        """Add `shape` as `name` at `pose`.

        Args:
            name: the obstacle's name (unique in the scene).
            shape: a Box, Sphere, Cylinder, Capsule, Solid or Surface (in its own frame).
            pose: the 4×4 pose of its frame in the robot's base frame (None: identity).

        Returns:
            The new `Obstacle`.
        """
        if not isinstance(name, str) or not name:
            raise SceneError(f"obstacle names must be non-empty strings; got {name!r}")
        if name in self._obstacles:
            raise SceneError(f"obstacle {name!r} is already in the scene (remove it first, or move it)")
        if not isinstance(shape, (Box, Sphere, Cylinder, Capsule, Solid, Surface)):
            raise SceneError(
                f"obstacle {name!r}: shape must be a Box, Sphere, Cylinder, Capsule, Solid or Surface; got {type(shape).__name__}"
            )
        obstacle = Obstacle(name, shape, validate_pose(pose, name))
        self._obstacles[name] = obstacle
        self._layout_version = next(_VERSIONS)
        return obstacle

    def add_box(self, name: str, size, pose=None) -> Obstacle:
        """A box, centred on its frame.

        Args:
            name: the obstacle's name (unique in the scene).
            size: edge lengths (x, y, z) in metres.
            pose: the 4×4 pose of its frame in the robot's base frame (None: identity).

        Returns:
            The new `Obstacle`.
        """
        return self.add(name, self._shape(name, Box, size), pose)

    def add_sphere(self, name: str, radius: float, pose=None) -> Obstacle:
        """A sphere, centred on its frame.

        Args:
            name: the obstacle's name (unique in the scene).
            radius: metres.
            pose: the 4×4 pose of its frame in the robot's base frame (None: identity).

        Returns:
            The new `Obstacle`.
        """
        return self.add(name, self._shape(name, Sphere, radius), pose)

    def add_cylinder(self, name: str, radius: float, length: float, pose=None) -> Obstacle:
        """A cylinder along its frame's z axis, centred (as in URDF).

        Args:
            name: the obstacle's name (unique in the scene).
            radius: metres.
            length: metres, along z.
            pose: the 4×4 pose of its frame in the robot's base frame (None: identity).

        Returns:
            The new `Obstacle`.
        """
        return self.add(name, self._shape(name, Cylinder, radius, length), pose)

    def add_capsule(self, name: str, radius: float, length: float, pose=None) -> Obstacle:
        """The points within `radius` of a segment of `length` along z, centred.

        Args:
            name: the obstacle's name (unique in the scene).
            radius: metres.
            length: the segment's length (m).
            pose: the 4×4 pose of its frame in the robot's base frame (None: identity).

        Returns:
            The new `Obstacle`.
        """
        return self.add(name, self._shape(name, Capsule, radius, length), pose)

    def add_mesh(
        self, name: str, mesh_or_path, pose=None, *, scale: float = 1.0, resolution: float | None = None, solid: bool = True
    ) -> Obstacle:
        """A mesh from any file trimesh loads (STL, OBJ, PLY, GLB…; a multi-mesh file is
        concatenated into one mesh) or a trimesh.Trimesh.

        Args:
            name: the obstacle's name (unique in the scene).
            mesh_or_path: the file, or a trimesh.Trimesh.
            pose: the 4×4 pose of its frame in the robot's base frame (None: identity).
            scale: multiplies the mesh's coordinates.
            resolution: the distance grid's spacing in metres (default: see `bioik.scene.grid`).
            solid: True needs a watertight mesh and gives a signed distance; False treats it
                as a thin surface (unsigned distance).

        Returns:
            The new `Obstacle`.
        """
        mesh = load_mesh(mesh_or_path, name)
        try:
            scale = float(scale)
        except (TypeError, ValueError):
            raise SceneError(f"obstacle {name!r}: scale must be a number; got {scale!r}") from None
        if not math.isfinite(scale) or scale <= 0.0:
            raise SceneError(f"obstacle {name!r}: scale must be finite and > 0; got {scale!r}")
        if scale != 1.0:
            mesh = mesh.copy()
            mesh.apply_scale(scale)
        kind = Solid if solid else Surface
        return self.add(name, self._shape(name, kind, mesh, resolution), pose)

    @staticmethod
    def _shape(name, kind, *args):
        try:
            return kind(*args)
        except (TypeError, ValueError) as e:
            raise SceneError(f"obstacle {name!r}: {e}") from None

    def remove(self, name: str) -> None:
        """Remove obstacle `name` (later obstacles move down one index in the blob) and the
        contacts allowed with it.

        Args:
            name: the obstacle's name.
        """
        self._get(name)
        del self._obstacles[name]
        self._grids.pop(name, None)
        self._contacts = {pair: None for pair in self._contacts if pair[1] != name}
        self._layout_version = next(_VERSIONS)

    def allow_contact(self, obstacle: str, *links: str) -> None:
        """Let robot `links` touch `obstacle` (a robot standing on its table): collision goals
        and checks on this scene never charge these pairs. Link names are checked against the
        robot when a goal or checker uses the scene.

        Args:
            obstacle: the obstacle's name.
            *links: robot link names.
        """
        self._get(obstacle)
        for link in links:
            if not isinstance(link, str) or not link:
                raise SceneError(f"allow_contact({obstacle!r}, …): links must be non-empty strings; got {link!r}")
        new = [(link, obstacle) for link in links if (link, obstacle) not in self._contacts]
        if new:
            self._contacts.update(dict.fromkeys(new))
            self._layout_version = next(_VERSIONS)

    @property
    def allowed_contacts(self) -> tuple[tuple[str, str], ...]:
        """(link, obstacle) pairs that may touch (`allow_contact`), in the order given."""
        return tuple(self._contacts)

    def move(self, name: str, pose) -> None:
        """Give obstacle `name` a new pose (no grid is rebuilt; `write_poses` updates a blob).

        Args:
            name: the obstacle's name.
            pose: its new 4×4 pose in the robot's base frame.
        """
        old = self._get(name)
        self._obstacles[name] = Obstacle(name, old.shape, validate_pose(pose, name))
        self._pose_version = next(_VERSIONS)

    def _get(self, name: str) -> Obstacle:
        try:
            return self._obstacles[name]
        except (KeyError, TypeError):
            known = ", ".join(map(repr, self._obstacles)) or "none"
            raise SceneError(f"unknown obstacle {name!r}; the scene has: {known}") from None

    # ---- reading -------------------------------------------------------------------------
    @property
    def obstacles(self) -> Mapping[str, Obstacle]:
        """Name → Obstacle in insertion order (read-only); index k in the blob is the k-th."""
        return MappingProxyType(self._obstacles)

    @property
    def names(self) -> list[str]:
        return list(self._obstacles)

    def __len__(self) -> int:
        return len(self._obstacles)

    def __contains__(self, name: object) -> bool:
        return name in self._obstacles

    def __iter__(self) -> Iterator[Obstacle]:
        return iter(self._obstacles.values())

    def __repr__(self) -> str:
        return f"Scene({', '.join(self._obstacles) or 'empty'})"

    @property
    def layout_version(self) -> int:
        """Changes whenever an obstacle is added or removed (a packed blob must be redone)."""
        return self._layout_version

    @property
    def pose_version(self) -> int:
        """Changes whenever an obstacle moves (`write_poses` brings a blob up to date)."""
        return self._pose_version

    def bounds(self) -> np.ndarray:
        """A box around every obstacle (base frame).

        Returns:
            (2, 3): its lower and upper corners.
        """
        if not self._obstacles:
            raise SceneError("an empty scene has no bounds")
        boxes = np.array([_world_bounds(o) for o in self._obstacles.values()])
        return np.array([boxes[:, 0].min(axis=0), boxes[:, 1].max(axis=0)])

    # ---- packing -------------------------------------------------------------------------
    def grid(self, name: str) -> SDFGrid | None:
        """The distance grid of a mesh obstacle (built or loaded on first use), else None."""
        from bioik.scene.grid import grid_for

        obstacle = self._get(name)
        if not isinstance(obstacle.shape, (Solid, Surface)):
            return None
        kept = self._grids.get(name)
        if kept is None or kept[0] is not obstacle.shape:
            # one shape under several names shares one grid (stored once in the blob)
            same = next((k for k in self._grids.values() if k[0] is obstacle.shape), None)
            kept = same or (obstacle.shape, grid_for(obstacle.shape))
            self._grids[name] = kept
        return kept[1]

    def pack(self, lowered: bool = False) -> np.ndarray:
        """The scene as one float64 blob for `sdf.scene_distance` (a fresh array each call).

        Args:
            lowered: mesh obstacles' grids less GRID_SLACK·h, a lower bound of the distance
                to the mesh, instead of the plain interpolant.

        Returns:
            The blob (layout in `bioik.scene.sdf`).
        """
        slack = GRID_SLACK if lowered else 0.0
        grids = {name: self.grid(name) for name in self._obstacles}
        offsets: dict[int, int] = {}
        length = sdf.HEADER + sdf.REC * len(self._obstacles)
        for g in grids.values():
            if g is not None and id(g) not in offsets:
                offsets[id(g)] = length
                length += g.values.size
        blob = np.zeros(length)
        blob[sdf.H_COUNT] = len(self._obstacles)
        blob[sdf.H_REC] = sdf.REC
        blob[sdf.H_FORMAT] = sdf.FORMAT
        blob[sdf.H_LAYOUT] = self._layout_version
        blob[sdf.H_LENGTH] = length
        blob[sdf.H_GRID_SLACK] = slack
        for k, (name, obstacle) in enumerate(self._obstacles.items()):
            rec = sdf.HEADER + k * sdf.REC
            g = grids[name]
            if g is None:
                blob[rec + sdf.R_KIND] = _KINDS[type(obstacle.shape)]
                blob[rec + sdf.R_PARAMS : rec + sdf.R_PARAMS + 4] = _params(obstacle.shape)
            else:
                off = offsets[id(g)]
                blob[off : off + g.values.size] = g.values.ravel() - slack * g.spacing
                blob[rec + sdf.R_KIND] = sdf.GRID
                blob[rec + sdf.R_GRID_OFFSET] = off
                blob[rec + sdf.R_GRID_DIMS : rec + sdf.R_GRID_DIMS + 3] = g.values.shape
                blob[rec + sdf.R_GRID_ORIGIN : rec + sdf.R_GRID_ORIGIN + 3] = g.origin
                blob[rec + sdf.R_GRID_H] = g.spacing
                blob[rec + sdf.R_GRID_INV_H] = 1.0 / g.spacing
            self._write_pose(blob, rec, obstacle)
        return blob

    def write_poses(self, blob: np.ndarray) -> None:
        """Refresh every obstacle's transform and bounding sphere in a blob packed from this
        layout (after `move`); SceneError if obstacles were added or removed since."""
        if blob.ndim != 1 or len(blob) < sdf.HEADER or blob[sdf.H_LAYOUT] != self._layout_version:
            got = blob[sdf.H_LAYOUT] if blob.ndim == 1 and len(blob) >= sdf.HEADER else None
            raise SceneError(
                f"the blob was packed from another layout (layout_version {got!r}, the scene is at "
                f"{self._layout_version}): obstacles were added or removed since; call pack() again"
            )
        for k, obstacle in enumerate(self._obstacles.values()):
            self._write_pose(blob, sdf.HEADER + k * sdf.REC, obstacle)

    def _write_pose(self, blob, rec, obstacle):
        R, t = obstacle.pose[:3, :3], obstacle.pose[:3, 3]
        inv = np.empty((3, 4))
        inv[:, :3] = R.T
        inv[:, 3] = -R.T @ t
        centre, radius = self._local_sphere(obstacle)
        if blob[rec + sdf.R_KIND] == sdf.GRID:
            # world → cells; a lowered field stays above |p − c| − radius
            inv[:, 3] -= blob[rec + sdf.R_GRID_ORIGIN : rec + sdf.R_GRID_ORIGIN + 3]
            inv *= blob[rec + sdf.R_GRID_INV_H]
            radius += blob[sdf.H_GRID_SLACK] * blob[rec + sdf.R_GRID_H]
        blob[rec + sdf.R_XFORM : rec + sdf.R_XFORM + 12] = inv.ravel()
        blob[rec + sdf.R_CENTRE : rec + sdf.R_CENTRE + 3] = R @ centre + t
        blob[rec + sdf.R_RADIUS] = radius

    def _local_sphere(self, obstacle):
        s = obstacle.shape
        if isinstance(s, (Solid, Surface)):
            return self.grid(obstacle.name).bounding_sphere()
        return np.zeros(3), _primitive_radius(s)

    def distance(self, points, cutoff: float = np.inf, mask: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """The scene's signed distance and its gradient at world points.

        Args:
            points: (N, 3) points in the robot's base frame.
            cutoff: distances beyond it may be reported as `cutoff` (an empty scene is `cutoff`
                everywhere; see `sdf.scene_distance`).
            mask: a bit mask of obstacles to leave out (see `sdf.scene_distance`).

        Returns:
            (d (N,), grad (N, 3)), d negative inside an obstacle.
        """
        key = (self._layout_version, self._pose_version)
        if self._packed is None or self._packed[:2] != key:
            self._packed = (*key, self.pack())
        return sdf.distances(self._packed[2], points, cutoff, mask)


def load_mesh(mesh_or_path, name: str) -> trimesh.Trimesh:
    """A Trimesh as is, or the file at a path as one mesh (scenes concatenated)."""
    import trimesh
    if isinstance(mesh_or_path, trimesh.Trimesh):
        return mesh_or_path
    if not isinstance(mesh_or_path, (str, os.PathLike)):
        raise SceneError(f"obstacle {name!r}: expected a trimesh.Trimesh or a mesh file path; got {type(mesh_or_path).__name__}")
    path = Path(mesh_or_path)
    if not path.is_file():
        raise SceneError(f"obstacle {name!r}: mesh file {str(path)!r} does not exist")
    try:
        mesh = trimesh.load(path, force="mesh")
    except Exception as e:  # noqa: BLE001 (trimesh raises many kinds)
        raise SceneError(f"obstacle {name!r}: cannot load mesh file {str(path)!r}: {e}") from None
    if not isinstance(mesh, trimesh.Trimesh) or len(mesh.faces) == 0:
        raise SceneError(f"obstacle {name!r}: mesh file {str(path)!r} holds no triangles")
    mesh.metadata.setdefault("file_name", path.name)
    return mesh


def _params(shape) -> tuple[float, float, float, float]:
    if isinstance(shape, Box):
        return (shape.size[0] / 2, shape.size[1] / 2, shape.size[2] / 2, 0.0)
    if isinstance(shape, Sphere):
        return (shape.radius, 0.0, 0.0, 0.0)
    return (shape.radius, shape.length / 2, 0.0, 0.0)


def _primitive_radius(shape) -> float:
    if isinstance(shape, Box):
        return float(np.linalg.norm(shape.size) / 2)
    if isinstance(shape, Sphere):
        return shape.radius
    if isinstance(shape, Cylinder):
        return math.hypot(shape.radius, shape.length / 2)
    return shape.radius + shape.length / 2


def _world_bounds(obstacle: Obstacle) -> tuple[np.ndarray, np.ndarray]:
    s, R, t = obstacle.shape, obstacle.pose[:3, :3], obstacle.pose[:3, 3]
    if isinstance(s, Box):
        half = np.abs(R) @ (np.array(s.size) / 2)
    elif isinstance(s, Sphere):
        half = np.full(3, s.radius)
    elif isinstance(s, (Cylinder, Capsule)):
        a = R[:, 2]  # a disc of radius r with normal a spans r·√(1 − aᵢ²) along axis i
        half = np.abs(a) * s.length / 2
        half += s.radius if isinstance(s, Capsule) else s.radius * np.sqrt(np.clip(1.0 - a * a, 0.0, 1.0))
    else:
        v = s.mesh.vertices @ R.T + t
        return v.min(axis=0), v.max(axis=0)
    return t - half, t + half
