"""Scene files: obstacles in TOML, read into (name, shape, pose) for `Scene.from_file`.

Schema (also in docs/scene-format.md). The file holds only `[[obstacle]]` tables:

    [[obstacle]]
    name = "table"                       # required, unique
    box = [1.2, 0.8, 0.05]               # exactly one shape key, see below
    position = [0.5, 0.0, -0.025]        # metres, base frame; default [0, 0, 0]
    rpy = [0.0, 0.0, 0.0]                # radians, URDF order; or quaternion = [w, x, y, z]

Shape keys:
    box = [x, y, z]                      edge lengths, centred
    sphere = r                           (or sphere = { radius = r })
    cylinder = { radius = r, length = l } along z, centred (URDF)
    capsule = { radius = r, length = l } segment of length l along z, plus radius
    mesh = "tank.stl"                    any file trimesh loads, relative to the TOML file;
                                         with scale = 0.001 and solid = false (a thin,
                                         unsigned surface) allowed
    union = [part, …]                    boolean solids of inline parts
    difference = [base, cut, …]

A part is an inline table with one shape key (box … mesh, union, difference: parts nest)
and optionally position, rpy / quaternion and (for meshes) scale, giving its pose in the
obstacle's frame:

    [[obstacle]]
    name = "tank"
    position = [0.6, 0.0, 0.5]
    difference = [
        { cylinder = { radius = 0.5, length = 1.0 } },
        { cylinder = { radius = 0.47, length = 0.94 } },
        { cylinder = { radius = 0.035, length = 0.2 }, position = [0.2, 0.0, 0.5] },
    ]

Meshes and booleans also take resolution = metres (the grid spacing). Any other key, a
missing or unparsable file, or a bad value is a SceneError naming the file, the obstacle
and the key.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bioik.scene.boolean import difference, union
from bioik.scene.errors import SceneError
from bioik.scene.poses import pose_from, validate_pose
from bioik.scene.shapes import Box, Capsule, Cylinder, Solid, Sphere, Surface

if TYPE_CHECKING:  # trimesh takes about a second to import: modules import it where they use it
    import trimesh

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SHAPE_KEYS = ("box", "sphere", "cylinder", "capsule", "mesh", "union", "difference")
POSE_KEYS = ("position", "rpy", "quaternion")
OBSTACLE_KEYS = {"name", "scale", "resolution", "solid", "touch", *SHAPE_KEYS, *POSE_KEYS}
PART_KEYS = {"scale", *SHAPE_KEYS, *POSE_KEYS}


class _Context:
    """Where an error happened: the file and the obstacle."""

    def __init__(self, path: Path, name: str):
        self.path, self.name = path, name

    def error(self, message: str, key: str | None = None) -> SceneError:
        where = f"{self.path}: obstacle {self.name!r}" + (f", key {key!r}" if key else "")
        return SceneError(f"{where}: {message}")


def read_scene_file(path: str | os.PathLike) -> list[tuple[str, object, np.ndarray, tuple[str, ...]]]:
    """(name, shape, pose, links that may touch it) of every obstacle in the TOML scene file at path."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SceneError(f"scene file {str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as e:
        raise SceneError(f"scene file {str(path)!r} cannot be read: {e}") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SceneError(f"scene file {str(path)!r} is not valid TOML: {e}") from None
    unknown = set(doc) - {"obstacle"}
    if unknown:
        raise SceneError(f"{path}: unknown top-level key {sorted(unknown)[0]!r} (a scene file holds [[obstacle]] tables)")
    tables = doc.get("obstacle", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise SceneError(f"{path}: 'obstacle' must be an array of tables ([[obstacle]])")
    out, seen = [], set()
    for i, table in enumerate(tables):
        name = table.get("name")
        ctx = _Context(path, name if isinstance(name, str) else f"#{i + 1}")
        if not isinstance(name, str) or not name:
            raise ctx.error("every obstacle needs a name (a non-empty string)", "name")
        if name in seen:
            raise ctx.error("the name is used twice", "name")
        seen.add(name)
        _check_keys(table, OBSTACLE_KEYS, ctx)
        shape = _shape(table, ctx, path.parent, top=True)
        touch = table.get("touch", [])
        if not isinstance(touch, list) or not all(isinstance(link, str) and link for link in touch):
            raise ctx.error("must be a list of robot link names that may touch this obstacle", "touch")
        out.append((name, shape, _pose(table, ctx), tuple(touch)))
    return out


def _check_keys(table: dict, allowed: set, ctx: _Context) -> None:
    for key in table:
        if key not in allowed:
            raise ctx.error(f"unknown key (allowed: {', '.join(sorted(allowed))})", key)


def _pose(table: dict, ctx: _Context) -> np.ndarray:
    try:
        return validate_pose(pose_from(table.get("position"), table.get("rpy"), table.get("quaternion"), name=ctx.name), ctx.name)
    except SceneError as e:
        raise ctx.error(str(e).split(": ", 1)[-1], next((k for k in POSE_KEYS if k in table), None)) from None


def _number(value, key: str, ctx: _Context) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ctx.error(f"expected a number; got {value!r}", key)
    return float(value)


def _dims(value, keys: tuple[str, ...], key: str, ctx: _Context) -> list[float]:
    if not isinstance(value, dict) or set(value) != set(keys):
        raise ctx.error(f"expected {{ {', '.join(f'{k} = …' for k in keys)} }}; got {value!r}", key)
    return [_number(value[k], f"{key}.{k}", ctx) for k in keys]


def _shape(table: dict, ctx: _Context, base: Path, top: bool):
    keys = [k for k in SHAPE_KEYS if k in table]
    if len(keys) != 1:
        what = "none" if not keys else ", ".join(keys)
        raise ctx.error(f"needs exactly one shape key ({', '.join(SHAPE_KEYS)}); got {what}")
    key = keys[0]
    value = table[key]
    if "scale" in table and key != "mesh":
        raise ctx.error("only meshes take a scale", "scale")
    if "solid" in table and key != "mesh":
        raise ctx.error("only meshes take solid", "solid")
    if "resolution" in table and key not in ("mesh", "union", "difference"):
        raise ctx.error("only meshes and booleans take a resolution (primitives are exact)", "resolution")
    resolution = _number(table["resolution"], "resolution", ctx) if "resolution" in table else None
    try:
        if key == "box":
            if not isinstance(value, list):
                raise ctx.error(f"expected [x, y, z] edge lengths; got {value!r}", key)
            return Box(tuple(_number(v, key, ctx) for v in value))
        if key == "sphere":
            return Sphere(_dims(value, ("radius",), key, ctx)[0] if isinstance(value, dict) else _number(value, key, ctx))
        if key in ("cylinder", "capsule"):
            return (Cylinder if key == "cylinder" else Capsule)(*_dims(value, ("radius", "length"), key, ctx))
        if key == "mesh":
            return _mesh_shape(table, value, ctx, base, resolution, top)
        if not isinstance(value, list) or not value or not all(isinstance(p, dict) for p in value):
            raise ctx.error("expected a non-empty array of inline part tables", key)
        parts = []
        for p in value:
            _check_keys(p, PART_KEYS, ctx)
            parts.append((_shape(p, ctx, base, top=False), _pose(p, ctx)))
        solid = union(*parts) if key == "union" else difference(*parts)
        return Solid(solid.mesh, resolution) if resolution is not None else solid
    except SceneError as e:
        if str(e).startswith(str(ctx.path)):
            raise
        raise ctx.error(str(e), key) from None
    except (TypeError, ValueError) as e:
        raise ctx.error(str(e), key) from None


def _mesh_shape(table, value, ctx, base, resolution, top):
    import trimesh
    if not isinstance(value, str):
        raise ctx.error(f"expected a file path; got {value!r}", "mesh")
    if "solid" in table and not isinstance(table["solid"], bool):
        raise ctx.error(f"expected true or false; got {table['solid']!r}", "solid")
    solid = table.get("solid", True)
    if not top and not solid:
        raise ctx.error("a part of a boolean must be solid", "solid")
    path = Path(value) if Path(value).is_absolute() else base / value
    if not path.is_file():
        raise ctx.error(f"mesh file {str(path)!r} does not exist", "mesh")
    try:
        mesh = trimesh.load(path, force="mesh")
    except Exception as e:  # noqa: BLE001 (trimesh raises many kinds)
        raise ctx.error(f"cannot load mesh file {str(path)!r}: {e}", "mesh") from None
    if not isinstance(mesh, trimesh.Trimesh) or len(mesh.faces) == 0:
        raise ctx.error(f"mesh file {str(path)!r} holds no triangles", "mesh")
    mesh.metadata.setdefault("file_name", path.name)
    if "scale" in table:
        scale = _number(table["scale"], "scale", ctx)
        if not np.isfinite(scale) or scale <= 0.0:
            raise ctx.error(f"must be finite and > 0; got {scale!r}", "scale")
        mesh.apply_scale(scale)
    return (Solid if solid else Surface)(mesh, resolution)
