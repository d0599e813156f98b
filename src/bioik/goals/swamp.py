"""The swamp loss of RangedIK [E 3.1.6]: flat inside a range, steep walls at its ends.

swamp(x) = (a1 + a2·x'^m) · (1 − exp(−x'^nw / b^nw)) − 1,   x' = (2x − l − u) / (u − l)

x' maps the range [l, u] to [−1, 1]; a1, a2 set the transition between wall and polynomial,
nw ([E]'s n) the steepness of the walls, m the degree of the polynomial, and b the wall
location: by default the solution of 1 − exp(−1/b^nw) = 0.95, i.e. b = (1 / ln 20)^(1/nw), so
the wall factor reaches 0.95 at the range bounds [E 3.1.6]. Even nw and m keep the swamp
symmetric and ≥ −1.

Two forms of one formula, in the goals layer so that goals and solvers share it: `swamp`
and `swamp_derivative` work on numpy arrays (the `relaxed` solver's Python objective, one
value per joint), `swamp_rows` on one scaled value x' inside compiled goal kernels, as two
residual rows whose squares sum to swamp + 1 (a goal's cost is ‖r‖²).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.kinematics.frames import JIT


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


@njit(**JIT)
def swamp_rows(xs, a1, a2, m, nw, b):
    """The swamp at a scaled value x' as two residual rows and their slopes (w, w', v, v'):

    w = √a1·√W (the walls), v = √a2·x'^(m/2)·√W (the polynomial), W = 1 − e^(−s),
    s = (x'/b)^nw, so that w² + v² = (a1 + a2 x'^m)·W = swamp(x') + 1 (even m and nw).
    d√W/dx' = nw·s·e^(−s) / (2x'·√W): finite as x' → 0, where √W ≈ (x'/b)^(nw/2); all four
    are exactly 0 once s underflows. Past s = 700, e^(−s) is below double precision and the
    wall slope is 0 (s·e^(−s) would be inf·0 as s overflows).
    """
    s = (xs / b) ** nw
    if s == 0.0:
        return 0.0, 0.0, 0.0, 0.0
    root = np.sqrt(-np.expm1(-s))
    slope = nw * s * np.exp(-s) / (2.0 * xs * root) if s < 700.0 else 0.0
    c1, c2, h = np.sqrt(a1), np.sqrt(a2), 0.5 * m
    poly = xs**h
    return c1 * root, c1 * slope, c2 * poly * root, c2 * (h * xs ** (h - 1.0) * root + poly * slope)
