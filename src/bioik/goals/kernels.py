"""Compiled evaluation of a whole goal list: residuals, their Jacobians, and costs.

Goal table layout (built by `bioik.problem.problem`, packed by `bioik.problem.layout`):
  gi (G, 6 + E) int64: kind, first link output, second link output, secondary flag,
                   first residual row, residual size, then the outputs of a goal's third,
                   fourth, … links (−1 where a goal reads fewer links)
  gf (G, P ≥ N_PARAMS): parameter rows; gw (G,): weights.
A link goal's residual kernel gives r and its derivatives A = ∂r/∂p, B = ∂r/∂ω with
respect to the link's position and rotation vector (A2, B2 for a second link); the chain
rule with the link's geometric Jacobian gives ∂r/∂q = A·J_v + B·J_ω. Goals over more
links: an RCM over a link chain uses the consecutive pair nearest its trocar; Balance
sums one term per massive link, applying the chain rule link by link.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.goals.balance import balance_link, balance_start
from bioik.goals.base import (
    BALANCE,
    CONE,
    DIRECTION,
    FIRST_JOINT_KIND,
    LINE,
    LOOK_AT,
    MAX_DISTANCE,
    MIN_DISTANCE,
    ORIENTATION,
    POSE,
    POSITION,
    PYTHON,
    RCM,
    SIDE,
)
from bioik.goals.cone import cone_residual
from bioik.goals.direction import direction_residual
from bioik.goals.distance import distance_residual
from bioik.goals.joints import joint_residual
from bioik.goals.line import line_residual
from bioik.goals.look_at import look_at_residual
from bioik.goals.pose import orientation_residual, pose_residual, position_residual
from bioik.goals.rcm import rcm_distance2, rcm_residual
from bioik.goals.side import side_residual
from bioik.kinematics.frames import JIT

#: Columns of the goal table gi: kind, first and second link output, secondary flag, first
#: residual row, residual size; then the outputs of a goal's third, fourth, … links.
KIND, OUT1, OUT2, SECONDARY, ROW, SIZE = range(6)
GI_COLUMNS = 6
#: Rows of the scratch matrices a link goal may use.
MAX_LINK_ROWS = 8


@njit(**JIT)
def link_residual(kind, p, f, f2, r, A, B, A2, B2):
    """Dispatch on kind; A, B (and A2, B2 for the second link) must be zeroed."""
    if kind == POSE:
        return pose_residual(p, f, r, A, B)
    if kind == POSITION:
        return position_residual(p, f, r, A, B)
    if kind == ORIENTATION:
        return orientation_residual(p, f, r, A, B)
    if kind == LOOK_AT:
        return look_at_residual(p, f, r, A, B)
    if kind == DIRECTION:
        return direction_residual(p, f, r, A, B)
    if kind == LINE:
        return line_residual(p, f, r, A, B)
    if kind == CONE:
        return cone_residual(p, f, r, A, B)
    if kind == SIDE:
        return side_residual(p, f, r, A, B)
    if kind == MIN_DISTANCE:
        return distance_residual(-1.0, p, f, r, A, B)
    if kind == MAX_DISTANCE:
        return distance_residual(1.0, p, f, r, A, B)
    if kind == RCM:
        return rcm_residual(p, f, f2, r, A, B, A2, B2)
    return 0


@njit(inline="always", **JIT)
def goal_output(gi, g, k):
    """Output (frame row) of goal g's k-th link, −1 past its last link."""
    return gi[g, OUT1 + k] if k < 2 else gi[g, GI_COLUMNS + k - 2]


@njit(inline="always", **JIT)
def goal_link_count(gi, g):
    """Number of links goal g reads."""
    k = 0
    while k < 2 + gi.shape[1] - GI_COLUMNS and goal_output(gi, g, k) >= 0:
        k += 1
    return k


@njit(inline="always", **JIT)
def _chain(J, o, A, B, d, Jr):
    """Jr[:d] += A·J_v + B·J_ω for output o's Jacobian rows in J."""
    n = Jr.shape[1]
    base = 6 * o
    for i in range(d):
        for k in range(3):
            a, b = A[i, k], B[i, k]
            if a != 0.0:
                for v in range(n):
                    Jr[i, v] += a * J[base + k, v]
            if b != 0.0:
                for v in range(n):
                    Jr[i, v] += b * J[base + 3 + k, v]


@njit(**JIT)
def goal_residual(gi, gf, g, frames, J, q, vdata, r, Jr, with_jac, scratch):
    """Residual of goal g into r[0:size] (unweighted) and, if with_jac, ∂r/∂q into Jr.

    frames (O, 7) and J (6·O, n) are the link frames and their Jacobians;
    scratch is (4·MAX_LINK_ROWS, 3). Returns the residual size (0: a Python goal).
    """
    kind = gi[g, KIND]
    size = gi[g, SIZE]
    if kind == PYTHON:
        return 0
    if with_jac:
        Jr[:size, :] = 0.0
    if kind >= FIRST_JOINT_KIND:
        return joint_residual(kind, gf[g], q, vdata, r, Jr)
    m = MAX_LINK_ROWS
    A, B, A2, B2 = scratch[0:m], scratch[m : 2 * m], scratch[2 * m : 3 * m], scratch[3 * m : 4 * m]
    p = gf[g]
    if kind == BALANCE:
        balance_start(p, r)
        for k in range(goal_link_count(gi, g)):
            o = goal_output(gi, g, k)
            A[:3, :] = 0.0
            B[:3, :] = 0.0
            balance_link(p, k, frames[o], r, A, B)
            if with_jac:
                _chain(J, o, A, B, 3, Jr)
        return 3
    o1, o2 = gi[g, OUT1], gi[g, OUT2]
    if kind == RCM:
        count = goal_link_count(gi, g)
        if count > 2:  # the consecutive pair nearest the trocar
            best = np.inf
            for k in range(count - 1):
                a, b = goal_output(gi, g, k), goal_output(gi, g, k + 1)
                c = rcm_distance2(p, frames[a], frames[b])
                if c < best:
                    best, o1, o2 = c, a, b
    scratch[:, :] = 0.0
    f2 = frames[o2] if o2 >= 0 else frames[o1]
    d = link_residual(kind, p, frames[o1], f2, r, A, B, A2, B2)
    if with_jac:
        _chain(J, o1, A, B, d, Jr)
        if o2 >= 0:
            _chain(J, o2, A2, B2, d, Jr)
    return d


@njit(**JIT)
def goal_costs(gi, gf, gw, frames, J, q, vdata, r, Jr, costs, scratch):
    """Weighted cost ‖r‖²·w² of every goal into costs (G,); returns (primary, secondary) sums.

    r and Jr are scratch buffers (rows ≥ the largest goal size; Jr is clobbered).
    """
    primary = 0.0
    secondary = 0.0
    for g in range(gi.shape[0]):
        d = goal_residual(gi, gf, g, frames, J, q, vdata, r, Jr, False, scratch)
        c = 0.0
        for i in range(d):
            c += r[i] * r[i]
        c *= gw[g] * gw[g]
        costs[g] = c
        if gi[g, SECONDARY]:
            secondary += c
        else:
            primary += c
    return primary, secondary
