"""What the viewer draws, as triangle meshes: each link's visual geometry (from the URDF's
`<visual>` elements), its collision spheres, and a scene's obstacles.

bioik's `RobotModel` keeps only collision geometry (what the solvers need), so the visuals
are read here from the robot's URDF file, with the same safe XML parser and the same mesh
confinement as the loader (`bioik.model.resolve_mesh`). A robot without a URDF file
(loaded from text or a `RobotModel`) is drawn from its collision geometry instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bioik.collision.link_geometry import link_pieces
from bioik.collision.spheres import SphereModel
from bioik.kinematics import Robot
from bioik.model import URDFError, resolve_mesh
from bioik.model.urdf_source import parse_xml, read_source
from bioik.robots import ROBOTS, urdf_path
from bioik.scene import Scene
from bioik.scene.poses import pose_from

if TYPE_CHECKING:  # trimesh takes about a second to import: imported where used
    import trimesh

#: Colour of a visual without a material colour, and of a robot drawn from collision shapes.
DEFAULT_COLOR = (200, 200, 205)
SPHERE_COLOR = (255, 140, 40)
OBSTACLE_COLOR = (150, 160, 175)


@dataclass(frozen=True)
class Part:
    """One drawable mesh of a link in the link frame, with its RGB colour (0–255)."""

    link: str
    mesh: trimesh.Trimesh
    color: tuple[int, int, int]


def robot_parts(robot: Robot) -> tuple[list[Part], str]:
    """The robot's drawable parts and where they came from ("visual" or "collision").

    Visuals come from the URDF file the robot was loaded from; without one (URDF text, a
    `RobotModel`) the links' collision geometry is drawn. Parts of one link and colour are
    merged into one mesh (fewer scene nodes, faster updates).
    """
    path = _urdf_file(robot)
    if path is None:
        import trimesh

        parts = [Part(link.name, trimesh.util.concatenate([p.trimesh() for p in link_pieces(link)]), DEFAULT_COLOR)
                 for link in robot.model.links if link.collision]
        return parts, "collision"
    return _merge(_visual_parts(path, set(robot.model.link_names))), "visual"


def sphere_parts(spheres: SphereModel) -> list[Part]:
    """The collision spheres of each link as one mesh per link (link frame)."""
    import trimesh

    unit = trimesh.creation.icosphere(subdivisions=1)
    parts = []
    for i, link in enumerate(spheres.links):
        pick = spheres.link_of == i
        balls = [trimesh.Trimesh(unit.vertices * r + c, unit.faces, process=False)
                 for c, r in zip(spheres.centres[pick], spheres.radii[pick])]
        parts.append(Part(link, trimesh.util.concatenate(balls), SPHERE_COLOR))
    return parts


def obstacle_meshes(scene: Scene) -> dict[str, trimesh.Trimesh]:
    """Each obstacle of the scene as a mesh in the robot's base frame."""
    out = {}
    for obstacle in scene:
        mesh = obstacle.shape.trimesh().copy()
        mesh.apply_transform(obstacle.pose)
        out[obstacle.name] = mesh
    return out


def _urdf_file(robot: Robot) -> Path | None:
    """The URDF file of a bundled robot or of one loaded from a path; None otherwise."""
    if robot.source in ROBOTS:
        return Path(urdf_path(robot.source))
    if robot.source is not None and Path(robot.source).is_file():
        return Path(robot.source)
    return None


def _visual_parts(path: Path, links: set[str]) -> list[Part]:
    text, origin, folder = read_source(path)
    root = parse_xml(text, origin)
    colors = {m.get("name"): _rgba(origin, m) for m in root.findall("material") if m.get("name")}
    parts = []
    for link in root.findall("link"):
        name = link.get("name")
        if name not in links:
            continue
        for visual in link.findall("visual"):
            mesh = _shape(origin, name, visual, folder)
            if mesh is None:
                continue
            material = visual.find("material")
            color = colors.get(material.get("name")) if material is not None else None
            if material is not None and material.find("color") is not None:
                color = _rgba(origin, material)
            parts.append(Part(name, mesh, color or DEFAULT_COLOR))
    return parts


def _shape(origin: str, link: str, visual, folder: Path | None) -> trimesh.Trimesh | None:
    """The visual's geometry as a mesh in the link frame (None without a <geometry>)."""
    import trimesh

    geometry = visual.find("geometry")
    if geometry is None or len(geometry) == 0:
        return None
    el = geometry[0]
    where = f"{origin} line {el.sourceline}: link {link!r} <visual>"
    if el.tag == "box":
        mesh = trimesh.creation.box(extents=_numbers(where, el, "size", 3))
    elif el.tag == "cylinder":
        mesh = trimesh.creation.cylinder(radius=_numbers(where, el, "radius", 1)[0], height=_numbers(where, el, "length", 1)[0],
                                         sections=32)
    elif el.tag == "sphere":
        mesh = trimesh.creation.icosphere(subdivisions=2, radius=_numbers(where, el, "radius", 1)[0])
    elif el.tag == "mesh":
        reference = el.get("filename") or ""
        file = resolve_mesh(reference, folder)
        mesh = trimesh.load(file, force="mesh")
        scale = _numbers(where, el, "scale", 3, default=(1.0, 1.0, 1.0), counts=(1, 3))
        mesh.apply_transform(np.diag([*scale, 1.0]))
    else:
        raise URDFError(f"{where}: unknown geometry <{el.tag}>; expected box, cylinder, sphere or mesh")
    o = visual.find("origin")
    if o is not None:
        xyz = _numbers(where + " <origin>", o, "xyz", 3, default=(0.0, 0.0, 0.0))
        rpy = _numbers(where + " <origin>", o, "rpy", 3, default=(0.0, 0.0, 0.0))
        mesh.apply_transform(pose_from(xyz, rpy))
    return mesh


def _numbers(where: str, el, attr: str, count: int, default: tuple[float, ...] | None = None,
             counts: tuple[int, ...] | None = None) -> np.ndarray:
    """`count` finite numbers ≥ 0 (≥ any for xyz/rpy) from an attribute; URDFError naming it."""
    text = el.get(attr)
    if text is None and default is not None:
        return np.array(default, dtype=float)
    try:
        values = np.array([float(x) for x in (text or "").split()])
    except ValueError:
        values = np.array([])
    allowed = counts or (count,)
    signed = attr in ("xyz", "rpy")
    if len(values) not in allowed or not np.isfinite(values).all() or (not signed and (values < 0).any()):
        form = " or ".join(str(c) for c in allowed)
        raise URDFError(f"{where}: {attr}={text!r}; expected {form} finite {'numbers' if signed else 'numbers >= 0'}")
    return np.broadcast_to(values, (count,)).astype(float)


def _rgba(origin: str, material) -> tuple[int, int, int] | None:
    """The material's <color rgba> as RGB 0–255, None without one."""
    color = material.find("color")
    if color is None:
        return None
    rgba = _numbers(f"{origin} line {color.sourceline}: material {material.get('name')!r} <color>", color, "rgba", 4)
    return tuple(int(round(255 * min(c, 1.0))) for c in rgba[:3])


def _merge(parts: list[Part]) -> list[Part]:
    """One part per (link, colour): the meshes concatenated."""
    import trimesh

    groups: dict[tuple[str, tuple[int, int, int]], list] = {}
    for p in parts:
        groups.setdefault((p.link, p.color), []).append(p.mesh)
    return [Part(link, trimesh.util.concatenate(meshes), color) for (link, color), meshes in groups.items()]
