"""Joint-limit helpers for configurations, compiled (called once per solve)."""

from __future__ import annotations

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
