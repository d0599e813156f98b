"""coal (FCL's maintained successor) objects for link pieces and obstacle shapes.

coal's conventions, checked in tests/collision/test_coal_shapes.py: `Box(x, y, z)` takes
full edge lengths; `Cylinder(radius, length)` and `Capsule(radius, length)` take the full
length of the straight part along local z, centred — the same as URDF and bioik.scene.
Meshes become `BVHModelOBBRSS`, coal's fastest tree for mesh queries.
"""

from __future__ import annotations

import numpy as np

try:
    import coal
except ImportError as e:  # pragma: no cover - depends on the installation
    raise ImportError("bioik's exact collision checks need coal: pip install bioik[collision]") from e

from bioik.collision.link_geometry import Piece


def mesh_geometry(vertices: np.ndarray, faces: np.ndarray) -> "coal.BVHModelOBBRSS":
    """A coal BVH (OBBRSS) model of a triangle mesh."""
    bvh = coal.BVHModelOBBRSS()
    bvh.beginModel(len(faces), len(vertices))
    bvh.addVertices(np.ascontiguousarray(vertices, dtype=float))
    bvh.addTriangles(np.ascontiguousarray(faces, dtype=np.int64))
    bvh.endModel()
    return bvh


def piece_geometry(p: Piece) -> "coal.CollisionGeometry":
    """The coal geometry of a link piece, in the piece's own frame (place it with `p.origin`)."""
    if p.kind == "box":
        return coal.Box(*map(float, p.size))
    if p.kind == "cylinder":
        return coal.Cylinder(float(p.size[0]), float(p.size[1]))
    if p.kind == "sphere":
        return coal.Sphere(float(p.size[0]))
    return mesh_geometry(p.mesh.vertices, p.mesh.faces)


def shape_geometry(shape) -> "coal.CollisionGeometry":
    """The coal geometry of a `bioik.scene` shape (duck-typed by class name and fields)."""
    kind = type(shape).__name__
    if kind == "Box":
        return coal.Box(*map(float, shape.size))
    if kind == "Sphere":
        return coal.Sphere(float(shape.radius))
    if kind == "Cylinder":
        return coal.Cylinder(float(shape.radius), float(shape.length))
    if kind == "Capsule":
        return coal.Capsule(float(shape.radius), float(shape.length))
    m = shape.trimesh()
    return mesh_geometry(m.vertices, m.faces)


def transform(T: np.ndarray) -> "coal.Transform3s":
    return coal.Transform3s(np.ascontiguousarray(T[:3, :3]), np.ascontiguousarray(T[:3, 3]))
