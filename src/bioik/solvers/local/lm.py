"""`lm`: Levenberg–Marquardt with random restarts, the whole search in one compiled call.

Each iteration: exact FK and Jacobians, stacked weighted residuals e of the primary goals,
E = ½‖e‖², a damped step dq = −(JᵀJ + λI)⁻¹Jᵀe with λ = k·E (large errors: short,
gradient-like steps; near a solution: Gauss–Newton, quadratic convergence), every step
accepted, then clamped to the joint limits; a joint on a limit whose step points out of
its range is held and the step solved again without it (`held_step`: the other joints
make what it cannot, where clamping would stall the attempt); secondary goals add their
best step within the null space of the primary goals (task priority), at most `ratio` times as long as the
primary step (`null_space_step`: unbounded, its curvature error kept the primary goals from
converging); the ratio starts at 8 and shrinks 4× (to 0.5, then to 0: off) after each step
that fails to cut E, which then counts as no stall (`shrink_secondary_bound`), so they steer
without disturbing. An attempt restarts from a uniform random
configuration when E fails to fall below `stall_ratio`·E twice in a row or after
`attempt_iterations` steps; with several primary goals, a restart keeps the variables of
the goals that have settled (`bioik.solvers.core.restarts`; `partial_restarts=0`: every
restart draws every variable). Pose-type goals that share no variable (a humanoid's feet
and its upper body) are solved as independent sub-problems, each with its own damping,
stall count and restarts (`bioik.solvers.core.components`; `independent_goals=0`: one
problem). The search ends at the first
configuration that passes the
acceptance test at `tolerance_scale` × the goal tolerances (a margin, so that the exact
final check always agrees), at the deadline, or after `max_iterations` steps.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.goals.acceptance import acceptable_cost, goal_cost_bound, goal_errors
from bioik.goals.kernels import SECONDARY, SIZE
from bioik.problem.layout import BUDGET, DEADLINE, ITERATIONS, MODE, RESTARTS, unpack
from bioik.kinematics.frames import JIT, NO, YES
from bioik.kinematics.jacobian import fk_jacobians
from bioik.solvers.core.batch import batch_queries
from bioik.solvers.core.clock import now
from bioik.solvers.core.components import component_costs, component_step, goal_components
from bioik.solvers.core.linalg import (SECONDARY_RATIO_MAX, held_step, limit_sides, null_space_scratch,
                                       null_space_step, shrink_secondary_bound, stack_residuals)
from bioik.solvers.core.restarts import restart
from bioik.solvers.core.workspace import kinematic_buffers, search_start
from bioik.solvers.core.settings import slots
from bioik.solvers.core.family import Family, compiled
from bioik.solvers.core.free_tries import free_tries, free_tries_rows
from bioik.solvers.core.scene_search import scene_search
from bioik.solvers.local.lm_pose import lm_pose_search

#: Tunable parameters and their defaults.
DEFAULTS = {"damping": 0.1, "stall_ratio": 0.7, "attempt_iterations": 40, "tolerance_scale": 0.5, "partial_restarts": 1,
            "independent_goals": 1}
SETTING = slots(DEFAULTS)


STEP, RESTART, STOP = 0, 1, 2


@njit(inline="always", **JIT)
def next_move(it, E, E_prev, stalls, attempt, stall_ratio, attempt_max, deadline):
    """Before step `it` (cost E where it starts): STEP on, RESTART from a random
    configuration (E failed to fall below stall_ratio·E_prev twice in a row, or the attempt
    is used up) or STOP (the deadline; the clock is read at restarts and every 32 steps).
    Returns the move and the updated stall count."""
    stalls = stalls + 1 if E > stall_ratio * E_prev else 0
    if stalls >= 2 or attempt >= attempt_max:
        return (STOP if now() > deadline else RESTART), stalls
    if (it & 31) == 0 and now() > deadline:
        return STOP, stalls
    return STEP, stalls


@njit(**JIT)
def lm_search(ibuf, fbuf, q, settings, run, stats):
    """Search from q (overwritten with the best configuration found); True on success.

    settings: damping, stall_ratio, attempt_iterations, tolerance_scale, partial_restarts,
    independent_goals.
    run: deadline (monotonic s), iteration budget, RNG seed, acceptance mode, random start.
    stats (out): iterations, restarts.
    """
    prob = unpack(ibuf, fbuf)
    seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
    gi, gf, gw, gt, vdata, aux, bounds = prob.gi, prob.gf, prob.gw, prob.gt, prob.vdata, prob.aux, prob.bounds
    lo, hi, slo, shi = bounds[0], bounds[1], bounds[2], bounds[3]
    deadline, max_iterations, mode = run[DEADLINE], run[BUDGET], int(run[MODE])
    n = q.shape[0]
    rng = search_start(run, slo, shi, q)
    seg, frames, J, r, Jr, scratch, errors = kinematic_buffers(seg_i, out_seg, gi, n)
    G = gi.shape[0]
    R = 1
    for g in range(G):
        R += gi[g, SIZE]
    m = max(R, n)
    e = np.empty(R)
    Je = np.empty((R, n))
    has_secondary = False
    for g in range(G):
        if gi[g, SECONDARY]:
            has_secondary = True
    es = np.empty(R if has_secondary else 1)
    Js = np.empty((R if has_secondary else 1, n))
    ns = null_space_scratch(R if has_secondary else 1, n)
    M, N = np.empty((m, m)), np.empty((m, m))
    b, rhs = np.empty(m), np.empty(m)
    dq = np.empty(n)
    moved = np.empty(n, dtype=np.bool_)
    side = np.empty(n)
    gt_inner = gt * settings[SETTING.tolerance_scale]
    k_damp, stall_ratio = settings[SETTING.damping], settings[SETTING.stall_ratio]
    attempt_max = int(settings[SETTING.attempt_iterations])
    partial = settings[SETTING.partial_restarts] != 0.0
    E_max = acceptable_cost(gi, gf, gw, gt_inner)
    # independent sub-problems (C > 1): a step, stall count and restarts of their own each
    goal_comp, var_comp, row_comp = np.empty(G, np.int64), np.empty(n, np.int64), np.empty(R, np.int64)
    C = goal_components(gi, seg_i, out_seg, n, goal_comp, var_comp, row_comp, settings[SETTING.independent_goals] != 0.0)
    Ec, Ec_prev, E_max_c = np.empty(C), np.full(C, np.inf), np.zeros(C)
    stalls_c, attempt_c, partial_c = np.zeros(C, np.int64), np.zeros(C, np.int64), np.zeros(C, np.int64)
    for g in range(G):
        if not gi[g, SECONDARY]:
            E_max_c[goal_comp[g]] += goal_cost_bound(gi, gf, gw, gt_inner, g)
    split = C > 1
    cols, ec, dqc = np.empty(n if split else 1, np.int64), np.empty(R if split else 1), np.empty(n if split else 1)
    Jc = np.empty((R, n) if split else (1, 1))

    ratio = SECONDARY_RATIO_MAX if has_secondary else 0.0  # kept across restarts
    qc = q.copy()
    best = q.copy()
    best_E = np.inf
    E_prev = np.inf
    stalls = 0
    attempt = 0
    it = 0
    restarts = 0
    success = False
    while True:
        fk_jacobians(seg_i, seg_f, out_seg, out_tf, qc, seg, frames, J)
        rows, E = stack_residuals(gi, gf, gw, frames, J, qc, vdata, aux, r, Jr, scratch, e, Je, NO)
        if E < best_E:
            best_E = E
            best[:] = qc
        if E <= E_max and goal_errors(gi, gf, gt_inner, frames, J, qc, vdata, aux, r, Jr, scratch, mode, errors):
            best[:] = qc
            success = True
            break
        if it >= max_iterations:  # the budget counts steps: `max_iterations` steps were taken
            break
        it += 1
        ratio_before = ratio
        ratio, E_prev = shrink_secondary_bound(ratio, E, E_prev, stall_ratio)
        lam = k_damp * E + 1e-12
        restarted = False
        if not split:
            move, stalls = next_move(it, E, E_prev, stalls, attempt, stall_ratio, attempt_max, deadline)
            if move == STOP:
                break
            if move == RESTART:
                partial_c[0] = restart(gi, gf, gw, gt_inner, e, Je, rng, slo, shi, qc, partial, partial_c[0], moved,
                                       goal_comp, var_comp, 0)
                restarts += 1
                E_prev, stalls, attempt = np.inf, 0, 0
                continue
            limit_sides(qc, lo, hi, side)
            if not held_step(Je, e, rows, n, lam, M, b, dq, side, N, rhs):
                dq[:] = 0.0
            attempt += 1
        else:
            if (it & 31) == 0 and now() > deadline:
                break
            component_costs(e, rows, row_comp, Ec)
            dq[:] = 0.0
            stop = False
            for c in range(C):
                if Ec[c] > E_max_c[c]:  # a component within its acceptance bound never stalls
                    if ratio == ratio_before:  # a step the secondary bound shrank after is no stall
                        stalls_c[c] = stalls_c[c] + 1 if Ec[c] > stall_ratio * Ec_prev[c] else 0
                    if stalls_c[c] >= 2 or attempt_c[c] >= attempt_max:
                        if now() > deadline:
                            stop = True
                            break
                        partial_c[c] = restart(gi, gf, gw, gt_inner, e, Je, rng, slo, shi, qc, partial, partial_c[c], moved,
                                               goal_comp, var_comp, c)
                        restarts += 1
                        Ec_prev[c], stalls_c[c], attempt_c[c] = np.inf, 0, 0
                        restarted = True
                        continue  # its next step waits for the new FK
                Ec_prev[c] = Ec[c]
                component_step(Je, e, rows, c, k_damp * Ec[c] + 1e-12, var_comp, row_comp, cols, Jc, ec, M, b, dqc, dq,
                               qc, lo, hi, side, N, rhs)
                attempt_c[c] += 1
            if stop:
                break
        E_prev = E
        if has_secondary and not restarted:  # secondary goals act in the null space of the primary ones
            srows, _ = stack_residuals(gi, gf, gw, frames, J, qc, vdata, aux, r, Jr, scratch, es, Js, YES)
            null_space_step(Je, rows, Js, es, srows, n, lam, lam + 1e-9, ratio, dq, ns)
        for i in range(n):
            x = qc[i] + dq[i]
            qc[i] = min(max(x, lo[i]), hi[i])
    q[:] = best
    stats[ITERATIONS] = it
    stats[RESTARTS] = restarts
    return success


@njit(**JIT)
def lm_pose_batch(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base):
    """`lm_pose_search` over a chunk of a batch (`bioik.solvers.core.batch`)."""
    return batch_queries(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base, lm_pose_search, ())


@njit(**JIT)
def lm_pose_free(ibuf, fbuf, row, q, io, state, proof, full_ibuf, full_fbuf, report):
    """`lm_pose_search`'s free tries among obstacles (`bioik.solvers.core.free_tries`)."""
    return free_tries(ibuf, fbuf, row, q, io, state, proof, full_ibuf, full_fbuf, report, lm_pose_search, ())


@njit(**JIT)
def lm_pose_free_rows(ibuf, fbuf, rows, tols, Q, seeded, io, states, proof, full_ibuf, full_fbuf, reports, first, last,
                      timeout, cap, tries, base):
    """`lm_pose_free` over a chunk of a batch (`bioik.solvers.core.free_tries.free_tries_rows`)."""
    return free_tries_rows(ibuf, fbuf, rows, tols, Q, seeded, io, states, proof, full_ibuf, full_fbuf, reports, first, last,
                           timeout, cap, tries, base, lm_pose_search, ())


@njit(**JIT)
def lm_scene_search(ibuf, fbuf, q, settings, run, stats, state, polish_ibuf, polish_fbuf, qp, rejected, reference, lower, upper,
                    multiturn, proof, report, polish_report):
    """`lm_search` among obstacles, sliced and polished (`bioik.solvers.core.scene_search`)."""
    return scene_search(ibuf, fbuf, q, settings, run, stats, state, polish_ibuf, polish_fbuf, qp, rejected, reference, lower,
                        upper, multiturn, proof, report, polish_report, lm_search)


FAMILIES = (
    Family("lm", DEFAULTS, compiled(lm_search), single_pose=lm_pose_search, single_pose_batch=lm_pose_batch,
           single_pose_free=lm_pose_free, single_pose_free_rows=lm_pose_free_rows, scene_search=lm_scene_search,
           description="Levenberg–Marquardt with random restarts (compiled)"),
)
