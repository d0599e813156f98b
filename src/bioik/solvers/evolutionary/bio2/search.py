"""BioIK 2's search: settings, the islands' step loop and the registry entries.

One *step* of an island, for each of its species:
  1. exact FK and Jacobians at the species' best individual (the acceptance test runs
     here, on exact FK); the population's fitness is re-evaluated on the new model
     (`bio2.model`);
  2. evolution on the extrapolated model (`bio2.evolution`);
  3. memetics on the best individuals (`bio2.memetics`); `bio2_lm` runs its LM attempt
     right after step 1 instead. With LM memetics only the first species starts at the
     seed, the others at random (they would repeat the same attempt).
Then every species but the best is wiped out (all individuals set to one random genome,
momentum zero) if it did not improve during the step — for `bio2_lm`: did not fall below
`lm_stall_ratio` × its cost at the step's start, since LM always improves a little — or
with probability 0.1 [R 3.7.5].
The best solution ever seen is kept separately, so a wipeout never loses it.

Ablation switches, to measure what each component is worth ([R Tables 3.8–3.14]; 1 on,
0 off; the defaults are the full algorithm):
  * `per_gene_mutation` (0) — 1 draws the mutation size per gene instead of once per
    child (`bio2.evolution`) [R 3.7.2, Table 3.8];
  * `wipeouts` (1) — 0 never wipes a species out (step 4 above) [R 3.7.5, Table 3.10];
  * `random_init` (0) — 1 starts every individual at its own random configuration
    instead of at the seed [R 3.7.6, Table 3.11];
  * `rotation_distance` (0) — the rotation term of the fitness on the model (evolution
    and line searches; the acceptance test is unchanged): 0 square quaternion distance,
    1 norm and dot product, 2 square angle (`bio2.model.rotation_distance`) [R 3.8,
    Table 3.14];
  * no particle swarm [R 3.7.8, Table 3.12] needs no switch: `momentum_mix` 0 keeps
    every momentum at zero, so children are the mutation alone.

Islands [R 3.7.4]: with `threads` > 1 each island runs on a thread of its own, the GIL
released (`bio2_threads_search`, `bioik.solvers.core.islands`); they share nothing but a
stop flag, which the first island to pass the acceptance test raises to end the others
(and the best answer is taken when all have returned). As in [R], islands exchange no
individuals. The whole-query kernels (`bio2_pose_query`, so a batch's compiled chunks)
step the islands in turn in the calling thread instead; either way each island makes
at most the step budget's steps.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import numpy as np
from numba import njit

from bioik.goals.acceptance import goal_errors_with
from bioik.goals.base import ORIENTATION, POSE, POSITION, PYTHON
from bioik.goals.kernels import ALL_KINDS, KIND, MAX_LINK_ROWS, POSE_ONLY, SECONDARY, SIZE
from bioik.kinematics.extrapolate import curvature
from bioik.kinematics.frames import JIT, KERNEL, ZERO
from bioik.kinematics.jacobian import fk_jacobians
from bioik.problem import Problem
from bioik.problem.layout import BUDGET, DEADLINE, ITERATIONS, MODE, RANDOM_START, RESTARTS, SEED, STATS_SLOTS, unpack
from bioik.solvers.core.batch import batch_queries
from bioik.solvers.core.clock import now, stoppable
from bioik.solvers.core.components import goal_components
from bioik.solvers.core.family import Family, compiled
from bioik.solvers.core.islands import flag_raised, raise_flag, run_islands
from bioik.solvers.core.linalg import null_space_scratch
from bioik.solvers.core.pose_query import search_query, workspace, workspace_size
from bioik.solvers.core.rng import random_configuration, uniform
from bioik.solvers.core.settings import slots
from bioik.solvers.evolutionary.bio2.evolution import ChildPool, Species, evolve, pool_scratch
from bioik.solvers.evolutionary.bio2.memetics import (
    LINEAR,
    LM,
    NONE,
    QUADRATIC,
    LineScratch,
    line_search,
    line_search_single,
    lm_memetic,
)
from bioik.solvers.evolutionary.bio2.model import MODEL, Expansion, GoalScratch, goal_models, offsets, score
from bioik.solvers.local.lm_pose import pose_attempt

#: Parameters [E Table 7.1], plus the memetic details. `threads` is the number of islands,
#: each on a thread of its own (BioIK 2's default was 4; 1 here, the deterministic search
#: and no thread start per solve).
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
    # the ablation switches of the module doc
    "per_gene_mutation": 0,
    "wipeouts": 1,
    "random_init": 0,
    "rotation_distance": 0,
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
def step_scratch(x0, seg_i, O, G, P, C):
    """The buffers of steps 1–2 for one species at a time, around x0 (n,): its `Expansion`,
    the goals' `GoalScratch`, its individuals' offsets (P, 6·O), the `ChildPool` of C
    children, FK scratch and the acceptance test's errors (G, 2)."""
    n = x0.shape[0]
    L = 6 * O
    rows = max(MAX_LINK_ROWS, n)
    ex = Expansion(x0, np.empty((O, 7)), np.empty((L, n)), np.empty((L, n)), np.zeros((G, MODEL)))
    gs = GoalScratch(np.empty((O, 7)), np.empty(rows), np.empty((rows, n)), np.empty((4 * MAX_LINK_ROWS, 3)), np.empty(2))
    return ex, gs, np.empty((P, L)), pool_scratch(P, C, n, L), np.empty((max(seg_i.shape[0], 1), 7)), np.empty((G, 2))


class Population(NamedTuple):
    """The islands' species (I islands × S species × P individuals × n genes), the best
    configuration seen, and each species' cost at the start of the step."""

    genes: np.ndarray
    moms: np.ndarray
    fit: np.ndarray
    best: np.ndarray
    before: np.ndarray


class Work(NamedTuple):
    """Everything a `bio2_steps` run reads and writes besides the problem and settings."""

    population: Population
    #: The step's model around the current species' best (rebuilt per species).
    ex: Expansion
    #: Predicted offsets of the current species' individuals (P, 6·O).
    poff: np.ndarray
    pool: ChildPool
    gs: GoalScratch
    ls: LineScratch
    #: The individual a line search moves (n,).
    x: np.ndarray
    #: FK scratch (segment frames) and the acceptance test's goal errors (G, 2).
    seg: np.ndarray
    errors: np.ndarray
    #: `lm_memetic`'s scratch and `pose_attempt`'s workspace.
    lm: tuple
    pose: tuple


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
    All `threads` islands are stepped in turn in this thread (`island_search`).
    """
    islands = int(settings[SETTING.threads])
    return island_search(ibuf, fbuf, q, settings, run, stats, normals, ZERO, islands, np.zeros(1, dtype=np.int64))[0]


@njit(**JIT)
def initial_genes(q, I, S, P, first, lm, random_init, rng, slo, shi):
    """The first population (I, S, P, n): every individual at the seed q [R 3.7.6]; with LM
    memetics only the first species of island 0 (the others would repeat its LM attempt),
    every other species at one random configuration; with random_init every individual at
    one of its own ([R Table 3.11]'s ablation)."""
    n = q.shape[0]
    genes = np.empty((I, S, P, n))
    x0 = np.empty(n)
    for i in range(I):
        for s in range(S):
            if lm and (first + i > 0 or s > 0):
                random_configuration(rng, slo, shi, x0)
            else:
                x0[:] = q
            for k in range(P):
                if random_init:
                    random_configuration(rng, slo, shi, genes[i, s, k])
                else:
                    genes[i, s, k] = x0
    return genes


@njit(**JIT)
def island_search(ibuf, fbuf, q, settings, run, stats, normals, first, count, stop):
    """Islands first … first+count−1 of a BioIK 2 search, stepped in turn (`bio2_search`'s
    arguments); returns (success, the best configuration's cost), q ← that configuration.
    `islands_with` does the work, for goals of every kind."""
    return islands_with(ALL_KINDS, ibuf, fbuf, q, settings, run, stats, normals, first, count, stop)


@njit(**JIT)
def bio2_pose_search(ibuf, fbuf, q, settings, run, stats, normals):
    """`bio2_search` for one primary pose-type goal (the one-call pose query): the same
    search, compiled with its single-pose paths only (POSE_ONLY, see `bio2_steps`)."""
    islands = int(settings[SETTING.threads])
    stop = np.zeros(1, dtype=np.int64)
    return islands_with(POSE_ONLY, ibuf, fbuf, q, settings, run, stats, normals, ZERO, islands, stop)[0]


@njit(inline="always", **JIT)
def islands_with(kinds, ibuf, fbuf, q, settings, run, stats, normals, first, count, stop):
    """`island_search` for `kinds` (`bioik.goals.kernels.ALL_KINDS` or POSE_ONLY).

    Allocates the population and scratch, then runs `bio2_steps`. The RNG starts at the
    run's seed (a random start draws from it, so every island starts at the same q); an
    island search that starts past island 0 then reseeds it with the seed + first·2³², a
    stream of its own, so island 0 searches as a one-island search does. stop: the
    islands' stop flag (`bioik.solvers.core.islands`), read between species and raised
    here on success or when the clock runs out — not when the step budget does, which
    the other islands have as well.
    """
    prob = unpack(ibuf, fbuf)
    seg_i, out_seg, gi, bounds = prob.seg_i, prob.out_seg, prob.gi, prob.bounds
    slo, shi = bounds[2], bounds[3]
    P, C = int(settings[SETTING.population_size]), int(settings[SETTING.child_count])
    I, S = count, int(settings[SETTING.species_count])
    variant = int(settings[SETTING.variant])
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(int(run[SEED]))
    n = q.shape[0]
    G = gi.shape[0]
    O = max(out_seg.shape[0], 1)
    L = 6 * O
    if run[RANDOM_START] > 0.0:
        random_configuration(rng, slo, shi, q)
    if first > 0:
        rng[0] = np.uint64(int(run[SEED])) + (np.uint64(first) << np.uint64(32))
    x0 = np.empty(n)
    _, _, R = goal_flags(gi)
    genes = initial_genes(q, I, S, P, first, variant == LM, settings[SETTING.random_init] != 0.0, rng, slo, shi)
    population = Population(genes, np.zeros((I, S, P, n)), np.full((I, S, P), np.inf), q.copy(), np.empty(S))
    m = max(R, n)
    goal_comp, var_comp, row_comp = np.empty(G, np.int64), np.empty(n, np.int64), np.empty(R, np.int64)
    K = goal_components(gi, seg_i, out_seg, n, goal_comp, var_comp, row_comp, variant == LM)  # LM steps per sub-problem
    lm_work = (np.empty(R), np.empty((R, n)), np.empty(R), np.empty((R, n)), np.empty((m, m)), np.empty(m), np.empty(n),
               np.empty(n), null_space_scratch(R, n), np.empty(n), np.empty((m, m)), np.empty(m), var_comp, row_comp,
               np.empty(n, np.int64), np.empty((R, n) if K > 1 else (1, 1)), np.empty(R), np.empty(n), np.empty(K))
    M = (n + 7) // 8 * 8  # SIMD lanes of `line_search_single`'s gradient
    ex, gs, poff, pool, seg, errors = step_scratch(x0, seg_i, O, G, P, C)
    ls = LineScratch(np.empty((5, L)), np.empty((1, n)), np.empty(n), np.empty(M), np.empty((10, M)))
    work = Work(population, ex, poff, pool, gs, ls, np.empty(n), seg, errors, lm_work,
                workspace(np.empty(workspace_size(seg_i.shape[0], n)), seg_i, n))
    success, best_fit = bio2_steps(prob, q, settings, run, stats, rng, normal_table(normals, n, C, rng), work, stop, kinds)
    if success or now() > run[DEADLINE]:
        raise_flag(stop)
    return success, best_fit


@njit(**KERNEL)
def bio2_steps(prob, q, settings, run, stats, rng, normals, work, stop, kinds):
    """The steps of the population's islands, in turn, until success, the step budget, the
    deadline or the stop flag (read between species); q ← the best configuration. Returns
    (success, that configuration's cost). kinds: ALL_KINDS, or POSE_ONLY in the one-pose
    query only: its problem is always one primary pose-type goal, so the single-pose paths
    are the only ones compiled (LM attempt, line search, scoring). Allocation-free, so compiled without reference counting (the
    population's views cost nothing per species)."""
    seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
    gi, gf, gw, gt, vdata, aux, bounds = prob.gi, prob.gf, prob.gw, prob.gt, prob.vdata, prob.aux, prob.bounds
    slo, shi = bounds[2], bounds[3]
    deadline, max_steps, mode = run[DEADLINE], run[BUDGET], int(run[MODE])
    P = int(settings[SETTING.population_size])
    elites = min(max(int(settings[SETTING.elite_count]), 0), P)
    I, S = work.population.genes.shape[0], int(settings[SETTING.species_count])
    evo_gens, opt_gens = int(settings[SETTING.memetic_evolution_gens]), int(settings[SETTING.memetic_opt_gens])
    p_wipe, mom_mix, h = settings[SETTING.wipeout_probability], settings[SETTING.momentum_mix], settings[SETTING.memetic_step]
    per_gene, wipe_on = settings[SETTING.per_gene_mutation] != 0.0, settings[SETTING.wipeouts] != 0.0
    rotation = settings[SETTING.rotation_distance]
    lam_k, lm_stall = settings[SETTING.lm_damping], settings[SETTING.lm_stall_ratio]
    variant = int(settings[SETTING.variant])
    G = gi.shape[0]
    has_secondary, pose_only, _ = goal_flags(gi)
    single_pose = G == 1 and pose_only and gi[0, KIND] != PYTHON and not has_secondary
    genes, moms, fit, best, before = work.population
    ex, gs, ls, x, seg, errors = work.ex, work.gs, work.ls, work.x, work.seg, work.errors
    x0, frames0, J0, Q0 = ex.x0, ex.frames0, ex.J0, ex.Q0
    r, Jr, scratch = gs.r, gs.Jr, gs.scratch
    L = J0.shape[0]
    n = q.shape[0]
    best_fit = np.inf
    steps = 0
    wipeouts = 0
    success = False
    late = False
    while not success:
        for i in range(I):
            for s in range(S):
                # 1. exact FK at the species' best; the acceptance test runs on it
                for v in range(n):
                    x0[v] = genes[i, s, 0, v]
                if variant == LM:  # its cost when the step starts, before the LM memetics
                    before[s] = fit[i, s, 0]
                fk_jacobians(seg_i, seg_f, out_seg, out_tf, x0, seg, frames0, J0)
                if goal_errors_with(kinds, gi, gf, gt, frames0, J0, x0, vdata, aux, r, Jr, scratch, mode, errors):
                    for v in range(n):
                        best[v] = x0[v]
                    success = True
                    break
                if variant == LM:  # beyond [R] and [E]: LM on exact FK first, then evolve around it
                    if kinds is None or single_pose:  # POSE_ONLY: the pose query, a single pose always
                        found, E, _ = pose_attempt(prob, x0, opt_gens, lam_k, lm_stall, gt[0, 0], gt[0, 1], mode, work.pose, deadline)
                        if not found:
                            fk_jacobians(seg_i, seg_f, out_seg, out_tf, x0, seg, frames0, J0)
                    else:
                        found, E = lm_memetic(prob, ex, seg, gs, errors, work.lm, opt_gens, lam_k, lm_stall, mode,
                                              has_secondary, deadline, kinds)
                    if found:
                        for v in range(n):
                            best[v] = x0[v]
                        success = True
                        break
                    for v in range(n):  # frames0 and J0 hold the exact FK at x0 again
                        genes[i, s, 0, v] = x0[v]
                goal_models(gi, gf, gw, frames0, ex.models, rotation)
                curvature(J0, Q0)
                sp = Species(genes[i, s], moms[i, s], fit[i, s], work.poff)
                for k in range(P):
                    offsets(J0, Q0, x0, sp.genes, k, sp.poff, k)
                    score(prob, ex, sp.poff, k, sp.genes, k, gs, pose_only, kinds)
                    fit[i, s, k] = gs.out[0]
                if fit[i, s, 0] < best_fit:
                    best_fit = fit[i, s, 0]
                    for v in range(n):
                        best[v] = x0[v]
                if variant != LM:
                    before[s] = fit[i, s, 0]
                # 2. evolution on the extrapolated model
                evolve(sp, work.pool, ex, prob, gs, normals, rng, evo_gens, mom_mix, per_gene, has_secondary, pose_only,
                       deadline, kinds)
                # 3. memetics on the elites (the population is sorted, best first)
                if variant == QUADRATIC or variant == LINEAR:
                    for k in range(elites):
                        for v in range(n):
                            x[v] = genes[i, s, k, v]
                        if kinds is None or (single_pose and L == 6):
                            fx = line_search_single(x, fit[i, s, k], ex, bounds, ls, rng, opt_gens, h, variant, deadline)
                        else:
                            fx = line_search(x, fit[i, s, k], ex, prob, gs, ls, rng, opt_gens, h, variant, pose_only, deadline,
                                             kinds)
                        if fx < fit[i, s, k]:
                            for v in range(n):
                                genes[i, s, k, v] = x[v]
                            fit[i, s, k] = fx
                # large populations or many species: a step can outlast the timeout
                if now() > deadline or flag_raised(stop):
                    late = True
                    break
            if success or late:
                break
            # 4. wipe out every species but the best if stuck, or at random [R 3.7.5]; LM
            # memetics improve a species a little at every step, so there "stuck" means
            # not below lm_stall_ratio × the cost at the step's start (never with wipeouts 0)
            sb = 0
            for s in range(1, S):
                if fit[i, s, 0] < fit[i, sb, 0]:
                    sb = s
            ratio = lm_stall if variant == LM else 1.0
            for s in range(S):
                if wipe_on and s != sb and (not fit[i, s, 0] < ratio * before[s] or uniform(rng) < p_wipe):
                    random_configuration(rng, slo, shi, x)
                    for k in range(P):
                        for v in range(n):
                            genes[i, s, k, v] = x[v]
                            moms[i, s, k, v] = 0.0
                        fit[i, s, k] = np.inf
                    wipeouts += 1
        steps += 1
        if success or late or steps >= max_steps or now() > deadline:
            break
    for v in range(n):
        q[v] = best[v]
    stats[ITERATIONS] = steps
    stats[RESTARTS] = wipeouts
    return success, best_fit


@njit(**JIT)
def bio2_pose_query(ibuf, fbuf, row, q, io, normals):
    """`bio2_pose_search` as a whole query for one pose-type goal (`bioik.solvers.core.pose_query`)."""
    return search_query(ibuf, fbuf, row, q, io, bio2_pose_search, (normals,))


@njit(**JIT)
def bio2_pose_batch(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base, normals):
    """`bio2_pose_query` over a chunk of a batch (`bioik.solvers.core.batch`)."""
    return batch_queries(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base, bio2_pose_query, (normals,))


_search = compiled(bio2_search, NORMALS)


def bio2_threads_search(problem: Problem, q: np.ndarray, deadline: float, budget: int, seed: int, mode: int,
                        settings: np.ndarray, random_start: bool = False) -> tuple[bool, int, int]:
    """The Family.search protocol: one island (`threads` 1) is the compiled `bio2_search`;
    more run at once, one `island_search` each on a thread of its own with the GIL released
    (`bioik.solvers.core.islands`), until one succeeds (the stop flag ends the others),
    each has made `budget` steps (the same work as `budget` steps of the islands stepped in
    turn), or the deadline. Each island gets its own copy of the start q and of the
    problem's float buffer (some goals keep scratch in it) [R 3.9.4].

    The answer is, among the islands that succeeded, the one whose primary plus secondary
    cost (exact FK) is least, as BioIK selects it; if none succeeded, the one whose best
    configuration costs least [R 3.7.4]; iterations: the most steps an island made;
    restarts: all islands' wipeouts. Whether the search succeeds depends only on the seed
    and the budget (each island's steps do, and only a success ends another island early),
    unless the deadline comes first; which island's answer it is, and so q and the
    iterations, can vary with the threads' timing.
    """
    islands = int(settings[SETTING.threads])
    if islands == 1:
        return _search(problem, q, deadline, budget, seed, mode, settings, random_start)
    run = problem.run
    run[DEADLINE], run[BUDGET], run[SEED], run[MODE], run[RANDOM_START] = deadline, budget, seed, mode, random_start
    stop = np.zeros(1, dtype=np.int64)
    answers = [q] + [q.copy() for _ in range(islands - 1)]
    stats = [np.zeros(STATS_SLOTS, dtype=np.int64) for _ in range(islands)]
    fbufs = [problem.fbuf] + [problem.fbuf.copy() for _ in range(islands - 1)]
    args = [(problem.ibuf, fbufs[i], answers[i], settings, run, stats[i], NORMALS, i, 1, stop) for i in range(islands)]
    # island 0 runs in this thread: Ctrl-C ends it (`stoppable`), and its stop flag the others
    calls = [partial(stoppable, island_search, deadline, *args[0])] + [partial(island_search, *a) for a in args[1:]]
    outcomes = run_islands(calls, stop)
    found = [bool(o[0]) for o in outcomes]
    if any(found):  # secondary goals choose among the successes (ties: the lowest island)
        best = min((i for i in range(islands) if found[i]), key=lambda i: sum(problem.cost(answers[i])))
    else:
        best = min(range(islands), key=lambda i: outcomes[i][1])
    if best:
        q[:] = answers[best]
    return found[best], max(int(st[ITERATIONS]) for st in stats), sum(int(st[RESTARTS]) for st in stats)


FAMILIES = (
    Family("bio2", DEFAULTS, bio2_threads_search, fixed=(NONE,), single_pose=bio2_pose_query,
           single_pose_batch=bio2_pose_batch, single_pose_extra=(NORMALS,), thread_param="threads",
           description="BioIK 2 evolution without memetics"),
    Family("bio2_memetic", DEFAULTS, bio2_threads_search, fixed=(QUADRATIC,), single_pose=bio2_pose_query,
           single_pose_batch=bio2_pose_batch, single_pose_extra=(NORMALS,), thread_param="threads",
           description="BioIK 2, quadratic memetics (faithful)"),
    Family("bio2_memetic_l", DEFAULTS, bio2_threads_search, fixed=(LINEAR,), single_pose=bio2_pose_query,
           single_pose_batch=bio2_pose_batch, single_pose_extra=(NORMALS,), thread_param="threads",
           description="BioIK 2, linear memetics"),
    Family("bio2_lm", LM_DEFAULTS, bio2_threads_search, fixed=(LM,), single_pose=bio2_pose_query,
           single_pose_batch=bio2_pose_batch, single_pose_extra=(NORMALS,), thread_param="threads",
           description="BioIK 2 evolution with LM memetics on exact Jacobians"),
)
