"""Numbers of URDF elements, read strictly: the right count, finite, in range.

Every reader names the file line, the joint or link, the element and attribute, the
text found and what was expected, so a NaN in an origin or an axis of two numbers is
reported where it is written instead of surfacing later as NaN poses or a numpy error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from lxml import etree

from bioik.model.urdf_source import URDFError

#: Largest |limit| (rad or m) a revolute or prismatic joint may have: beyond it, range
#: arithmetic (upper - lower, sampling, centring) overflows or loses all precision.
MAX_LIMIT = 1e6

_WORDS = {1: "one finite number", 3: "three finite numbers"}


@dataclass(frozen=True)
class Owner:
    """The joint or link an element belongs to, for messages."""

    origin: str
    kind: str
    name: str

    def error(self, el: etree._Element, attr: str, expected: str) -> URDFError:
        raw = el.get(attr)
        found = f'<{el.tag} {attr}="{raw}">' if raw is not None else f"<{el.tag}> without {attr}"
        return URDFError(f"{self.origin} line {el.sourceline}: {self.kind} {self.name!r} has {found}; expected {expected}")


def numbers(owner: Owner, el: etree._Element, attr: str, counts: tuple[int, ...], default: tuple[float, ...] | None = None) -> tuple[float, ...]:
    """The finite numbers of attribute `attr` (as many as one of `counts`); `default` if absent."""
    raw = el.get(attr)
    if raw is None and default is not None:
        return default
    try:
        values = tuple(float(w) for w in raw.split())
    except (AttributeError, ValueError):  # absent, or not numbers
        values = ()
    if len(values) not in counts or not all(map(math.isfinite, values)):
        raise owner.error(el, attr, " or ".join(_WORDS.get(c, f"{c} finite numbers") for c in counts))
    return values


def number(owner: Owner, el: etree._Element, attr: str, default: float | None = None) -> float:
    """One finite number; `default` when the attribute is absent."""
    return numbers(owner, el, attr, (1,), None if default is None else (default,))[0]


def origin(owner: Owner, parent: etree._Element) -> np.ndarray:
    """4×4 transform of `parent`'s <origin xyz rpy> (identity when absent)."""
    el = parent.find("origin")
    if el is None:
        return np.eye(4)
    x, y, z = numbers(owner, el, "xyz", (3,), (0.0, 0.0, 0.0))
    (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = _rpy_matrix(*numbers(owner, el, "rpy", (3,), (0.0, 0.0, 0.0)))
    return np.array([[r00, r01, r02, x], [r10, r11, r12, y], [r20, r21, r22, z], [0.0, 0.0, 0.0, 1.0]])


def _rpy_matrix(roll: float, pitch: float, yaw: float) -> tuple[tuple[float, float, float], ...]:
    """URDF's fixed-axis roll, pitch, yaw: Rz(yaw) @ Ry(pitch) @ Rx(roll), as rows."""
    cr, cp, cy = math.cos(roll), math.cos(pitch), math.cos(yaw)
    sr, sp, sy = math.sin(roll), math.sin(pitch), math.sin(yaw)
    return (
        (cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr),
        (sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr),
        (-sp, cp * sr, cp * cr),
    )


def axis(owner: Owner, joint: etree._Element) -> np.ndarray:
    """Unit joint axis (URDF default: x); a zero axis is refused."""
    el = joint.find("axis")
    if el is None:
        return np.array([1.0, 0.0, 0.0])
    a = np.array(numbers(owner, el, "xyz", (3,)))
    scale = float(np.max(np.abs(a)))
    if scale == 0.0:
        raise owner.error(el, "xyz", "a non-zero vector of three numbers (the axis direction)")
    a = a / scale
    return a / np.linalg.norm(a)


def velocity(owner: Owner, limit: etree._Element | None, default: float) -> float:
    """Velocity limit; `default` when absent or 0 (URDF files use 0 for "not given")."""
    if limit is None:
        return default
    v = number(owner, limit, "velocity", 0.0)
    if v < 0:
        raise owner.error(limit, "velocity", "a number >= 0")
    return v or default


def bounds(owner: Owner, joint_type: str, limit: etree._Element) -> tuple[float, float]:
    """(lower, upper) of a revolute or prismatic joint: finite, |x| <= MAX_LIMIT, lower <= upper.

    Absent bounds are 0, as the URDF specification says.
    """
    expected = f"a finite number with |value| <= {MAX_LIMIT:g}: a {joint_type} joint needs finite lower <= upper (an unlimited rotation is a continuous joint)"
    values = []
    for attr in ("lower", "upper"):
        try:
            x = float(limit.get(attr, "0"))
        except ValueError:
            raise owner.error(limit, attr, expected) from None
        if not abs(x) <= MAX_LIMIT:
            raise owner.error(limit, attr, expected)
        values.append(x)
    lo, hi = values
    if lo > hi:
        raise URDFError(f"{owner.origin} line {limit.sourceline}: {owner.kind} {owner.name!r} has limits lower={lo} upper={hi}; expected finite lower <= upper")
    return lo, hi


def mimic(owner: Owner, joint: etree._Element) -> tuple[str, float, float] | None:
    """(source joint, multiplier, offset) of <mimic>, or None."""
    el = joint.find("mimic")
    if el is None:
        return None
    source = el.get("joint")
    if not source:
        raise URDFError(f"{owner.origin} line {el.sourceline}: {owner.kind} {owner.name!r}: <mimic> has no joint=\"...\"")
    return source, number(owner, el, "multiplier", 1.0), number(owner, el, "offset", 0.0)


def inertial(owner: Owner, link: etree._Element) -> tuple[float, np.ndarray]:
    """(mass >= 0, centre of mass in the link frame); (0, 0) without <inertial>."""
    el = link.find("inertial")
    if el is None:
        return 0.0, np.zeros(3)
    mass_el = el.find("mass")
    mass = 0.0 if mass_el is None else number(owner, mass_el, "value", 0.0)
    if mass < 0:
        raise owner.error(mass_el, "value", "a mass >= 0")
    return mass, origin(owner, el)[:3, 3].copy()


def shape(owner: Owner, geometry: etree._Element) -> tuple[str, tuple[float, ...], str | None] | None:
    """(kind, size, mesh filename) of a <geometry>, or None for an empty or unknown one."""
    for el in geometry:
        if el.tag == "box":
            return "box", _sizes(owner, el, "size", 3), None
        if el.tag == "cylinder":
            return "cylinder", _sizes(owner, el, "radius", 1) + _sizes(owner, el, "length", 1), None
        if el.tag == "sphere":
            return "sphere", _sizes(owner, el, "radius", 1), None
        if el.tag == "mesh":
            filename = el.get("filename")
            if not filename:
                raise URDFError(f"{owner.origin} line {el.sourceline}: {owner.kind} {owner.name!r}: <mesh> has no filename=\"...\"")
            scale = numbers(owner, el, "scale", (1, 3), (1.0,))
            return "mesh", scale * 3 if len(scale) == 1 else scale, filename
    return None


def _sizes(owner: Owner, el: etree._Element, attr: str, count: int) -> tuple[float, ...]:
    values = numbers(owner, el, attr, (count,))
    if min(values) < 0:
        raise owner.error(el, attr, f"{_WORDS[count]} >= 0")
    return values
