"""URDF → `RobotModel`, with errors that say what is wrong and where.

The XML is parsed strictly and without entities (`urdf_source`; yourdfpy would silently
"recover" from broken XML and expand entities), the tree structure is checked (every
joint names existing parent and child links, one root, no cycles), the form of the
numbers bioik uses is checked on the raw text (`urdf_checks`), yourdfpy then parses the
element contents (origins, axes, limits, mimic, inertials, geometry), and bioik checks
the values it parsed (`urdf_checks`: finite numbers, limits, non-zero axes). Every step
of bioik's is linear in the number of links, and nothing recurses.
"""

from __future__ import annotations

import io
import logging
import math
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
from lxml import etree

from bioik.model import model_cache
from bioik.model import urdf_checks as check
from bioik.model.meshes import mesh_candidates
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
from bioik.model.urdf_checks import Owner
from bioik.model.urdf_source import URDFError, is_file, parse_xml, read_source

__all__ = ["DEFAULT_VELOCITY", "URDFError", "parse_urdf"]

#: Velocity limit (rad/s or m/s) assumed when a URDF gives none.
DEFAULT_VELOCITY = 1.0


def parse_urdf(source: str | bytes | Path | os.PathLike, *, mesh_dirs: Sequence[str | os.PathLike] = (),
               allow_outside: bool = False, package_dirs: Mapping[str, str | os.PathLike] | None = None) -> RobotModel:
    """Load a URDF from a file path, URDF text or URDF bytes.

    Mesh references must lie in the URDF's folder, in `mesh_dirs` or in the folder of the
    ``package://`` they name (found as ROS finds it, or given in `package_dirs` as
    {name: folder}; see `bioik.model.meshes`); `allow_outside=True` trusts the URDF to
    point anywhere. A mesh found there is kept as
    `Geometry.path`; one not found (yet) leaves it None.
    """
    text, origin, folder = read_source(source)
    root = parse_xml(text, origin)

    def mesh_file(reference: str) -> Path | None:
        return next((c for c in mesh_candidates(reference, folder, mesh_dirs, allow_outside, package_dirs) if is_file(c)), None)

    try:
        key = model_cache.model_key(text, origin, folder, root, mesh_dirs, allow_outside, mesh_file, package_dirs)
    except (URDFError, OSError, ValueError):  # a reference refused or unreadable: the full parse names it
        key = None
    model = model_cache.load(key) if key is not None else None
    if model is not None:
        return model
    links, joints = _check_structure(root, origin)
    _check_forms(links, joints, origin)
    robot = _yourdfpy(root, text, origin, lambda: _check_forms(links, joints, origin, unused=True))
    model = _build(root, robot, links, joints, origin, mesh_file)
    if key is not None:
        model_cache.store(key, model)
    return model


def _check_forms(links: dict[str, etree._Element], joints: dict[str, etree._Element], origin: str, unused: bool = False) -> None:
    """The form of the numbers yourdfpy will parse (see `urdf_checks`)."""
    for name, el in links.items():
        check.link_form(Owner(origin, "link", name), el, unused=unused)
    for el in joints.values():
        check.joint_form(Owner(origin, "joint", el.get("name")), el)


def _yourdfpy(root: etree._Element, text: bytes, origin: str, name_failure: Callable[[], None]):
    """yourdfpy's `Robot` of the checked URDF text (its links and joints in file order).

    If yourdfpy fails, `name_failure` looks for the element to name (in parts bioik does
    not use, such as visuals); failing that, yourdfpy's message is passed on.
    """
    import yourdfpy

    logging.getLogger("yourdfpy").setLevel(logging.CRITICAL)
    if root.get("name") is None:  # yourdfpy requires a robot name; bioik calls it "robot"
        root.set("name", "robot")
        text = etree.tostring(root)
    try:  # non-finite numbers are refused after parsing; yourdfpy's transforms need not warn about them
        with np.errstate(invalid="ignore", over="ignore"):
            urdf = yourdfpy.URDF.load(io.BytesIO(text), build_scene_graph=False, load_meshes=False)
    except (ValueError, TypeError, AttributeError, IndexError, KeyError) as e:
        name_failure()
        raise URDFError(f"{origin}: cannot read the URDF elements: {e}") from None
    return urdf.robot


def _check_structure(root: etree._Element, origin: str) -> tuple[dict[str, etree._Element], dict[str, etree._Element]]:
    """Link elements by name and joint elements by child link, after checking the tree."""
    where = lambda el: f"{origin} line {el.sourceline}"  # noqa: E731
    links: dict[str, etree._Element] = {}
    for el in root.findall("link"):
        name = el.get("name")
        if not name:
            raise URDFError(f"{where(el)}: <link> without a name")
        if name in links:
            raise URDFError(f"{where(el)}: duplicate link name {name!r}")
        links[name] = el
    if not links:
        raise URDFError(f"{origin}: the robot has no <link>")
    by_child: dict[str, etree._Element] = {}
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
        by_child[ends["child"]] = el
        if jtype in ("revolute", "prismatic") and el.find("limit") is None:
            raise URDFError(f"{where(el)}: {jtype} joint {name!r} has no <limit lower=.. upper=.. velocity=../>")
    roots = [name for name in links if name not in parent_of]
    _check_acyclic(links, parent_of, roots, origin)
    if len(roots) != 1:
        raise URDFError(f"{origin}: expected one root link, found {len(roots)}: {', '.join(sorted(roots))}")
    return links, by_child


def _check_acyclic(links: dict, parent_of: dict[str, str], roots: list[str], origin: str) -> None:
    """Every link must be reached from a root; an unreached link hangs below a cycle."""
    children: dict[str, list[str]] = {name: [] for name in links}
    for child, parent in parent_of.items():
        children[parent].append(child)
    reached, stack = set(roots), list(roots)
    while stack:
        for child in children[stack.pop()]:
            reached.add(child)
            stack.append(child)
    unreached = [name for name in links if name not in reached]
    if unreached:  # walk up from one of them until a link repeats: that link is on the cycle
        seen, link = set(), unreached[0]
        while link not in seen:
            seen.add(link)
            link = parent_of[link]
        raise URDFError(f"{origin}: the joints form a cycle through link {link!r}")


def _build(root: etree._Element, robot, link_els: dict[str, etree._Element], by_child: dict[str, etree._Element],
           origin: str, mesh_file: Callable[[str], Path | None]) -> RobotModel:
    """The model from yourdfpy's `robot`; its links and joints are those of `root`, in the same (file) order."""
    ulinks = dict(zip(link_els, robot.links))
    ujoints = {el.get("name"): uj for el, uj in zip(root.findall("joint"), robot.joints)}
    children: dict[str, list[etree._Element]] = {name: [] for name in link_els}
    for el in by_child.values():  # in file order
        children[el.find("parent").get("link")].append(el)
    root_link = next(name for name in link_els if name not in by_child)

    order: list[str] = []  # depth-first, children in file order: parents first
    stack = [root_link]
    while stack:
        name = stack.pop()
        order.append(name)
        stack.extend(el.find("child").get("link") for el in reversed(children[name]))
    link_index = {name: i for i, name in enumerate(order)}
    links = [_link(Owner(origin, "link", name), link_els[name], ulinks[name], mesh_file) for name in order]
    elements = [by_child[name] for name in order[1:]]
    owners = {el.get("name"): Owner(origin, "joint", el.get("name")) for el in elements}
    mimics = {el.get("name"): check.mimic(owners[el.get("name")], el, ujoints[el.get("name")].mimic) for el in elements}

    variables: list[Variable] = []
    first_var: dict[str, int] = {}
    for el in elements:
        name = el.get("name")
        if mimics[name] is None and el.get("type") != "fixed":
            first_var[name] = len(variables)
            variables.extend(_variables(owners[name], el, ujoints[name]))
    types = {el.get("name"): el.get("type") for el in elements}
    followed: dict[str, tuple[str, float, float]] = {}
    joints = [
        Joint(
            name=el.get("name"),
            type=el.get("type"),
            parent=link_index[el.find("parent").get("link")],
            child=link_index[el.find("child").get("link")],
            origin=check.origin(owners[el.get("name")], el, ujoints[el.get("name")].origin),
            motions=_motions(owners[el.get("name")], el, ujoints[el.get("name")], types, mimics, first_var, followed),
            mimic=None if mimics[el.get("name")] is None else mimics[el.get("name")][0],
        )
        for el in elements
    ]
    return RobotModel(root.get("name") or "robot", links, joints, variables)


def _link(owner: Owner, el: etree._Element, ul, mesh_file: Callable[[str], Path | None]) -> Link:
    mass, com = check.inertial(owner, el, ul)
    shapes = []
    for c, uc in zip(el.findall("collision"), ul.collisions):
        geometry = c.find("geometry")
        found = None if geometry is None else check.shape(owner, geometry, uc.geometry)
        if found is not None:
            kind, size, filename = found
            try:
                path = None if filename is None else mesh_file(filename)
            except URDFError as e:
                raise URDFError(f"{owner.origin} line {geometry.sourceline}: link {owner.name!r}: {e}") from None
            shapes.append(Geometry(kind, check.origin(owner, c, uc.origin), size, filename, path))
    return Link(owner.name, mass, com, tuple(shapes))


def _variables(owner: Owner, el: etree._Element, uj) -> list[Variable]:
    jtype = el.get("type")
    velocity = check.velocity(owner, el, uj.limit, DEFAULT_VELOCITY)
    if jtype in ("revolute", "prismatic"):
        lo, hi = check.bounds(owner, el, uj.limit)
        kind = REVOLUTE if jtype == "revolute" else PRISMATIC
        return [Variable(owner.name, owner.name, kind, lo, hi, velocity)]
    if jtype == "continuous":
        return [Variable(owner.name, owner.name, REVOLUTE, -math.inf, math.inf, velocity)]
    if jtype == "planar":
        names = [("x", PRISMATIC), ("y", PRISMATIC), ("theta", REVOLUTE)]
    else:  # floating
        names = [(f"trans_{a}", PRISMATIC) for a in "xyz"] + [(f"rot_{a}", REVOLUTE) for a in "xyz"]
    return [Variable(f"{owner.name}/{n}", owner.name, kind, -math.inf, math.inf, velocity) for n, kind in names]


def _motions(owner: Owner, el: etree._Element, uj, types: dict[str, str], mimics: dict, first_var: dict[str, int],
             followed: dict[str, tuple[str, float, float]]) -> tuple[Motion, ...]:
    jtype, name = el.get("type"), owner.name
    if jtype == "fixed":
        return ()
    if mimics[name] is not None and jtype in ("floating", "planar"):
        raise URDFError(f"{owner.origin}: {jtype} joint {name!r} has a <mimic>; only one-variable joints can mimic")
    source, multiplier, offset = _follow(owner.origin, name, types, mimics, followed)
    if not (math.isfinite(multiplier) and math.isfinite(offset)):
        raise URDFError(f"{owner.origin}: the mimic chain of joint {name!r} multiplies to multiplier={multiplier} offset={offset}; expected finite numbers")
    if jtype in ("revolute", "continuous", "prismatic"):
        kind = PRISMATIC if jtype == "prismatic" else REVOLUTE
        return (Motion(kind, check.axis(owner, el, uj.axis), first_var[source], multiplier, offset),)
    v = first_var[name]
    if jtype == "planar":
        # x moves along the joint frame's x axis projected onto the plane (its y axis if the
        # normal is near x), y along normal × that: for the usual normal z, along x and y
        n = check.axis(owner, el, uj.axis)
        a = np.eye(3)[0 if abs(n[0]) < 0.9 else 1]
        u = a - n * (a @ n)
        u /= np.linalg.norm(u)
        w = np.cross(n, u)
        return (Motion(PRISMATIC, u, v), Motion(PRISMATIC, w, v + 1), Motion(REVOLUTE, n, v + 2))
    e = np.eye(3)
    return tuple(Motion(PRISMATIC, e[i], v + i) for i in range(3)) + tuple(Motion(REVOLUTE, e[i], v + 3 + i) for i in range(3))


def _follow(origin: str, name: str, types: dict[str, str], mimics: dict,
            followed: dict[str, tuple[str, float, float]]) -> tuple[str, float, float]:
    """(the joint whose variable joint `name` follows, multiplier, offset) along its mimic
    chain. `followed` keeps the answer of every joint on the way, so a chain is walked once
    (a walk from every joint of a 4,000-joint chain of mimics took 16 s)."""
    path, seen, source = [name], {name}, name
    while source not in followed and mimics[source] is not None:
        target = mimics[source][0]
        if target not in types or target in seen:
            raise URDFError(f"{origin}: joint {source!r} mimics {target!r}, which is not a (non-circular) joint of this robot")
        if types[target] in ("fixed", "floating", "planar"):
            raise URDFError(f"{origin}: joint {name!r} mimics {types[target]} joint {target!r}; expected a one-variable joint")
        path.append(target)
        seen.add(target)
        source = target
    found, multiplier, offset = followed.setdefault(source, (source, 1.0, 0.0))
    for joint in reversed(path[:-1]):  # q_joint = mult · q_target + off
        _, mult, off = mimics[joint]
        multiplier, offset = mult * multiplier, mult * offset + off
        followed[joint] = (found, multiplier, offset)
    return followed[name]
