"""The RelaxedIK family's loss functions [E 3.1.6], vectorised, with their derivatives; the
swamp loss itself lives in the goals layer (`bioik.goals.swamp`), which goals share.

groove(x) = (−1)^n · exp(−(x − s)² / (2c²)) + r · (x − s)^g

s: centre (target value), c: width of the Gaussian, r: weight of the polynomial, g: its
degree, n ∈ {0, 1}: sign of the Gaussian (n = 1 rewards x near s: groove(s) = −1).

swamp(x) = (a1 + a2·x'^m) · (1 − exp(−x'^nw / b^nw)) − 1,   x' = (2x − l − u) / (u − l)
(`bioik.goals.swamp`). Parameter values of [E] for pose goals: s = 0, c = 0.1, n = 1,
r = 10, g = 2 [E 8 (penetration-depth and alignment goals: "the same as for the pose
goals")]; [E] gives swamp values only for its surface-inspection criteria (a1 = 1, a2 = 0.1,
n = 8 [E 8.13], `bioik.ScanGoal`), none for joint ranges, so `SWAMP` below is our choice
(documented there).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.kinematics.frames import JIT

#: Groove parameters of RelaxedIK's pose objectives [E 3.1.6, 8]: s, c, r, g, n.
POSE_GROOVE = dict(s=0.0, c=0.1, r=10.0, g=2.0, n=1)

#: Swamp parameters of the joint-range objective (our choice; [E] gives none for it):
#: a1 = a2 = 1 (loss −1 inside, 2·0.95 − 1 = 0.9 at the bounds), quadratic polynomial
#: m = 2, steep walls nw = 20 (wall factor 0.03 at 80 % of the half-range).
SWAMP = dict(a1=1.0, a2=1.0, m=2.0, nw=20.0)


@njit(**JIT)
def groove(x, s=0.0, c=0.1, r=10.0, g=2.0, n=1):
    """groove(x) = (−1)^n exp(−(x−s)²/(2c²)) + r (x−s)^g, elementwise (compiled: also
    called inside `relaxed`'s compiled objective)."""
    d = x - s
    return (-1.0) ** n * np.exp(-(d * d) / (2.0 * c * c)) + r * d**g


def groove_derivative(x, s=0.0, c=0.1, r=10.0, g=2.0, n=1):
    """d groove / dx = −(−1)^n (x−s)/c² · exp(−(x−s)²/(2c²)) + r g (x−s)^(g−1), elementwise."""
    d = np.asarray(x, dtype=float) - s
    return -((-1.0) ** n) * d / (c * c) * np.exp(-(d * d) / (2.0 * c * c)) + r * g * d ** (g - 1.0)


@njit(**JIT)
def groove_derivative_over_offset(x, s=0.0, c=0.1, r=10.0, g=2.0, n=1):
    """(d groove / dx) / (x − s): finite at x = s for g ≥ 2 (the limit is taken there).

    The chain rule through a norm x = ‖e‖ (with s = 0) needs groove'(x)/x: ∂groove/∂e =
    groove'(x)/x · e, smooth at e = 0."""
    d = x - s
    return -((-1.0) ** n) / (c * c) * np.exp(-(d * d) / (2.0 * c * c)) + r * g * d ** (g - 2.0)
