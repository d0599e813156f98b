"""Invert a serial chain: the model of the same joints seen from the tip, so the tip frame
is the root [E 8.10].

A chain from link L0 to the tip Lk is Lk = L0 · O1 M1(q1) · O2 M2(q2) ⋯ Ok Mk(qk), each joint
a fixed origin O then a motion M. Seen from the tip,

    L0 = Lk · Mk⁻¹ Ok⁻¹ ⋯ M1⁻¹ O1⁻¹,

a motion first and an origin last, the reverse of a URDF joint. So every inverted joint
gets the identity as its origin and the inverse motion (the same variable about or along
the reversed axis), and each Oi⁻¹ becomes a fixed joint after it:

    Lk ─[jk: M⁻¹]→ Lk⁻ ─[fixed Ok⁻¹]→ Lk−1 ─[jk−1: M⁻¹]→ Lk−1⁻ ─[fixed Ok−1⁻¹]→ Lk−2 ⋯ L0

Every link of the chain keeps its own frame, name and collision geometry, and every joint
its name, variable and limits, so a configuration means the same in both models and any
goal on a chain link reads alike; the links `L⁻` in between (named `L__inverted`) carry
nothing. [E 8.10] wrote its inverted URDF by hand; this builds it for any chain of
revolute, continuous, prismatic and fixed joints.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from bioik.model.robot_model import Joint, Link, Motion, RobotModel

#: Joint types whose motion is one variable along or about an axis (invertible here).
INVERTIBLE = ("revolute", "continuous", "prismatic", "fixed")


def rigid_inverse(T: np.ndarray) -> np.ndarray:
    """The inverse of a rigid transform."""
    out = np.eye(4)
    out[:3, :3] = T[:3, :3].T
    out[:3, 3] = -T[:3, :3].T @ T[:3, 3]
    return out


def invert_chain(model: RobotModel, base: str, tip: str) -> RobotModel:
    """The chain from `base` to `tip` of `model`, rooted at `tip` (see the module).

    ValueError when `base` is not an ancestor of `tip` or a joint on the chain is planar
    or floating (several motions in one joint)."""
    joints = [model.joints[j] for j in model.chain(base, tip)]
    if not joints:
        raise ValueError(f"invert_chain: {base!r} and {tip!r} are the same link; expected a chain with joints")
    for j in joints:
        if j.type not in INVERTIBLE:
            raise ValueError(f"invert_chain: joint {j.name!r} is {j.type}; only {', '.join(INVERTIBLE)} joints can be inverted")
    names = [model.links[joints[0].parent].name] + [model.links[j.child].name for j in joints]  # L0 … Lk
    links = [model.link(tip)]
    out_joints: list[Joint] = []
    parent = 0
    for k in range(len(joints), 0, -1):  # joint k moves Lk against Lk−1
        joint = joints[k - 1]
        links.append(Link(f"{names[k]}__inverted"))
        middle = len(links) - 1
        motions = tuple(replace(m, axis=-np.asarray(m.axis, dtype=float)) for m in joint.motions)
        out_joints.append(Joint(joint.name, joint.type, parent, middle, np.eye(4), motions, joint.mimic))
        links.append(model.link(names[k - 1]))
        parent = len(links) - 1
        out_joints.append(Joint(f"{names[k - 1]}__inverted_origin", "fixed", middle, parent, rigid_inverse(joint.origin), ()))
    used = {m.variable for j in joints for m in j.motions}
    keep = [v for i, v in enumerate(model.variables) if i in used]
    renumber = {model.variables.index(v): i for i, v in enumerate(keep)}
    out_joints = [replace(j, motions=tuple(replace(m, variable=renumber[m.variable]) for m in j.motions)) for j in out_joints]
    return RobotModel(f"{model.name}__{tip}_to_{base}", links, out_joints, keep)


__all__ = ["INVERTIBLE", "invert_chain", "rigid_inverse"]
