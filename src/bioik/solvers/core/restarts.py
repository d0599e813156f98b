"""Partial restarts for searches over several primary goals (used by `lm`), per
component (`bioik.solvers.core.components`) when the goals split into several.

A restart of a multi-goal search re-samples only the variables of the goals still unmet,
so a solved foot is not thrown away because a hand is stuck. The rule:

- a primary goal counts as *settled* when its weighted residual cost ½‖w·r‖² is at most
  `SETTLED` × its share of the acceptance bound (`goal_cost_bound`): with the default
  1e4, errors within about 100× its tolerances, i.e. converging or met;
- the variables that move an unsettled goal (a nonzero column in its rows of the stacked
  residual Jacobian: the joints on its chain, shared ones such as a waist included) are
  drawn anew, uniformly in their sampling box; every other variable keeps its value;
- the restart is a full one (every variable drawn) when no goal or every goal is settled,
  and every `PARTIAL_RUN`-th restart in a row, so settled goals whose joints block the
  others cannot hold the search in one basin.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.goals.acceptance import goal_cost_bound
from bioik.goals.kernels import SECONDARY, SIZE
from bioik.kinematics.frames import JIT
from bioik.solvers.core.rng import uniform

#: A goal whose cost is within this many times its acceptance bound keeps its variables.
SETTLED = 1e4
#: Restarts in a row that may be partial before a full one.
PARTIAL_RUN = 2


@njit(**JIT)
def restart(gi, gf, gw, gt, e, Je, rng, slo, shi, q, partial, partial_run, move, goal_comp, var_comp, c):
    """Restart component c of q (`bioik.solvers.core.components`; one component: all of
    q) after `partial_run` partial restarts of it in a row (see the module docstring;
    every restart is full when `partial` is False). e, Je are the primary goals' stacked
    residuals and Jacobian at q (`stack_residuals`), move (n,) bool scratch. Returns the
    new count of partial restarts in a row."""
    n = q.shape[0]
    if not partial or partial_run >= PARTIAL_RUN:
        _draw(rng, slo, shi, q, var_comp, c)
        return 0
    move[:] = False
    settled = unsettled = 0
    row = 0
    for g in range(gi.shape[0]):
        if gi[g, SECONDARY]:
            continue
        size = gi[g, SIZE]
        if goal_comp[g] == c:
            cost = 0.0
            for k in range(row, row + size):
                cost += e[k] * e[k]
            if 0.5 * cost <= SETTLED * goal_cost_bound(gi, gf, gw, gt, g):
                settled += 1
            else:
                unsettled += 1
                for k in range(row, row + size):
                    for v in range(n):
                        if Je[k, v] != 0.0:
                            move[v] = True
        row += size
    if settled == 0 or unsettled == 0:
        _draw(rng, slo, shi, q, var_comp, c)
        return 0
    for v in range(n):
        if move[v]:
            q[v] = slo[v] + uniform(rng) * (shi[v] - slo[v])
    return partial_run + 1


@njit(inline="always", **JIT)
def _draw(rng, slo, shi, q, var_comp, c):
    """The variables of component c uniform in their box, in order (one component: the
    same draws as `random_configuration`)."""
    for v in range(q.shape[0]):
        if var_comp[v] == c:
            q[v] = slo[v] + uniform(rng) * (shi[v] - slo[v])
