"""Hyper-redundant snake chains of n revolute joints, generated as URDF text.

The chain starts at link ``base`` and runs along +x of the base: joint ``joint_i`` sits at
x = i * link_length (at q = 0) and moves link ``link_i``; the fixed frame ``tip`` is at the
end of the last link, n * link_length from the base.  Joint axes alternate z (yaw, even i)
and y (pitch, odd i), so with n >= 2 the tip reaches 3-D positions and orientations; with
the odd joints at zero the chain is planar in the x-y plane.  Every joint is limited to
±π/2 (1 rad/s, 10 N m).  Links are 1 kg per metre of length with rod inertias, and carry a
capsule (a cylinder plus two end spheres) as collision and visual geometry.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

#: Mass per metre of chain [kg/m].
LINEAR_DENSITY = 1.0
#: Largest capsule radius [m]; shorter links get radius 0.3 * link_length.
MAX_RADIUS = 0.02
#: Most joints a snake may have: its URDF is ~1.6 kB per joint and loads in ~1 ms per
#: joint, so 10^5 joints take minutes; a larger n (a typo, "snake99999999999") would run
#: until memory is gone instead of being refused.
MAX_JOINTS = 100_000


def _num(x: float) -> str:
    """Shortest text that reads back as the same float."""
    return repr(float(x))


def snake_urdf(n: int, link_length: float | None = None) -> str:
    """URDF text of an n-joint chain: base ``base``, tip ``tip``, joints ``joint_0..joint_{n-1}``.

    ``link_length`` defaults to 1/n, so the chain is 1 m long. Raises ValueError for an n that
    is not a whole number in [1, MAX_JOINTS] or a link length that is not a finite number > 0.
    """
    _check_joints(n)
    n = int(n)
    if link_length is None:
        length = 1.0 / n
    elif isinstance(link_length, bool) or not isinstance(link_length, Real):
        raise ValueError(f"snake: link_length must be a finite number > 0; got {link_length!r}")
    else:
        length = float(link_length)
    if not (length > 0 and math.isfinite(length)):
        raise ValueError(f"snake: link_length must be a finite number > 0; got {link_length!r}")

    r = min(MAX_RADIUS, 0.3 * length)
    mass = LINEAR_DENSITY * length
    i_axis = mass * r * r / 2  # about the rod's own axis (x)
    i_perp = mass * (length * length / 12 + r * r / 4)
    L, h, R = _num(length), _num(length / 2), _num(r)
    capsule = (
        f'<origin xyz="{h} 0 0" rpy="0 1.5707963267948966 0"/>'
        f'<geometry><cylinder radius="{R}" length="{L}"/></geometry>',
        f"<geometry><sphere radius=\"{R}\"/></geometry>",
        f'<origin xyz="{L} 0 0"/><geometry><sphere radius="{R}"/></geometry>',
    )
    body = "".join(f"<visual>{g}<material name=\"snake\"/></visual>" for g in capsule)
    body += "".join(f"<collision>{g}</collision>" for g in capsule)
    inertial = (
        f'<inertial><origin xyz="{h} 0 0"/><mass value="{_num(mass)}"/>'
        f'<inertia ixx="{_num(i_axis)}" ixy="0" ixz="0" iyy="{_num(i_perp)}" iyz="0" izz="{_num(i_perp)}"/></inertial>'
    )
    limit = f'<limit lower="{-math.pi / 2!r}" upper="{math.pi / 2!r}" effort="10" velocity="1"/>'

    parts = [
        '<?xml version="1.0"?>',
        f"<!-- bioik snake: {n} revolute joints, links {length:g} m along x, axes alternating z/y,"
        f" limits +-pi/2, capsule radius {r:g} m -->",
        f'<robot name="snake{n}">',
        '  <material name="snake"><color rgba="0.3 0.7 0.3 1"/></material>',
        '  <link name="base"/>',
    ]
    parent = "base"
    for i in range(n):
        axis = "0 0 1" if i % 2 == 0 else "0 1 0"
        origin = "" if i == 0 else f'<origin xyz="{L} 0 0"/>'
        parts.append(f'  <link name="link_{i}">{inertial}{body}</link>')
        parts.append(
            f'  <joint name="joint_{i}" type="revolute"><parent link="{parent}"/><child link="link_{i}"/>'
            f'{origin}<axis xyz="{axis}"/>{limit}</joint>'
        )
        parent = f"link_{i}"
    parts.append('  <link name="tip"/>')
    parts.append(
        f'  <joint name="tip_joint" type="fixed"><parent link="{parent}"/><child link="tip"/>'
        f'<origin xyz="{L} 0 0"/></joint>'
    )
    parts.append("</robot>\n")
    return "\n".join(parts)


def snake_groups(n: int) -> dict[str, dict]:
    """Groups of ``snake_urdf(n)`` (catalog shape): ``"chain"`` = base → tip, the default group."""
    _check_joints(n)
    return {"chain": {"chains": [["base", "tip"]]}}


def _check_joints(n: object) -> None:
    if isinstance(n, bool) or not isinstance(n, Integral) or not 1 <= n <= MAX_JOINTS:
        raise ValueError(f"snake: n must be a whole number of joints in [1, {MAX_JOINTS}]; got {n!r}")
