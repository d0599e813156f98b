"""Line goal [R eq. 3.7, E 8.7]: keep a link origin on a line."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

import numpy as np
from numba import njit

from bioik.goals.base import N_PARAMS, Goal, finite_vector, unit_vector
from bioik.kinematics.frames import JIT

LINE = 6


@njit(**JIT)
def line_residual(p, f, r, A, B):
    dx, dy, dz = p[3], p[4], p[5]
    s = dx * (f[0] - p[0]) + dy * (f[1] - p[1]) + dz * (f[2] - p[2])
    r[0] = f[0] - dx * s - p[0]
    r[1] = f[1] - dy * s - p[1]
    r[2] = f[2] - dz * s - p[2]
    for i in range(3):
        for k in range(3):
            A[i, k] = (1.0 if i == k else 0.0) - p[3 + i] * p[3 + k]
    return 3


@dataclass
class LineGoal(Goal):
    """Keep the origin f of `link` on the line through `point` along `direction`.

    Residual r = f − d·(d·(f − p)) − p [R eq. 3.7] with d the unit direction (normalised on
    construction): the offset of f from the line, cost ‖r‖²·w².

    Args:
        link: the link whose origin stays on the line.
        point: a point of the line (3,), base frame.
        direction: the line's direction (3,).
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: met when ‖r‖ ≤ tolerance.
    """

    link: str
    point: np.ndarray
    direction: np.ndarray
    _: KW_ONLY
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-5
    kind = LINE
    size = 3
    kernel = line_residual

    def __post_init__(self):
        super().__post_init__()
        self.point = finite_vector(self.point, 3, "point", "LineGoal")
        self.direction = unit_vector(self.direction, "direction", "LineGoal")

    @property
    def links(self):
        return (self.link,)

    def params(self, robot):
        p = np.zeros(N_PARAMS)
        p[0:3] = self.point
        p[3:6] = self.direction
        return p
