"""The viewer's goals: a goal type, a link and the pose of its handle → a bioik goal.

Each goal the viewer shows is a transform handle in the browser; its 4×4 pose (base frame)
means, by type: pose — the link's pose; position — the link's origin; look-at — the point
the link's z axis points at; line — the link's origin stays on the line through the
handle along the handle's z axis.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bioik.goals import LineGoal, LookAtGoal, PoseGoal, PositionGoal
from bioik.goals.base import Goal
from bioik.kinematics import Robot

#: The goal types the viewer offers, in menu order.
GOAL_TYPES = ("pose", "position", "look-at", "line")
#: The link axis a look-at goal points at its target (tool frames point along z).
LOOK_AXIS = (0.0, 0.0, 1.0)
#: Where a new look-at handle is placed: this far along the link's look axis (m).
LOOK_DISTANCE = 0.3


@dataclass
class ViewerGoal:
    """One goal of the viewer: its type, its link and its handle's pose (base frame)."""

    name: str
    kind: str
    link: str
    pose: np.ndarray

    def goal(self) -> Goal:
        """The bioik goal this handle pose stands for."""
        T = self.pose
        if self.kind == "pose":
            return PoseGoal(self.link, T)
        if self.kind == "position":
            return PositionGoal(self.link, T[:3, 3])
        if self.kind == "look-at":
            return LookAtGoal(self.link, T[:3, 3], axis=LOOK_AXIS)
        return LineGoal(self.link, T[:3, 3], T[:3, 2])

    def link_moved(self, link_pose: np.ndarray) -> None:
        """Follow the link after joints were set by hand (pose and position handles only: a
        look-at target or a line keeps its place, as the link need not sit on it)."""
        if self.kind in ("pose", "position"):
            self.pose = np.array(link_pose, dtype=float)


def new_goal(robot: Robot, q: np.ndarray, kind: str, link: str, name: str) -> ViewerGoal:
    """A goal the robot meets at q: its handle where the link is (look-at: ahead of it).

    ValueError naming the bad input for an unknown type or link.
    """
    if kind not in GOAL_TYPES:
        raise ValueError(f"goal type {kind!r} is not one the viewer offers; expected one of {', '.join(GOAL_TYPES)}")
    if link not in robot.link_names:
        raise ValueError(f"link {link!r} is not a link of robot {robot.name!r}; expected one of {', '.join(robot.link_names)}")
    T = np.array(robot.link_pose(q, link), dtype=float)
    if kind == "look-at":
        T[:3, 3] += LOOK_DISTANCE * (T[:3, :3] @ np.asarray(LOOK_AXIS))
    return ViewerGoal(name, kind, link, T)


def check_pose(T, what: str) -> np.ndarray:
    """A float 4×4 rigid transform, or ValueError naming `what` and the form expected."""
    try:
        M = np.array(T, dtype=float)
    except (TypeError, ValueError):
        M = None
    if M is None or M.shape != (4, 4) or not np.isfinite(M).all():
        raise ValueError(f"{what}: expected a finite 4×4 transform [R t; 0 0 0 1]; got {T!r}")
    R = M[:3, :3]
    if np.abs(R.T @ R - np.eye(3)).max() > 1e-6 or np.linalg.det(R) < 0 or np.abs(M[3] - (0, 0, 0, 1)).max() > 1e-9:
        raise ValueError(f"{what}: expected a 4×4 transform [R t; 0 0 0 1] with R a rotation (orthonormal, det +1)")
    return M
