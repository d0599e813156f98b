"""SRDF: the semantic description MoveIt keeps beside a URDF — groups and disabled collisions.

Only what bioik uses is read: `<group>` (its `<joint>`, `<link>`, `<chain>` and nested
`<group>` references) and `<disable_collisions link1 link2 reason/>` (the pairs the
collision checker never tests). Other elements (group states, end effectors, virtual
joints) are ignored. Names are checked against the robot model, and an unknown one is
reported with the known names closest to it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from bioik.errors import BioikError
from bioik.model.names import suggest
from bioik.model.robot_model import RobotModel
from bioik.model.urdf_source import parse_xml


class SRDFError(BioikError, ValueError):
    """An SRDF that cannot be read or names links/joints the robot does not have."""


@dataclass(frozen=True)
class SRDFGroup:
    """A named group as written in the SRDF (names only, not yet resolved)."""

    name: str
    joints: tuple[str, ...] = ()
    links: tuple[str, ...] = ()
    chains: tuple[tuple[str, str], ...] = ()
    subgroups: tuple[str, ...] = ()


@dataclass(frozen=True)
class SRDF:
    """The parts of an SRDF bioik reads: groups and disabled collision pairs (link1, link2, reason)."""

    name: str
    groups: dict[str, SRDFGroup] = field(default_factory=dict)
    disabled: tuple[tuple[str, str, str], ...] = ()
    origin: str = "<SRDF string>"


def parse_srdf(source: str | bytes | os.PathLike, model: RobotModel | None = None) -> SRDF:
    """Read an SRDF file path or SRDF text; with `model`, check every link and joint name."""
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
    for g in root.iter("group"):
        if g.getparent() is not root:
            continue
        name = need(g, "name")
        if name in groups:
            raise SRDFError(f"{origin} line {g.sourceline}: group {name!r} is defined twice")
        groups[name] = SRDFGroup(
            name,
            joints=tuple(need(j, "name") for j in g.findall("joint")),
            links=tuple(need(l, "name") for l in g.findall("link")),
            chains=tuple((need(c, "base_link"), need(c, "tip_link")) for c in g.findall("chain")),
            subgroups=tuple(need(s, "name") for s in g.findall("group")),
        )
    disabled = tuple((need(d, "link1"), need(d, "link2"), d.get("reason") or "")
                     for d in root.findall("disable_collisions"))
    srdf = SRDF(root.get("name") or "", groups, disabled, origin)
    if model is not None:
        check_srdf(srdf, model)
    return srdf


def check_srdf(srdf: SRDF, model: RobotModel) -> None:
    """SRDFError listing every link, joint or group name the model does not know."""
    links, joints = set(model.link_names), set(model.joint_names)
    problems = []
    for a, b, _ in srdf.disabled:
        problems += [f"disable_collisions names unknown link {x!r} ({suggest(x, links)})" for x in (a, b) if x not in links]
    for g in srdf.groups.values():
        names = list(g.links) + [x for c in g.chains for x in c]
        problems += [f"group {g.name!r} names unknown link {x!r} ({suggest(x, links)})" for x in names if x not in links]
        problems += [f"group {g.name!r} names unknown joint {x!r} ({suggest(x, joints)})" for x in g.joints if x not in joints]
        problems += [f"group {g.name!r} names unknown group {x!r} ({suggest(x, srdf.groups)})" for x in g.subgroups if x not in srdf.groups]
    if problems:
        raise SRDFError(f"{srdf.origin} does not fit robot {model.name!r}: " + "; ".join(dict.fromkeys(problems)))
