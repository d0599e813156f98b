"""Balance goal [R 3.8]: keep the robot's centre of mass above a point along gravity."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

import numpy as np
from numba import njit

from bioik.errors import GoalError
from bioik.goals.base import N_PARAMS, Goal, add_skew, finite_vector, unit_vector
from bioik.goals.kernels import MAX_LINK_ROWS, chain_rule, goal_link_count, goal_output
from bioik.goals.registry import ANY_LINKS
from bioik.kinematics.frames import JIT, qrot

#: Parameter row: target (3), unit gravity ĝ (3), then per massive link (in `links_for`
#: order) its share of the total mass and its centre of mass in the link frame (4 each).
FIRST_LINK, PER_LINK = 6, 4

BALANCE = 12


@njit(inline="always", **JIT)
def _project(p, r, x, y, z, s):
    """r += s·(I − ĝĝᵀ)(x, y, z)."""
    d = p[3] * x + p[4] * y + p[5] * z
    r[0] += s * (x - d * p[3])
    r[1] += s * (y - d * p[4])
    r[2] += s * (z - d * p[5])


@njit(**JIT)
def balance_start(p, r):
    """r ← −(I − ĝĝᵀ)·target, before the links' terms are added."""
    r[0] = r[1] = r[2] = 0.0
    _project(p, r, p[0], p[1], p[2], -1.0)


@njit(**JIT)
def balance_link(p, k, f, r, A, B):
    """Add massive link k's term m_k/M·(I − ĝĝᵀ)(p_k + R_k c_k) to r, and its derivatives
    with respect to that link's position (A) and rotation vector (B)."""
    i = FIRST_LINK + PER_LINK * k
    w = p[i]
    cx, cy, cz = qrot(f[3], f[4], f[5], f[6], p[i + 1], p[i + 2], p[i + 3])
    _project(p, r, f[0] + cx, f[1] + cy, f[2] + cz, w)
    # A = w·P; B = w·P·(−[R c]×)
    for a in range(3):
        for b in range(3):
            A[a, b] = w * ((1.0 if a == b else 0.0) - p[3 + a] * p[3 + b])
    add_skew(B, 0, -1.0, cx, cy, cz)
    for b in range(3):
        d = p[3] * B[0, b] + p[4] * B[1, b] + p[5] * B[2, b]
        for a in range(3):
            B[a, b] = w * (B[a, b] - d * p[3 + a])


@njit(inline="always", **JIT)
def balance_residual(gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch):
    """The sum of every massive link's term, applying the chain rule link by link."""
    m = MAX_LINK_ROWS
    A, B = scratch[0:m], scratch[m : 2 * m]
    p = gf[g]
    balance_start(p, r)
    for k in range(goal_link_count(gi, g)):
        o = goal_output(gi, g, k)
        A[:3, :] = 0.0
        B[:3, :] = 0.0
        balance_link(p, k, frames[o], r, A, B)
        if with_jac:
            chain_rule(J, o, A, B, 3, Jr)
    return 3



@dataclass
class BalanceGoal(Goal):
    """Keep the centre of mass c of all links with mass over `target` along `gravity`.

    c = Σ m_i (p_i + R_i c_i) / Σ m_i over the links with mass (URDF inertials, c_i in the
    link frame); residual r = (I − ĝĝᵀ)(c − target) with ĝ = gravity/‖gravity‖: the
    offset between c and the target projected onto the plane orthogonal to gravity, cost
    ‖r‖²·w². The goal reads every massive link of the robot (`links_for`).

    Args:
        target: the point the centre of mass stays above (3,), base frame.
        gravity: the direction of gravity (3,), base frame.
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: met when ‖r‖ ≤ tolerance.
    """

    target: np.ndarray = (0.0, 0.0, 0.0)
    _: KW_ONLY
    gravity: np.ndarray = (0.0, 0.0, -1.0)
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-5
    kind = BALANCE
    size = 3
    kernel = balance_residual
    link_count = ANY_LINKS

    def __post_init__(self):
        super().__post_init__()
        self.target = finite_vector(self.target, 3, "target", "BalanceGoal")
        self.gravity = unit_vector(self.gravity, "gravity", "BalanceGoal")

    def links_for(self, robot):
        links = tuple(l.name for l in robot.model.links if l.mass > 0.0)
        if not links:
            raise GoalError(f"BalanceGoal: robot {robot.name!r} has no link with mass (URDF <inertial>)")
        return links

    def params(self, robot):
        links = [robot.model.links[robot.model.link_index(name)] for name in self.links_for(robot)]
        total = sum(l.mass for l in links)
        p = np.zeros(max(N_PARAMS, FIRST_LINK + PER_LINK * len(links)))
        p[0:3] = self.target
        p[3:6] = self.gravity
        for k, l in enumerate(links):
            i = FIRST_LINK + PER_LINK * k
            p[i] = l.mass / total
            p[i + 1 : i + 4] = l.com
        return p
