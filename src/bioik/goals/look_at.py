"""Look-at goal [R 3.8, E 8.9]: point a link axis at a target position."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

import numpy as np
from numba import njit

from bioik.goals.base import N_PARAMS, Goal, add_skew, finite_vector, unit_vector
from bioik.kinematics.frames import JIT, qrot

LOOK_AT = 4


@njit(**JIT)
def look_at_residual(p, f, r, A, B):
    vx, vy, vz = qrot(f[3], f[4], f[5], f[6], p[3], p[4], p[5])
    dx, dy, dz = p[0] - f[0], p[1] - f[1], p[2] - f[2]
    n = np.sqrt(dx * dx + dy * dy + dz * dz)
    if n > 0.0:
        u = (dx / n, dy / n, dz / n)
        # ∂u/∂p = −(I − u uᵀ)/‖t − p‖
        for i in range(3):
            for k in range(3):
                A[i, k] = (u[i] * u[k] - (1.0 if i == k else 0.0)) / n
    else:
        u = (0.0, 0.0, 0.0)
    r[0], r[1], r[2] = u[0] - vx, u[1] - vy, u[2] - vz
    add_skew(B, 0, 1.0, vx, vy, vz)  # −∂v/∂ω
    return 3


@dataclass
class LookAtGoal(Goal):
    """Point the link axis `axis` (link frame) of `link` at `target` (base frame).

    Residual r = normalize(t − p) − normalize(R·axis), cost ‖r‖²·w² (the BioIK source's
    formula), where p, R are the link's position and rotation. `axis` is normalised on
    construction; with the link origin at the target the direction to it is undefined and
    counts as zero.

    Args:
        link: the link whose axis points.
        target: the point to look at (3,), base frame.
        axis: the pointing axis (3,), link frame.
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: met when ‖r‖ ≤ tolerance.
    """

    link: str
    target: np.ndarray
    _: KW_ONLY
    axis: np.ndarray = (1.0, 0.0, 0.0)
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-5
    kind = LOOK_AT
    size = 3
    kernel = look_at_residual

    def __post_init__(self):
        super().__post_init__()
        self.target = finite_vector(self.target, 3, "target", "LookAtGoal")
        self.axis = unit_vector(self.axis, "axis", "LookAtGoal")

    @property
    def links(self):
        return (self.link,)

    def params(self, robot):
        p = np.zeros(N_PARAMS)
        p[0:3] = self.target
        p[3:6] = self.axis
        return p
