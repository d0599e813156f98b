"""The RelaxedIK family's loss functions [E 3.1.6], vectorised, with their derivatives.

groove(x) = (−1)^n · exp(−(x − s)² / (2c²)) + r · (x − s)^g

s: centre (target value), c: width of the Gaussian, r: weight of the polynomial, g: its
degree, n ∈ {0, 1}: sign of the Gaussian (n = 1 rewards x near s: groove(s) = −1).

swamp(x) = (a1 + a2·x'^m) · (1 − exp(−x'^nw / b^nw)) − 1,   x' = (2x − l − u) / (u − l)

x' maps the range [l, u] to [−1, 1]; a1, a2 set the transition between wall and polynomial,
nw ([E]'s n) the steepness of the walls, m the degree of the polynomial, and b the wall
location: by default the solution of 1 − exp(−1/b^nw) = 0.95, i.e. b = (1 / ln 20)^(1/nw), so
the wall factor reaches 0.95 at the range bounds [E 3.1.6]. Even nw and m keep the swamp
symmetric. Parameter values of [E] for pose goals: s = 0, c = 0.1, n = 1, r = 10, g = 2
[E 8 (penetration-depth and alignment goals: "the same as for the pose goals")]; [E]
gives no values for the swamp, so `SWAMP` below is our choice (documented there).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.kinematics.frames import JIT

#: Groove parameters of RelaxedIK's pose objectives [E 3.1.6, 8]: s, c, r, g, n.
POSE_GROOVE = dict(s=0.0, c=0.1, r=10.0, g=2.0, n=1)

#: Swamp parameters used for ranged objectives (our choice; [E] names them but gives no
#: values): a1 = a2 = 1 (loss −1 inside, 2·0.95 − 1 = 0.9 at the bounds), quadratic
#: polynomial m = 2, steep walls nw = 20 (wall factor 0.03 at 80 % of the half-range).
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


def swamp_b(nw: float) -> float:
    """b with 1 − exp(−1/b^nw) = 0.95: the wall factor is 0.95 at the range bounds."""
    return float((1.0 / np.log(20.0)) ** (1.0 / nw))


def swamp(x, l, u, a1=1.0, a2=1.0, m=2.0, nw=20.0, b=None):
    """swamp(x) = (a1 + a2 x'^m)(1 − exp(−x'^nw / b^nw)) − 1 with x' = (2x − l − u)/(u − l)."""
    b = swamp_b(nw) if b is None else b
    xs = (2.0 * np.asarray(x, dtype=float) - l - u) / (u - l)
    return (a1 + a2 * xs**m) * (1.0 - np.exp(-(xs**nw) / b**nw)) - 1.0


def swamp_derivative(x, l, u, a1=1.0, a2=1.0, m=2.0, nw=20.0, b=None):
    """d swamp / dx (through x' = (2x − l − u)/(u − l), dx'/dx = 2/(u − l)), elementwise."""
    b = swamp_b(nw) if b is None else b
    xs = (2.0 * np.asarray(x, dtype=float) - l - u) / (u - l)
    wall = np.exp(-(xs**nw) / b**nw)
    dxs = a2 * m * xs ** (m - 1.0) * (1.0 - wall) + (a1 + a2 * xs**m) * wall * nw * xs ** (nw - 1.0) / b**nw
    return dxs * 2.0 / (u - l)
