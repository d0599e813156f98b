"""`lm` for one pose, position or orientation goal, as a whole-query kernel
(`bioik.solvers.core.pose_query`), and the same LM attempt as `bio2_lm`'s memetic step.

The same search as `lm_search` — same parameters, damping λ = k·E with every step
accepted, joints on a limit held and the rest clamped, restarts on stalls, the same
internal acceptance margin — but FK, the residual and the Jacobian of the reduced residual (a 6×6 system,
the same steps) are computed in one pass over the chain, with no allocation and no goal
dispatch inside the loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.problem.layout import unpack
from bioik.kinematics.frames import KERNEL
from bioik.solvers.core.linalg import held_step, limit_sides
from bioik.solvers.core.clock import now
from bioik.goals.pose import reduced_pose_residual
from bioik.solvers.core.pose_query import (
    BUDGET, DEADLINE, ITERATIONS, MODE, RANDOM_START, RESTARTS, RNG, SEED, SETTINGS,
    goal_rows, io_workspace, jacobian, met, query_finish, query_start, tip_frame,
)
from bioik.solvers.core.rng import random_configuration


@njit(**KERNEL)
def pose_attempt(prob, x, iterations, k_damp, stall_ratio, tp, tr, mode, work, deadline):
    """One LM attempt from x for the problem's (`ProblemViews`) single pose-type goal: FK, residual, the
    acceptance test at tolerances (tp, tr) once the cost is low enough to pass it, then a
    damped step (λ = k·E, always taken, joints pressing against a limit held as in `lm`,
    clamped), for up to `iterations` steps, until the cost fails to fall below stall_ratio
    × its previous value twice in a row, or past the deadline (the clock is read every 32
    steps: a stall ratio above 1 never stalls).

    x ← the point that passed the test, else the best point seen. Returns (passed, cost
    ½‖r‖² at x, the steps taken)."""
    seg_i, seg_f, gi, gf, gw = prob.seg_i, prob.seg_f, prob.gi, prob.gf, prob.gw
    lo, hi = prob.bounds[0], prob.bounds[1]
    seg, e, Je, M, b, dq, frame, err, xt, _, side, N, rhs = work
    n = x.shape[0]
    kind, has_p, has_r, wp, wr, r0, R = goal_rows(gi, gf, gw)
    g = gf[0]
    tip = prob.out_seg[0]
    tf = prob.out_tf[0]
    t = max(tp, tr)
    E_max = 3.0 * t * t * (wp * wp + wr * wr)  # as `acceptable_cost`
    for i in range(n):  # element loops: a whole-array copy needs reference counting
        xt[i] = x[i]
    E_best = np.inf
    E_prev = np.inf
    stalls = 0
    for it in range(iterations + 1):
        px, py, pz, qw, qx, qy, qz = tip_frame(seg_i, seg_f, xt, seg, tip, tf)
        E = reduced_pose_residual(g, has_p, has_r, wp, wr, r0, px, py, pz, qw, qx, qy, qz, e)
        if E < E_best:
            E_best = E
            for i in range(n):
                x[i] = xt[i]
        if E <= E_max and met(kind, g, px, py, pz, qw, qx, qy, qz, frame, err, tp, tr, mode)[2]:
            for i in range(n):  # the point that passed, even if a lower-cost one failed the test earlier
                x[i] = xt[i]
            return True, E, it
        stalls = stalls + 1 if E > stall_ratio * E_prev else 0
        if stalls >= 2 or it == iterations or ((it & 31) == 31 and now() > deadline):
            break
        E_prev = E
        jacobian(seg_i, seg_f, seg, tip, px, py, pz, has_p, has_r, wp, wr, r0, Je)
        limit_sides(xt, lo, hi, side)
        if not held_step(Je, e, R, n, k_damp * E + 1e-12, M, b, dq, side, N, rhs):
            dq[:] = 0.0
        for i in range(n):
            xt[i] = min(max(xt[i] + dq[i], lo[i]), hi[i])
    return False, E_best, it


@njit(**KERNEL)
def lm_pose_search(ibuf, fbuf, row, q, io):
    """Whole query (see `pose_query`): `lm` attempts from the seed in q (or a random
    start), then from uniform random configurations, until one passes the acceptance test
    at `tolerance_scale` × the tolerances, the iteration budget is spent or the deadline
    (read between attempts) has passed; q ← the best configuration found. Returns 1 if
    the internal test passed, 0 if not, −1 if the seed is not finite (nothing searched)."""
    prob = unpack(ibuf, fbuf)
    clipped = query_start(prob, row, q, io)
    if clipped < 0:
        return -1
    gt, slo, shi = prob.gt, prob.bounds[2], prob.bounds[3]
    rng = io[RNG : RNG + 1].view(np.uint64)
    rng[0] = np.uint64(int(io[SEED]))
    if io[RANDOM_START] > 0.0:
        random_configuration(rng, slo, shi, q)
    deadline, budget, mode = io[DEADLINE], io[BUDGET], int(io[MODE])
    k_damp, stall_ratio, attempt_max, margin = io[SETTINGS], io[SETTINGS + 1], int(io[SETTINGS + 2]), io[SETTINGS + 3]
    work = io_workspace(io, prob.seg_i, q.shape[0])
    x = work[9]
    for i in range(q.shape[0]):  # element loops: slice copies need reference counting
        x[i] = q[i]
    best_E = np.inf
    taken = 0  # iterations: steps and restarts, as in `lm_search`
    restarts = 0
    found = False
    while True:
        steps = min(attempt_max, budget - taken)
        found, E, k = pose_attempt(prob, x, steps, k_damp, stall_ratio, gt[0, 0] * margin, gt[0, 1] * margin, mode, work, deadline)
        taken += k
        if found or E < best_E:
            best_E = E
            for i in range(q.shape[0]):
                q[i] = x[i]
        if found or taken >= budget or now() > deadline:
            break
        random_configuration(rng, slo, shi, x)
        restarts += 1
        taken += 1
    io[ITERATIONS], io[RESTARTS] = taken, restarts
    # found: the attempt's last `met` test ran on q, leaving its exact frame in work
    return query_finish(prob, q, io, clipped, found, work, found)
