"""Checks of the URDF element contents bioik uses: the right count, finite, in range.

yourdfpy parses the elements; bioik checks them, in two places:

* before yourdfpy, the *form* of the raw attribute text on the lxml tree (how many
  numbers, and that they are numbers), because yourdfpy loses that information (an axis
  of two numbers, an origin of four) or fails on it with a message that names no line,
  joint, link or attribute;
* after yourdfpy, the *values* it parsed (finite, within limits, non-zero axis, sizes
  and mass >= 0).

Every message names the file line, the joint or link, the element and attribute, the
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
_GEOMETRY = ("box", "cylinder", "sphere", "mesh")


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

    def missing(self, el: etree._Element, what: str) -> URDFError:
        return URDFError(f"{self.origin} line {el.sourceline}: {self.kind} {self.name!r}: <{el.tag}> has no {what}")


def _counts(counts: tuple[int, ...]) -> str:
    return " or ".join(_WORDS.get(c, f"{c} finite numbers") for c in counts)


# ---------------------------------------------------------------- before yourdfpy: form


def _form(owner: Owner, el: etree._Element, attr: str, counts: tuple[int, ...], *, required: bool = False,
          commas: bool = False, expected: str | None = None) -> None:
    """Attribute `attr` of `el`, if present (or `required`), holds as many numbers as one of `counts`.

    `commas`: yourdfpy also separates these numbers by commas.
    """
    raw = el.get(attr)
    if raw is None:
        if not required:
            return
    else:
        words = (raw.replace(",", " ") if commas else raw).split()
        if len(words) in counts:
            try:
                for w in words:
                    float(w)
                return
            except ValueError:
                pass
    raise owner.error(el, attr, expected or _counts(counts))


def _origin_form(owner: Owner, parent: etree._Element) -> None:
    el = parent.find("origin")
    if el is not None:
        _form(owner, el, "xyz", (3,))
        _form(owner, el, "rpy", (3,))


def bounds_expected(joint_type: str) -> str:
    return (f"a finite number with |value| <= {MAX_LIMIT:g}: a {joint_type} joint needs finite lower <= upper "
            "(an unlimited rotation is a continuous joint)")


def joint_form(owner: Owner, el: etree._Element) -> None:
    """The numbers of a <joint> that yourdfpy reads, before it reads them."""
    _origin_form(owner, el)
    axis = el.find("axis")
    if axis is not None:
        _form(owner, axis, "xyz", (3,), required=True)
    limit = el.find("limit")
    if limit is not None:
        jtype = el.get("type")
        bounded = bounds_expected(jtype) if jtype in ("revolute", "prismatic") else None
        for attr in ("lower", "upper"):
            _form(owner, limit, attr, (1,), expected=bounded)
        for attr in ("velocity", "effort"):
            _form(owner, limit, attr, (1,))
    mimic = el.find("mimic")
    if mimic is not None:
        if not mimic.get("joint"):
            raise owner.missing(mimic, 'joint="..."')
        for attr in ("multiplier", "offset"):
            _form(owner, mimic, attr, (1,))


def link_form(owner: Owner, el: etree._Element, *, unused: bool = False) -> None:
    """The numbers of a <link> that yourdfpy reads and bioik uses, before yourdfpy reads them.

    `unused`: also those bioik does not use (inertia, visuals), to name what yourdfpy failed on.
    """
    inertial = el.find("inertial")
    if inertial is not None:
        _origin_form(owner, inertial)
        mass = inertial.find("mass")
        if mass is not None:
            _form(owner, mass, "value", (1,))
        inertia = inertial.find("inertia") if unused else None
        if inertia is not None:
            for attr in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"):
                _form(owner, inertia, attr, (1,))
    for part in (*el.findall("collision"), *(el.findall("visual") if unused else ())):
        _origin_form(owner, part)
        geometry = part.find("geometry")
        if geometry is None:
            continue
        if len(geometry) == 0 or geometry[0].tag not in _GEOMETRY:
            raise owner.missing(geometry, "<box>, <cylinder>, <sphere> or <mesh> (as its first element)")
        shape = geometry[0]
        if shape.tag == "box":
            _form(owner, shape, "size", (3,), required=True, commas=True)
        elif shape.tag == "cylinder":
            _form(owner, shape, "radius", (1,), required=True)
            _form(owner, shape, "length", (1,), required=True)
        elif shape.tag == "sphere":
            _form(owner, shape, "radius", (1,), required=True)
        else:
            if not shape.get("filename"):
                raise owner.missing(shape, 'filename="..."')
            _form(owner, shape, "scale", (1, 3), commas=True)


# ---------------------------------------------------------------- after yourdfpy: values


def _finite(owner: Owner, el: etree._Element, attr: str, values: float | tuple[float, ...], count: int) -> None:
    if not (math.isfinite(values) if isinstance(values, float) else all(map(math.isfinite, values))):
        raise owner.error(el, attr, _WORDS[count])


def origin(owner: Owner, parent: etree._Element, matrix) -> np.ndarray:
    """yourdfpy's 4×4 origin of `parent` (identity when absent), checked finite."""
    if matrix is None:
        return np.eye(4)
    T = np.asarray(matrix, float)
    if not np.isfinite(T).all():
        el = parent.find("origin")
        attr = "xyz" if not np.all(np.isfinite(T[:3, 3])) else "rpy"
        raise owner.error(el, attr, _WORDS[3])
    return T


def axis(owner: Owner, joint: etree._Element, values) -> np.ndarray:
    """Unit joint axis from yourdfpy's axis (URDF default: x); a zero axis is refused."""
    el = joint.find("axis")
    if el is None:
        return np.array([1.0, 0.0, 0.0])
    a = np.asarray(values, float)
    _finite(owner, el, "xyz", a.tolist(), 3)
    scale = float(np.max(np.abs(a)))
    if scale == 0.0:
        raise owner.error(el, "xyz", "a non-zero vector of three numbers (the axis direction)")
    a = a / scale  # tiny and huge axes: no underflow or overflow in the norm
    return a / np.linalg.norm(a)


def velocity(owner: Owner, joint: etree._Element, limit, default: float) -> float:
    """Velocity limit; `default` when absent or 0 (URDF files use 0 for "not given")."""
    if limit is None or limit.velocity is None:
        return default
    el = joint.find("limit")
    v = float(limit.velocity)
    _finite(owner, el, "velocity", v, 1)
    if v < 0:
        raise owner.error(el, "velocity", "a number >= 0")
    return v or default


def bounds(owner: Owner, joint: etree._Element, limit) -> tuple[float, float]:
    """(lower, upper) of a revolute or prismatic joint: finite, |x| <= MAX_LIMIT, lower <= upper.

    Absent bounds are 0, as the URDF specification says.
    """
    el = joint.find("limit")
    lo = 0.0 if limit.lower is None else float(limit.lower)
    hi = 0.0 if limit.upper is None else float(limit.upper)
    for attr, x in (("lower", lo), ("upper", hi)):
        if not abs(x) <= MAX_LIMIT:
            raise owner.error(el, attr, bounds_expected(joint.get("type")))
    if lo > hi:
        raise URDFError(f"{owner.origin} line {el.sourceline}: {owner.kind} {owner.name!r} has limits lower={lo} upper={hi}; expected finite lower <= upper")
    return lo, hi


def mimic(owner: Owner, joint: etree._Element, m) -> tuple[str, float, float] | None:
    """(source joint, multiplier, offset) of yourdfpy's mimic, or None."""
    if m is None:
        return None
    el = joint.find("mimic")
    multiplier = 1.0 if m.multiplier is None else float(m.multiplier)
    offset = 0.0 if m.offset is None else float(m.offset)
    _finite(owner, el, "multiplier", multiplier, 1)
    _finite(owner, el, "offset", offset, 1)
    return m.joint, multiplier, offset


def inertial(owner: Owner, link: etree._Element, ul) -> tuple[float, np.ndarray]:
    """(mass >= 0, centre of mass in the link frame) of yourdfpy's link; (0, 0) without <inertial>."""
    if ul.inertial is None:
        return 0.0, np.zeros(3)
    el = link.find("inertial")
    mass = 0.0 if ul.inertial.mass is None else float(ul.inertial.mass)
    if not (math.isfinite(mass) and mass >= 0):
        raise owner.error(el.find("mass"), "value", "a mass >= 0" if math.isfinite(mass) else _WORDS[1])
    return mass, origin(owner, el, ul.inertial.origin)[:3, 3].copy()


def shape(owner: Owner, geometry: etree._Element, g) -> tuple[str, tuple[float, ...], str | None] | None:
    """(kind, size, mesh filename) of yourdfpy's geometry, sizes checked, or None without one."""
    if g is None:
        return None
    el = geometry[0]
    if g.box is not None:
        return "box", _sizes(owner, el, "size", g.box.size, 3), None
    if g.cylinder is not None:
        return "cylinder", _sizes(owner, el, "radius", g.cylinder.radius, 1) + _sizes(owner, el, "length", g.cylinder.length, 1), None
    if g.sphere is not None:
        return "sphere", _sizes(owner, el, "radius", g.sphere.radius, 1), None
    if g.mesh is not None:
        scale = np.atleast_1d(np.asarray(1.0 if g.mesh.scale is None else g.mesh.scale, float))
        if not np.isfinite(scale).all():
            raise owner.error(el, "scale", _counts((1, 3)))
        return "mesh", tuple(float(x) for x in np.broadcast_to(scale, 3)), g.mesh.filename
    return None


def _sizes(owner: Owner, el: etree._Element, attr: str, values, count: int) -> tuple[float, ...]:
    sizes = tuple(np.atleast_1d(np.asarray(values, float)).tolist())
    _finite(owner, el, attr, sizes, count)
    if min(sizes) < 0:
        raise owner.error(el, attr, f"{_WORDS[count]} >= 0")
    return sizes
