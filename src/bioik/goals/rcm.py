"""Remote centre of motion goal [E 2.12, 8.5]: keep the robot passing through a trocar."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field

import numpy as np
from numba import njit

from bioik.errors import GoalError
from bioik.goals.base import N_PARAMS, Goal, finite_vector
from bioik.goals.kernels import MAX_LINK_ROWS, OUT1, OUT2, chain_rule, goal_link_count, goal_output
from bioik.goals.registry import ANY_LINKS
from bioik.kinematics.frames import JIT, qzaxis

RCM = 11


@njit(inline="always", **JIT)
def segment_frame(p, f, f2):
    """a = t − p1, the segment s = p2 − p1 (or the unit tool axis R·ẑ), and whether the
    projection is clamped to the segment."""
    a = (p[0] - f[0], p[1] - f[1], p[2] - f[2])
    if p[3] != 0.0:
        return a, qzaxis(f[3], f[4], f[5], f[6]), False
    return a, (f2[0] - f[0], f2[1] - f[1], f2[2] - f[2]), True


@njit(inline="always", **JIT)
def _fraction(a, s, clamp):
    """λ = (a·s)/‖s‖², clamped to [0, 1] if clamp, and whether λ moves with a and s
    (False when clamped or when the segment has zero length)."""
    L2 = s[0] * s[0] + s[1] * s[1] + s[2] * s[2]
    if L2 <= 1e-300:
        return 0.0, False
    u = (a[0] * s[0] + a[1] * s[1] + a[2] * s[2]) / L2
    if clamp and u <= 0.0:
        return 0.0, False
    if clamp and u >= 1.0:
        return 1.0, False
    return u, True


@njit(**JIT)
def rcm_distance2(p, f, f2):
    """‖t − p_rcm‖² for the pair (f, f2): how the nearest segment is chosen."""
    a, s, clamp = segment_frame(p, f, f2)
    lam, _ = _fraction(a, s, clamp)
    c = 0.0
    for i in range(3):
        e = a[i] - lam * s[i]
        c += e * e
    return c


@njit(**JIT)
def rcm_residual(p, f, f2, r, A, B, A2, B2):
    a, s, clamp = segment_frame(p, f, f2)
    lam, free = _fraction(a, s, clamp)
    L2 = s[0] * s[0] + s[1] * s[1] + s[2] * s[2]
    # r = a − λs: ∂r/∂p1 = (λ − 1)I − s·∂λ/∂p1ᵀ, ∂r/∂p2 = −λI − s·∂λ/∂p2ᵀ, where λ is free
    # ∂λ/∂p1 = (2λs − s − a)/‖s‖², ∂λ/∂p2 = (a − 2λs)/‖s‖²
    for i in range(3):
        r[i] = a[i] - lam * s[i]
        A[i, i] = lam - 1.0
        A2[i, i] = -lam
        if free:
            for k in range(3):
                A[i, k] -= s[i] * (2.0 * lam * s[k] - s[k] - a[k]) / L2
                A2[i, k] -= s[i] * (a[k] - 2.0 * lam * s[k]) / L2
    if clamp:
        return 3
    # tool axis (no second link): p2 = p1 + s with s = R·ẑ, so A gains ∂r/∂p2 and
    # ∂r/∂ω = ∂r/∂p2·(−[s]×); A2 is only scratch here
    sx, sy, sz = s
    for i in range(3):
        A[i, 0] += A2[i, 0]
        A[i, 1] += A2[i, 1]
        A[i, 2] += A2[i, 2]
        B[i, 0] = sy * A2[i, 2] - sz * A2[i, 1]
        B[i, 1] = sz * A2[i, 0] - sx * A2[i, 2]
        B[i, 2] = sx * A2[i, 1] - sy * A2[i, 0]
    return 3


@njit(inline="always", **JIT)
def rcm_goal_residual(gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch):
    """The goal's residual over its link pair (the consecutive pair nearest the trocar when
    it reads more than two links), and the chain rule for both links."""
    p = gf[g]
    o1, o2 = gi[g, OUT1], gi[g, OUT2]
    count = goal_link_count(gi, g)
    if count > 2:  # the consecutive pair nearest the trocar
        best = np.inf
        for k in range(count - 1):
            a, b = goal_output(gi, g, k), goal_output(gi, g, k + 1)
            c = rcm_distance2(p, frames[a], frames[b])
            if c < best:
                best, o1, o2 = c, a, b
    m = MAX_LINK_ROWS
    A, B, A2, B2 = scratch[0:m], scratch[m : 2 * m], scratch[2 * m : 3 * m], scratch[3 * m : 4 * m]
    scratch[:, :] = 0.0
    f2 = frames[o2] if o2 >= 0 else frames[o1]
    d = rcm_residual(p, frames[o1], f2, r, A, B, A2, B2)
    if with_jac:
        chain_rule(J, o1, A, B, d, Jr)
        if o2 >= 0:
            chain_rule(J, o2, A2, B2, d, Jr)
    return d



@dataclass
class RCMGoal(Goal):
    """Make the robot pass through `trocar` (base frame), a remote centre of motion.

    `links` is a sequence of link names whose consecutive origins (l1, l2) bound straight
    segments; the residual is r = t − p_rcm(l1, l2) for the pair nearest the trocar t,
    cost min over pairs ‖t − p_rcm‖²·w² [E 8.5], with

        p_rcm(l1, l2) = p1 + clamp(((t − p1)·(p2 − p1)) / ‖p2 − p1‖², 0, 1)·(p2 − p1).

    [E 8.5] prints the clamp around the unnormalised projection p_r·p̂_s; its stated
    purpose, keeping p_rcm on the link, needs the projection as a fraction of the segment,
    so that is clamped here. One pair gives EBIKE's single-link variant. A single link
    name instead gives the tool-axis RCM of [E 2.12]: the line along that link's z axis
    through its origin, unclamped (p_rcm = p + ((t − p)·ẑ)ẑ).

    Args:
        links: link names whose consecutive origins bound the segments, or one link name (its z
            axis).
        trocar: the remote centre t (3,), base frame.
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: met when ‖r‖ ≤ tolerance.
    """

    # field(): no default (Goal.links is a class attribute)
    links: str | Sequence[str] = field()
    trocar: np.ndarray
    _: KW_ONLY
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-5
    kind = RCM
    size = 3
    kernel = rcm_goal_residual
    link_count = ANY_LINKS

    def __post_init__(self):
        super().__post_init__()
        names = (self.links,) if isinstance(self.links, str) else self.links
        try:
            names = tuple(names)
        except TypeError:
            raise GoalError(f"RCMGoal: links must be a link name or a sequence of link names; got {self.links!r}") from None
        if not names or not all(isinstance(n, str) and n for n in names):
            raise GoalError(f"RCMGoal: links must be a link name or a sequence of link names; got {self.links!r}")
        for a, b in zip(names, names[1:]):
            if a == b:
                raise GoalError(f"RCMGoal: links has {a!r} twice in a row (a zero-length segment)")
        self.links = names
        self.trocar = finite_vector(self.trocar, 3, "trocar", "RCMGoal")

    def params(self, robot):
        p = np.zeros(N_PARAMS)
        p[0:3] = self.trocar
        p[3] = 1.0 if len(self.links) == 1 else 0.0
        return p
