"""BioIK 2: the memetic evolutionary solver of [R 3.7], [E Alg. 3.4, Table 7.1], and `bio2_lm`.

One *step* of an island, for each of its species:
  1. exact FK and Jacobians at the species' best individual (the acceptance test runs
     here, on exact FK); the population's fitness is re-evaluated on the new model;
  2. `memetic_evolution_gens` generations: each of `child_count` children mutates the
     best individual: gene += N(0,1)·2^(k−23)·span + momentum·(i mod 3), k a random
     integer in [0, 16) drawn once per child [R 3.1, 3.7.8], i the child's index in the
     pool after the P parents; the momentum is the best's, mixed with weight 0.2 (even i)
     or 0 (odd i) with the second best's, and the child's momentum becomes
     mix(momentum, Δgene, 0.3); genes are clamped to the limits. The normal deviates are
     read consecutively from one random offset per generation (as the reference
     implementation does). Children are scored on the FK of step 1 extrapolated as the
     reference implementation does: positions by the Jacobian [R 3.7.10] plus, per
     revolute joint, the second-order pull towards its axis (`curvature`); rotation
     quaternions by the Jacobian, not normalised [R 3.8]; with secondary goals a random
     number (1..children) of them survives a pre-selection by secondary cost [R 3.7.3];
     the best `population_size` of parents + survivors by primary cost live on;
  3. memetics on the best individual for up to `memetic_opt_gens` iterations while the
     primary cost improves [R 3.7.9]: forward-difference gradient (step `memetic_step`,
     its sign drawn once per search, as the reference implementation does) of the primary
     + secondary cost on the extrapolated model, L1-normalised, costs sampled at x − δd,
     x, x + δd, and the quadratic step s = v/a of eq. 3.3 (`bio2_memetic`), the linear
     step f/(df/dx) of [R 3.5.2] (`bio2_memetic_l`), or none (`bio2`).
`bio2_lm` — beyond [R] and [E], the combination [E 9.1] leaves as future work — replaces
step 3 by a full `lm` attempt on the exact residual Jacobians (damped Gauss–Newton steps
until the cost stalls), taken right after step 1 (so a query in the basin of a solution
ends in the first step, as with `lm`), with secondary goals in the primary null space;
evolution then explores around the result (2 generations by default). Only its first
species starts at the seed, the others at random (they would repeat the same attempt).
Then every species but the best is wiped out (all individuals set to one random genome,
momentum zero) if it did not improve during the step — for `bio2_lm`: did not fall below
`lm_stall_ratio` × its cost at the step's start, since LM always improves a little — or
with probability 0.1 [R 3.7.5].
The best solution ever seen is kept separately, so a wipeout never loses it. Islands are
stepped in turn in one thread (this machine has about one core of throughput); the first
island to pass the acceptance test ends the search.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.goals.acceptance import goal_errors
from bioik.goals.base import ORIENTATION, POSE, POSITION, PYTHON
from bioik.goals.kernels import KIND, MAX_LINK_ROWS, OUT1, SECONDARY, SIZE, goal_residual
from bioik.problem.layout import BUDGET, DEADLINE, ITERATIONS, MODE, RANDOM_START, RESTARTS, SEED, unpack
from bioik.goals.pose import pose_weights
from bioik.kinematics.frames import JIT, KERNEL, qmul
from bioik.kinematics.extrapolate import curvature
from bioik.kinematics.jacobian import fk_jacobians
from bioik.solvers.core.clock import now
from bioik.solvers.core.linalg import damped_step, null_space_scratch, null_space_step, stack_residuals
from bioik.solvers.local.lm_pose import pose_attempt
from bioik.solvers.core.pose_query import search_query, workspace, workspace_size
from bioik.solvers.core.rng import next_u64, randint, random_configuration, uniform
from bioik.solvers.core.settings import slots
from bioik.solvers.core.family import Family, compiled

#: Memetic variants.
NONE, QUADRATIC, LINEAR, LM = 0, 1, 2, 3

#: Parameters [E Table 7.1], plus the memetic details. `threads` is the number of islands;
#: they are stepped in turn in one thread (this machine has about one core of throughput,
#: so 1 is the fastest setting here; BioIK 2's default was 4 threads).
DEFAULTS = {
    "population_size": 2,
    "child_count": 16,
    "elite_count": 1,
    "threads": 1,
    "species_count": 2,
    "memetic_evolution_gens": 8,
    "memetic_opt_gens": 8,
    "wipeout_probability": 0.1,
    "momentum_mix": 0.3,
    "memetic_step": 1e-7,  # the reference implementation's differentiation step
    "lm_damping": 0.1,
    "lm_stall_ratio": 0.7,
}

#: `bio2_lm`'s defaults (tuned on the FK/IK test, see the README): its LM memetics run
#: like an `lm` attempt — up to `memetic_opt_gens` iterations until the cost stalls — so
#: the evolution only has to explore, and two generations per step suffice.
LM_DEFAULTS = {**DEFAULTS, "memetic_evolution_gens": 2, "memetic_opt_gens": 40}

#: Positions in the settings (DEFAULTS and LM_DEFAULTS share the order), then the variant.
SETTING = slots(DEFAULTS, "variant")

#: Standard normal deviates read from a random offset, as the reference implementation
#: does: a lookup is far cheaper than generating a deviate per gene.
NORMALS = np.random.default_rng(20171128).standard_normal(1 << 16)


@njit(inline="always", **JIT)
def offsets(J0, Q0, x0, X, xrow, off, row):
    """off[row] ← J0·Δ + Q0·Δ², Δ = X[xrow] − x0: predicted position and rotation-vector
    change of every link (6 per link)."""
    for k in range(off.shape[1]):
        off[row, k] = 0.0
    for v in range(x0.shape[0]):
        d = X[xrow, v] - x0[v]
        if d != 0.0:
            dd = d * d
            for k in range(off.shape[1]):
                off[row, k] += J0[k, v] * d + Q0[k, v] * dd


@njit(inline="always", **JIT)
def predicted_rotation(qw, qx, qy, qz, o3, o4, o5):
    """Unit quaternion q + ½·(0, ω) ⊗ q, normalised: rotation q moved by the predicted
    rotation vector ω = (o3, o4, o5), for the goals that need a rotation (pose-type goals
    use the unnormalised quaternion, `model_cost`)."""
    rw, rx, ry, rz = qmul(0.0, o3, o4, o5, qw, qx, qy, qz)
    w, x, y, z = qw + 0.5 * rw, qx + 0.5 * rx, qy + 0.5 * ry, qz + 0.5 * rz
    inv = 1.0 / np.sqrt(w * w + x * x + y * y + z * z)
    return w * inv, x * inv, y * inv, z * inv


#: Length of a pose-type goal's row of `goal_models`.
MODEL = 21


@njit(inline="always", **JIT)
def goal_models(gi, gf, gw, frames0, models):
    """models[g] ← the constants of pose-type goal g's cost on the extrapolated model, for
    the step's exact frames: its link's position minus the target, the weighted part
    weights (Wp, Wr), and r0 (4,), K (4, 3) with t* ⊗ u = r0 + K·ω for the rotation u =
    q + ½·(0, ω) ⊗ q extrapolated from the start rotation q by a rotation vector ω:
    r0 = t* ⊗ q, K·ω = ½ t* ⊗ (0, ω) ⊗ q. `model_cost` then needs no quaternion product
    per candidate."""
    for g in range(gi.shape[0]):
        kind = gi[g, KIND]
        if not (kind == POSE or kind == POSITION or kind == ORIENTATION):
            continue
        o = gi[g, OUT1]
        wp, wr = pose_weights(kind, gf, g)
        w2 = gw[g] * gw[g]
        for c in range(3):
            models[g, c] = frames0[o, c] - gf[g, c]
        models[g, 3] = wp * w2
        models[g, 4] = wr * wr * w2
        qw, qx, qy, qz = frames0[o, 3], frames0[o, 4], frames0[o, 5], frames0[o, 6]
        cw, cx, cy, cz = gf[g, 3], -gf[g, 4], -gf[g, 5], -gf[g, 6]
        if wr == 0.0:  # no target rotation (a position goal): any unit quaternion keeps ‖u‖ > 0
            cw, cx, cy, cz = 1.0, 0.0, 0.0, 0.0
        models[g, 5], models[g, 6], models[g, 7], models[g, 8] = qmul(cw, cx, cy, cz, qw, qx, qy, qz)
        for j in range(3):
            pw, px, py, pz = qmul(0.0, 1.0 if j == 0 else 0.0, 1.0 if j == 1 else 0.0, 1.0 if j == 2 else 0.0,
                                  qw, qx, qy, qz)
            kw, kx, ky, kz = qmul(cw, cx, cy, cz, pw, px, py, pz)
            models[g, 9 + j] = 0.5 * kw
            models[g, 12 + j] = 0.5 * kx
            models[g, 15 + j] = 0.5 * ky
            models[g, 18 + j] = 0.5 * kz


@njit(inline="always", **JIT)
def goal_model(models, g):
    """Row g of `goal_models` as scalars, so that loops over candidates keep it in registers."""
    return (models[g, 0], models[g, 1], models[g, 2], models[g, 3], models[g, 4], models[g, 5], models[g, 6],
            models[g, 7], models[g, 8], models[g, 9], models[g, 10], models[g, 11], models[g, 12], models[g, 13],
            models[g, 14], models[g, 15], models[g, 16], models[g, 17], models[g, 18], models[g, 19], models[g, 20])


@njit(inline="always", **JIT)
def model_cost(m, o0, o1, o2, o3, o4, o5):
    """Weighted cost of a `goal_model` m for predicted link offsets o0..o5 (position, then
    rotation vector): the frame is the start frame moved by them [R 3.7.10].

    The rotation part is [R eq. 3.5]'s min‖u ∓ t‖² for the extrapolated quaternion u,
    which the reference implementation does not normalise (that would cost a square root
    per candidate, [R 3.8]): with (s, v) = t* ⊗ u (‖u‖² = s² + ‖v‖², t a unit
    quaternion, u·t = s) it is (1 − |s|)² + ‖v‖², which does not cancel near the target.
    Branch-free, so that loops over candidates compile to SIMD code."""
    ex, ey, ez, wp, wr, r0, r1, r2, r3, k00, k01, k02, k10, k11, k12, k20, k21, k22, k30, k31, k32 = m
    ex, ey, ez = ex + o0, ey + o1, ez + o2
    s = r0 + k00 * o3 + k01 * o4 + k02 * o5
    v1 = r1 + k10 * o3 + k11 * o4 + k12 * o5
    v2 = r2 + k20 * o3 + k21 * o4 + k22 * o5
    v3 = r3 + k30 * o3 + k31 * o4 + k32 * o5
    a = 1.0 - abs(s)
    return wp * (ex * ex + ey * ey + ez * ez) + wr * (a * a + v1 * v1 + v2 * v2 + v3 * v3)


@njit(inline="always", **JIT)
def pose_score(gi, models, off, row, out):
    """(primary, secondary) weighted cost of the pose-type goals on the FK model
    extrapolated from the step's exact FK (`goal_models`), for predicted link offsets
    off[row] → out (2,).

    The innermost loop of the solver: rows are indexed, never sliced, and nothing here
    calls a function taking arrays — either makes numba count references per call,
    which cost several times the arithmetic.
    """
    primary = 0.0
    secondary = 0.0
    for g in range(gi.shape[0]):
        kind = gi[g, KIND]
        if kind == POSE or kind == POSITION or kind == ORIENTATION:
            k = 6 * gi[g, OUT1]
            c = model_cost(goal_model(models, g), off[row, k], off[row, k + 1], off[row, k + 2],
                           off[row, k + 3], off[row, k + 4], off[row, k + 5])
            if gi[g, SECONDARY]:
                secondary += c
            else:
                primary += c
    out[0] = primary
    out[1] = secondary


@njit(**JIT)
def full_score(gi, gf, gw, frames0, models, J0, off, row, X, xrow, vdata, work, r, Jr, scratch, out):
    """`pose_score` plus every other compiled goal (on the predicted frames) for the
    configuration X[xrow] → out (2,)."""
    pose_score(gi, models, off, row, out)
    for o in range(frames0.shape[0]):
        k = 6 * o
        for c in range(3):
            work[o, c] = frames0[o, c] + off[row, k + c]
        work[o, 3], work[o, 4], work[o, 5], work[o, 6] = predicted_rotation(
            frames0[o, 3], frames0[o, 4], frames0[o, 5], frames0[o, 6], off[row, k + 3], off[row, k + 4], off[row, k + 5])
    q = X[xrow]
    for g in range(gi.shape[0]):
        kind = gi[g, KIND]
        if kind == POSE or kind == POSITION or kind == ORIENTATION or kind == PYTHON:
            continue
        size = goal_residual(gi, gf, g, work, J0, q, vdata, r, Jr, False, scratch)
        c = 0.0
        for k in range(size):
            c += r[k] * r[k]
        out[1 if gi[g, SECONDARY] else 0] += c * gw[g] * gw[g]


@njit(inline="always", **JIT)
def score(gi, gf, gw, frames0, models, J0, off, row, X, xrow, vdata, work, r, Jr, scratch, out, pose_only):
    """Cost of X[xrow] with predicted offsets off[row]: the fast path when all goals are
    pose-type, else `full_score`."""
    if pose_only:
        pose_score(gi, models, off, row, out)
    else:
        full_score(gi, gf, gw, frames0, models, J0, off, row, X, xrow, vdata, work, r, Jr, scratch, out)


@njit(inline="always", **JIT)
def child_factors(P, wsel, momf):
    """The reference implementation's fixed momentum terms of child c, the (P+c)-th member
    of its pool: weight 0.2 of the second parent's momentum for even P+c, else 0, and the
    momentum factor (P+c) mod 3 [R 3.7.8]."""
    for c in range(wsel.shape[0]):
        wsel[c] = 0.2 if (P + c) % 2 == 0 else 0.0
        momf[c] = float((P + c) % 3)


@njit(inline="always", **JIT)
def draw_rates(rng, rate):
    """rate[c] = 2^k / 2^23 with k uniform in [0, 16), one k per child [R eq. 3.1]: 4 bits
    of a 64-bit draw each."""
    bits = np.uint64(0)
    for c in range(rate.shape[0]):
        if c % 16 == 0:
            bits = next_u64(rng)
        rate[c] = float(1 << int((bits >> np.uint64(4 * (c % 16))) & np.uint64(15))) * 2.0**-23


@njit(inline="always", **JIT)
def reproduce(genes, moms, cg, co, x0, J0, Q0, lo, hi, span, N, row0, rate, wsel, momf):
    """Children (columns of cg, co) of the best individual (genes[0]), with the second's
    momentum mixed in: gene = best + N·rate·span + momentum·factor, clamped; offsets ←
    J0·Δ + Q0·Δ², Δ = gene − x0 (`offsets`). Child c reads the normal deviates
    N[row0 + v, c]. (A child's own momentum is computed only if it is selected:
    `winner_momenta`.)

    The pool is gene-major and every inner loop runs over the children, indexed by the
    loop variable alone, so that it compiles to SIMD code. Each loop writes one array:
    a loop writing several has to prove at run time that they do not overlap, which for
    16 children costs more than the SIMD code saves, so the compiler keeps the vector loop
    for ≥ 24 children and 16 ran scalar (a generation took 1.3–1.4× as long)."""
    n, C = cg.shape
    b = 1 if genes.shape[0] > 1 else 0
    for k in range(co.shape[0]):
        for c in range(C):
            co[k, c] = 0.0
    for v in range(n):
        ga, ma, mb = genes[0, v], moms[0, v], moms[b, v]
        s, lv, hv = span[v], lo[v], hi[v]
        r = row0 + v
        for c in range(C):
            m = ma * (1.0 - wsel[c]) + mb * wsel[c]
            cg[v, c] = min(max(ga + N[r, c] * rate[c] * s + m * momf[c], lv), hv)
    # each gene's share (J0 + Q0·Δ)·Δ of every offset, added in gene order, three genes per
    # pass over the children (a pass costs more to enter than its 16 additions: −15 % a
    # generation); rotation rows, whose Q0 is 0, skip the curvature terms (one loop for
    # both kinds of row gave the same results 2–5 % slower per step)
    v = 0
    while v + 3 <= n:
        a0, a1, a2 = x0[v], x0[v + 1], x0[v + 2]
        for k in range(co.shape[0]):
            j0, j1, j2 = J0[k, v], J0[k, v + 1], J0[k, v + 2]
            if k % 6 < 3:
                q0, q1, q2 = Q0[k, v], Q0[k, v + 1], Q0[k, v + 2]
                for c in range(C):
                    d0, d1, d2 = cg[v, c] - a0, cg[v + 1, c] - a1, cg[v + 2, c] - a2
                    co[k, c] = co[k, c] + (j0 + q0 * d0) * d0 + (j1 + q1 * d1) * d1 + (j2 + q2 * d2) * d2
            else:
                for c in range(C):
                    co[k, c] = co[k, c] + j0 * (cg[v, c] - a0) + j1 * (cg[v + 1, c] - a1) + j2 * (cg[v + 2, c] - a2)
        v += 3
    while v < n:
        a0 = x0[v]
        for k in range(co.shape[0]):
            j0, q0 = J0[k, v], Q0[k, v]
            for c in range(C):
                d0 = cg[v, c] - a0
                co[k, c] += (j0 + q0 * d0) * d0
        v += 1


@njit(inline="always", **JIT)
def score_pose_children(gi, models, co, cf):
    """(primary, secondary) cost of every child → cf (2, C), when every goal is pose-type:
    the goals' frames extrapolated by the children's predicted offsets co."""
    C = cf.shape[1]
    for c in range(C):
        cf[0, c] = 0.0
        cf[1, c] = 0.0
    for g in range(gi.shape[0]):
        kind = gi[g, KIND]
        if not (kind == POSE or kind == POSITION or kind == ORIENTATION):
            continue
        k = 6 * gi[g, OUT1]
        row = 1 if gi[g, SECONDARY] else 0
        m = goal_model(models, g)
        for c in range(C):
            cf[row, c] += model_cost(m, co[k, c], co[k + 1, c], co[k + 2, c], co[k + 3, c], co[k + 4, c], co[k + 5, c])


@njit(inline="always", **JIT)
def candidate_cost(fit, cf, j):
    """Primary cost of candidate j: parent j < P, else child j − P."""
    P = fit.shape[0]
    return fit[j] if j < P else cf[0, j - P]


@njit(inline="always", **JIT)
def merge_ranked(fit, cf, idx, top):
    """idx[0..P−1] ← the sorted parents merged with the `top` best children, listed best
    first in idx[P..P+top−1]; a child must be strictly better to pass a parent."""
    P = fit.shape[0]
    i = 0
    j = 0
    for k in range(P):
        if j < top and cf[0, idx[P + j]] < fit[i]:
            idx[k] = P + idx[P + j]
            j += 1
        else:
            idx[k] = i
            i += 1


@njit(inline="always", **JIT)
def rank_candidates(fit, cf, idx, rng, has_secondary):
    """idx[0..P−1] ← the best P candidates by primary cost, best first; candidate j < P is
    parent j (the parents are sorted best first), else child j − P. Ties keep the earlier
    candidate (parents first). With secondary goals only a random number (1..C) of the
    children, the best by secondary cost, take part [R 3.7.3]."""
    P = fit.shape[0]
    C = cf.shape[1]
    if not has_secondary and P <= 2:
        # the two best children in one pass of selects instead of branches (the outcomes
        # are random, so branches mispredict): −16 % of a generation at P = 2, C = 16.
        # A child costing inf or NaN never beats a parent, so it is not ranked.
        m1 = m2 = np.inf
        i1 = i2 = 0
        for c in range(C):
            f = cf[0, c]
            lt1 = f < m1
            lt2 = f < m2
            m2, i2 = (m1, i1) if lt1 else ((f, c) if lt2 else (m2, i2))
            m1, i1 = (f, c) if lt1 else (m1, i1)
        top = min((1 if m1 < np.inf else 0) + (1 if m2 < np.inf else 0), P)
        idx[P] = i1
        if top > 1:
            idx[P + 1] = i2
        merge_ranked(fit, cf, idx, top)
        return
    if not has_secondary:
        # the P best children by one insertion pass (most children lose at the first
        # comparison), then a merge with the sorted parents
        top = 0
        for c in range(C):
            f = cf[0, c]
            if top < P or f < cf[0, idx[P + top - 1]]:
                j = min(top, P - 1)
                while j > 0 and cf[0, idx[P + j - 1]] > f:
                    idx[P + j] = idx[P + j - 1]
                    j -= 1
                idx[P + j] = c
                top = min(top + 1, P)
        merge_ranked(fit, cf, idx, top)
        return
    for j in range(P + C):
        idx[j] = j
    for c in range(P + 1, P + C):  # insertion sort of the children by secondary cost
        key = idx[c]
        j = c - 1
        while j >= P and cf[1, idx[j] - P] > cf[1, key - P]:
            idx[j + 1] = idx[j]
            j -= 1
        idx[j + 1] = key
    m = P + 1 + randint(rng, C)
    for k in range(P):  # partial selection sort
        best = k
        fb = candidate_cost(fit, cf, idx[k])
        for j in range(k + 1, m):
            f = candidate_cost(fit, cf, idx[j])
            if f < fb:
                best, fb = j, f
        idx[k], idx[best] = idx[best], idx[k]


@njit(inline="always", **JIT)
def winner_momenta(genes, moms, cg, cm, idx, wsel, mom_mix):
    """cm[:, c] ← the momentum of each selected child c (idx[:P], before the population is
    overwritten): mix(its parents' momentum, Δgene, mom_mix), the momentum mixed from the
    best's and the second's as in `reproduce`."""
    P, n = genes.shape
    b = 1 if P > 1 else 0
    for k in range(P):
        if idx[k] >= P:
            c = idx[k] - P
            for v in range(n):
                m = moms[0, v] * (1.0 - wsel[c]) + moms[b, v] * wsel[c]
                cm[v, c] = m * (1.0 - mom_mix) + (cg[v, c] - genes[0, v]) * mom_mix


@njit(inline="always", **JIT)
def select(genes, moms, fit, poff, cg, cm, cf, co, idx, rng, has_secondary, wsel, mom_mix):
    """The best P of the parents (genes, sorted best first) and the children (columns of
    cg, …) become the population, best first (`rank_candidates`), the children with their
    momenta (`winner_momenta`, into cm). idx: scratch (P+C,)."""
    P, n = genes.shape
    rank_candidates(fit, cf, idx, rng, has_secondary)
    winner_momenta(genes, moms, cg, cm, idx, wsel, mom_mix)
    # a winning parent j lands at k ≥ j (the parents are sorted, ties keep order), so
    # filling the rows from the last one down never overwrites a parent still to be read
    for k in range(P - 1, -1, -1):
        j = idx[k]
        if j < P:
            if j != k:
                for v in range(n):
                    genes[k, v] = genes[j, v]
                    moms[k, v] = moms[j, v]
                for v in range(poff.shape[1]):
                    poff[k, v] = poff[j, v]
                fit[k] = fit[j]
        else:
            c = j - P
            for v in range(n):
                genes[k, v] = cg[v, c]
                moms[k, v] = cm[v, c]
            for v in range(poff.shape[1]):
                poff[k, v] = co[v, c]
            fit[k] = cf[0, c]


@njit(**KERNEL)
def evolve(genes, moms, fit, poff, pool, frames0, models, x0, J0, Q0, gi, gf, gw, vdata, lo, hi, span, normals, rng, gens,
           mom_mix, has_secondary, pose_only, work, r, Jr, scratch, f2):
    """`gens` generations of one species on the extrapolated model (step 2 of the module
    doc). genes, moms (P, n), fit (P,), poff (P, 6·O): the population, best first, updated
    in place; pool: the children's scratch of `pool_scratch` (its size sets child_count).

    Children are scored by `score_pose_children` when every goal is pose-type, else one by
    one by `full_score`. The normal deviates of a generation start at one random row of
    the table seen as rows of C, as the reference implementation reads them from one
    random offset.
    """
    cg, cm, cf, co, rate, wsel, momf, idx, crow, cq = pool
    P, n = genes.shape
    C = cf.shape[1]
    rows = normals.shape[0] // C
    N = normals[: rows * C].reshape(rows, C)
    child_factors(P, wsel, momf)
    for gen in range(gens):
        row0 = randint(rng, rows - n + 1)
        draw_rates(rng, rate)
        reproduce(genes, moms, cg, co, x0, J0, Q0, lo, hi, span, N, row0, rate, wsel, momf)
        if pose_only:
            score_pose_children(gi, models, co, cf)
        else:
            for c in range(C):
                for k in range(co.shape[0]):
                    crow[0, k] = co[k, c]
                for v in range(n):
                    cq[0, v] = cg[v, c]
                full_score(gi, gf, gw, frames0, models, J0, crow, 0, cq, 0, vdata, work, r, Jr, scratch, f2)
                cf[0, c] = f2[0]
                cf[1, c] = f2[1]
        select(genes, moms, fit, poff, cg, cm, cf, co, idx, rng, has_secondary, wsel, mom_mix)


@njit(**JIT)
def pool_scratch(P, C, n, L):
    """Scratch of `evolve` for C children: their genes, momenta (n, C), costs (2, C) and
    offsets (L, C) — gene-major — and per-generation buffers."""
    return (np.empty((n, C)), np.empty((n, C)), np.empty((2, C)), np.empty((L, C)), np.empty(C), np.empty(C), np.empty(C),
            np.empty(P + C, dtype=np.int64), np.empty((1, L)), np.empty((1, n)))


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


@njit(**KERNEL)
def line_search_single(x, fx, x0, models, J0, Q0, lo, hi, rng, gens, h, variant, xt, grad, d, Jp):
    """`line_search` for one primary pose-type goal on one link: the same draws and
    arithmetic with the six offsets in registers (so the same results), and the gradient's
    n costs in one loop that compiles to SIMD code. That loop runs over M ≥ n lanes, M a
    multiple of 8 (Jp (10, M): J0, the position rows of Q0 and x − x0, padded with zeros;
    grad: M long), because the compiler's SIMD loop takes 8 at a time and a robot's 6 or
    7 genes ran scalar (the whole search then took 1.3× as long)."""
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
        for v in range(M):  # moving gene v by sign moves the offsets by J0[:, v]·sign + Q0[:, v]·((Δ + sign)² − Δ²)
            t = (2.0 * Jp[9, v] + sign) * sign
            f = model_cost(m, b0 + Jp[0, v] * sign + Jp[6, v] * t, b1 + Jp[1, v] * sign + Jp[7, v] * t,
                           b2 + Jp[2, v] * sign + Jp[8, v] * t, b3 + Jp[3, v] * sign, b4 + Jp[4, v] * sign, b5 + Jp[5, v] * sign)
            grad[v] = (f - fx) / sign
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
def line_search(x, fx, x0, frames0, models, J0, Q0, gi, gf, gw, vdata, lo, hi, rng, gens, h, variant,
                toff, xt, grad, d, work, r, Jr, scratch, f2, pose_only):
    """Memetic local search on the extrapolated model from x (updated in place); returns
    its primary cost (fx: the primary cost at x). Quadratic (eq. 3.3) or linear (R 3.5.2)
    step along the L1-normalised forward-difference gradient of the primary + secondary
    cost, taken while the primary cost improves (as the reference implementation). The
    model is quadratic in each gene (J0·Δ + Q0·Δ²), so the offsets of x ± d and of the
    step's end follow from those of x, the linear part J0·d + 2·Q0·(Δ∘d) and the
    quadratic part Q0·d² (recomputed only when the step is clamped). toff (5, L):
    scratch."""
    n = x.shape[0]
    L = toff.shape[1]
    for v in range(n):
        xt[0, v] = x[v]
    offsets(J0, Q0, x0, xt, 0, toff, 1)  # row 1: the offsets at x
    score(gi, gf, gw, frames0, models, J0, toff, 1, xt, 0, vdata, work, r, Jr, scratch, f2, pose_only)
    fa = fx + f2[1]  # primary + secondary at x
    sign = h if uniform(rng) < 0.5 else -h
    for it in range(gens):
        for v in range(n):
            xt[0, v] = x[v] + sign
            t = (2.0 * (x[v] - x0[v]) + sign) * sign
            for k in range(L):
                toff[0, k] = toff[1, k] + J0[k, v] * sign + Q0[k, v] * t
            score(gi, gf, gw, frames0, models, J0, toff, 0, xt, 0, vdata, work, r, Jr, scratch, f2, pose_only)
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
            score(gi, gf, gw, frames0, models, J0, toff, 0, xt, 0, vdata, work, r, Jr, scratch, f2, pose_only)
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
        score(gi, gf, gw, frames0, models, J0, toff, 0, xt, 0, vdata, work, r, Jr, scratch, f2, pose_only)
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
def lm_memetic(seg_i, seg_f, out_seg, out_tf, gi, gf, gw, gt, vdata, lo, hi, x, seg, frames, J,
               r, Jr, scratch, errors, lm_work, iterations, lam_k, stall_ratio, mode, has_secondary):
    """`bio2_lm`'s memetic step: damped Gauss–Newton (LM, λ = k·E, every step taken) on the
    exact residual Jacobians of the primary goals, secondary goals in their null space,
    from x for up to `iterations` steps, until the cost fails to fall below
    stall_ratio × its previous value twice in a row (as an `lm` attempt). x ends at the
    best point seen, with its exact frames and Jacobians in frames and J. Returns (x
    passes the acceptance test, primary cost at x). lm_work: scratch (see `bio2_search`)."""
    e, Je, es, Js, M, b, dq, xt, ns = lm_work
    n = x.shape[0]
    for v in range(n):
        xt[v] = x[v]
    E_best = np.inf
    E_prev = np.inf
    stalls = 0
    for it in range(iterations + 1):
        fk_jacobians(seg_i, seg_f, out_seg, out_tf, xt, seg, frames, J)
        rows, E = stack_residuals(gi, gf, gw, frames, J, xt, vdata, r, Jr, scratch, e, Je, False)
        if goal_errors(gi, gf, gt, frames, J, xt, vdata, r, Jr, scratch, mode, errors):
            for v in range(n):
                x[v] = xt[v]
            return True, 2.0 * E
        if E < E_best:
            E_best = E
            for v in range(n):
                x[v] = xt[v]
        stalls = stalls + 1 if E > stall_ratio * E_prev else 0
        if stalls >= 2 or it == iterations:
            break
        E_prev = E
        lam = lam_k * E + 1e-12
        if not damped_step(Je, e, rows, n, lam, M, b, dq):
            break
        if has_secondary:
            srows, _ = stack_residuals(gi, gf, gw, frames, J, xt, vdata, r, Jr, scratch, es, Js, True)
            null_space_step(Je, rows, Js, es, srows, n, lam, lam + 1e-9, dq, ns)
        for v in range(n):
            xt[v] = min(max(xt[v] + dq[v], lo[v]), hi[v])
    if E_best < E:
        fk_jacobians(seg_i, seg_f, out_seg, out_tf, x, seg, frames, J)  # back to the best point
    return False, 2.0 * E_best


@njit(**JIT)
def goal_flags(gi):
    """(has secondary goals, every goal pose-type or Python, stacked residual rows + 1)."""
    has_secondary = False
    pose_only = True
    R = 1
    for g in range(gi.shape[0]):
        R += gi[g, SIZE]
        if gi[g, SECONDARY]:
            has_secondary = True
        if not (gi[g, KIND] == POSE or gi[g, KIND] == POSITION or gi[g, KIND] == ORIENTATION or gi[g, KIND] == PYTHON):
            pose_only = False
    return has_secondary, pose_only, R


@njit(**JIT)
def step_scratch(seg_i, O, G, P, C, n):
    """Scratch of one species' step: population offsets, the pool of `evolve`, exact FK at
    the species' best, its `goal_models`, the model's `curvature` and goal evaluation buffers:
    (poff, pool, seg, frames0, models, J0, Q0, work, r, Jr, scratch, errors, f2)."""
    L = 6 * O
    rows = max(MAX_LINK_ROWS, n)
    return (np.empty((P, L)), pool_scratch(P, C, n, L), np.empty((max(seg_i.shape[0], 1), 7)), np.empty((O, 7)),
            np.zeros((G, MODEL)), np.empty((L, n)), np.empty((L, n)), np.empty((O, 7)), np.empty(rows), np.empty((rows, n)),
            np.empty((4 * MAX_LINK_ROWS, 3)), np.empty((G, 2)), np.empty(2))


@njit(**JIT)
def normal_table(normals, n, C, rng):
    """`normals` when it holds the n·C deviates of a generation with room to spare, else a
    table of 4·n·C fresh ones (Box–Muller; only for thousands of genes × children)."""
    if normals.shape[0] >= 2 * n * C:
        return normals
    out = np.empty(4 * n * C)
    for i in range(0, out.shape[0], 2):
        u = 1.0 - uniform(rng)
        radius = np.sqrt(-2.0 * np.log(u))
        angle = 2.0 * np.pi * uniform(rng)
        out[i], out[i + 1] = radius * np.cos(angle), radius * np.sin(angle)
    return out


@njit(**JIT)
def bio2_search(ibuf, fbuf, q, settings, run, stats, normals):
    """BioIK 2 search from q (overwritten with the best configuration); True on success.

    settings: the DEFAULTS values in order, then the memetic variant.
    run: deadline, step budget, RNG seed, acceptance mode, random start. stats: steps, wipeouts.
    Allocates the population and scratch, then runs `bio2_steps`.
    """
    prob = unpack(ibuf, fbuf)
    seg_i, out_seg, gi, bounds = prob.seg_i, prob.out_seg, prob.gi, prob.bounds
    slo, shi = bounds[2], bounds[3]
    P, C = int(settings[SETTING.population_size]), int(settings[SETTING.child_count])
    I, S = int(settings[SETTING.threads]), int(settings[SETTING.species_count])
    variant = int(settings[SETTING.variant])
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(int(run[SEED]))
    n = q.shape[0]
    G = gi.shape[0]
    O = max(out_seg.shape[0], 1)
    L = 6 * O
    if run[RANDOM_START] > 0.0:
        random_configuration(rng, slo, shi, q)
    x0 = np.empty(n)
    _, _, R = goal_flags(gi)
    # population: every individual starts at the seed [R 3.7.6]; with LM memetics only the
    # first species (the others would repeat its LM attempt) and the rest at random
    genes = np.empty((I, S, P, n))
    for i in range(I):
        for s in range(S):
            if variant == LM and (i > 0 or s > 0):
                random_configuration(rng, slo, shi, x0)
            else:
                x0[:] = q
            for k in range(P):
                genes[i, s, k] = x0
    population = (genes, np.zeros((I, S, P, n)), np.full((I, S, P), np.inf), q.copy(), np.empty(S))
    m = max(R, n)
    lm_work = (np.empty(R), np.empty((R, n)), np.empty(R), np.empty((R, n)), np.empty((m, m)), np.empty(m), np.empty(n),
               np.empty(n), null_space_scratch(R, n))
    M = (n + 7) // 8 * 8  # SIMD lanes of `line_search_single`'s gradient
    search_work = (np.empty((5, L)), x0, np.empty(n), np.empty((1, n)), np.empty(n), np.empty(M), shi - slo, np.empty((10, M)))
    return bio2_steps(prob, q, settings, run, stats, rng, normal_table(normals, n, C, rng), population,
                      step_scratch(seg_i, O, G, P, C, n), search_work, lm_work,
                      workspace(np.empty(workspace_size(seg_i.shape[0], n)), seg_i, n))


@njit(**KERNEL)
def bio2_steps(prob, q, settings, run, stats, rng, normals, population, step_work, search_work, lm_work, pose_work):
    """The steps of `bio2_search` until success, the step budget or the deadline; q ← the
    best configuration. Allocation-free, so compiled without reference counting (the
    population's views cost nothing per species)."""
    seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
    gi, gf, gw, gt, vdata, bounds = prob.gi, prob.gf, prob.gw, prob.gt, prob.vdata, prob.bounds
    lo, hi, slo, shi = bounds[0], bounds[1], bounds[2], bounds[3]
    deadline, max_steps, mode = run[DEADLINE], run[BUDGET], int(run[MODE])
    P = int(settings[SETTING.population_size])
    elites = min(max(int(settings[SETTING.elite_count]), 0), P)
    I, S = int(settings[SETTING.threads]), int(settings[SETTING.species_count])
    evo_gens, opt_gens = int(settings[SETTING.memetic_evolution_gens]), int(settings[SETTING.memetic_opt_gens])
    p_wipe, mom_mix, h = settings[SETTING.wipeout_probability], settings[SETTING.momentum_mix], settings[SETTING.memetic_step]
    lam_k, lm_stall = settings[SETTING.lm_damping], settings[SETTING.lm_stall_ratio]
    variant = int(settings[SETTING.variant])
    G = gi.shape[0]
    has_secondary, pose_only, _ = goal_flags(gi)
    single_pose = G == 1 and pose_only and gi[0, KIND] != PYTHON and not has_secondary
    genes, moms, fit, best, before = population
    poff, pool, seg, frames0, models, J0, Q0, work, r, Jr, scratch, errors, f2 = step_work
    toff, x0, x, xt, d, grad, span, Jp = search_work
    L = toff.shape[1]
    n = q.shape[0]
    best_fit = np.inf
    steps = 0
    wipeouts = 0
    success = False
    while not success:
        for i in range(I):
            for s in range(S):
                # 1. exact FK at the species' best; the acceptance test runs on it
                for v in range(n):
                    x0[v] = genes[i, s, 0, v]
                if variant == LM:  # its cost when the step starts, before the LM memetics
                    before[s] = fit[i, s, 0]
                fk_jacobians(seg_i, seg_f, out_seg, out_tf, x0, seg, frames0, J0)
                if goal_errors(gi, gf, gt, frames0, J0, x0, vdata, r, Jr, scratch, mode, errors):
                    for v in range(n):
                        best[v] = x0[v]
                    success = True
                    break
                if variant == LM:  # beyond [R] and [E]: LM on exact FK first, then evolve around it
                    if single_pose:
                        found, E, _ = pose_attempt(seg_i, seg_f, out_seg, out_tf, gi, gf, gw, lo, hi, x0, opt_gens, lam_k,
                                                   lm_stall, gt[0, 0], gt[0, 1], mode, pose_work)
                        if not found:
                            fk_jacobians(seg_i, seg_f, out_seg, out_tf, x0, seg, frames0, J0)
                    else:
                        found, E = lm_memetic(seg_i, seg_f, out_seg, out_tf, gi, gf, gw, gt, vdata, lo, hi, x0, seg, frames0,
                                              J0, r, Jr, scratch, errors, lm_work, opt_gens, lam_k, lm_stall, mode,
                                              has_secondary)
                    if found:
                        for v in range(n):
                            best[v] = x0[v]
                        success = True
                        break
                    for v in range(n):  # frames0 and J0 hold the exact FK at x0 again
                        genes[i, s, 0, v] = x0[v]
                goal_models(gi, gf, gw, frames0, models)
                curvature(J0, Q0)
                for k in range(P):
                    offsets(J0, Q0, x0, genes[i, s], k, poff, k)
                    score(gi, gf, gw, frames0, models, J0, poff, k, genes[i, s], k, vdata, work, r, Jr, scratch, f2, pose_only)
                    fit[i, s, k] = f2[0]
                if fit[i, s, 0] < best_fit:
                    best_fit = fit[i, s, 0]
                    for v in range(n):
                        best[v] = x0[v]
                if variant != LM:
                    before[s] = fit[i, s, 0]
                # 2. evolution on the extrapolated model
                evolve(genes[i, s], moms[i, s], fit[i, s], poff, pool, frames0, models, x0, J0, Q0, gi, gf, gw, vdata, lo, hi,
                       span, normals, rng, evo_gens, mom_mix, has_secondary, pose_only, work, r, Jr, scratch, f2)
                # 3. memetics on the elites (the population is sorted, best first)
                if variant == QUADRATIC or variant == LINEAR:
                    for k in range(elites):
                        for v in range(n):
                            x[v] = genes[i, s, k, v]
                        if single_pose and L == 6:
                            fx = line_search_single(x, fit[i, s, k], x0, models, J0, Q0, lo, hi, rng, opt_gens, h, variant,
                                                    xt[0], grad, d, Jp)
                        else:
                            fx = line_search(x, fit[i, s, k], x0, frames0, models, J0, Q0, gi, gf, gw, vdata, lo, hi, rng,
                                             opt_gens, h, variant, toff, xt, grad, d, work, r, Jr, scratch, f2, pose_only)
                        if fx < fit[i, s, k]:
                            for v in range(n):
                                genes[i, s, k, v] = x[v]
                            fit[i, s, k] = fx
            if success:
                break
            # 4. wipe out every species but the best if stuck, or at random [R 3.7.5]; LM
            # memetics improve a species a little at every step, so there "stuck" means
            # not below lm_stall_ratio × the cost at the step's start
            sb = 0
            for s in range(1, S):
                if fit[i, s, 0] < fit[i, sb, 0]:
                    sb = s
            ratio = lm_stall if variant == LM else 1.0
            for s in range(S):
                if s != sb and (not fit[i, s, 0] < ratio * before[s] or uniform(rng) < p_wipe):
                    random_configuration(rng, slo, shi, x)
                    for k in range(P):
                        for v in range(n):
                            genes[i, s, k, v] = x[v]
                            moms[i, s, k, v] = 0.0
                        fit[i, s, k] = np.inf
                    wipeouts += 1
        steps += 1
        if success or steps >= max_steps or now() > deadline:
            break
    for v in range(n):
        q[v] = best[v]
    stats[ITERATIONS] = steps
    stats[RESTARTS] = wipeouts
    return success


@njit(**JIT)
def bio2_pose_query(ibuf, fbuf, row, q, io, normals):
    """`bio2_search` as a whole query for one pose-type goal (`bioik.solvers.core.pose_query`)."""
    return search_query(ibuf, fbuf, row, q, io, bio2_search, (normals,))


_search = compiled(bio2_search, NORMALS)
FAMILIES = (
    Family("bio2", DEFAULTS, _search, fixed=(NONE,), single_pose=bio2_pose_query, single_pose_extra=(NORMALS,),
           description="BioIK 2 evolution without memetics"),
    Family("bio2_memetic", DEFAULTS, _search, fixed=(QUADRATIC,), single_pose=bio2_pose_query, single_pose_extra=(NORMALS,),
           description="BioIK 2, quadratic memetics (faithful)"),
    Family("bio2_memetic_l", DEFAULTS, _search, fixed=(LINEAR,), single_pose=bio2_pose_query, single_pose_extra=(NORMALS,),
           description="BioIK 2, linear memetics"),
    Family("bio2_lm", LM_DEFAULTS, _search, fixed=(LM,), single_pose=bio2_pose_query, single_pose_extra=(NORMALS,),
           description="BioIK 2 evolution with LM memetics on exact Jacobians"),
)
