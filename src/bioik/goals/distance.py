"""Minimum and maximum distance goals [R 3.8]: keep a link origin outside / inside a sphere."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

import numpy as np
from numba import njit

from bioik.goals.base import N_PARAMS, Goal, finite_number, finite_vector
from bioik.kinematics.frames import JIT

MIN_DISTANCE, MAX_DISTANCE = 9, 10


@njit(inline="always", **JIT)
def distance_residual(sign, p, f, r, A, B):
    """r = max(0, sign·(‖f − t‖ − d)): sign −1 for MinDistance, +1 for MaxDistance."""
    dx, dy, dz = f[0] - p[0], f[1] - p[1], f[2] - p[2]
    n = np.sqrt(dx * dx + dy * dy + dz * dz)
    e = sign * (n - p[3])
    if e > 0.0:
        r[0] = e
        if n > 0.0:  # at the target itself the direction is undefined: no gradient
            A[0, 0], A[0, 1], A[0, 2] = sign * dx / n, sign * dy / n, sign * dz / n
    else:
        r[0] = 0.0
    return 1


@njit(**JIT)
def min_distance_residual(p, f, r, A, B):
    return distance_residual(-1.0, p, f, r, A, B)


@njit(**JIT)
def max_distance_residual(p, f, r, A, B):
    return distance_residual(1.0, p, f, r, A, B)


@dataclass
class MinDistanceGoal(Goal):
    """Keep the origin p of `link` at least `distance` (m) from `target` (base frame):
    residual r = max(0, distance − ‖p − target‖), cost ‖r‖²·w² (the BioIK source's formula).

    Args:
        link: the link whose origin keeps away.
        target: the sphere's centre (3,), base frame.
        distance: the least distance (m).
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: met when ‖r‖ ≤ tolerance.
    """

    link: str
    target: np.ndarray
    distance: float
    _: KW_ONLY
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-5
    kind = MIN_DISTANCE
    size = 1
    kernel = min_distance_residual

    def __post_init__(self):
        super().__post_init__()
        self.target = finite_vector(self.target, 3, "target", "MinDistanceGoal")
        self.distance = finite_number(self.distance, "distance", "MinDistanceGoal", minimum=0.0)

    @property
    def links(self):
        return (self.link,)

    def params(self, robot):
        p = np.zeros(N_PARAMS)
        p[0:3] = self.target
        p[3] = self.distance
        return p


@dataclass
class MaxDistanceGoal(Goal):
    """Keep the origin p of `link` within `distance` (m) of `target` (base frame):
    residual r = max(0, ‖p − target‖ − distance), cost ‖r‖²·w² (the BioIK source's formula).

    Args:
        link: the link whose origin stays near.
        target: the sphere's centre (3,), base frame.
        distance: the largest distance (m).
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: met when ‖r‖ ≤ tolerance.
    """

    link: str
    target: np.ndarray
    distance: float
    _: KW_ONLY
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-5
    kind = MAX_DISTANCE
    size = 1
    kernel = max_distance_residual

    def __post_init__(self):
        super().__post_init__()
        self.target = finite_vector(self.target, 3, "target", "MaxDistanceGoal")
        self.distance = finite_number(self.distance, "distance", "MaxDistanceGoal", minimum=0.0)

    @property
    def links(self):
        return (self.link,)

    def params(self, robot):
        p = np.zeros(N_PARAMS)
        p[0:3] = self.target
        p[3] = self.distance
        return p
