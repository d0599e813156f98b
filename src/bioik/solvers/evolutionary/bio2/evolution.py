"""BioIK 2's evolution on the extrapolated model (step 2 of a step, `evolve`).

`memetic_evolution_gens` generations: each of `child_count` children mutates the best
individual: gene += N(0,1)·2^(k−23)·span + momentum·(i mod 3), k a random integer in
[0, 16) drawn once per child [R 3.1, 3.7.2, 3.7.8] (with `per_gene_mutation`, [R Table
3.8]'s ablation, once per gene), i the child's index in the pool after the P
parents; the momentum is the best's, mixed with weight 0.2 (even i) or 0 (odd i) with the
second best's, and the child's momentum becomes mix(momentum, Δgene, 0.3); genes are
clamped to the limits. The normal deviates are read consecutively from one random offset
per generation (as the reference implementation does). Children are scored on the step's
extrapolated model (`bio2.model`); with secondary goals a random number (1..children) of
them survives a pre-selection by secondary cost [R 3.7.3]; the best `population_size` of
parents + survivors by primary cost live on.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bioik.goals.base import ORIENTATION, POSE, POSITION
from bioik.goals.kernels import KIND, OUT1, SECONDARY
from bioik.kinematics.frames import JIT, KERNEL, ZERO
from bioik.solvers.core.clock import now
from bioik.solvers.core.rng import next_u64, randint
from bioik.solvers.evolutionary.bio2.model import (SQUARE_QUATERNION, full_score, goal_model, model_cost,
                                                   square_quaternion_model)


class Species(NamedTuple):
    """One species of an island, best individual first."""

    #: Genes and momenta (P, n).
    genes: np.ndarray
    moms: np.ndarray
    #: Primary cost of each individual on the step's model (P,).
    fit: np.ndarray
    #: Predicted link offsets of each individual (P, 6·O; `offsets`).
    poff: np.ndarray


class ChildPool(NamedTuple):
    """Scratch of `evolve` for C children, gene-major (a column per child)."""

    #: Genes and momenta (n, C).
    cg: np.ndarray
    cm: np.ndarray
    #: (primary, secondary) costs (2, C).
    cf: np.ndarray
    #: Predicted link offsets (6·O, C).
    co: np.ndarray
    #: Mutation rate per gene and child (n, C; `draw_mutation_rates`).
    rate: np.ndarray
    #: Per child: weight of the second parent's momentum, momentum factor.
    wsel: np.ndarray
    momf: np.ndarray
    #: Ranking of parents + children (P + C,).
    idx: np.ndarray
    #: One child's offsets (1, 6·O) and genes (1, n), for `full_score`.
    crow: np.ndarray
    cq: np.ndarray


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
def draw_mutation_rates(rng, rate, per_gene):
    """rate (n, C) ← one `draw_rates` rate per child, used for all its genes [R 3.7.2], or
    with per_gene one per gene and child (the ablation of [R Table 3.8])."""
    draw_rates(rng, rate[0])
    for v in range(1, rate.shape[0]):
        if per_gene:
            draw_rates(rng, rate[v])
        else:
            for c in range(rate.shape[1]):
                rate[v, c] = rate[0, c]


@njit(inline="always", **JIT)
def reproduce(sp, pool, ex, bounds, N, row0):
    """Children (columns of pool.cg, pool.co) of the species' best individual, with the
    second's momentum mixed in: gene = best + N·rate·span + momentum·factor (rate: the
    gene's row of pool.rate), clamped to the
    limits (bounds[0:2]; span: the sampling box's width, bounds[3] − bounds[2]); offsets ←
    J0·Δ + Q0·Δ², Δ = gene − x0 (`offsets`). Child c reads the normal deviates
    N[row0 + v, c]. (A child's own momentum is computed only if it is selected:
    `winner_momenta`.)

    The pool is gene-major and every inner loop runs over the children, indexed by the
    loop variable alone, so that it compiles to SIMD code. Each loop writes one array:
    a loop writing several has to prove at run time that they do not overlap, which for
    16 children costs more than the SIMD code saves, so the compiler keeps the vector loop
    for ≥ 24 children and 16 ran scalar (a generation took 1.3–1.4× as long)."""
    genes, moms = sp.genes, sp.moms
    cg, co, rate, wsel, momf = pool.cg, pool.co, pool.rate, pool.wsel, pool.momf
    x0, J0, Q0 = ex.x0, ex.J0, ex.Q0
    lo, hi, slo, shi = bounds[0], bounds[1], bounds[2], bounds[3]
    n, C = cg.shape
    b = 1 if genes.shape[0] > 1 else 0
    for k in range(co.shape[0]):
        for c in range(C):
            co[k, c] = 0.0
    for v in range(n):
        ga, ma, mb = genes[0, v], moms[0, v], moms[b, v]
        s, lv, hv = shi[v] - slo[v], lo[v], hi[v]
        r = row0 + v
        for c in range(C):
            m = ma * (1.0 - wsel[c]) + mb * wsel[c]
            cg[v, c] = min(max(ga + N[r, c] * rate[v, c] * s + m * momf[c], lv), hv)
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
        if m[21] == SQUARE_QUATERNION:
            add_children_costs(square_quaternion_model(m), co, k, cf[row])
        else:
            add_children_costs(m, co, k, cf[row])


@njit(inline="always", **JIT)
def add_children_costs(m, co, k, out):
    """out[c] += the cost of `goal_model` m for child c's offsets co[k : k + 6, c]."""
    for c in range(out.shape[0]):
        out[c] += model_cost(m, co[k, c], co[k + 1, c], co[k + 2, c], co[k + 3, c], co[k + 4, c], co[k + 5, c])


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
def select(sp, pool, rng, has_secondary, mom_mix):
    """The best P of the parents (the species, sorted best first) and the children (the
    pool's columns) become the species, best first (`rank_candidates`), the children with
    their momenta (`winner_momenta`, into pool.cm)."""
    genes, moms, fit, poff = sp.genes, sp.moms, sp.fit, sp.poff
    cg, cm, cf, co, idx, wsel = pool.cg, pool.cm, pool.cf, pool.co, pool.idx, pool.wsel
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
def evolve(sp, pool, ex, prob, gs, normals, rng, gens, mom_mix, per_gene, has_secondary, pose_only, deadline, kinds):
    """`gens` generations of one species (`Species`, best first, updated in place) on the
    step's model `ex` (step 2 of the module doc); the pool's size sets child_count. Past
    the deadline (read every 4th generation) the species keeps the generations it has.
    per_gene: a mutation rate per gene, not per child (`draw_mutation_rates`).

    Children are scored by `score_pose_children` when every goal is pose-type (always with
    kinds POSE_ONLY), else one by one by `full_score` (scratch gs; `kinds`: see there). The
    normal deviates of a generation start at one random row of the table seen as rows of C,
    as the reference implementation reads them from one random offset.
    """
    cg, cf, co, crow, cq = pool.cg, pool.cf, pool.co, pool.crow, pool.cq
    P, n = sp.genes.shape
    C = cf.shape[1]
    if C == 0:  # child_count 0: nothing evolves, the memetic step works alone
        return
    rows = normals.shape[0] // C
    N = normals[: rows * C].reshape(rows, C)
    child_factors(P, pool.wsel, pool.momf)
    for gen in range(gens):
        if (gen & 3) == 3 and now() > deadline:
            break
        row0 = randint(rng, rows - n + 1)
        draw_mutation_rates(rng, pool.rate, per_gene)
        reproduce(sp, pool, ex, prob.bounds, N, row0)
        if kinds is None or pose_only:
            score_pose_children(prob.gi, ex.models, co, cf)
        else:
            for c in range(C):
                for k in range(co.shape[0]):
                    crow[0, k] = co[k, c]
                for v in range(n):
                    cq[0, v] = cg[v, c]
                full_score(prob, ex, crow, ZERO, cq, ZERO, gs, kinds)
                cf[0, c] = gs.out[0]
                cf[1, c] = gs.out[1]
        select(sp, pool, rng, has_secondary, mom_mix)


@njit(**JIT)
def pool_scratch(P, C, n, L):
    """The `ChildPool` of `evolve` for P parents, C children, n genes and L offsets."""
    return ChildPool(np.empty((n, C)), np.empty((n, C)), np.empty((2, C)), np.empty((L, C)), np.empty((n, C)), np.empty(C),
                     np.empty(C), np.empty(P + C, dtype=np.int64), np.empty((1, L)), np.empty((1, n)))
