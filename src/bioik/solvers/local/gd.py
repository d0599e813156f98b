"""`gd`, `gd_r`, `gd_c`, `gd_c_4`: the gradient descent baselines of BioIK 2 [R 3.5.2].

The cost f is the weighted cost of the primary goals, E = ½‖e‖² over their stacked weighted
residuals (any goal type). [R 3.5.2] differentiates the fitness numerically; here the
gradient is exact, g = Jᵀe. As in [R 3.5.2] the gradient is normalised to the descent
direction d = −g/‖g‖ and the step size is found by linear extrapolation along d to f = 0,
s = f ÷ (df/dx) = E/‖g‖ (df/dx along d is −‖g‖), so

    q ← clip(q + s·d) = clip(q − E·g/‖g‖²)          (clipped at the joint limits).

Clipping leaves out revolute joints with a range of a full turn or more, as BioIK 2's
reference implementation does (its robot model treats such a joint as unbounded): a step
that leaves their limits is wrapped back by whole turns (the same pose) instead. Clipped at ±2π instead, a chain that jumps (the step grows as the
gradient vanishes) lands on the limits and stays at a minimum of the boundary: on ur5,
`gd_c` solved 59 % of the FK test with clipping, well below [R Table 3.5]'s 83.8 %.

The variants are those of [R 3.5.2, Table 3.5]:

- `gd` rejects a step that increases the cost. Direction and step size are deterministic,
  so after a rejection the next step would be the same: the search is stuck in a local
  optimum and ends there (failure) without waiting for the deadline.
- `gd_r` ("with random resets") rejects such steps too, but resets to a random
  configuration instead.
- `gd_c` ("with continuation") always accepts the step, better or not — the variant
  [R 3.5.2] found most effective. No resets.
- `gd_c_4` runs 4 such searches interleaved step by step (the thesis ran 4 threads): the
  first from the seed, the others from random configurations [R 3.5: "initial guesses from
  MoveIt are used on the first thread ... the other threads are initialized randomly"].

Every step counts as an iteration (for `gd_c_4`: every step of every chain). A chain at a
stationary point (g = 0 with E > 0) cannot move: `gd` ends, the others reset it. Success is
the acceptance test of every solver (at `tolerance_scale` × the tolerances). Secondary
goals are not optimised, so they are refused (`Family.secondary_goals`).

Honest note: the extrapolation to f = 0 of a cost that is quadratic near a solution only
halves the distance per step along a well-conditioned direction, and the normalised
gradient zig-zags along ill-conditioned ones, so convergence to 1e-5 is slow: the tests
use a looser tolerance and larger budgets for these solvers than for `lm` or `jac`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.goals.acceptance import acceptable_cost, goal_errors
from bioik.goals.kernels import SIZE
from bioik.problem.layout import BUDGET, DEADLINE, ITERATIONS, MODE, RESTARTS, unpack
from bioik.kinematics.frames import JIT, NO
from bioik.model.robot_model import REVOLUTE
from bioik.kinematics.jacobian import fk_jacobians
from bioik.solvers.core.batch import batch_queries
from bioik.solvers.core.clock import now
from bioik.solvers.core.linalg import stack_residuals
from bioik.solvers.core.pose_query import search_query
from bioik.solvers.core.rng import random_configuration
from bioik.solvers.core.workspace import kinematic_buffers, search_start
from bioik.solvers.core.settings import slots
from bioik.solvers.core.family import Family, compiled

#: Tunable parameters and their defaults.
DEFAULTS = {"tolerance_scale": 0.5}
#: Positions in the settings: the parameters, then the registry's variant and chain count.
SETTING = slots(DEFAULTS, "variant", "chains")

#: Variant codes (Family.fixed: variant, number of interleaved chains).
REJECT, RESET, CONTINUE = 0, 1, 2


@njit(**JIT)
def full_turns(seg_i, lo, hi):
    """(n,) True for each variable that only revolute joints move and whose range spans a
    full turn or more: its angle need not be clipped, any value has an equivalent within
    the limits."""
    n = lo.shape[0]
    free = np.empty(n, dtype=np.bool_)
    for v in range(n):
        free[v] = hi[v] - lo[v] >= 2.0 * np.pi
    for s in range(seg_i.shape[0]):
        v = seg_i[s, 2]
        if v >= 0 and seg_i[s, 1] != REVOLUTE:
            free[v] = False
    return free


@njit(inline="always", **JIT)
def into_limits(x, old, free, lo, hi):
    """x brought within [lo, hi]: clipped, or for a free angle (`full_turns`) wrapped by
    whole turns into the first turn above lo; a non-finite x (a step that overflowed)
    leaves the angle at `old`."""
    if not free:
        return min(max(x, lo), hi)
    if not np.isfinite(x):
        return old
    if lo <= x <= hi:
        return x
    return min(lo + (x - lo) % (2.0 * np.pi), hi)


@njit(**JIT)
def gd_search(ibuf, fbuf, q, settings, run, stats):
    """Search from q (overwritten with the best configuration found); True on success.

    settings: tolerance_scale, then the fixed variant code and number of chains.
    run/stats: as `lm_search`.
    """
    prob = unpack(ibuf, fbuf)
    seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
    gi, gf, gw, gt, vdata, aux, bounds = prob.gi, prob.gf, prob.gw, prob.gt, prob.vdata, prob.aux, prob.bounds
    lo, hi, slo, shi = bounds[0], bounds[1], bounds[2], bounds[3]
    deadline, max_iterations, mode = run[DEADLINE], run[BUDGET], int(run[MODE])
    n = q.shape[0]
    rng = search_start(run, slo, shi, q)
    seg, frames, J, r, Jr, scratch, errors = kinematic_buffers(seg_i, out_seg, gi, n)
    R = 1
    for g in range(gi.shape[0]):
        R += gi[g, SIZE]
    e = np.empty(R)
    Je = np.empty((R, n))
    grad = np.empty(n)
    gt_inner = gt * settings[SETTING.tolerance_scale]
    variant, chains = int(settings[SETTING.variant]), max(int(settings[SETTING.chains]), 1)
    E_max = acceptable_cost(gi, gf, gw, gt_inner)
    free = full_turns(seg_i, lo, hi)

    Q = np.empty((chains, n))  # current point of each chain
    E_acc = np.full(chains, np.inf)  # cost at the last accepted point
    Q[0] = q
    for c in range(1, chains):
        random_configuration(rng, slo, shi, Q[c])
    best = q.copy()
    best_E = np.inf
    it = 0
    restarts = 0
    success = False
    while True:
        c = it % chains
        qc = Q[c]
        fk_jacobians(seg_i, seg_f, out_seg, out_tf, qc, seg, frames, J)
        rows, E = stack_residuals(gi, gf, gw, frames, J, qc, vdata, aux, r, Jr, scratch, e, Je, NO)
        if E < best_E:
            best_E = E
            best[:] = qc
        if E <= E_max and goal_errors(gi, gf, gt_inner, frames, J, qc, vdata, aux, r, Jr, scratch, mode, errors):
            best[:] = qc
            success = True
            break
        if it >= max_iterations:  # the budget counts steps
            break
        it += 1
        if (it & 31) == 0 and now() > deadline:
            break
        gg = 0.0
        if variant == CONTINUE or E <= E_acc[c]:
            E_acc[c] = E
            for v in range(n):
                s = 0.0
                for i in range(rows):
                    s += Je[i, v] * e[i]
                grad[v] = s
                gg += s * s
        if gg <= 0.0:  # step rejected (cost grew) or a stationary point
            if variant == REJECT:
                break  # deterministic direction and step: stuck for good
            if now() > deadline:
                break
            random_configuration(rng, slo, shi, qc)
            E_acc[c] = np.inf
            restarts += 1
            continue
        k = E / gg  # s·d = −(E/‖g‖)·g/‖g‖
        for v in range(n):
            qc[v] = into_limits(qc[v] - k * grad[v], qc[v], free[v], lo[v], hi[v])
    q[:] = best
    stats[ITERATIONS] = it
    stats[RESTARTS] = restarts
    return success


@njit(**JIT)
def gd_pose_query(ibuf, fbuf, row, q, io):
    """`gd_search` as a whole query for one pose-type goal (`bioik.solvers.core.pose_query`)."""
    return search_query(ibuf, fbuf, row, q, io, gd_search, ())


@njit(**JIT)
def gd_pose_batch(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base):
    """`gd_pose_query` over a chunk of a batch (`bioik.solvers.core.batch`)."""
    return batch_queries(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base, gd_pose_query, ())


_search = compiled(gd_search)
FAMILIES = (
    Family("gd", DEFAULTS, _search, single_pose=gd_pose_query,
           single_pose_batch=gd_pose_batch, secondary_goals=False, fixed=(REJECT, 1),
           description="gradient descent, rejects cost increases, no resets [R 3.5.2]"),
    Family("gd_r", DEFAULTS, _search, single_pose=gd_pose_query,
           single_pose_batch=gd_pose_batch, secondary_goals=False, fixed=(RESET, 1),
           description="gradient descent with random resets [R 3.5.2]"),
    Family("gd_c", DEFAULTS, _search, single_pose=gd_pose_query,
           single_pose_batch=gd_pose_batch, secondary_goals=False, fixed=(CONTINUE, 1),
           description="gradient descent with continuation (steps always accepted) [R 3.5.2]"),
    Family("gd_c_4", DEFAULTS, _search, single_pose=gd_pose_query,
           single_pose_batch=gd_pose_batch, secondary_goals=False, fixed=(CONTINUE, 4),
           description="gradient descent with continuation, 4 interleaved chains [R 3.5.2]"),
)
