"""What the viewer draws, as triangle meshes: each link's visual geometry (from the URDF's
`<visual>` elements), its collision spheres, and a scene's obstacles.

bioik's `RobotModel` keeps only collision geometry (what the solvers need), so the visuals
are read here from the robot's URDF file, with the same safe XML parser and the same mesh
confinement as the loader (`bioik.model.resolve_mesh`). A robot without a URDF file
(loaded from text or a `RobotModel`) is drawn from its collision geometry instead.

Reading the visuals takes trimesh (about a second to import) and the mesh loaders, so the
merged parts of a URDF file are kept on disk (`bioik._cache_dir.cache_dir("viewer")`), keyed
like parsed models: the URDF bytes, its path, each mesh file's path, size and time, and this
module's code. A warm `bioik view` then draws without importing trimesh.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bioik import _cache_dir
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
    """One drawable triangle mesh of a link in the link frame, with its RGB colour (0–255)."""

    link: str
    vertices: np.ndarray  # (n, 3) float
    faces: np.ndarray  # (m, 3) int
    color: tuple[int, int, int]


def _part(link: str, mesh: trimesh.Trimesh, color: tuple[int, int, int]) -> Part:
    return Part(link, np.asarray(mesh.vertices, dtype=float), np.asarray(mesh.faces, dtype=np.int64), color)


def robot_parts(robot: Robot) -> tuple[list[Part], str]:
    """The robot's drawable parts and where they came from ("visual" or "collision").

    Visuals come from the URDF file the robot was loaded from; without one (URDF text, a
    `RobotModel`) the links' collision geometry is drawn. Parts of one link and colour are
    merged into one mesh (fewer scene nodes, faster updates).
    """
    path = _urdf_file(robot)
    if path is None:
        import trimesh

        parts = [_part(link.name, trimesh.util.concatenate([p.trimesh() for p in link_pieces(link)]), DEFAULT_COLOR)
                 for link in robot.model.links if link.collision]
        return parts, "collision"
    text, origin, folder = read_source(path)
    root = parse_xml(text, origin)
    links = set(robot.model.link_names)
    key = _parts_key(text, origin, folder, root, links)
    parts = _load_parts(key)
    if parts is None:
        parts = _merge(_visual_parts(origin, root, folder, links))
        _store_parts(key, parts)
    return parts, "visual"


def sphere_parts(spheres: SphereModel) -> list[Part]:
    """The collision spheres of each link as one mesh per link (link frame)."""
    import trimesh

    unit = trimesh.creation.icosphere(subdivisions=1)
    parts = []
    for i, link in enumerate(spheres.links):
        pick = spheres.link_of == i
        balls = [trimesh.Trimesh(unit.vertices * r + c, unit.faces, process=False)
                 for c, r in zip(spheres.centres[pick], spheres.radii[pick])]
        parts.append(_part(link, trimesh.util.concatenate(balls), SPHERE_COLOR))
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


def _parts_key(text: bytes, origin: str, folder: Path | None, root, links: set[str]) -> str:
    """The cache key of a URDF file's drawn parts (see the module docstring)."""
    code = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    h = hashlib.sha256(f"{code}|{origin}|{folder}|{sorted(links)}|".encode())
    h.update(text)
    for el in root.iter("mesh"):
        try:
            found = resolve_mesh(el.get("filename") or "", folder)
            stat = found.stat()
            h.update(f"|{found}|{stat.st_size}|{stat.st_mtime_ns}".encode())
        except (OSError, ValueError):  # reading the visuals will say what is wrong
            h.update(b"|missing")
    return h.hexdigest()[:32]


def _load_parts(key: str) -> list[Part] | None:
    """The stored parts of `key`, or None (missing or unreadable: read the URDF again)."""
    try:
        with np.load(_cache_dir.cache_dir("viewer") / f"{key}.npz") as z:
            return [Part(str(link), z[f"v{i}"], z[f"f{i}"], tuple(int(c) for c in color))
                    for i, (link, color) in enumerate(zip(z["links"], z["colors"]))]
    except Exception:  # noqa: BLE001 — a damaged entry only means reading the visuals again
        return None


def _store_parts(key: str, parts: list[Part]) -> None:
    arrays = {"links": np.array([p.link for p in parts]), "colors": np.array([p.color for p in parts], dtype=np.int64)}
    for i, p in enumerate(parts):
        arrays[f"v{i}"], arrays[f"f{i}"] = p.vertices, p.faces
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    _cache_dir.write_whole(_cache_dir.cache_dir("viewer") / f"{key}.npz", lambda f: f.write(buffer.getvalue()))


def _visual_parts(origin: str, root, folder: Path | None, links: set[str]) -> list[Part]:
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
            parts.append(_part(name, mesh, color or DEFAULT_COLOR))
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
    groups: dict[tuple[str, tuple[int, int, int]], list[Part]] = {}
    for p in parts:
        groups.setdefault((p.link, p.color), []).append(p)
    merged = []
    for (link, color), group in groups.items():
        offsets = np.cumsum([0] + [len(p.vertices) for p in group[:-1]])
        merged.append(Part(link, np.concatenate([p.vertices for p in group]),
                           np.concatenate([p.faces + o for p, o in zip(group, offsets)]), color))
    return merged
