"""Each link's collision geometry in its own frame: trimesh meshes and primitive pieces.

The sphere cover (`spheres`), the allowed-collision matrix (`acm`) and the exact checker
(`checker`) all start from the URDF's `<collision>` elements; this module turns them into
`Piece`s (one per element: a primitive with its parameters, or a loaded mesh, with its pose
in the link frame) so each consumer can pick the form it needs: analytic parameters for the
sphere cover and coal's primitives, triangle meshes for sampling and coal's BVH models.
"""

from __future__ import annotations

import hashlib
import threading
import warnings
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bioik.errors import MeshNotFoundError as MeshNotFoundError
from bioik.model.meshes import package_hint
from bioik.model.robot_model import Geometry, Link, RobotModel
from bioik.model.urdf_source import URDFError

if TYPE_CHECKING:  # trimesh takes about a second to import: modules import it where they use it
    import trimesh


@dataclass(frozen=True, eq=False)
class Piece:
    """One collision element of a link, in the link frame.

    kind: "box" (size = full edge lengths), "cylinder" (radius, length along local z),
    "sphere" (radius,) or "mesh" (`mesh` holds the scaled triangles in the element frame).
    `origin` is the element's 4×4 pose in the link frame.
    """

    kind: str
    origin: np.ndarray
    size: tuple[float, ...]
    mesh: trimesh.Trimesh | None = None

    def trimesh(self) -> trimesh.Trimesh:
        """The piece as a triangle mesh in the link frame (primitives inscribed in the true shape)."""
        import trimesh
        if self.kind == "box":
            m = trimesh.creation.box(extents=self.size)
        elif self.kind == "cylinder":
            m = trimesh.creation.cylinder(radius=self.size[0], height=self.size[1], sections=48)
        elif self.kind == "sphere":
            m = trimesh.creation.icosphere(subdivisions=3, radius=self.size[0])
        else:
            m = self.mesh.copy()
        m.apply_transform(self.origin)
        return m

    def vertices(self) -> np.ndarray:
        """Points (link frame) whose convex hull contains the piece (mesh: its vertices)."""
        if self.kind == "mesh":
            v = self.mesh.vertices
        elif self.kind == "box":
            h = 0.5 * np.asarray(self.size)
            v = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * h
        else:  # circumscribed prism/box around cylinder and sphere
            r = self.size[0]
            hz = 0.5 * self.size[1] if self.kind == "cylinder" else r
            a = np.linspace(0, 2 * np.pi, 16, endpoint=False)
            ring = np.c_[np.cos(a), np.sin(a)] * (r / np.cos(np.pi / 16))
            v = np.r_[np.c_[ring, np.full(16, -hz)], np.c_[ring, np.full(16, hz)]]
        return v @ self.origin[:3, :3].T + self.origin[:3, 3]


def _load_mesh(link: Link, geometry: Geometry) -> trimesh.Trimesh:
    if geometry.path is None or not Path(geometry.path).is_file():
        filename = geometry.filename or ""
        fix = "pass its folder in load_robot(..., mesh_dirs=[...])"
        if geometry.path is None and filename.startswith("package://"):
            fix = package_hint(filename[len("package://"):].lstrip("/").partition("/")[0], ".") + ", or its folder in mesh_dirs=[...]"
        raise MeshNotFoundError(
            f"link {link.name!r}: collision mesh {filename!r} was not found when the URDF was loaded"
            f"{'' if geometry.path is None else f' (resolved to {str(geometry.path)!r}, which no longer exists)'}; "
            f"expected a mesh file: {fix}")
    scale = tuple(float(x) for x in (geometry.size or (1.0, 1.0, 1.0)))
    mesh, problem = _read_mesh(str(geometry.path), scale)
    if mesh is None:
        raise URDFError(f"link {link.name!r}: collision mesh {geometry.filename!r} ({geometry.path}) {problem}; "
                        "expected a triangle mesh (STL, OBJ, DAE, PLY …) with faces, or a primitive shape")
    return mesh


class OpenMeshWarning(UserWarning):
    """Collision meshes that are not closed: what is assumed is in the message."""


_warned: set[str] = set()  # geometry digests whose open meshes were named (once a process: two covers, one warning)
_warned_lock = threading.Lock()


def warn_open_meshes(model: RobotModel, pieces: dict[str, tuple[Piece, ...]]) -> None:
    """One warning (per geometry, per process) naming the links whose collision meshes are not closed (watertight)."""
    open_links = [name for name, ps in pieces.items() if any(p.kind == "mesh" and not p.mesh.is_watertight for p in ps)]
    if open_links:
        digest = geometry_digest(model)
        with _warned_lock:
            if digest in _warned:
                return
            _warned.add(digest)
        shown = ", ".join(open_links[:8]) + (f" and {len(open_links) - 8} more" if len(open_links) > 8 else "")
        warnings.warn(f"robot {model.name!r}: the collision meshes of {shown} are not closed (not watertight); assumed: each is "
                      "the surface it describes — its sphere cover holds that surface and what lies between its points, and "
                      "the exact check (coal) tests its triangles, so an obstacle wholly inside an open mesh counts as clear",
                      OpenMeshWarning, stacklevel=4)


@lru_cache(maxsize=64)
def _read_mesh(path: str, scale: tuple[float, ...]) -> tuple[trimesh.Trimesh | None, str]:
    """(the scaled mesh, "") or (None, why it cannot be used)."""
    import trimesh
    try:
        m = trimesh.load(path, force="mesh", process=True)
    except Exception as e:  # noqa: BLE001 — trimesh and its loaders raise many kinds for a bad file
        return None, f"could not be read: {type(e).__name__}: {e}"
    if not isinstance(m, trimesh.Trimesh) or len(m.faces) == 0:
        return None, "holds no triangles (an empty file, or a DAE or OBJ of only lines or points)"
    if not np.isfinite(m.vertices).all():
        return None, "has vertices that are not finite numbers"
    s = np.ones(3) * np.asarray(scale, dtype=float) if len(scale) in (1, 3) else np.ones(3)
    m.apply_scale(s) if np.allclose(s, s[0]) else m.apply_transform(np.diag([*s, 1.0]))
    return m, ""


def link_pieces(link: Link) -> tuple[Piece, ...]:
    """The link's collision elements as `Piece`s (meshes loaded and scaled).

    MeshNotFoundError names the link and the file for a mesh reference that did not resolve.
    """
    out = []
    for g in link.collision:
        origin = np.asarray(g.origin, dtype=float)
        if g.kind == "mesh":
            out.append(Piece("mesh", origin, tuple(g.size), _load_mesh(link, g)))
        elif g.kind in ("box", "cylinder", "sphere"):
            out.append(Piece(g.kind, origin, tuple(float(s) for s in g.size)))
        else:
            raise ValueError(f"link {link.name!r}: unknown collision geometry kind {g.kind!r}")
    return tuple(out)


def collision_links(model: RobotModel) -> tuple[str, ...]:
    """Names of the links with collision geometry, in the model's link order."""
    return tuple(l.name for l in model.links if l.collision)


def link_meshes(model: RobotModel) -> dict[str, trimesh.Trimesh]:
    """Each link with collision geometry → all its elements as one mesh in the link frame."""
    import trimesh
    return {l.name: trimesh.util.concatenate([p.trimesh() for p in link_pieces(l)])
            for l in model.links if l.collision}


def geometry_digest(model: RobotModel) -> str:
    """A hash of every link's collision geometry (mesh file contents included): a cache key."""
    h = hashlib.sha256()
    for l in model.links:
        h.update(l.name.encode() + b"\0")
        for g in l.collision:
            h.update(g.kind.encode() + np.asarray(g.origin, dtype=float).tobytes() + np.asarray(g.size, dtype=float).tobytes())
            if g.kind == "mesh" and g.path is not None and Path(g.path).is_file():
                h.update(Path(g.path).read_bytes())
    return h.hexdigest()[:24]
