"""The robot as data: links, joints and joint variables, independent of any solver.

A `RobotModel` is what a URDF describes, checked and indexed: links in a tree, joints
between them, and the joint *variables* (one per revolute/prismatic/continuous joint,
several for floating and planar joints, none for fixed and mimic joints).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bioik.model.names import lookup

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")

#: Motion kinds of an elementary joint motion (one variable each).
REVOLUTE = 1
PRISMATIC = 2


@dataclass(frozen=True)
class Geometry:
    """One collision shape of a link, in the link frame.

    kind is "box" (size = 3 edge lengths), "cylinder" (radius, length along z),
    "sphere" (radius) or "mesh" (size = scale; filename as written in the URDF, path the
    file it was resolved to inside the allowed folders, None if not found when loaded).
    """

    kind: str
    origin: np.ndarray
    size: tuple[float, ...] = ()
    filename: str | None = None
    path: Path | None = None


@dataclass(frozen=True)
class Link:
    """A rigid body: its inertial data (mass, centre of mass) and collision shapes."""

    name: str
    mass: float = 0.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))
    collision: tuple[Geometry, ...] = ()


@dataclass(frozen=True)
class Motion:
    """An elementary one-variable motion along or about `axis` (unit, joint frame).

    Revolute/continuous/prismatic joints have one motion; planar joints have three
    (two translations in the plane, along x and y for the normal z, and the rotation about
    the normal), floating joints six
    (x, y, z translations then rotations about x, y, z: intrinsic XYZ Euler angles).
    """

    kind: int
    axis: np.ndarray
    variable: int
    multiplier: float = 1.0
    offset: float = 0.0


@dataclass(frozen=True)
class Joint:
    """A joint: fixed `origin` from the parent link frame, then its motions."""

    name: str
    type: str
    parent: int
    child: int
    origin: np.ndarray
    motions: tuple[Motion, ...]
    mimic: str | None = None


@dataclass(frozen=True)
class Variable:
    """A joint variable: the quantity solvers search over."""

    name: str
    joint: str
    kind: int
    lower: float
    upper: float
    velocity: float


class RobotModel:
    """A validated kinematic tree: links, joints (parent before child) and variables."""

    def __init__(self, name: str, links: list[Link], joints: list[Joint], variables: list[Variable]):
        self.name = name
        self.links = tuple(links)
        self.joints = tuple(joints)
        self.variables = tuple(variables)
        self._link_index = {l.name: i for i, l in enumerate(self.links)}
        self._joint_index = {j.name: i for i, j in enumerate(self.joints)}
        self._var_index = {v.name: i for i, v in enumerate(self.variables)}
        self.parent_joint: list[int] = [-1] * len(self.links)
        self.child_joints: list[list[int]] = [[] for _ in self.links]
        for i, j in enumerate(self.joints):
            self.parent_joint[j.child] = i
            self.child_joints[j.parent].append(i)
        self.root = self.parent_joint.index(-1)

    @property
    def link_names(self) -> list[str]:
        return [l.name for l in self.links]

    @property
    def joint_names(self) -> list[str]:
        return [j.name for j in self.joints]

    @property
    def variable_names(self) -> list[str]:
        return [v.name for v in self.variables]

    @property
    def leaves(self) -> list[str]:
        """Links without children: the natural tips of the tree."""
        return [l.name for i, l in enumerate(self.links) if not self.child_joints[i]]

    def link_index(self, name: str) -> int:
        return lookup(self._link_index, name, "link", self.name)

    def joint_index(self, name: str) -> int:
        return lookup(self._joint_index, name, "joint", self.name)

    def variable_index(self, name: str) -> int:
        return lookup(self._var_index, name, "joint variable", self.name)

    def joint(self, name: str) -> Joint:
        return self.joints[self.joint_index(name)]

    def link(self, name: str) -> Link:
        return self.links[self.link_index(name)]

    def chain(self, base: str, tip: str) -> list[int]:
        """Indices of the joints from `base` down to `tip` (base must be an ancestor)."""
        b, t = self.link_index(base), self.link_index(tip)
        joints = []
        link = t
        while link != b:
            j = self.parent_joint[link]
            if j < 0:
                raise ValueError(f"link {base!r} is not an ancestor of link {tip!r} in robot {self.name!r}")
            joints.append(j)
            link = self.joints[j].parent
        return joints[::-1]

    def chain_variables(self, joint_indices: list[int]) -> list[int]:
        """Variables that move the given joints (a mimic joint contributes its source)."""
        out: dict[int, None] = {}  # ordered set
        for j in joint_indices:
            out.update(dict.fromkeys(m.variable for m in self.joints[j].motions))
        return list(out)

    def __repr__(self) -> str:
        return (
            f"RobotModel({self.name!r}: {len(self.links)} links, {len(self.joints)} joints, "
            f"{len(self.variables)} variables)"
        )
