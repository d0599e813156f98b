"""Joint-limit helpers for configurations, compiled (called once per solve)."""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.kinematics.frames import JIT


@njit(**JIT)
def clip_into(q, lower, upper):
    """Clamp q into [lower, upper] in place; True if anything was outside."""
    clipped = False
    for i in range(q.shape[0]):
        if q[i] < lower[i]:
            q[i] = lower[i]
            clipped = True
        elif q[i] > upper[i]:
            q[i] = upper[i]
            clipped = True
    return clipped


@njit(**JIT)
def wrap_near(q, reference, lower, upper, multiturn):
    """Revolute joints with more than a turn of range (multiturn[i] != 0): replace q[i] by
    the equivalent angle nearest reference[i] that lies within the limits. A q[i] already
    on that turn is kept bit for bit (not rounded through the wrapping). Returns whether
    any q[i] changed."""
    two_pi = 2.0 * np.pi
    moved = False
    for i in range(q.shape[0]):
        if multiturn[i] == 0:
            continue
        w = reference[i] + ((q[i] - reference[i] + np.pi) % two_pi) - np.pi
        if w < lower[i]:
            w += two_pi
        elif w > upper[i]:
            w -= two_pi
        if lower[i] <= w <= upper[i] and abs(w - q[i]) > np.pi:
            q[i] = w
            moved = True
    return moved
