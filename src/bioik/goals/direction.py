"""Direction (alignment) goal [R 3.8, E 8.8]: align a link axis with a direction."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

import numpy as np
from numba import njit

from bioik.goals.base import N_PARAMS, Goal, add_skew, unit_vector
from bioik.kinematics.frames import JIT, qrot

DIRECTION = 5


@njit(**JIT)
def direction_residual(p, f, r, A, B):
    vx, vy, vz = qrot(f[3], f[4], f[5], f[6], p[3], p[4], p[5])
    r[0], r[1], r[2] = vx - p[0], vy - p[1], vz - p[2]
    add_skew(B, 0, -1.0, vx, vy, vz)
    return 3


@dataclass
class DirectionGoal(Goal):
    """Align the link axis `axis` (link frame) of `link` with `direction` (base frame).

    Residual r = R·axis − direction, cost ‖r‖²·w² (the BioIK source's formula; a vector
    distance, so rotation about the axis is free [E 8.8]). Both vectors are normalised on
    construction. EBIKE calls this goal `AlignmentGoal`.

    Args:
        link: the link whose axis is aligned.
        direction: the goal direction (3,), base frame.
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
    kind = DIRECTION
    size = 3
    kernel = direction_residual

    def __post_init__(self):
        super().__post_init__()
        self.direction = unit_vector(self.direction, "direction", "DirectionGoal")
        self.axis = unit_vector(self.axis, "axis", "DirectionGoal")

    @property
    def links(self):
        return (self.link,)

    def params(self, robot):
        p = np.zeros(N_PARAMS)
        p[0:3] = self.direction
        p[3:6] = self.axis
        return p


#: EBIKE's name for the direction goal [E 8.8].
AlignmentGoal = DirectionGoal
