"""BioIK 2's memetics (step 3 of each species' step): local search on the best individuals.

`bio2_memetic`, `bio2_memetic_l`: memetics on the best individual for up to
`memetic_opt_gens` iterations while the primary cost improves [R 3.7.9]: forward-difference
gradient (step `memetic_step`, its sign drawn once per search, as the reference
implementation does) of the primary + secondary cost on the extrapolated model,
L1-normalised, costs sampled at x − δd, x, x + δd, and the quadratic step s = v/a of
eq. 3.3 (`bio2_memetic`), the linear step f/(df/dx) of [R 3.5.2] (`bio2_memetic_l`), or
none (`bio2`): `line_search`, and `line_search_single` for one pose goal.

`bio2_lm` — beyond [R] and [E], the combination [E 9.1] leaves as future work — replaces
this by a full `lm` attempt on the exact residual Jacobians (damped Gauss–Newton steps
until the cost stalls), taken right after step 1 (so a query in the basin of a solution
ends in the first step, as with `lm`), with secondary goals in the primary null space
(`lm_memetic`; `pose_attempt` for one pose goal); evolution then explores around the
result (2 generations by default).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bioik.goals.acceptance import goal_errors_with
from bioik.kinematics.frames import JIT, KERNEL, NO, YES
from bioik.kinematics.jacobian import fk_jacobians
from bioik.solvers.core.clock import now
from bioik.solvers.core.components import component_costs, component_step
from bioik.solvers.core.linalg import (SECONDARY_RATIO_MAX, held_step, limit_sides, null_space_step,
                                       shrink_secondary_bound, stack_residuals_with)
from bioik.solvers.core.rng import uniform
from bioik.solvers.evolutionary.bio2.model import (SQUARE_QUATERNION, goal_model, model_cost, offsets, score,
                                                   square_quaternion_model)

#: Memetic variants.
NONE, QUADRATIC, LINEAR, LM = 0, 1, 2, 3


class LineScratch(NamedTuple):
    """Scratch of the line searches for n genes, L = 6·O offsets, M ≥ n SIMD lanes."""

    #: Offsets of the trial point, of x, the linear and quadratic parts along d (rows 0, 1,
    #: 2, 4) and the costs at x ∓ d (row 3) (5, L).
    toff: np.ndarray
    #: The trial point (1, n); the search direction d (n,); the gradient (M,).
    xt: np.ndarray
    d: np.ndarray
    grad: np.ndarray
    #: `line_search_single`'s table of J0, Q0's position rows and x − x0 (10, M).
    Jp: np.ndarray


@njit(inline="always", **JIT)
def memetic_step(fx, f1, f3, variant):
    """Step along +d from the costs at x − d, x, x + d: quadratic, s = v/a [R eq. 3.3]
    (a step of −s along +d), or linear, f / (df/dx) [R 3.5.2]; NaN if it would not descend."""
    if variant == QUADRATIC:
        v1 = fx - f1
        v2 = f3 - fx
        a = v2 - v1
        return -0.5 * (v1 + v2) / a if a > 0.0 else np.nan
    slope = (f1 - f3) / 2.0
    return fx / slope if slope > 0.0 else np.nan


@njit(inline="always", **JIT)
def single_offsets(xt, x0, J0, Q0):
    """The six predicted offsets J0·Δ + Q0·Δ² of xt, summed as `offsets` sums them."""
    o0 = o1 = o2 = o3 = o4 = o5 = 0.0
    for v in range(x0.shape[0]):
        dv = xt[v] - x0[v]
        if dv != 0.0:
            dd = dv * dv
            o0 += J0[0, v] * dv + Q0[0, v] * dd
            o1 += J0[1, v] * dv + Q0[1, v] * dd
            o2 += J0[2, v] * dv + Q0[2, v] * dd
            o3 += J0[3, v] * dv + Q0[3, v] * dd
            o4 += J0[4, v] * dv + Q0[4, v] * dd
            o5 += J0[5, v] * dv + Q0[5, v] * dd
    return o0, o1, o2, o3, o4, o5


@njit(inline="always", **JIT)
def lane_gradient(m, b0, b1, b2, b3, b4, b5, Jp, sign, fx, grad):
    """grad[v] ← the forward difference of `goal_model` m's cost along gene v, for the
    M lanes of `line_search_single`'s table Jp, from the offsets b0..b5 and cost fx."""
    for v in range(Jp.shape[1]):  # moving gene v by sign moves the offsets by J0[:, v]·sign + Q0[:, v]·((Δ + sign)² − Δ²)
        t = (2.0 * Jp[9, v] + sign) * sign
        f = model_cost(m, b0 + Jp[0, v] * sign + Jp[6, v] * t, b1 + Jp[1, v] * sign + Jp[7, v] * t,
                       b2 + Jp[2, v] * sign + Jp[8, v] * t, b3 + Jp[3, v] * sign, b4 + Jp[4, v] * sign, b5 + Jp[5, v] * sign)
        grad[v] = (f - fx) / sign


@njit(**KERNEL)
def line_search_single(x, fx, ex, bounds, ls, rng, gens, h, variant, deadline):
    """`line_search` for one primary pose-type goal on one link: the same draws and
    arithmetic with the six offsets in registers (so the same results), and the gradient's
    n costs in one loop that compiles to SIMD code. That loop runs over M ≥ n lanes, M a
    multiple of 8 (Jp (10, M): J0, the position rows of Q0 and x − x0, padded with zeros;
    grad: M long), because the compiler's SIMD loop takes 8 at a time and a robot's 6 or
    7 genes ran scalar (the whole search then took 1.3× as long)."""
    x0, models, J0, Q0 = ex.x0, ex.models, ex.J0, ex.Q0
    lo, hi = bounds[0], bounds[1]
    xt, grad, d, Jp = ls.xt[0], ls.grad, ls.d, ls.Jp
    n = x.shape[0]
    M = Jp.shape[1]
    for k in range(6):
        for v in range(n):
            Jp[k, v] = J0[k, v]
    for k in range(3):
        for v in range(n):
            Jp[6 + k, v] = Q0[k, v]
    for v in range(n):
        Jp[9, v] = x[v] - x0[v]
    for k in range(10):
        for v in range(n, M):
            Jp[k, v] = 0.0
    m = goal_model(models, 0)
    b0, b1, b2, b3, b4, b5 = single_offsets(x, x0, J0, Q0)
    sign = h if uniform(rng) < 0.5 else -h
    for it in range(gens):
        if (it & 7) == 7 and now() > deadline:
            break
        if m[21] == SQUARE_QUATERNION:
            lane_gradient(square_quaternion_model(m), b0, b1, b2, b3, b4, b5, Jp, sign, fx, grad)
        else:
            lane_gradient(m, b0, b1, b2, b3, b4, b5, Jp, sign, fx, grad)
        norm = 0.0
        for v in range(n):
            norm += abs(grad[v])
        if not norm > 0.0:
            break
        # offsets at x + s·d: b + s·(e + g) + s²·c, e = J0·d, g = 2·Q0·(Δ∘d), c = Q0·d²
        e0 = e1 = e2 = e3 = e4 = e5 = 0.0
        c0 = c1 = c2 = 0.0
        for v in range(n):
            d[v] = grad[v] / norm * h
            dv = d[v]
            w = 2.0 * Jp[9, v] * dv
            e0 += J0[0, v] * dv + Q0[0, v] * w
            e1 += J0[1, v] * dv + Q0[1, v] * w
            e2 += J0[2, v] * dv + Q0[2, v] * w
            e3 += J0[3, v] * dv
            e4 += J0[4, v] * dv
            e5 += J0[5, v] * dv
            c0 += Q0[0, v] * (dv * dv)
            c1 += Q0[1, v] * (dv * dv)
            c2 += Q0[2, v] * (dv * dv)
        f1 = model_cost(m, b0 - e0 + c0, b1 - e1 + c1, b2 - e2 + c2, b3 - e3, b4 - e4, b5 - e5)
        f3 = model_cost(m, b0 + e0 + c0, b1 + e1 + c1, b2 + e2 + c2, b3 + e3, b4 + e4, b5 + e5)
        step = memetic_step(fx, f1, f3, variant)
        if step != step:  # NaN: no descent step
            break
        clamped = False
        for v in range(n):
            t = x[v] + step * d[v]
            xt[v] = min(max(t, lo[v]), hi[v])
            clamped = clamped or xt[v] != t
        if clamped:
            o0, o1, o2, o3, o4, o5 = single_offsets(xt, x0, J0, Q0)
        else:
            s2 = step * step
            o0, o1, o2 = b0 + step * e0 + s2 * c0, b1 + step * e1 + s2 * c1, b2 + step * e2 + s2 * c2
            o3, o4, o5 = b3 + step * e3, b4 + step * e4, b5 + step * e5
        f = model_cost(m, o0, o1, o2, o3, o4, o5)
        if not f < fx:
            break
        for v in range(n):
            x[v] = xt[v]
            Jp[9, v] = x[v] - x0[v]
        fx = f
        b0, b1, b2, b3, b4, b5 = o0, o1, o2, o3, o4, o5
    return fx


@njit(**KERNEL)
def line_search(x, fx, ex, prob, gs, ls, rng, gens, h, variant, pose_only, deadline, kinds):
    """Memetic local search on the extrapolated model from x (updated in place); returns
    its primary cost (fx: the primary cost at x). Quadratic (eq. 3.3) or linear (R 3.5.2)
    step along the L1-normalised forward-difference gradient of the primary + secondary
    cost, taken while the primary cost improves (as the reference implementation). The
    model is quadratic in each gene (J0·Δ + Q0·Δ²), so the offsets of x ± d and of the
    step's end follow from those of x, the linear part J0·d + 2·Q0·(Δ∘d) and the
    quadratic part Q0·d² (recomputed only when the step is clamped). Candidates are scored
    by `score` (scratch gs; `kinds`: as `full_score`)."""
    x0, J0, Q0 = ex.x0, ex.J0, ex.Q0
    lo, hi = prob.bounds[0], prob.bounds[1]
    toff, xt, grad, d, f2 = ls.toff, ls.xt, ls.grad, ls.d, gs.out
    n = x.shape[0]
    L = toff.shape[1]
    for v in range(n):
        xt[0, v] = x[v]
    offsets(J0, Q0, x0, xt, 0, toff, 1)  # row 1: the offsets at x
    score(prob, ex, toff, 1, xt, 0, gs, pose_only, kinds)
    fa = fx + f2[1]  # primary + secondary at x
    sign = h if uniform(rng) < 0.5 else -h
    for it in range(gens):
        if (it & 7) == 7 and now() > deadline:
            break
        for v in range(n):
            xt[0, v] = x[v] + sign
            t = (2.0 * (x[v] - x0[v]) + sign) * sign
            for k in range(L):
                toff[0, k] = toff[1, k] + J0[k, v] * sign + Q0[k, v] * t
            score(prob, ex, toff, 0, xt, 0, gs, pose_only, kinds)
            xt[0, v] = x[v]
            grad[v] = (f2[0] + f2[1] - fa) / sign
        norm = 0.0
        for v in range(n):
            norm += abs(grad[v])
        if not norm > 0.0:
            break
        for k in range(L):  # rows 2 and 4: the linear and quadratic prob along d
            toff[2, k] = 0.0
            toff[4, k] = 0.0
        for v in range(n):
            d[v] = grad[v] / norm * h
            dv = d[v]
            w = 2.0 * (x[v] - x0[v]) * dv
            for k in range(L):
                toff[2, k] += J0[k, v] * dv + Q0[k, v] * w
                toff[4, k] += Q0[k, v] * (dv * dv)
        for sgn in (-1.0, 1.0):
            for v in range(n):
                xt[0, v] = x[v] + sgn * d[v]
            for k in range(L):
                toff[0, k] = toff[1, k] + sgn * toff[2, k] + toff[4, k]
            score(prob, ex, toff, 0, xt, 0, gs, pose_only, kinds)
            toff[3, 0 if sgn < 0.0 else 1] = f2[0] + f2[1]
        step = memetic_step(fa, toff[3, 0], toff[3, 1], variant)
        if step != step:  # NaN: no descent step
            break
        clamped = False
        for v in range(n):
            t = x[v] + step * d[v]
            xt[0, v] = min(max(t, lo[v]), hi[v])
            clamped = clamped or xt[0, v] != t
        if clamped:
            offsets(J0, Q0, x0, xt, 0, toff, 0)
        else:
            s2 = step * step
            for k in range(L):
                toff[0, k] = toff[1, k] + step * toff[2, k] + s2 * toff[4, k]
        score(prob, ex, toff, 0, xt, 0, gs, pose_only, kinds)
        if not f2[0] < fx:
            break
        for v in range(n):
            x[v] = xt[0, v]
        fx = f2[0]
        fa = fx + f2[1]
        for k in range(L):
            toff[1, k] = toff[0, k]
    return fx


@njit(**KERNEL)
def lm_memetic(prob, ex, seg, gs, errors, lm_work, iterations, lam_k, stall_ratio, mode, has_secondary, deadline, kinds):
    """`bio2_lm`'s memetic step: damped Gauss–Newton (LM, λ = k·E, every step taken, the
    joints pressing against a limit held as in `lm`; pose-type goals that share no joint
    stepped as independent sub-problems, each damped by its own cost, as `lm` does) on the
    exact residual Jacobians of the primary goals, secondary goals in their null space
    (their step bounded by the primary one as in `lm`),
    from x for up to `iterations` steps, until the cost fails to fall below
    stall_ratio × its previous value twice in a row (as an `lm` attempt), from x = ex.x0.
    x ends at the best point seen, with its exact frames and Jacobians in ex.frames0 and
    ex.J0. Returns (x passes the acceptance test, primary cost at x). seg: FK scratch;
    errors: the acceptance test's; lm_work: LM scratch (see `bio2_search`); kinds: as
    `bio2.model.full_score`."""
    seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
    gi, gf, gw, gt, vdata, aux, lo, hi = prob.gi, prob.gf, prob.gw, prob.gt, prob.vdata, prob.aux, prob.bounds[0], prob.bounds[1]
    x, frames, J, r, Jr, scratch = ex.x0, ex.frames0, ex.J0, gs.r, gs.Jr, gs.scratch
    e, Je, es, Js, M, b, dq, xt, ns, side, N, rhs, var_comp, row_comp, cols, Jc, ec, dqc, Ec = lm_work
    n = x.shape[0]
    for v in range(n):
        xt[v] = x[v]
    E_best = np.inf
    E_prev = np.inf
    stalls = 0
    ratio = SECONDARY_RATIO_MAX if has_secondary else 0.0
    for it in range(iterations + 1):
        fk_jacobians(seg_i, seg_f, out_seg, out_tf, xt, seg, frames, J)
        rows, E = stack_residuals_with(kinds, gi, gf, gw, frames, J, xt, vdata, aux, r, Jr, scratch, e, Je, NO)
        if goal_errors_with(kinds, gi, gf, gt, frames, J, xt, vdata, aux, r, Jr, scratch, mode, errors):
            for v in range(n):
                x[v] = xt[v]
            return True, 2.0 * E
        if E < E_best:
            E_best = E
            for v in range(n):
                x[v] = xt[v]
        ratio, E_prev = shrink_secondary_bound(ratio, E, E_prev, stall_ratio)
        stalls = stalls + 1 if E > stall_ratio * E_prev else 0
        if stalls >= 2 or it == iterations or ((it & 31) == 31 and now() > deadline):
            break
        E_prev = E
        lam = lam_k * E + 1e-12
        if Ec.shape[0] > 1:  # independent sub-problems: a step of its own each, damped by its own cost
            component_costs(e, rows, row_comp, Ec)
            dq[:] = 0.0
            for c in range(Ec.shape[0]):
                component_step(Je, e, rows, c, lam_k * Ec[c] + 1e-12, var_comp, row_comp, cols, Jc, ec, M, b, dqc, dq,
                               xt, lo, hi, side, N, rhs)
        else:
            limit_sides(xt, lo, hi, side)
            if not held_step(Je, e, rows, n, lam, M, b, dq, side, N, rhs):
                break
        if has_secondary:
            srows, _ = stack_residuals_with(kinds, gi, gf, gw, frames, J, xt, vdata, aux, r, Jr, scratch, es, Js, YES)
            null_space_step(Je, rows, Js, es, srows, n, lam, lam + 1e-9, ratio, dq, ns)
        for v in range(n):
            xt[v] = min(max(xt[v] + dq[v], lo[v]), hi[v])
    if E_best < E:
        fk_jacobians(seg_i, seg_f, out_seg, out_tf, x, seg, frames, J)  # back to the best point
    return False, 2.0 * E_best
