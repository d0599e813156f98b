"""A virtual joint (SRDF `<virtual_joint>`): a floating or planar base under the robot's root.

MoveIt puts the whole robot on a joint between a world frame and the URDF's root link; a
mobile base is planar (x, y, theta), a humanoid or a drone floating (x, y, z and three
angles). `add_virtual_joint` returns a model whose new root is the world frame, with that
joint (its variables first) above the old root; a fixed virtual joint changes nothing.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from bioik.model.robot_model import PRISMATIC, REVOLUTE, Joint, Link, Motion, RobotModel, Variable

#: Variable suffixes and kinds of each virtual joint type (the URDF reader's names).
VARIABLES = {
    "planar": (("x", PRISMATIC), ("y", PRISMATIC), ("theta", REVOLUTE)),
    "floating": tuple((f"trans_{a}", PRISMATIC) for a in "xyz") + tuple((f"rot_{a}", REVOLUTE) for a in "xyz"),
}
#: Velocity bound of a virtual joint's variables (an SRDF gives none).
VELOCITY = 1.0


def add_virtual_joint(model: RobotModel, name: str, kind: str, parent_frame: str, child_link: str) -> RobotModel:
    """`model` hung from `parent_frame` by a `kind` ("fixed", "planar", "floating") joint.

    ValueError if `child_link` is not the model's root or a name is already taken.
    """
    root = model.links[model.root].name
    if child_link != root:
        raise ValueError(f"virtual joint {name!r} holds link {child_link!r}, but the root link of robot {model.name!r} is {root!r}; "
                         "expected the root link")
    if kind == "fixed":
        return model
    if name in model.joint_names or parent_frame in model.link_names:
        raise ValueError(f"virtual joint {name!r} from frame {parent_frame!r}: robot {model.name!r} already has a joint or link of that name")
    names = VARIABLES[kind]
    n = len(names)
    e = np.eye(3)
    if kind == "planar":
        motions = (Motion(PRISMATIC, e[0], 0), Motion(PRISMATIC, e[1], 1), Motion(REVOLUTE, e[2], 2))
    else:
        motions = tuple(Motion(PRISMATIC, e[i], i) for i in range(3)) + tuple(Motion(REVOLUTE, e[i], 3 + i) for i in range(3))
    virtual = Joint(name, kind, 0, model.root + 1, np.eye(4), motions)
    joints = [virtual] + [replace(j, parent=j.parent + 1, child=j.child + 1,
                                  motions=tuple(replace(m, variable=m.variable + n) for m in j.motions)) for j in model.joints]
    variables = [Variable(f"{name}/{suffix}", name, k, -math.inf, math.inf, VELOCITY) for suffix, k in names] + list(model.variables)
    return RobotModel(model.name, [Link(parent_frame)] + list(model.links), joints, variables)
