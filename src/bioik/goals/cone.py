"""Cone goal [R 3.8]: keep a link axis inside a cone, optionally also placing the link."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

import numpy as np
from numba import njit

from bioik.errors import GoalError
from bioik.goals.base import N_PARAMS, Goal, finite_number, finite_vector, unit_vector
from bioik.kinematics.frames import JIT, qrot

CONE = 7


@njit(**JIT)
def cone_residual(p, f, r, A, B):
    vx, vy, vz = qrot(f[3], f[4], f[5], f[6], p[3], p[4], p[5])
    dx, dy, dz = p[0], p[1], p[2]
    cx, cy, cz = vy * dz - vz * dy, vz * dx - vx * dz, vx * dy - vy * dx
    s = np.sqrt(cx * cx + cy * cy + cz * cz)
    e = np.arctan2(s, vx * dx + vy * dy + vz * dz) - p[6]
    if e > 0.0:
        r[0] = e
        if s > 0.0:  # ∂∠/∂ω = −(v × d)/‖v × d‖ (undefined when antiparallel)
            B[0, 0], B[0, 1], B[0, 2] = -cx / s, -cy / s, -cz / s
    else:
        r[0] = 0.0
    pw = p[10]
    if pw == 0.0:
        return 1
    for i in range(3):
        r[1 + i] = pw * (f[i] - p[7 + i])
        A[1 + i, i] = pw
    return 4


@dataclass
class ConeGoal(Goal):
    """Keep the link axis `axis` (link frame) of `link` within `angle` of `direction`.

    Cost max(0, ∠(R·axis, direction) − angle)² + pw²‖p* − p‖² (the BioIK source's
    formula), residual r = [max(0, ∠(R·axis, direction) − angle), pw·(p − p*)], with p* =
    `position` and pw = `position_weight` (the position term is left out when `position`
    is None, and is zero while pw = 0). `angle` is in radians, in [0, π]: a cone angle silently taken in degrees was a known
    BioIK fault, so a value above π is an error here.

    Args:
        link: the link whose axis is constrained.
        direction: the cone's axis (3,), base frame.
        angle: the cone's half-angle (rad, in [0, π]).
        axis: the link axis (3,), link frame.
        position: p*, where to place the link's origin (3,), or None for no position term.
        position_weight: pw, the position term's weight.
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: met when ‖r‖ ≤ tolerance.
    """

    link: str
    direction: np.ndarray
    angle: float
    _: KW_ONLY
    axis: np.ndarray = (0.0, 0.0, 1.0)
    position: np.ndarray | None = None
    position_weight: float = 0.0
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-5
    kind = CONE
    size = 4
    kernel = cone_residual

    def __post_init__(self):
        super().__post_init__()
        self.direction = unit_vector(self.direction, "direction", "ConeGoal")
        self.axis = unit_vector(self.axis, "axis", "ConeGoal")
        self.angle = finite_number(self.angle, "angle (radians)", "ConeGoal", minimum=0.0)
        if self.angle > np.pi:
            raise GoalError(f"ConeGoal: angle must be in [0, π] radians (not degrees); got {self.angle}")
        self.position_weight = finite_number(self.position_weight, "position_weight", "ConeGoal", minimum=0.0)
        if self.position is None:
            if self.position_weight > 0.0:
                raise GoalError("ConeGoal: position_weight > 0 needs a position")
        else:
            self.position = finite_vector(self.position, 3, "position", "ConeGoal")

    @property
    def links(self):
        return (self.link,)

    def params(self, robot):
        p = np.zeros(N_PARAMS)
        p[0:3] = self.direction
        p[3:6] = self.axis
        p[6] = self.angle
        if self.position is not None:
            p[7:10] = self.position
            p[10] = self.position_weight
        return p
