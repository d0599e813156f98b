"""SRDF: the semantic description MoveIt keeps beside a URDF.

`parse_srdf` reads what bioik uses: `<group>` (its `<joint>`, `<link>`, `<chain>` and
nested `<group>` references), `<end_effector>`, `<group_state>`, `<virtual_joint>`,
`<passive_joint>` and `<disable_collisions>`. `semantics` turns it into bioik's terms for
one robot model: selectable groups with their tips, named configurations, the default
tips, and what could not be used and why.

SRDFs in the wild often name what their URDF lacks (a free-flyer `root_joint` that
Pinocchio adds when it loads the model, links of a bigger variant of the robot). As MoveIt
does, such a part is left out and the rest of the file is used: `semantics` lists each
problem, `load_robot` warns once, and selecting the broken group or state raises an
`SRDFError` naming the file, the line and what was expected. `check_srdf` is the strict
form: any problem is an error.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from lxml import etree

from bioik.errors import SRDFError as SRDFError
from bioik.model.group import moved_links
from bioik.model.names import suggest
from bioik.model.robot_model import RobotModel
from bioik.model.urdf_source import parse_xml


class SRDFWarning(UserWarning):
    """Parts of an SRDF left out because they do not fit the robot (listed in the message)."""


@dataclass(frozen=True)
class SRDFGroup:
    """A named group as written in the SRDF (names only, not yet resolved)."""

    name: str
    joints: tuple[str, ...] = ()
    links: tuple[str, ...] = ()
    chains: tuple[tuple[str, str], ...] = ()
    subgroups: tuple[str, ...] = ()
    line: int = 0


@dataclass(frozen=True)
class SRDFEndEffector:
    """`<end_effector>`: the end effector's own group, the link it hangs from and,
    optionally, the group that link belongs to."""

    name: str
    parent_link: str
    group: str
    parent_group: str | None = None
    line: int = 0


@dataclass(frozen=True)
class SRDFGroupState:
    """`<group_state>`: values by joint name (several for a floating or planar joint); an
    empty `group` (some SRDFs leave it out) checks no membership."""

    name: str
    group: str
    values: tuple[tuple[str, tuple[float, ...]], ...] = ()
    line: int = 0


@dataclass(frozen=True)
class SRDFVirtualJoint:
    """`<virtual_joint>`: how the robot's root link hangs from a world frame."""

    name: str
    type: str
    parent_frame: str
    child_link: str
    line: int = 0


@dataclass(frozen=True)
class SRDF:
    """An SRDF's elements as written (names checked only by `semantics` / `check_srdf`)."""

    name: str
    groups: dict[str, SRDFGroup] = field(default_factory=dict)
    disabled: tuple[tuple[str, str, str], ...] = ()
    origin: str = "<SRDF string>"
    end_effectors: tuple[SRDFEndEffector, ...] = ()
    group_states: tuple[SRDFGroupState, ...] = ()
    virtual_joints: tuple[SRDFVirtualJoint, ...] = ()
    passive_joints: tuple[str, ...] = ()


VIRTUAL_JOINT_TYPES = ("fixed", "floating", "planar")


def parse_srdf(source: str | bytes | os.PathLike, model: RobotModel | None = None) -> SRDF:
    """Read an SRDF.

    Args:
        source: an SRDF file path, SRDF text or bytes.
        model: if given, every name is checked against it strictly (`check_srdf`).

    Returns:
        The `SRDF`, its elements as written.
    """
    if isinstance(source, (bytes, bytearray)):
        data, origin = bytes(source), "<SRDF bytes>"
    elif isinstance(source, str) and source.lstrip("\ufeff \t\r\n").startswith("<"):
        data, origin = source.encode(), "<SRDF string>"
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise SRDFError(f"SRDF file {str(path)!r} does not exist (expected an SRDF path or SRDF text)")
        data, origin = path.read_bytes(), str(path)
    else:
        raise SRDFError(f"cannot read an SRDF from a {type(source).__name__}; expected a path or SRDF text")
    root = parse_xml(data.lstrip(b"\xef\xbb\xbf \t\r\n"), origin, SRDFError)

    def need(el: etree._Element, attr: str) -> str:
        v = el.get(attr)
        if not v:
            raise SRDFError(f"{origin} line {el.sourceline}: <{el.tag}> has no {attr!r} attribute")
        return v

    groups: dict[str, SRDFGroup] = {}
    for g in root.findall("group"):
        name = need(g, "name")
        if name in groups:
            raise SRDFError(f"{origin} line {g.sourceline}: group {name!r} is defined twice")
        groups[name] = SRDFGroup(
            name,
            joints=tuple(need(j, "name") for j in g.findall("joint")),
            links=tuple(need(l, "name") for l in g.findall("link")),
            chains=tuple((need(c, "base_link"), need(c, "tip_link")) for c in g.findall("chain")),
            subgroups=tuple(need(s, "name") for s in g.findall("group")),
            line=g.sourceline or 0,
        )
    effectors = tuple(SRDFEndEffector(need(e, "name"), need(e, "parent_link"), need(e, "group"), e.get("parent_group") or None,
                                      e.sourceline or 0) for e in root.findall("end_effector"))
    states = tuple(SRDFGroupState(need(s, "name"), s.get("group") or "",
                                  tuple((need(j, "name"), _numbers(origin, j, need(j, "value"))) for j in s.findall("joint")),
                                  s.sourceline or 0) for s in root.findall("group_state"))
    virtual = []
    for v in root.findall("virtual_joint"):
        kind = need(v, "type")
        if kind not in VIRTUAL_JOINT_TYPES:
            raise SRDFError(f"{origin} line {v.sourceline}: <virtual_joint> type {kind!r}; expected one of {', '.join(VIRTUAL_JOINT_TYPES)}")
        virtual.append(SRDFVirtualJoint(need(v, "name"), kind, need(v, "parent_frame"), need(v, "child_link"), v.sourceline or 0))
    disabled = tuple((need(d, "link1"), need(d, "link2"), d.get("reason") or "") for d in root.findall("disable_collisions"))
    srdf = SRDF(root.get("name") or "", groups, disabled, origin, effectors, states, tuple(virtual),
                tuple(need(p, "name") for p in root.findall("passive_joint")))
    if model is not None:
        check_srdf(srdf, model)
    return srdf


def _numbers(origin: str, el: etree._Element, text: str) -> tuple[float, ...]:
    try:
        values = tuple(float(x) for x in text.split())
    except ValueError:
        values = ()
    if not values or not all(math.isfinite(v) for v in values):
        raise SRDFError(f"{origin} line {el.sourceline}: <joint name={el.get('name')!r}> value {text!r}; expected finite numbers")
    return values


def check_srdf(srdf: SRDF, model: RobotModel) -> None:
    """SRDFError listing every part of the SRDF that does not fit `model` (see `semantics`)."""
    problems = semantics(srdf, model).problems
    if problems:
        raise SRDFError(f"{srdf.origin} does not fit robot {model.name!r}: " + "; ".join(problems))


@dataclass(frozen=True)
class Semantics:
    """An SRDF in bioik's terms, for one model.

    Attributes:
        groups: group name → spec for `bioik.model.group.resolve_group` ({"joints", "tips"}).
        states: group_state name → {variable name: value}.
        default: the spec of the group used when none is named (every joint but the passive
            ones; the tips of every group and end effector).
        unusable: group or state name → why it cannot be used.
        problems: every part that does not fit, in file order.
        disabled: the disable_collisions pairs whose links the model has.
    """

    groups: dict[str, dict]
    states: dict[str, dict[str, float]]
    default: dict
    unusable: dict[str, str]
    problems: tuple[str, ...]
    disabled: tuple[tuple[str, str, str], ...]


def semantics(srdf: SRDF, model: RobotModel) -> Semantics:
    """Resolve an SRDF against a model: what each group moves and ends in, the named
    configurations, and every name that does not fit (see the module docstring).

    Args:
        srdf: the parsed SRDF.
        model: the robot model it describes (after its virtual joint is added).

    Returns:
        The `Semantics`.
    """
    links, joints = set(model.link_names), set(model.joint_names)
    where = srdf.origin
    problems: list[str] = []
    unusable: dict[str, str] = {}

    def bad(key: str | None, text: str) -> None:
        problems.append(text)
        if key is not None and key not in unusable:
            unusable[key] = f"{where}: {text}"

    disabled = []
    for a, b, reason in srdf.disabled:
        missing = [x for x in (a, b) if x not in links]
        for x in missing:
            problems.append(f"disable_collisions names unknown link {x!r} ({suggest(x, links)})")
        if not missing:
            disabled.append((a, b, reason))

    for g in srdf.groups.values():
        at = f"line {g.line}: group {g.name!r}" if g.line else f"group {g.name!r}"
        for x in list(g.links) + [x for c in g.chains for x in c]:
            if x not in links:
                bad(g.name, f"{at} names unknown link {x!r} ({suggest(x, links)})")
        for x in g.joints:
            if x not in joints:
                bad(g.name, f"{at} names unknown joint {x!r} ({suggest(x, joints)})")
        for x in g.subgroups:
            if x not in srdf.groups:
                bad(g.name, f"{at} names unknown group {x!r} ({suggest(x, srdf.groups)})")
        for base, tip in g.chains:
            if base in links and tip in links:
                try:
                    model.chain(base, tip)
                except ValueError:
                    bad(g.name, f"{at}: chain base {base!r} is not an ancestor of tip {tip!r}; expected a base above the tip")
    for name in _cyclic(srdf):
        bad(name, f"group {name!r} contains itself through its subgroups; expected nested groups without a cycle")
    passive = [p for p in srdf.passive_joints if p in joints]
    for p in srdf.passive_joints:
        if p not in joints:
            problems.append(f"passive_joint names unknown joint {p!r} ({suggest(p, joints)})")

    own_joints: dict[str, list[int]] = {}
    for g in srdf.groups.values():
        if g.name not in unusable:
            own_joints[g.name] = _own_joints(model, g)
    closure: dict[str, list[int]] = {}

    def all_joints(name: str) -> list[int]:
        if name not in closure:
            out = dict.fromkeys(own_joints[name])
            for s in srdf.groups[name].subgroups:
                if s in unusable:
                    unusable.setdefault(name, f"{where}: group {name!r} contains group {s!r}, which cannot be used: {unusable[s]}")
                    continue
                out.update(dict.fromkeys(all_joints(s)))
            closure[name] = list(out)
        return closure[name]

    for name in list(own_joints):
        all_joints(name)
    for name in list(own_joints):
        if name in unusable:
            own_joints.pop(name)

    for e in srdf.end_effectors:
        at = f"line {e.line}: end_effector {e.name!r}"
        if e.parent_link not in links:
            bad(None, f"{at} hangs from unknown link {e.parent_link!r} ({suggest(e.parent_link, links)})")
        if e.group not in srdf.groups:
            bad(None, f"{at} names unknown group {e.group!r} ({suggest(e.group, srdf.groups)})")
        if e.parent_group is not None:
            if e.parent_group not in srdf.groups:
                bad(None, f"{at} names unknown parent_group {e.parent_group!r} ({suggest(e.parent_group, srdf.groups)})")
            elif e.parent_group in own_joints and e.parent_link in links and e.parent_link not in _member_links(model, closure[e.parent_group]):
                bad(None, f"{at}: parent_link {e.parent_link!r} is not a link of its parent_group {e.parent_group!r}; "
                          "expected a link that group's joints move")

    tips: dict[str, list[str]] = {}

    def group_tips(name: str) -> list[str]:
        if name not in tips:
            g = srdf.groups[name]
            found = [e.parent_link for e in srdf.end_effectors if e.parent_link in links and _serves(model, e, name, own_joints, closure)]
            found += [tip for _, tip in g.chains]
            found += _deepest(model, own_joints[name], g.links)
            for s in g.subgroups:
                found += group_tips(s)
            tips[name] = _prune(model, found)
        return tips[name]

    groups: dict[str, dict] = {}
    for name in own_joints:
        moving = [j for j in closure[name] if model.joints[j].name not in passive]
        groups[name] = {"joints": [model.joints[j].name for j in moving], "tips": group_tips(name)}

    states: dict[str, dict[str, float]] = {}
    for s in srdf.group_states:
        values = _state(model, srdf, s, closure, lambda text, key=s.name: bad(key, text))
        if s.name in states and s.name not in unusable:
            clash = [v for v in values if v in states[s.name] and abs(states[s.name][v] - values[v]) > 1e-9]
            if clash:
                bad(s.name, f"line {s.line}: group_state {s.name!r} is defined twice with different values for {clash}; "
                            "expected one value per joint")
        if s.name not in unusable:
            states.setdefault(s.name, {}).update(values)
    for name in list(states):
        if name in unusable:
            states.pop(name)

    default_tips = _prune(model, [e.parent_link for e in srdf.end_effectors if e.parent_link in links]
                          + [t for name in groups for t in groups[name]["tips"]])
    default_joints = [j.name for j in model.joints if j.motions and j.name not in passive]
    default = {"joints": default_joints, "tips": default_tips} if default_joints else {}
    return Semantics(groups, states, default, unusable, tuple(dict.fromkeys(problems)), tuple(disabled))


def _own_joints(model: RobotModel, g: SRDFGroup) -> list[int]:
    """The joints a group names itself, MoveIt's way: its joints, the joint above each of
    its links, and the joints along each chain."""
    out: dict[int, None] = {}
    out.update(dict.fromkeys(model.joint_index(j) for j in g.joints))
    for link in g.links:
        j = model.parent_joint[model.link_index(link)]
        if j >= 0:
            out[j] = None
    for base, tip in g.chains:
        out.update(dict.fromkeys(model.chain(base, tip)))
    return list(out)


def _group_links(model: RobotModel, joints: list[int]) -> set[str]:
    """The links a group's joints move (everything below them)."""
    return set(moved_links(model, joints))


def _member_links(model: RobotModel, joints: list[int]) -> set[str]:
    """A group's own links, MoveIt's way: the child link of each of its joints, and the
    links fixed to those."""
    out = set()
    stack = [model.joints[j].child for j in joints]
    while stack:
        link = stack.pop()
        if model.links[link].name not in out:
            out.add(model.links[link].name)
            stack.extend(model.joints[c].child for c in model.child_joints[link] if model.joints[c].type == "fixed")
    return out


def _serves(model: RobotModel, e: SRDFEndEffector, name: str, own: dict[str, list[int]], closure: dict[str, list[int]]) -> bool:
    """Whether end effector `e` is a tip of group `name`: its parent_group, or (MoveIt lets
    parent_group out) the group whose own links hold parent_link."""
    if e.parent_group is not None:
        return e.parent_group == name
    if e.group == name:  # the end effector written as the group it ends (example-robot-data's way)
        return e.parent_link in _group_links(model, closure[name])
    own_links = {model.links[model.joints[j].child].name for j in own[name]}
    return e.parent_link in own_links


def _deepest(model: RobotModel, joints: list[int], listed: tuple[str, ...]) -> list[str]:
    """The group's own links (children of its joints, and the links it lists) with no
    other of them below: where a group of joints ends."""
    own = [model.links[model.joints[j].child].name for j in joints] + list(listed)
    own_set = set(own)
    return [l for l in dict.fromkeys(own) if not (set(moved_links(model, model.child_joints[model.link_index(l)])) & own_set)]


def _prune(model: RobotModel, tips: list[str]) -> list[str]:
    """`tips` without repeats and without a link that lies above another of them."""
    tips = list(dict.fromkeys(tips))
    above = set()
    for t in tips:
        link = model.link_index(t)
        while model.parent_joint[link] >= 0:
            link = model.joints[model.parent_joint[link]].parent
            above.add(model.links[link].name)
    return [t for t in tips if t not in above]


def _cyclic(srdf: SRDF) -> list[str]:
    """Groups that reach themselves through subgroups."""
    out = []
    for start in srdf.groups:
        stack, seen = list(srdf.groups[start].subgroups), set()
        while stack:
            g = stack.pop()
            if g == start:
                out.append(start)
                break
            if g in srdf.groups and g not in seen:
                seen.add(g)
                stack.extend(srdf.groups[g].subgroups)
    return out


def _state(model: RobotModel, srdf: SRDF, s: SRDFGroupState, closure: dict[str, list[int]], bad) -> dict[str, float]:
    """The variable values of group_state `s`; each problem goes to `bad`."""
    at = f"line {s.line}: group_state {s.name!r}"
    if s.group and s.group not in srdf.groups:
        bad(f"{at} is for unknown group {s.group!r} ({suggest(s.group, srdf.groups)})")
        return {}
    members = set(closure.get(s.group, ()))
    out: dict[str, float] = {}
    for name, values in s.values:
        if name not in model.joint_names:
            bad(f"{at} sets unknown joint {name!r} ({suggest(name, model.joint_names)})")
            continue
        j = model.joint_index(name)
        joint = model.joints[j]
        if s.group and s.group in closure and j not in members:
            bad(f"{at} sets joint {name!r}, which is not in group {s.group!r}; expected the group's joints")
            continue
        if joint.type == "fixed" or joint.mimic is not None:
            if joint.mimic is not None or any(abs(v) > 1e-12 for v in values):
                bad(f"{at} sets {'mimic' if joint.mimic else 'fixed'} joint {name!r}; expected only joints that have their own variable")
            continue
        variables = sorted(dict.fromkeys(m.variable for m in joint.motions))
        converted = _joint_values(joint.type, values)
        if len(converted) != len(variables):
            expected = {"floating": "7 (x y z and a unit quaternion qx qy qz qw) or 6", "planar": "3 (x y theta)"}.get(joint.type, "1")
            bad(f"{at}: joint {name!r} has the values {' '.join(f'{v:g}' for v in values)}; expected {expected}")
            continue
        for v, value in zip(variables, converted):
            var = model.variables[v]
            if not (var.lower - 1e-9 <= value <= var.upper + 1e-9):
                bad(f"{at}: joint {name!r} value {value:g} is outside its limits [{var.lower:g}, {var.upper:g}]")
                break
            out[var.name] = float(min(max(value, var.lower), var.upper))
    return out


def _joint_values(kind: str, values: tuple[float, ...]) -> tuple[float, ...]:
    """A floating joint's 7 SRDF values (position, quaternion x y z w) as bioik's 6
    (position, intrinsic XYZ angles); other joints' values as written."""
    if kind == "floating" and len(values) == 7:
        from scipy.spatial.transform import Rotation

        q = np.asarray(values[3:])
        if np.linalg.norm(q) < 1e-9:
            return ()
        return tuple(values[:3]) + tuple(Rotation.from_quat(q / np.linalg.norm(q)).as_euler("XYZ"))
    return values
