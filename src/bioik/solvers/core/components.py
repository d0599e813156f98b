"""Independent sub-problems of a multi-goal search.

Primary pose-type goals (pose, position, orientation) that share no variable — the two
feet and the upper body of a humanoid on a fixed pelvis — form separate *components*. A
search may then run each as its own problem: a damped step per component with its own
damping (from its own cost), its own stall count and its own restarts, so a failed foot
does not throw away a solved hand. Goals that share a variable (the waist under both
arms) are one component. Any other primary goal kind makes the whole problem one
component (its variables are not read structurally here); so does a problem with one
primary goal. Secondary goals belong to no component: they act in the null space of all
primary goals, as before.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.goals.base import ORIENTATION, POSE, POSITION
from bioik.goals.kernels import KIND, OUT1, SECONDARY, SIZE
from bioik.kinematics.frames import JIT
from bioik.kinematics.program import PARENT, VAR
from bioik.solvers.core.linalg import held_step, limit_side


@njit(inline="always", **JIT)
def _root(parent, v):
    while parent[v] != v:
        parent[v] = parent[parent[v]]
        v = parent[v]
    return v


@njit(**JIT)
def goal_components(gi, seg_i, out_seg, n, goal_comp, var_comp, row_comp, split=True):
    """Label the primary goals (goal_comp, G), the variables (var_comp, n) and the stacked
    primary residual rows (row_comp, as `stack_residuals` orders them) by component;
    returns the number of components C. Variables that move no primary goal get label C;
    with C = 1 (always when `split` is False) every label is 0, so a one-component search
    sees one block of everything."""
    G = gi.shape[0]
    parent = np.arange(n)
    used = np.zeros(n, dtype=np.bool_)
    goal_var = np.full(G, -1)
    primaries = 0
    for g in range(G if split else 0):
        if gi[g, SECONDARY]:
            continue
        primaries += 1
        kind = gi[g, KIND]
        s = out_seg[gi[g, OUT1]] if kind == POSE or kind == POSITION or kind == ORIENTATION else -1
        if s < 0:  # not a pose-type goal, or a link fixed to the base: no split
            split = False
            break
        first = seg_i[s, VAR]
        goal_var[g] = first
        while s >= 0:
            v = seg_i[s, VAR]
            used[v] = True
            a, b = _root(parent, first), _root(parent, v)
            if a != b:
                parent[b] = a
            s = seg_i[s, PARENT]
    goal_comp[:] = 0
    var_comp[:] = 0
    row_comp[:] = 0
    if not split or primaries < 2:
        return 1
    label = np.full(n, -1)
    count = 0
    for g in range(G):
        if goal_var[g] >= 0:
            r = _root(parent, goal_var[g])
            if label[r] < 0:
                label[r] = count
                count += 1
            goal_comp[g] = label[r]
    if count < 2:
        goal_comp[:] = 0
        return 1
    for v in range(n):
        var_comp[v] = label[_root(parent, v)] if used[v] else count
    row = 0
    for g in range(G):
        if not gi[g, SECONDARY]:
            row_comp[row:row + gi[g, SIZE]] = goal_comp[g]
            row += gi[g, SIZE]
    return count


@njit(**JIT)
def component_costs(e, rows, row_comp, costs):
    """costs[c] = ½‖e_c‖², the cost of each component's rows."""
    costs[:] = 0.0
    for r in range(rows):
        costs[row_comp[r]] += 0.5 * e[r] * e[r]


@njit(**JIT)
def component_step(Je, e, rows, c, lam, var_comp, row_comp, cols, Jc, ec, M, b, dqc, dq, q, lo, hi, side, N, g):
    """The damped step of component c alone (its rows and variables gathered, solved with
    damping lam and the joints on a limit held, as `held_step`; scattered into dq); the
    other entries of dq are left as they are. side, N, g: scratch."""
    nc = 0
    for v in range(var_comp.shape[0]):
        if var_comp[v] == c:
            cols[nc] = v
            side[nc] = limit_side(q[v], lo[v], hi[v])
            nc += 1
    rc = 0
    for r in range(rows):
        if row_comp[r] == c:
            for j in range(nc):
                Jc[rc, j] = Je[r, cols[j]]
            ec[rc] = e[r]
            rc += 1
    if not held_step(Jc, ec, rc, nc, lam, M, b, dqc, side, N, g):
        dqc[:nc] = 0.0
    for j in range(nc):
        dq[cols[j]] = dqc[j]
