"""`bio2_memetic_lbfgs`: BioIK 2 with L-BFGS-B memetics through scipy.

[R 3.7.9] lists L-BFGS-B among the memetic methods tried for BioIK 2 (from the
CppNumericalSolvers library, [R 3.5.3]); [E 3.1, Table 3.1] keeps it as a bio2 mode
("a numerical solver (L-BFGS, as in the original BioIK algorithm)"). Here it is scipy's
L-BFGS-B, which compiled code cannot call, so this search is a Python driver around two
small kernels built from `bioik.solvers.evolutionary.bio2`'s pieces:

  * `evolve_island` — steps 1 and 2 of `bio2.bio2_search` for every species of one island:
    exact FK at the species' best (the acceptance test runs there), re-scoring of the
    population on the Jacobian-extrapolated model, `memetic_evolution_gens` generations
    of evolution on that model (`evolve`);
  * step 3, in Python: L-BFGS-B (box constraints = joint limits, at most
    `memetic_opt_gens` iterations) on each species' `elite_count` best individuals,
    minimising the exact weighted primary cost ‖e‖² with its exact gradient 2·Jₑᵀe
    (`primary_cost`, one compiled call per evaluation). Unlike the line searches of
    `bio2_memetic`, which work on the extrapolated model, a numerical solver needs a
    consistent objective, so it runs on exact FK; its result is written back (gene and
    exact cost) and goes through the one acceptance test (`Problem.accept`);
  * `wipeout` — step 4 of `bio2.bio2_search`: every species but the best is reset to a
    random genome if it did not improve during the step, or with probability
    `wipeout_probability` [R 3.7.5].

The population (genes, momenta, fitness) lives in numpy arrays owned by the driver; the
RNG is the kernels' SplitMix64 state, seeded with the search's seed, and scipy's L-BFGS-B
is deterministic, so a run is reproducible from the seed and the iteration budget (one
iteration = one step of every island; unlike `bio2`'s, these islands are stepped in turn
in the calling thread). The best configuration ever seen
(species bests at step start and L-BFGS results, all on exact FK) is kept separately, so
a wipeout never loses it, and is returned when the deadline or the budget ends the search.
`bio2`'s ablation switches (`per_gene_mutation`, `wipeouts`, `random_init`,
`rotation_distance`: here the evolution's fitness only, L-BFGS-B runs on the exact cost)
act here as there.

L-BFGS-B's default stopping test (relative cost decrease below ≈2e-9 of max(|f|, 1))
stops far from IK precision (plausibly why it did poorly as a solver of its own in [R 3.5.3]), so it runs with
tolerances near zero and is bounded by its iteration count instead.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from bioik.goals.acceptance import goal_errors
from bioik.goals.kernels import ALL_KINDS
from bioik.problem.layout import unpack
from bioik.kinematics.frames import JIT, NO
from bioik.kinematics.extrapolate import curvature
from bioik.kinematics.jacobian import fk_jacobians
from bioik.solvers.evolutionary.bio2 import (
    DEFAULTS,
    NORMALS,
    SETTING,
    Species,
    evolve,
    goal_flags,
    goal_models,
    initial_genes,
    normal_table,
    offsets,
    score,
    step_scratch,
)
from bioik.solvers.core.clock import now
from bioik.solvers.core.linalg import stack_residuals
from bioik.solvers.core.rng import random_configuration, uniform
from bioik.solvers.scipy.objective import DeadlineReached, make_buffers, single_threaded_blas, timed
from bioik.solvers.core.family import Family


#: L-BFGS-B stopping tolerances: effectively off, so `memetic_opt_gens` bounds the run.
FTOL = 1e-20
GTOL = 1e-14


@njit(**JIT)
def evolve_island(ibuf, fbuf, genes, moms, fit, before, best, best_fit, settings, mode, rng, normals, deadline):
    """Steps 1–2 of `bio2.bio2_search` for the species of one island.

    genes, moms (S, P, n), fit (S, P): the island's population, updated in place; before
    (S,) ← each species' exact cost at the step's start; best (n,), best_fit (1,): the
    best configuration seen, updated. Returns the species whose best passed the
    acceptance test (best ← it), or −1.
    """
    prob = unpack(ibuf, fbuf)
    seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
    gi, gf, gw, gt, vdata, aux = prob.gi, prob.gf, prob.gw, prob.gt, prob.vdata, prob.aux
    S, P, n = genes.shape
    C = int(settings[SETTING.child_count])
    evo_gens = int(settings[SETTING.memetic_evolution_gens])
    mom_mix, per_gene = settings[SETTING.momentum_mix], settings[SETTING.per_gene_mutation] != 0.0
    rotation = settings[SETTING.rotation_distance]
    G = gi.shape[0]
    O = max(out_seg.shape[0], 1)
    has_secondary, pose_only, _ = goal_flags(gi)
    x0 = np.empty(n)
    ex, gs, poff, pool, seg, errors = step_scratch(x0, seg_i, O, G, P, C)
    frames0, J0, Q0 = ex.frames0, ex.J0, ex.Q0
    normals = normal_table(normals, n, C, rng)
    for s in range(S):
        # 1. exact FK at the species' best; the acceptance test runs on it
        x0[:] = genes[s, 0]
        fk_jacobians(seg_i, seg_f, out_seg, out_tf, x0, seg, frames0, J0)
        if goal_errors(gi, gf, gt, frames0, J0, x0, vdata, aux, gs.r, gs.Jr, gs.scratch, mode, errors):
            best[:] = x0
            return s
        goal_models(gi, gf, gw, frames0, ex.models, rotation)
        curvature(J0, Q0)
        sp = Species(genes[s], moms[s], fit[s], poff)
        for k in range(P):
            offsets(J0, Q0, x0, sp.genes, k, poff, k)
            score(prob, ex, poff, k, sp.genes, k, gs, pose_only, ALL_KINDS)
            fit[s, k] = gs.out[0]
        if fit[s, 0] < best_fit[0]:
            best_fit[0] = fit[s, 0]
            best[:] = x0
        before[s] = fit[s, 0]
        # 2. evolution on the extrapolated model
        evolve(sp, pool, ex, prob, gs, normals, rng, evo_gens, mom_mix, per_gene, has_secondary, pose_only, deadline,
               ALL_KINDS)
        if now() > deadline:  # many species: the rest wait for the next step
            break
    return -1


@njit(**JIT)
def wipeout(ibuf, fbuf, genes, moms, fit, before, p_wipe, rng):
    """Step 4 of `bio2.bio2_search` for one island: every species but the best that did not
    improve during the step, or at random, is reset to one random genome [R 3.7.5].
    Returns the number of species wiped out."""
    bounds = unpack(ibuf, fbuf).bounds
    slo, shi = bounds[2], bounds[3]
    S, P, n = genes.shape
    x = np.empty(n)
    sb = 0
    for s in range(1, S):
        if fit[s, 0] < fit[sb, 0]:
            sb = s
    count = 0
    for s in range(S):
        if s != sb and (not fit[s, 0] < before[s] or uniform(rng) < p_wipe):
            random_configuration(rng, slo, shi, x)
            for k in range(P):
                genes[s, k] = x
                moms[s, k] = 0.0
                fit[s, k] = np.inf
            count += 1
    return count


@njit(**JIT)
def primary_cost(ibuf, fbuf, x, seg, frames, J, r, Jr, scratch, e, Je, grad):
    """Exact weighted primary cost ‖e‖² at x (the fitness `bio2` extrapolates) → returned,
    and its gradient 2·Jₑᵀe → grad."""
    prob = unpack(ibuf, fbuf)
    seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
    gi, gf, gw, vdata, aux = prob.gi, prob.gf, prob.gw, prob.vdata, prob.aux
    fk_jacobians(seg_i, seg_f, out_seg, out_tf, x, seg, frames, J)
    rows, E = stack_residuals(gi, gf, gw, frames, J, x, vdata, aux, r, Jr, scratch, e, Je, NO)
    for v in range(x.shape[0]):
        acc = 0.0
        for k in range(rows):
            acc += Je[k, v] * e[k]
        grad[v] = 2.0 * acc
    return 2.0 * E


@njit(**JIT)
def random_genome(ibuf, fbuf, q, rng):
    """q ← a uniform random configuration (as `bio2_search` with a random start)."""
    bounds = unpack(ibuf, fbuf).bounds
    random_configuration(rng, bounds[2], bounds[3], q)


def _objective(problem, n):
    """f(x) → (exact primary cost, gradient) for scipy, with scratch bound once."""
    seg, frames, J, r, Jr, scratch, e, Je = make_buffers(problem)
    ibuf, fbuf = problem.ibuf, problem.fbuf

    def f(x):
        grad = np.empty(n)
        value = primary_cost(ibuf, fbuf, np.ascontiguousarray(x, dtype=np.float64), seg, frames, J, r, Jr, scratch, e, Je, grad)
        return value, grad

    return f


def bio2_lbfgs_search(problem, q, deadline, budget, seed, mode, settings, random_start=False):
    """Family.search protocol: BioIK 2 from q (or a random start) with L-BFGS-B memetics;
    q ← the best configuration. Returns (found, steps, wipeouts)."""
    with single_threaded_blas():
        return _search(problem, q, deadline, budget, seed, mode, settings, random_start)


def _search(problem, q, deadline, budget, seed, mode, settings, random_start):
    from scipy.optimize import Bounds, minimize  # on use: importing scipy.optimize takes ≈ 0.4 s
    P = int(settings[SETTING.population_size])
    elites = min(max(int(settings[SETTING.elite_count]), 0), P)
    I, S = int(settings[SETTING.threads]), int(settings[SETTING.species_count])
    opt_gens, p_wipe = int(settings[SETTING.memetic_opt_gens]), float(settings[SETTING.wipeout_probability])
    mode = int(mode)
    n = q.shape[0]
    ibuf, fbuf = problem.ibuf, problem.fbuf
    lo, hi = problem.bounds[0].copy(), problem.bounds[1].copy()
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(int(seed))
    if random_start:
        random_genome(ibuf, fbuf, q, rng)
    genes = initial_genes(q, I, S, P, 0, False, settings[SETTING.random_init] != 0.0, rng, problem.bounds[2], problem.bounds[3])
    moms = np.zeros((I, S, P, n))
    fit = np.full((I, S, P), np.inf)
    before = np.empty(S)
    best = q.copy()
    best_fit = np.full(1, np.inf)
    f = _objective(problem, n)
    bounds = Bounds(lo, hi)  # ±inf: an unbounded side
    options = {"maxiter": max(opt_gens, 1), "ftol": FTOL, "gtol": GTOL}
    steps = wipeouts = 0
    success = late = False
    while True:
        for i in range(I):
            if evolve_island(ibuf, fbuf, genes[i], moms[i], fit[i], before, best, best_fit, settings, mode, rng, NORMALS, deadline) >= 0:
                success = True
                break
            # 3. memetics: L-BFGS-B on the elites (the population is sorted, best first); with
            # scipy's per-call overhead a run costs many `bio2` steps, so the deadline is
            # checked before each
            if opt_gens > 0:
                for s in range(S):
                    for k in range(elites):
                        if time.monotonic() > deadline:
                            late = True
                            break
                        try:  # a run stops at the deadline with its best point (one run can take a millisecond)
                            res = minimize(timed(f, deadline), genes[i, s, k], jac=True, method="L-BFGS-B", bounds=bounds,
                                           options=options)
                            x, value = np.clip(res.x, lo, hi), float(res.fun)  # exact, ≤ the exact cost at the start
                        except DeadlineReached as stop:
                            x, value, late = np.clip(stop.args[0], lo, hi), float(stop.args[1]), True
                        genes[i, s, k] = x
                        fit[i, s, k] = value
                        if value < best_fit[0]:
                            best_fit[0] = value
                            best[:] = x
                        if problem.accept(x, mode)[0]:
                            best[:] = x
                            success = True
                            break
                        if late:
                            break
                    if success or late:
                        break
                if success or late:
                    break
            # 4. wipeouts [R 3.7.5]
            if settings[SETTING.wipeouts]:
                wipeouts += int(wipeout(ibuf, fbuf, genes[i], moms[i], fit[i], before, p_wipe, rng))
        steps += 1
        if success or late or steps >= budget or time.monotonic() > deadline:
            break
    q[:] = best
    return success, steps, wipeouts


FAMILIES = (Family("bio2_memetic_lbfgs", DEFAULTS, bio2_lbfgs_search, description="BioIK 2, L-BFGS-B memetics (scipy)"),)
