"""URDF text → `RobotModel`, with errors that say what is wrong and where.

XML is parsed strictly first (yourdfpy would silently "recover" from broken XML), the
tree structure is checked (every joint names existing parent and child links, one root,
no cycles), and yourdfpy then reads the element contents (origins, limits, inertials,
geometry).
"""

from __future__ import annotations

import io
import logging
import math
from pathlib import Path

import numpy as np
from lxml import etree

from bioik.errors import BioikError
from bioik.model.robot_model import (
    JOINT_TYPES,
    PRISMATIC,
    REVOLUTE,
    Geometry,
    Joint,
    Link,
    Motion,
    RobotModel,
    Variable,
)

#: Velocity limit (rad/s or m/s) assumed when a URDF gives none.
DEFAULT_VELOCITY = 1.0


class URDFError(BioikError, ValueError):
    """A URDF that cannot be loaded; the message says what and where."""


def parse_urdf(source: str | Path) -> RobotModel:
    """Load a URDF from a file path or from URDF text."""
    if isinstance(source, Path) or not str(source).lstrip().startswith("<"):
        path = Path(source)
        if not path.is_file():
            raise URDFError(f"URDF file {str(path)!r} does not exist (expected a URDF path, URDF text or a bundled robot name)")
        text, origin = path.read_bytes(), str(path)
    else:
        text, origin = str(source).encode(), "<URDF string>"
    root = _strict_xml(text, origin)
    _check_structure(root, origin)
    return _build(root, text, origin)


def _strict_xml(text: bytes, origin: str) -> etree._Element:
    try:
        root = etree.fromstring(text, parser=etree.XMLParser(remove_blank_text=True))
    except etree.XMLSyntaxError as e:
        line, col = e.position if e.position else (0, 0)
        raise URDFError(f"malformed XML in {origin} at line {line}, column {col}: {e.msg}") from None
    if root.tag != "robot":
        raise URDFError(f"{origin}: the root element is <{root.tag}>, expected <robot>")
    return root


def _check_structure(root: etree._Element, origin: str) -> None:
    where = lambda el: f"{origin} line {el.sourceline}"  # noqa: E731
    links: set[str] = set()
    for el in root.findall("link"):
        name = el.get("name")
        if not name:
            raise URDFError(f"{where(el)}: <link> without a name")
        if name in links:
            raise URDFError(f"{where(el)}: duplicate link name {name!r}")
        links.add(name)
    if not links:
        raise URDFError(f"{origin}: the robot has no <link>")
    parent_of: dict[str, str] = {}
    joints: set[str] = set()
    for el in root.findall("joint"):
        name = el.get("name")
        if not name:
            raise URDFError(f"{where(el)}: <joint> without a name")
        if name in joints:
            raise URDFError(f"{where(el)}: duplicate joint name {name!r}")
        joints.add(name)
        jtype = el.get("type")
        if jtype not in JOINT_TYPES:
            raise URDFError(f"{where(el)}: joint {name!r} has type {jtype!r}; expected one of {', '.join(JOINT_TYPES)}")
        ends = {}
        for tag in ("parent", "child"):
            sub = el.find(tag)
            if sub is None or not sub.get("link"):
                raise URDFError(f"{where(el)}: joint {name!r} has no <{tag} link=\"...\"/>")
            if sub.get("link") not in links:
                raise URDFError(f"{where(sub)}: joint {name!r} names {tag} link {sub.get('link')!r}, which is not a <link> of this robot")
            ends[tag] = sub.get("link")
        if ends["child"] in parent_of:
            raise URDFError(f"{where(el)}: link {ends['child']!r} is the child of two joints")
        parent_of[ends["child"]] = ends["parent"]
        if jtype in ("revolute", "prismatic") and el.find("limit") is None:
            raise URDFError(f"{where(el)}: {jtype} joint {name!r} has no <limit lower=.. upper=.. velocity=../>")
    roots = sorted(links - set(parent_of))
    for start in parent_of:  # follow parents: a cycle never reaches a root
        seen, link = {start}, start
        while link in parent_of:
            link = parent_of[link]
            if link in seen:
                raise URDFError(f"{origin}: the joints form a cycle through link {link!r}")
            seen.add(link)
    if len(roots) != 1:
        raise URDFError(f"{origin}: expected one root link, found {len(roots)}: {', '.join(roots)}")


def _build(root: etree._Element, text: bytes, origin: str) -> RobotModel:
    import yourdfpy

    logging.getLogger("yourdfpy").setLevel(logging.CRITICAL)
    try:
        urdf = yourdfpy.URDF.load(io.BytesIO(text), build_scene_graph=False, load_meshes=False)
    except (ValueError, TypeError, AttributeError, IndexError) as e:
        raise URDFError(f"{origin}: cannot read the URDF elements: {e}") from None
    robot = urdf.robot
    by_child = {j.child: j for j in robot.joints}
    children: dict[str, list] = {l.name: [] for l in robot.links}
    for j in robot.joints:
        children[j.parent].append(j)
    root_link = next(l.name for l in robot.links if l.name not in by_child)

    order: list[str] = []  # depth-first, children in file order: parents first
    stack = [root_link]
    while stack:
        name = stack.pop()
        order.append(name)
        stack.extend(j.child for j in reversed(children[name]))
    link_index = {name: i for i, name in enumerate(order)}
    ulinks = {l.name: l for l in robot.links}
    links = [_link(ulinks[name], origin) for name in order]
    ujoints = [by_child[name] for name in order[1:]]

    variables: list[Variable] = []
    first_var: dict[str, int] = {}
    for j in ujoints:
        if j.mimic is None and j.type != "fixed":
            first_var[j.name] = len(variables)
            variables.extend(_variables(j, origin))
    joint_by_name = {j.name: j for j in ujoints}
    joints = [
        Joint(
            name=j.name,
            type=j.type,
            parent=link_index[j.parent],
            child=link_index[j.child],
            origin=np.eye(4) if j.origin is None else np.asarray(j.origin, float),
            motions=_motions(j, joint_by_name, first_var, origin),
            mimic=None if j.mimic is None else j.mimic.joint,
        )
        for j in ujoints
    ]
    return RobotModel(robot.name or "robot", links, joints, variables)


def _link(ul, origin: str) -> Link:
    mass, com = 0.0, np.zeros(3)
    if ul.inertial is not None:
        mass = float(ul.inertial.mass or 0.0)
        if ul.inertial.origin is not None:
            com = np.asarray(ul.inertial.origin, float)[:3, 3].copy()
    shapes = []
    for c in ul.collisions:
        g = c.geometry
        T = np.eye(4) if c.origin is None else np.asarray(c.origin, float)
        if g is None:
            continue
        if g.box is not None:
            shapes.append(Geometry("box", T, tuple(float(x) for x in g.box.size)))
        elif g.cylinder is not None:
            shapes.append(Geometry("cylinder", T, (float(g.cylinder.radius), float(g.cylinder.length))))
        elif g.sphere is not None:
            shapes.append(Geometry("sphere", T, (float(g.sphere.radius),)))
        elif g.mesh is not None:
            scale = g.mesh.scale if g.mesh.scale is not None else 1.0
            shapes.append(Geometry("mesh", T, tuple(np.broadcast_to(np.asarray(scale, float), 3)), g.mesh.filename))
    return Link(ul.name, mass, com, tuple(shapes))


def _axis(j, origin: str) -> np.ndarray:
    axis = np.array([1.0, 0.0, 0.0]) if j.axis is None else np.asarray(j.axis, float)
    norm = float(np.linalg.norm(axis))
    if not np.isfinite(norm) or norm < 1e-12:
        raise URDFError(f"{origin}: joint {j.name!r} has axis {axis.tolist()}; expected a non-zero vector")
    return axis / norm


def _variables(j, origin: str) -> list[Variable]:
    lim = j.limit
    velocity = float(lim.velocity) if lim is not None and lim.velocity else DEFAULT_VELOCITY
    if j.type in ("revolute", "prismatic"):
        lo, hi = float(lim.lower or 0.0), float(lim.upper or 0.0)
        if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
            raise URDFError(f"{origin}: joint {j.name!r} has limits lower={lo} upper={hi}; expected finite lower <= upper")
        kind = REVOLUTE if j.type == "revolute" else PRISMATIC
        return [Variable(j.name, j.name, kind, lo, hi, velocity)]
    if j.type == "continuous":
        return [Variable(j.name, j.name, REVOLUTE, -math.inf, math.inf, velocity)]
    if j.type == "planar":
        names = [("x", PRISMATIC), ("y", PRISMATIC), ("theta", REVOLUTE)]
    else:  # floating
        names = [(f"trans_{a}", PRISMATIC) for a in "xyz"] + [(f"rot_{a}", REVOLUTE) for a in "xyz"]
    return [Variable(f"{j.name}/{n}", j.name, kind, -math.inf, math.inf, velocity) for n, kind in names]


def _motions(j, joint_by_name: dict, first_var: dict[str, int], origin: str) -> tuple[Motion, ...]:
    if j.type == "fixed":
        return ()
    if j.mimic is not None and j.type in ("floating", "planar"):
        raise URDFError(f"{origin}: {j.type} joint {j.name!r} has a <mimic>; only one-variable joints can mimic")
    multiplier, offset, source, seen = 1.0, 0.0, j, {j.name}
    while source.mimic is not None:  # resolve mimic chains down to a real variable
        m = source.mimic
        if m.joint not in joint_by_name or m.joint in seen:
            raise URDFError(f"{origin}: joint {source.name!r} mimics {m.joint!r}, which is not a (non-circular) joint of this robot")
        seen.add(m.joint)
        mult = 1.0 if m.multiplier is None else float(m.multiplier)
        off = 0.0 if m.offset is None else float(m.offset)
        offset, multiplier = multiplier * off + offset, multiplier * mult
        source = joint_by_name[m.joint]
        if source.type in ("fixed", "floating", "planar"):
            raise URDFError(f"{origin}: joint {j.name!r} mimics {source.type} joint {source.name!r}; expected a one-variable joint")
    if j.type in ("revolute", "continuous", "prismatic"):
        kind = PRISMATIC if j.type == "prismatic" else REVOLUTE
        return (Motion(kind, _axis(j, origin), first_var[source.name], multiplier, offset),)
    v = first_var[j.name]
    if j.type == "planar":
        n = _axis(j, origin)
        u = np.cross(n, [1.0, 0.0, 0.0] if abs(n[0]) < 0.9 else [0.0, 1.0, 0.0])
        u /= np.linalg.norm(u)
        w = np.cross(n, u)
        return (Motion(PRISMATIC, u, v), Motion(PRISMATIC, w, v + 1), Motion(REVOLUTE, n, v + 2))
    e = np.eye(3)
    return tuple(Motion(PRISMATIC, e[i], v + i) for i in range(3)) + tuple(Motion(REVOLUTE, e[i], v + 3 + i) for i in range(3))
