"""`bio1`: the Hybrid Genetic Swarm Algorithm (HGSA) of the original BioIK [S 4.3, Fig. 4.2].

Written from the formulas of [S] (not from any implementation), to have the original
algorithm — not BioIK 2's memetic evolution (`bio2`) and none of PickIK's deviations
[E 3.1.5] — as a baseline. Individuals are genotypes x (one gene per joint variable,
[S 4.1]) with an evolutionary gradient g; every fitness evaluation is exact FK (no
Jacobian extrapolation: that is BioIK 2's). Parameters [S 5.3]: population size ψ
(`population`, 12) and elites κ (`elites`, 4); [S] names no others.

Fitness [S 4.3, 4.16]: per primary pose-type goal d_t (2.13) for position,
d_r = 2·acos|q₁·q₂| (2.14) for orientation and, for a pose,
Ω = w·d̂_t + (1 − w)·d_r with w ~ U[0, 1] drawn anew at *every* evaluation and the
rebalanced translational distance d̂_t = π·d_t / √(l·Δ) (2.15), l the fixed length of the
goal link's chain (sum of the constant offsets between its joint frames, and to the
link) and Δ the current distance from the chain's first joint to the link. The balanced
fitness Ω̄ (4.16) is the same with w = ½. Goals are summed with their weights; other
goal kinds (beyond [S]) add weight·‖residual‖, a distance like d_t; secondary goals
are not optimised ([S] has none), so they are refused.

One generation ("iteration", [S Fig. 4.2]):
  1. exploitation of the κ elites gene by gene (4.18): π_i = Ω(x), r⁺ ~ U[0, π_i],
     r⁻ ~ U[−π_i, 0] (within the joint limits), keep the better of x_i + r^± if it beats
     π_i, adding the step to g_i; the elite's fitness becomes the mean of the π_i (4.19);
  2. the whole population becomes the mating pool Γ (ordered by fitness); each of the
     λ = ψ − κ offspring: two parents by rank (4.4), recombination (4.5) with the parents'
     gradients, mutation (4.6) with rate M_α/n and strength M_β from the parents' mean
     extinction factor (4.8–4.10), adoption towards the parents' mean and the fittest
     (4.11), clipping (4.12), gradient = final − recombined genes (4.13), fitness, and
     niching: parents worse than the child leave Γ (4.14); when Γ is empty the offspring
     is random;
  3. survivors: the κ elites and the offspring (4.15), sorted by fitness; extinction
     factors (4.7); the solution Φ is replaced by the fittest x* if Ω̄(x*) < Ω̄(Φ)
     (4.17), and the acceptance test runs on Φ whenever it changes ([S]'s
     termination (4.21) with this package's test, as every solver);
  4. wipe (4.22): if no elite beat Ω̄(Φ) in this generation and no exploitation step
     (4.18, scored by Ω̄) of any gene of x* improves Ω̄(x*), the population is initialised
     anew (4.20) — Ψ₁ = θ, the configuration the model holds, the others uniform at
     random, gradients zero. Φ is kept and still returned.
Initialisation (4.20): Ψ₁ = θ, the others uniform in the sampling bounds. θ is the seed
for the whole solve: [S 4.3.8] assigns Φ to the model (θ) only at the end of a frame or on
termination, and a solve is one request. (Re-seeding a wipe with Φ instead keeps every new
population in Φ's basin: Φ is fitter than the random newcomers, so rank selection and
adoption pull them back before they develop, and the wipe fires again some 20 generations
later; docs/solvers.md gives the measured difference and its price on short budgets.)

Interpretations ([S] is ambiguous or silent; see the report in tests/solvers/evolutionary/test_bio1.py):
  * 4.22's first test "Ω̄(Φ) < Ω̄(x*)" is read as "no progress this generation", i.e.
    compared with Φ before its update (4.17) and as ≤ — literally, a stuck elite equal
    to Φ would block every wipe; and, not to reproduce PickIK's deviation [E 3.1.5],
    progress of any elite counts, not only of x*.
  * The parents' pool is ordered by current fitness (the elites' changed in step 1).
  * Niching removes a parent only if strictly worse than the child ("worse fitness
    than its offspring"), which settles the ties (4.14) leaves open.
  * r_P₁, r_P₂ (4.5) and r_P, r_* (4.11) are drawn once per offspring, w_i per gene;
    Δ in (2.15) is floored at l/100 so d̂_t stays finite when the link folds back onto
    the chain's first joint; unbounded joints use the sampling range as Δn_i (4.10).
  * ψ ≥ 2 and 0 ≤ κ ≤ ψ − 1 (at least one offspring per generation).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bioik.goals.acceptance import goal_errors
from bioik.goals.base import ORIENTATION, POSE, POSITION, PYTHON
from bioik.goals.kernels import KIND, OUT1, SECONDARY, goal_residual
from bioik.problem.layout import BUDGET, DEADLINE, ITERATIONS, MODE, RESTARTS, unpack
from bioik.kinematics.fk import fk_frames
from bioik.kinematics.frames import JIT, NO, qmul
from bioik.kinematics.jacobian import fk_jacobians
from bioik.solvers.core.batch import batch_queries
from bioik.solvers.core.clock import now
from bioik.solvers.core.pose_query import search_query
from bioik.solvers.core.rng import random_configuration, uniform
from bioik.solvers.core.workspace import kinematic_buffers, search_start
from bioik.solvers.core.settings import slots
from bioik.solvers.core.family import Family, compiled

#: Parameters [S 5.3]: population size ψ and number of elites κ; then switches (1 on, 0
#: off) for the components whose removal [S 5.4.3–5.4.6] measures: weight randomisation
#: (off: w = ½ in every evaluation), adoption (4.11), exploitation of the elites (4.18;
#: off: their fitness is re-evaluated instead) and the wipe criterion (4.22).
DEFAULTS = {"population": 12, "elites": 4, "random_weights": 1, "adoption": 1, "exploitation": 1, "wipes": 1}
SETTING = slots(DEFAULTS)

#: Floor of Δ in (2.15), as a fraction of the chain length l.
DELTA_FLOOR = 0.01


# ---------------------------------------------------------------- fitness [S 4.3, 4.16]


@njit(**JIT)
def chain_geometry(seg_i, seg_f, out_seg, out_tf, gi):
    """(G, 4): for each pose-type goal the chain's first joint position (base of Δ in
    2.15) and the fixed chain length l; (0, 0, 0, 1) for other goals."""
    G = gi.shape[0]
    geo = np.zeros((G, 4))
    for g in range(G):
        geo[g, 3] = 1.0
        kind = gi[g, KIND]
        if not (kind == POSE or kind == POSITION or kind == ORIENTATION):
            continue
        o = gi[g, OUT1]
        length = np.sqrt(out_tf[o, 0] ** 2 + out_tf[o, 1] ** 2 + out_tf[o, 2] ** 2)
        s = out_seg[o]
        while s >= 0:
            parent = seg_i[s, 0]
            if parent >= 0:
                length += np.sqrt(seg_f[s, 0] ** 2 + seg_f[s, 1] ** 2 + seg_f[s, 2] ** 2)
            else:
                geo[g, 0], geo[g, 1], geo[g, 2] = seg_f[s, 0], seg_f[s, 1], seg_f[s, 2]
            s = parent
        if length > 1e-9:
            geo[g, 3] = length
    return geo


@njit(inline="always", **JIT)
def rebalanced(d_t, length, delta):
    """d̂_t = π·d_t / √(l·Δ) [S eq. 2.15] (Δ floored at DELTA_FLOOR·l)."""
    return np.pi * d_t / np.sqrt(length * max(delta, DELTA_FLOOR * length))


@njit(inline="always", **JIT)
def pose_distances(gf, g, frames, o):
    """(d_t, d_r) of link o to goal g: Euclidean distance (2.13) and rotation angle
    2·acos|q_E·q_G| (2.14), computed as 2·atan2(‖v‖, |w|) of q_G⁻¹·q_E (same value,
    accurate near zero)."""
    dx, dy, dz = frames[o, 0] - gf[g, 0], frames[o, 1] - gf[g, 1], frames[o, 2] - gf[g, 2]
    d_t = np.sqrt(dx * dx + dy * dy + dz * dz)
    w, x, y, z = qmul(gf[g, 3], -gf[g, 4], -gf[g, 5], -gf[g, 6], frames[o, 3], frames[o, 4], frames[o, 5], frames[o, 6])
    d_r = 2.0 * np.arctan2(np.sqrt(x * x + y * y + z * z), abs(w))
    return d_t, d_r


@njit(**JIT)
def context(ibuf, fbuf):
    """Everything `fitness` reads, as one tuple: (seg_i, seg_f, out_seg, out_tf, gi, gf,
    gw, vdata, aux, geo, seg, frames, J, r, Jr, scratch)."""
    prob = unpack(ibuf, fbuf)
    seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
    gi, gf, gw, vdata, aux, bounds = prob.gi, prob.gf, prob.gw, prob.vdata, prob.aux, prob.bounds
    seg, frames, J, r, Jr, scratch, errors = kinematic_buffers(seg_i, out_seg, gi, bounds.shape[1])
    geo = chain_geometry(seg_i, seg_f, out_seg, out_tf, gi)
    return (seg_i, seg_f, out_seg, out_tf, gi, gf, gw, vdata, aux, geo, seg, frames, J, r, Jr, scratch)


@njit(inline="always", **JIT)
def fitness(ctx, x, rng, balanced):
    """Ω(f(x)) (4.3) with a fresh w ~ U[0, 1] (one draw per evaluation), or the balanced
    Ω̄ (4.16, w = ½) if `balanced`; exact FK."""
    seg_i, seg_f, out_seg, out_tf, gi, gf, gw, vdata, aux, geo, seg, frames, J, r, Jr, scratch = ctx
    fk_frames(seg_i, seg_f, out_seg, out_tf, x, seg, frames)
    w = 0.5 if balanced else uniform(rng)
    total = 0.0
    for g in range(gi.shape[0]):
        kind = gi[g, KIND]
        if gi[g, SECONDARY] or kind == PYTHON:
            continue
        if kind == POSE or kind == POSITION or kind == ORIENTATION:
            o = gi[g, OUT1]
            d_t, d_r = pose_distances(gf, g, frames, o)
            if kind == POSITION:
                total += gw[g] * d_t
            elif kind == ORIENTATION:
                total += gw[g] * d_r
            else:
                bx, by, bz = frames[o, 0] - geo[g, 0], frames[o, 1] - geo[g, 1], frames[o, 2] - geo[g, 2]
                delta = np.sqrt(bx * bx + by * by + bz * bz)
                total += gw[g] * (w * rebalanced(d_t, geo[g, 3], delta) + (1.0 - w) * d_r)
        else:
            size = goal_residual(gi, gf, g, frames, J, x, vdata, aux, r, Jr, NO, scratch)
            s = 0.0
            for k in range(size):
                s += r[k] * r[k]
            total += gw[g] * np.sqrt(s)
    return total


# ---------------------------------------------------------------- operators


@njit(**JIT)
def extinction_factors(fit, xi):
    """ξ_i = (π_i + π_min·((i−1)/(ψ−1) − 1)) / π_max (4.7) for a population sorted by
    fitness (best first); 0 for all if π_max = 0."""
    P = fit.shape[0]
    lo, hi = fit[0], fit[P - 1]
    for i in range(P):
        xi[i] = (fit[i] + lo * (i / (P - 1) - 1.0)) / hi if hi > 0.0 else 0.0


@njit(inline="always", **JIT)
def rank_select(gamma, u):
    """Rank selection (4.4) in a pool of size γ ordered best first: the first position i
    whose accumulated probability Σ_{j≤i} (γ − j + 1)/Σ_k k reaches u ∈ [0, 1)."""
    total = 0.5 * gamma * (gamma + 1)
    acc = 0.0
    for i in range(gamma):
        acc += (gamma - i) / total
        if acc >= u:
            return i
    return gamma - 1


@njit(**JIT)
def recombine(x1, x2, g1, g2, rng, out):
    """x_i = w_i·x_i^P1 + (1 − w_i)·x_i^P2 + r_P1·g_i^P1 + r_P2·g_i^P2 (4.5); w_i per gene,
    r_P1 and r_P2 once per offspring, all U[0, 1]."""
    r1 = uniform(rng)
    r2 = uniform(rng)
    for i in range(out.shape[0]):
        w = uniform(rng)
        out[i] = w * x1[i] + (1.0 - w) * x2[i] + r1 * g1[i] + r2 * g2[i]


@njit(inline="always", **JIT)
def mutation_rate(xi1, xi2, n):
    """M_r = M_α/n with M_α = ξ^P∅·(n − 1) + 1 (4.6, 4.9), ξ^P∅ the parents' mean (4.8)."""
    return (0.5 * (xi1 + xi2) * (n - 1) + 1.0) / n


@njit(**JIT)
def mutate(x, xi1, xi2, span, rng):
    """Each gene with probability M_r (4.6, 4.9): x_i += w_i·M_β, w_i ~ U[−1, 1],
    M_β = ξ^P∅·Δn_i (4.10), ξ^P∅ = (ξ^P1 + ξ^P2)/2 (4.8). Not clipped here."""
    n = x.shape[0]
    avg = 0.5 * (xi1 + xi2)
    rate = mutation_rate(xi1, xi2, n)
    for i in range(n):
        if uniform(rng) < rate:
            x[i] += (2.0 * uniform(rng) - 1.0) * avg * span[i]


@njit(**JIT)
def adopt(x, x1, x2, best, rng):
    """x_i += w_i·r_P·((x_i^P1 + x_i^P2)/2 − x_i) + (1 − w_i)·r_*·(x_i^* − x_i) (4.11);
    r_P, r_* once per offspring, w_i per gene, all U[0, 1]."""
    rp = uniform(rng)
    rs = uniform(rng)
    for i in range(x.shape[0]):
        w = uniform(rng)
        x[i] += w * rp * (0.5 * (x1[i] + x2[i]) - x[i]) + (1.0 - w) * rs * (best[i] - x[i])


@njit(inline="always", **JIT)
def clip(x, lo, hi):
    """Ξ (4.12): each gene into [n_min, n_max]."""
    for i in range(x.shape[0]):
        x[i] = min(max(x[i], lo[i]), hi[i])


class Population(NamedTuple):
    """The individuals (P, n), their evolutionary gradients (P, n), fitness and extinction
    factors (P,), best first after each generation."""

    X: np.ndarray
    Gr: np.ndarray
    fit: np.ndarray
    xi: np.ndarray


class Offspring(NamedTuple):
    """A generation's children (λ ≤ P of them): genes, gradients, fitness; the mating
    pool (indices into the population) and one individual's scratch (n,)."""

    CX: np.ndarray
    CG: np.ndarray
    cfit: np.ndarray
    pool: np.ndarray
    rec: np.ndarray


@njit(**JIT)
def offspring(pop, p1, p2, best, bounds, span, rng, x, g, rec, adoption=True):
    """A child x of parents p1, p2 with fittest `best`: recombination (4.5), mutation
    (4.6–4.10; span: the sampling box's width), adoption (4.11), clipping to the limits
    bounds[0:2] (4.12); its evolutionary gradient g = Ξ(A(M(R(x)))) − R(x) (4.13).
    rec: scratch (holds R(x)). Without `adoption`, A is the identity."""
    X, Gr, xi = pop.X, pop.Gr, pop.xi
    recombine(X[p1], X[p2], Gr[p1], Gr[p2], rng, x)
    rec[:] = x
    mutate(x, xi[p1], xi[p2], span, rng)
    if adoption:
        adopt(x, X[p1], X[p2], X[best], rng)
    clip(x, bounds[0], bounds[1])
    for i in range(x.shape[0]):
        g[i] = x[i] - rec[i]


@njit(**JIT)
def niche(pool, gamma, a, b, f_child, f1, f2):
    """N (4.14): remove from the mating pool (positions a, b of the parents) each parent
    whose fitness is worse than the child's; returns the new pool size γ."""
    drop_a = f1 > f_child
    drop_b = f2 > f_child and b != a
    if a < b:  # remove the later position first, so the earlier stays valid
        a, b = b, a
        drop_a, drop_b = drop_b, drop_a
    if drop_a:
        for k in range(a, gamma - 1):
            pool[k] = pool[k + 1]
        gamma -= 1
    if drop_b:
        for k in range(b, gamma - 1):
            pool[k] = pool[k + 1]
        gamma -= 1
    return gamma


#: Above this population size the population is sorted by a stable merge sort (the same
#: order as the insertion sort, which is O(P²): 6 s a generation for P = 10000).
INSERTION_SORT_MAX = 64


@njit(**JIT)
def sort_population(X, Gr, fit, tmp):
    """Stable sort of the population (rows of X, Gr with fit) by fitness, best first."""
    P = fit.shape[0]
    if P > INSERTION_SORT_MAX:
        order = np.argsort(fit, kind="mergesort")
        X[:] = X[order]
        Gr[:] = Gr[order]
        fit[:] = fit[order]
        return
    for i in range(1, P):
        j = i
        while j > 0 and fit[j] < fit[j - 1]:
            for M in (X, Gr):
                tmp[:] = M[j]
                M[j] = M[j - 1]
                M[j - 1] = tmp
            fit[j], fit[j - 1] = fit[j - 1], fit[j]
            j -= 1


@njit(**JIT)
def exploit(ctx, x, g, lo, hi, rng, equal=False):
    """E (4.18) gene by gene on x, g (in place): π_i = Ω(x); r⁺ ~ U[0, π_i] and
    r⁻ ~ U[−π_i, 0] within the limits; move to the better of x_i + r^± if it beats π_i
    (adding the step to g_i). Returns (mean of the π_i (4.19), any step taken).
    `equal`: w = ½ instead of random weights."""
    n = x.shape[0]
    total = 0.0
    moved = False
    for i in range(n):
        pi = fitness(ctx, x, rng, equal)
        v = x[i]
        rp = uniform(rng) * max(min(pi, hi[i] - v), 0.0)
        rm = -uniform(rng) * max(min(pi, v - lo[i]), 0.0)
        x[i] = v + rp
        fp = fitness(ctx, x, rng, equal)
        x[i] = v + rm
        fm = fitness(ctx, x, rng, equal)
        x[i] = v
        if fp < pi and fp <= fm:
            x[i] = v + rp
            g[i] += rp
            pi = fp
            moved = True
        elif fm < pi and fm <= fp:
            x[i] = v + rm
            g[i] += rm
            pi = fm
            moved = True
        total += pi
    return total / n, moved


@njit(**JIT)
def exploitable(ctx, x, f_bar, lo, hi, rng):
    """∃ i: Ω̄(f(E_i(x))) < Ω̄(f(x)) — the second test of the wipe criterion (4.22): an
    exploitation step (4.18, offsets within Ω̄(x), scored by Ω̄) of some gene of x improves
    it. x is left unchanged."""
    for i in range(x.shape[0]):
        v = x[i]
        rp = uniform(rng) * max(min(f_bar, hi[i] - v), 0.0)
        rm = -uniform(rng) * max(min(f_bar, v - lo[i]), 0.0)
        x[i] = v + rp
        fp = fitness(ctx, x, rng, True)
        x[i] = v + rm
        fm = fitness(ctx, x, rng, True)
        x[i] = v
        if fp < f_bar or fm < f_bar:
            return True
    return False


@njit(**JIT)
def initialize(X, Gr, theta, slo, shi, rng):
    """(4.20): Ψ₁ = θ, Ψ₂…ψ uniform in the bounds; gradients zero."""
    X[0] = theta
    for k in range(1, X.shape[0]):
        random_configuration(rng, slo, shi, X[k])
    Gr[:, :] = 0.0


@njit(**JIT)
def evaluate_population(ctx, X, fit, rng, equal=False):
    for k in range(X.shape[0]):
        fit[k] = fitness(ctx, X[k], rng, equal)


@njit(**JIT)
def accepted(ctx, x, gt, mode, errors):
    """The acceptance test of every solver, on exact FK and Jacobians at x."""
    seg_i, seg_f, out_seg, out_tf, gi, gf, gw, vdata, aux, geo, seg, frames, J, r, Jr, scratch = ctx
    fk_jacobians(seg_i, seg_f, out_seg, out_tf, x, seg, frames, J)
    return goal_errors(gi, gf, gt, frames, J, x, vdata, aux, r, Jr, scratch, mode, errors)


# ---------------------------------------------------------------- the search [S Fig. 4.2]


@njit(**JIT)
def generation(ctx, pop, kids, kappa, bounds, span, rng, deadline, switches=(True, True, True)):
    """Steps 1–3 of the module doc up to sorting and extinction factors (Fig. 4.2 lines
    7–23) on the population `pop` (κ elites), children in `kids`; bounds: limits, then
    the sampling box (`ProblemViews.bounds`), span its width. Returns whether any elite's
    exploitation moved a gene. Past the deadline (read every 8th elite and every 16th
    child: a generation of hundreds takes milliseconds) the remaining elites are not
    exploited and no more children are made; the members they would have replaced stay.
    switches: (random weights, adoption, exploitation), as the parameters of DEFAULTS."""
    random_weights, adoption, exploitation = switches
    equal = not random_weights
    X, Gr, fit, xi = pop.X, pop.Gr, pop.fit, pop.xi
    CX, CG, cfit, pool, rec = kids.CX, kids.CG, kids.cfit, kids.pool, kids.rec
    lo, hi, slo, shi = bounds[0], bounds[1], bounds[2], bounds[3]
    P, n = X.shape
    lam = P - kappa
    moved = False
    for k in range(kappa):  # exploitation (4.18, 4.19)
        if (k & 7) == 7 and now() > deadline:
            break
        if exploitation:
            f, m = exploit(ctx, X[k], Gr[k], lo, hi, rng, equal)
            fit[k] = f
            moved = moved or m
        else:
            fit[k] = fitness(ctx, X[k], rng, equal)
    best = 0
    for k in range(1, P):
        if fit[k] < fit[best]:
            best = k
    # mating pool: the population, ordered by current fitness
    gamma = P
    if P > INSERTION_SORT_MAX:  # the same stable order
        pool[:] = np.argsort(fit, kind="mergesort")
    else:
        for k in range(P):
            j = k
            while j > 0 and fit[pool[j - 1]] > fit[k]:
                pool[j] = pool[j - 1]
                j -= 1
            pool[j] = k
    for c in range(lam):
        if (c & 15) == 15 and now() > deadline:
            lam = c
            break
        if gamma > 0:
            a = rank_select(gamma, uniform(rng))  # (4.4)
            b = rank_select(gamma, uniform(rng))
            p1, p2 = pool[a], pool[b]
            offspring(pop, p1, p2, best, bounds, span, rng, CX[c], CG[c], rec, adoption)
            cfit[c] = fitness(ctx, CX[c], rng, equal)
            gamma = niche(pool, gamma, a, b, cfit[c], fit[p1], fit[p2])  # (4.14)
        else:
            random_configuration(rng, slo, shi, CX[c])
            CG[c] = 0.0
            cfit[c] = fitness(ctx, CX[c], rng, equal)
    for c in range(lam):  # survivors: elites Ψ₁…κ and offspring (4.15)
        X[kappa + c] = CX[c]
        Gr[kappa + c] = CG[c]
        fit[kappa + c] = cfit[c]
    sort_population(X, Gr, fit, rec)
    extinction_factors(fit, xi)  # (4.7)
    return moved


@njit(**JIT)
def bio1_search(ibuf, fbuf, q, settings, run, stats):
    """HGSA search from q (overwritten with the solution Φ); True on success.

    settings: population ψ, elites κ, the switches of DEFAULTS. run: deadline, generation budget, RNG seed,
    acceptance mode, random start. stats: generations, wipes.
    """
    prob = unpack(ibuf, fbuf)
    gi, gt, bounds = prob.gi, prob.gt, prob.bounds
    lo, hi, slo, shi = bounds[0], bounds[1], bounds[2], bounds[3]
    deadline, max_gens, mode = run[DEADLINE], run[BUDGET], int(run[MODE])
    n = q.shape[0]
    P = max(int(settings[SETTING.population]), 2)
    kappa = min(max(int(settings[SETTING.elites]), 0), P - 1)
    equal = settings[SETTING.random_weights] == 0.0
    switches = (not equal, settings[SETTING.adoption] != 0.0, settings[SETTING.exploitation] != 0.0)
    wipe_on = settings[SETTING.wipes] != 0.0
    rng = search_start(run, slo, shi, q)
    ctx = context(ibuf, fbuf)
    errors = np.empty((gi.shape[0], 2))
    span = shi - slo
    X = np.empty((P, n))
    Gr = np.zeros((P, n))
    fit = np.empty(P)
    xi = np.empty(P)
    CX = np.empty((P, n))
    CG = np.empty((P, n))
    cfit = np.empty(P)
    pool = np.empty(P, dtype=np.int64)
    rec = np.empty(n)
    pop = Population(X, Gr, fit, xi)
    kids = Offspring(CX, CG, cfit, pool, rec)
    # Fig. 4.2 lines 2–5, with the solution Φ = θ
    initialize(X, Gr, q, slo, shi, rng)
    evaluate_population(ctx, X, fit, rng, equal)
    sort_population(X, Gr, fit, rec)
    extinction_factors(fit, xi)
    phi = q.copy()
    phi_bar = fitness(ctx, phi, rng, True)
    success = accepted(ctx, phi, gt, mode, errors)
    gens = 0
    wipes = 0
    while not success and gens < max_gens and not (gens > 0 and now() > deadline):
        generation(ctx, pop, kids, kappa, bounds, span, rng, deadline, switches)
        gens += 1
        # solution update (4.17) and termination (4.21)
        best_bar = fitness(ctx, X[0], rng, True)
        progress = best_bar < phi_bar
        if progress:
            phi[:] = X[0]
            phi_bar = best_bar
            if accepted(ctx, phi, gt, mode, errors):
                success = True
                break
        else:  # did any other elite progress? [E 3.1.5: all elites, not only x*]
            for k in range(1, kappa):
                if fitness(ctx, X[k], rng, True) < phi_bar:
                    progress = True
                    break
        # wipe (4.22)
        if wipe_on and not progress and not exploitable(ctx, X[0], best_bar, lo, hi, rng):
            initialize(X, Gr, q, slo, shi, rng)
            evaluate_population(ctx, X, fit, rng, equal)
            sort_population(X, Gr, fit, rec)
            extinction_factors(fit, xi)
            wipes += 1
    q[:] = phi
    stats[ITERATIONS] = gens
    stats[RESTARTS] = wipes
    return success


@njit(**JIT)
def bio1_pose_query(ibuf, fbuf, row, q, io):
    """`bio1_search` as a whole query for one pose-type goal (`bioik.solvers.core.pose_query`)."""
    return search_query(ibuf, fbuf, row, q, io, bio1_search, ())


@njit(**JIT)
def bio1_pose_batch(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base):
    """`bio1_pose_query` over a chunk of a batch (`bioik.solvers.core.batch`)."""
    return batch_queries(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base, bio1_pose_query, ())


FAMILIES = (
    Family("bio1", DEFAULTS, compiled(bio1_search), single_pose=bio1_pose_query,
           single_pose_batch=bio1_pose_batch, secondary_goals=False,
           description="BioIK 1: Hybrid Genetic Swarm Algorithm, exact FK [S 4.3]"),
)
