"""Boolean solids: `union` and `difference` of shapes, as one closed mesh (`Solid`).

A hollow tank with an opening is the outer cylinder minus the inner one minus a hole;
no primitive can say that, and a union of primitives would report the distance to the
nearest part rather than to the combined surface. So the parts are meshed, combined by
`trimesh.boolean` with the manifold3d engine (robust, keeps the result watertight), and
the result gets a grid like any other mesh.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bioik.scene.errors import SceneError
from bioik.scene.poses import validate_pose
from bioik.scene.shapes import Box, Capsule, Cylinder, Solid, Sphere, Surface

if TYPE_CHECKING:  # trimesh takes about a second to import: modules import it where they use it
    import trimesh

#: What a boolean takes: a shape, a trimesh.Trimesh, or either with a pose as (part, pose).
Part = "Box | Sphere | Cylinder | Capsule | Solid | trimesh.Trimesh | tuple"


def _mesh(part, what: str) -> trimesh.Trimesh:
    """A part (shape, Trimesh, or (either, 4×4 pose)) as a mesh in the result's frame."""
    import trimesh
    pose = None
    if isinstance(part, tuple):
        if len(part) != 2:
            raise SceneError(f"{what}: a posed part is (shape, 4×4 pose); got a tuple of {len(part)}")
        part, pose = part
    if isinstance(part, Surface):
        raise SceneError(f"{what}: a Surface has no inside, so it cannot take part in a boolean")
    if isinstance(part, (Box, Sphere, Cylinder, Capsule, Solid)):
        mesh = part.trimesh().copy()
    elif isinstance(part, trimesh.Trimesh):
        mesh = part.copy()
    else:
        raise SceneError(f"{what}: parts are shapes or trimesh.Trimesh, optionally (part, pose); got {type(part).__name__}")
    if pose is not None:
        mesh.apply_transform(validate_pose(pose, what))
    return mesh


def _solid(result: trimesh.Trimesh, what: str) -> Solid:
    if len(result.faces) == 0:
        raise SceneError(f"{what}: the result is empty")
    return Solid(result)


def union(*parts: Part) -> Solid:
    """The solid covered by any of the parts.

    Args:
        *parts: each a Box, Sphere, Cylinder, Capsule, Solid, trimesh.Trimesh, or (shape, 4×4 pose).

    Returns:
        The `Solid`.
    """
    import trimesh
    if not parts:
        raise SceneError("union: needs at least one part")
    meshes = [_mesh(p, f"union part {i}") for i, p in enumerate(parts)]
    result = meshes[0] if len(meshes) == 1 else trimesh.boolean.union(meshes, engine="manifold")
    return _solid(result, "union")


def difference(a: Part, *cut: Part) -> Solid:
    """`a` with every part of `cut` removed.

    Args:
        a: the part to cut from: a Box, Sphere, Cylinder, Capsule, Solid, trimesh.Trimesh, or (shape, 4×4 pose).
        *cut: the parts to remove, each of the same kinds.

    Returns:
        The `Solid`.
    """
    import trimesh
    base = _mesh(a, "difference base")
    if not cut:
        return _solid(base, "difference")
    meshes = [base] + [_mesh(p, f"difference cut {i}") for i, p in enumerate(cut)]
    return _solid(trimesh.boolean.difference(meshes, engine="manifold"), "difference")

