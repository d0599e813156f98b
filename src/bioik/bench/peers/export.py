"""A bioik scene and robot collision geometry as collision-aware peers take them.

Drake and MuJoCo take boxes, spheres, cylinders and capsules as they are, and a mesh as
its convex hull (Drake's signed distance on a `Convex`, MuJoCo's collision on a mesh geom).
So every obstacle becomes primitives or convex pieces (`Geom`) that cover exactly bioik's
solid: a non-convex `Solid` (the booleans: EBIKE's tanks and barrel) is cut into convex
pieces (`convex_pieces`) along the planes of its reflex faces, with manifold3d's exact
plane split, until every piece is convex; the pieces partition the solid (proved on random
points in tests/bench/test_peer_export.py). A `Surface` (an open sheet, no inside) has no
convex form and is left out, with a note: `ExportedScene.notes` say what a peer cannot
represent, and the bench shows them beside its rows.

The collision filters follow bioik's exact check (`bioik.collision.CollisionChecker`): the
self pairs it tests are the allowed-collision matrix's `exact_checked` pairs (elise_ur10's
wrist_2_link-endoscope_mount, touching by construction, is not one of them), and the
robot-obstacle pairs are every link with geometry against every obstacle but the scene's
`allowed_contacts`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from bioik.kinematics.robot import Robot

if TYPE_CHECKING:
    import trimesh

#: Each cut runs this far (m) beyond the reflex face's plane: a split exactly on a face's
#: plane leaves the face, coplanar with the cut, on both sides (a flap of no volume that
#: stays reflex). So a piece may reach up to this far past bioik's solid.
CUT_OFFSET = 1e-9
#: A face whose plane has a vertex of the solid more than this far (m) on its outer side is
#: reflex (the solid is not convex there); below it, a piece counts as convex.
CONVEX_TOLERANCE = 2 * CUT_OFFSET
#: Most pieces one solid is cut into (a bound on the split, far above the EBIKE solids').
MAX_PIECES = 2000


@dataclass(frozen=True, eq=False)
class Geom:
    """One primitive or convex piece in its owner's frame (an obstacle's: the robot's base
    frame; a link's: the link frame).

    kind: "box" (size = full edge lengths), "sphere" (radius,), "cylinder" or "capsule"
    (radius, length along local z), or "convex" (`vertices`: points whose hull it is, in
    the geom's frame). `pose` is its 4×4 pose in the owner's frame.
    """

    kind: str
    pose: np.ndarray
    size: tuple[float, ...] = ()
    vertices: np.ndarray | None = None


@dataclass
class ExportedScene:
    """A scene as peers take it: obstacle name → its geoms (base frame), the (link,
    obstacle) pairs that may touch, and notes on what could not be represented."""

    obstacles: dict[str, list[Geom]]
    allowed: set[tuple[str, str]]
    notes: list[str] = field(default_factory=list)


def _manifold(mesh: trimesh.Trimesh) -> Any:
    import manifold3d

    return manifold3d.Manifold(manifold3d.Mesh64(vert_properties=np.ascontiguousarray(mesh.vertices, dtype=np.float64),
                                                 tri_verts=np.ascontiguousarray(mesh.faces, dtype=np.uint64)))


def _arrays(m: Any) -> tuple[np.ndarray, np.ndarray]:
    mesh = m.to_mesh64()
    return np.asarray(mesh.vert_properties, dtype=float)[:, :3], np.asarray(mesh.tri_verts, dtype=np.int64)


def _reflex_plane(V: np.ndarray, F: np.ndarray, tol: float) -> tuple[np.ndarray, float] | None:
    """(unit normal, offset) of the reflex face plane (one with a vertex more than `tol`
    beyond it) that the fewest triangles straddle, the largest such face first; None if
    there is none (the part is convex). Cutting where few triangles cross keeps the pieces few."""
    a, b, c = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    n = np.cross(b - a, c - a)
    area = np.linalg.norm(n, axis=1)
    ok = area > 1e-18
    n, a, area = n[ok] / area[ok, None], a[ok], area[ok]
    d = np.einsum("ij,ij->i", n, a)
    side = V @ n.T - d  # (vertices, faces): signed distance of each vertex to each face's plane
    reflex = np.flatnonzero(side.max(axis=0) > tol)
    if not len(reflex):
        return None
    s = side[:, reflex][F]  # (triangles, 3, candidates)
    crossing = ((s.max(axis=1) > tol) & (s.min(axis=1) < -tol)).sum(axis=0)
    k = reflex[np.lexsort((-area[reflex], crossing))[0]]
    return n[k], float(d[k])


def convex_pieces(mesh: trimesh.Trimesh, tol: float = CONVEX_TOLERANCE) -> list[np.ndarray]:
    """Convex pieces (each its vertices) that partition the closed mesh's solid.

    Each non-convex part is split (manifold3d) CUT_OFFSET beyond the plane of a reflex face
    (`_reflex_plane`), and into its connected components, until every part is convex
    within `tol`; a flat part (no volume) is dropped. Each piece is its hull's vertices.
    ValueError for an open mesh or a solid needing more than MAX_PIECES.
    """
    from scipy.spatial import ConvexHull, QhullError

    if not mesh.is_watertight:
        raise ValueError("convex_pieces: the mesh is not closed (watertight), so it has no inside to cut")
    todo, pieces = [_manifold(mesh)], []
    while todo:
        part = todo.pop()
        if part.is_empty() or part.volume() <= 0.0:
            continue
        parts = part.decompose()
        if len(parts) > 1:
            todo += parts
            continue
        V, F = _arrays(part)
        plane = _reflex_plane(V, F, tol)
        if plane is None:
            try:
                pieces.append(V[ConvexHull(V).vertices])
            except QhullError:  # flat: a sliver of a cut, no volume
                continue
            if len(pieces) > MAX_PIECES:
                raise ValueError(f"convex_pieces: the solid needs more than {MAX_PIECES} convex pieces")
            continue
        todo += list(part.split_by_plane(plane[0], plane[1] + CUT_OFFSET))
    return pieces


def obstacle_geoms(shape: Any, pose: np.ndarray) -> tuple[list[Geom], str | None]:
    """The geoms of one obstacle (shape at `pose`, base frame) and a note if it has none."""
    kind = type(shape).__name__
    if kind == "Box":
        return [Geom("box", pose, tuple(shape.size))], None
    if kind == "Sphere":
        return [Geom("sphere", pose, (shape.radius,))], None
    if kind in ("Cylinder", "Capsule"):
        return [Geom(kind.lower(), pose, (shape.radius, shape.length))], None
    if kind == "Solid":
        return [Geom("convex", pose, (), V) for V in convex_pieces(shape.mesh)], None
    return [], f"a {kind} (an open mesh, no inside) has no convex form"


def export_scene(scene: Any) -> ExportedScene:
    """Every obstacle of `scene` as geoms, its allowed contacts and notes (see the module)."""
    obstacles: dict[str, list[Geom]] = {}
    notes = []
    for name, obstacle in scene.obstacles.items():
        geoms, note = obstacle_geoms(obstacle.shape, np.asarray(obstacle.pose, dtype=float))
        obstacles[name] = geoms
        if note is not None:
            notes.append(f"obstacle {name!r} left out: {note}")
    return ExportedScene(obstacles, set(scene.allowed_contacts), notes)


def link_geoms(robot: Robot) -> dict[str, list[Geom]]:
    """Each link with collision geometry → its geoms in the link frame (a mesh: its convex hull)."""
    from bioik.collision.link_geometry import collision_links, link_pieces

    out = {}
    for name in collision_links(robot.model):
        geoms = []
        for p in link_pieces(robot.model.link(name)):
            if p.kind == "mesh":
                geoms.append(Geom("convex", p.origin, (), p.vertices()))
            else:
                geoms.append(Geom(p.kind, p.origin, tuple(p.size)))
        out[name] = geoms
    return out


def mesh_links(robot: Robot) -> list[str]:
    """Links whose collision geometry has a mesh (peers take its convex hull: a note)."""
    from bioik.collision.link_geometry import collision_links

    return [n for n in collision_links(robot.model) if any(g.kind == "mesh" for g in robot.model.link(n).collision)]


def self_pairs(robot: Robot) -> list[tuple[str, str]]:
    """The link pairs bioik's exact check tests for self-collision."""
    from bioik.collision.acm import allowed_collisions

    return [tuple(p) for p in allowed_collisions(robot).exact_checked]  # type: ignore[misc]


def scene_pairs(robot: Robot, exported: ExportedScene) -> list[tuple[str, str]]:
    """(link, obstacle) pairs bioik's exact check tests: every link with geometry against
    every obstacle with geoms, but the allowed contacts."""
    from bioik.collision.link_geometry import collision_links

    return [(link, name) for link, name in itertools.product(collision_links(robot.model), exported.obstacles)
            if exported.obstacles[name] and (link, name) not in exported.allowed]


def attachments(robot: Robot, bodies: list[str]) -> tuple[dict[str, tuple[str, np.ndarray]], list[str]]:
    """Where each link with collision geometry rides in a peer model whose links are
    `bodies` (the chain): link → (body, the link's pose in the body frame), and notes on
    links that move with a joint outside the chain (left out)."""
    from bioik.collision.link_geometry import collision_links

    model = robot.model
    active = set(robot.group.variables)
    q = robot.center()
    out, notes = {}, []
    for link in collision_links(model):
        k, moved = model.link_index(link), False
        while model.links[k].name not in bodies:
            joint = model.joints[model.parent_joint[k]]
            moved |= any(m.variable in active for m in joint.motions)
            k = joint.parent
        body = model.links[k].name
        if moved:
            notes.append(f"link {link!r} left out: it moves with joints outside the chain to the tip")
            continue
        out[link] = (body, np.linalg.inv(robot.link_pose(q, body)) @ robot.link_pose(q, link))
    return out, notes


@dataclass
class CollisionModel:
    """What a collision-aware peer model holds: each link's geoms on the chain body it rides
    on (link → (body, geoms in the body frame)), the obstacles' geoms (base frame), the
    link pairs and (link, obstacle) pairs to keep apart, and notes on what is left out."""

    links: dict[str, tuple[str, list[Geom]]]
    obstacles: dict[str, list[Geom]]
    self_pairs: list[tuple[str, str]]
    scene_pairs: list[tuple[str, str]]
    notes: list[str]


def collision_model(robot: Robot, bodies: list[str], scene: Any) -> CollisionModel:
    """The collision model of `robot` (a peer model with links `bodies`) among `scene`'s
    obstacles, checked like bioik's exact check does (see the module)."""
    riding, notes = attachments(robot, bodies)
    links = {link: (body, [Geom(g.kind, X @ g.pose, g.size, g.vertices) for g in geoms])
             for link, geoms in link_geoms(robot).items() if link in riding for body, X in [riding[link]]}
    notes += [f"link {link!r}: its mesh is taken as its convex hull" for link in mesh_links(robot)]
    exported = export_scene(scene)
    pairs = [(a, b) for a, b in self_pairs(robot) if a in links and b in links]
    return CollisionModel(links, exported.obstacles, pairs, [p for p in scene_pairs(robot, exported) if p[0] in links],
                          notes + exported.notes)
