"""Side goal [R 3.8]: keep a link axis pointing away from a direction."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

import numpy as np
from numba import njit

from bioik.goals.base import N_PARAMS, Goal, unit_vector
from bioik.kinematics.frames import JIT, qrot

SIDE = 8


@njit(**JIT)
def side_residual(p, f, r, A, B):
    vx, vy, vz = qrot(f[3], f[4], f[5], f[6], p[3], p[4], p[5])
    dx, dy, dz = p[0], p[1], p[2]
    s = vx * dx + vy * dy + vz * dz
    if s > 0.0:
        r[0] = s
        # d·(dω × v) = dω·(v × d)
        B[0, 0], B[0, 1], B[0, 2] = vy * dz - vz * dy, vz * dx - vx * dz, vx * dy - vy * dx
    else:
        r[0] = 0.0
    return 1


@dataclass
class SideGoal(Goal):
    """Keep the link axis `axis` (link frame) of `link` and `direction` (base frame)
    pointing away from each other: residual r = max(0, (R·axis)·direction), cost ‖r‖²·w²
    (the BioIK source's formula). Both vectors are normalised on construction.

    Args:
        link: the link whose axis is constrained.
        direction: the direction to point away from (3,), base frame.
        axis: the link axis (3,), link frame.
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: met when ‖r‖ ≤ tolerance.
    """

    link: str
    direction: np.ndarray
    _: KW_ONLY
    axis: np.ndarray = (0.0, 0.0, 1.0)
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-5
    kind = SIDE
    size = 1
    kernel = side_residual

    def __post_init__(self):
        super().__post_init__()
        self.direction = unit_vector(self.direction, "direction", "SideGoal")
        self.axis = unit_vector(self.axis, "axis", "SideGoal")

    @property
    def links(self):
        return (self.link,)

    def params(self, robot):
        p = np.zeros(N_PARAMS)
        p[0:3] = self.direction
        p[3:6] = self.axis
        return p
