"""`bio1`: the Hybrid Genetic Swarm Algorithm [S 4.3, Fig. 4.2].

Each operator is checked against its formula, mostly by replaying the same random draws
in Python (a copy of the SplitMix64 state, `bioik.solvers.core.rng.uniform`) and comparing
with the compiled operator; then the whole search on FK targets (ur5, panda), honest
failure on an unreachable target, limits and reproducibility.
"""

import numpy as np
import pytest

import bioik
from baseline_helpers import check_unreachable, check_within_limits, count_solved
from bioik.problem import Problem
from bioik.solvers.evolutionary import bio1
from bioik.solvers.core.rng import uniform


def state(seed=123):
    return np.array([seed], dtype=np.uint64)


def ctx_for(robot, goals, seed_q=None):
    p = Problem(robot, goals)
    p.update(goals, robot.center() if seed_q is None else seed_q, 1e-5, 1e-5)
    return p, bio1.context(p.ibuf, p.fbuf)


# ---------------------------------------------------------------- fitness (4.3, 4.16, 2.15)


def test_fitness_pose_rebalanced_and_randomized():
    robot = bioik.load_robot("ur5")
    tip = robot.tips[0]
    rng = np.random.default_rng(0)
    T = robot.link_pose(robot.random_configuration(rng), tip)
    x = robot.random_configuration(rng)
    p, ctx = ctx_for(robot, [bioik.PoseGoal(tip, T)])
    geo = ctx[9]  # (seg_i, seg_f, out_seg, out_tf, gi, gf, gw, vdata, aux, geo, …): see bio1.context
    base, length = geo[0, :3], geo[0, 3]
    A = robot.link_pose(x, tip)
    # the chain's first joint is the base of Δ; the fixed chain length bounds Δ (triangle inequality)
    for q in [robot.random_configuration(rng) for _ in range(20)]:
        assert np.linalg.norm(robot.link_pose(q, tip)[:3, 3] - base) <= length + 1e-9
    d_t = np.linalg.norm(A[:3, 3] - T[:3, 3])
    R = A[:3, :3].T @ T[:3, :3]
    d_r = np.arccos(np.clip((np.trace(R) - 1) / 2, -1, 1))
    delta = np.linalg.norm(A[:3, 3] - base)
    d_hat = np.pi * d_t / np.sqrt(length * delta)  # (2.15)
    s = state()
    assert bio1.fitness(ctx, x, s, True) == pytest.approx(0.5 * (d_hat + d_r), rel=1e-9)  # (4.16)
    # (4.3): w ~ U[0, 1] drawn per evaluation
    s = state(7)
    w = uniform(s.copy())
    assert bio1.fitness(ctx, x, s, False) == pytest.approx(w * d_hat + (1 - w) * d_r, rel=1e-9)
    values = [bio1.fitness(ctx, x, s, False) for _ in range(200)]
    assert min(values) >= min(d_hat, d_r) - 1e-12 and max(values) <= max(d_hat, d_r) + 1e-12
    assert np.ptp(values) > 0.5 * abs(d_hat - d_r)


def test_fitness_position_and_orientation_are_raw_distances():
    robot = bioik.load_robot("panda")
    tip = robot.tips[0]
    rng = np.random.default_rng(1)
    T = robot.link_pose(robot.random_configuration(rng), tip)
    x = robot.random_configuration(rng)
    A = robot.link_pose(x, tip)
    _, ctx = ctx_for(robot, [bioik.PositionGoal(tip, T[:3, 3])])
    assert bio1.fitness(ctx, x, state(), False) == pytest.approx(np.linalg.norm(A[:3, 3] - T[:3, 3]), rel=1e-12)  # (2.13)
    _, ctx = ctx_for(robot, [bioik.OrientationGoal(tip, T[:3, :3])])
    R = A[:3, :3].T @ T[:3, :3]
    assert bio1.fitness(ctx, x, state(), False) == pytest.approx(np.arccos((np.trace(R) - 1) / 2), rel=1e-9)  # (2.14)


# ---------------------------------------------------------------- operators


def test_extinction_factors_of_a_sorted_population():
    fit = np.array([1.0, 2.0, 4.0, 8.0])
    xi = np.empty(4)
    bio1.extinction_factors(fit, xi)
    # ξ_i = (π_i + π_min((i−1)/(ψ−1) − 1)) / π_max  (4.7)
    expected = [(1 + 1 * (0 / 3 - 1)) / 8, (2 + 1 * (1 / 3 - 1)) / 8, (4 + 1 * (2 / 3 - 1)) / 8, (8 + 0) / 8]
    assert np.allclose(xi, expected, rtol=0, atol=1e-15)
    assert xi[0] == 0.0 and xi[-1] == 1.0
    assert np.allclose(xi, [0.0, 1 / 6, 11 / 24, 1.0])
    bio1.extinction_factors(np.zeros(4), xi)  # all solved: no division by zero
    assert np.all(xi == 0.0)


def test_rank_selection_probabilities():
    # p(Γ_i) = (γ − i + 1) / Σ i  (4.4): for γ = 4, 0.4, 0.3, 0.2, 0.1
    assert [bio1.rank_select(4, u) for u in (0.0, 0.39, 0.41, 0.69, 0.71, 0.89, 0.91, 0.999)] == [0, 0, 1, 1, 2, 2, 3, 3]
    us = np.random.default_rng(3).random(20000)
    counts = np.bincount([bio1.rank_select(4, u) for u in us], minlength=4) / len(us)
    assert np.allclose(counts, [0.4, 0.3, 0.2, 0.1], atol=0.01)
    assert bio1.rank_select(1, 0.999) == 0


def test_recombination_formula():
    rng = np.random.default_rng(4)
    x1, x2, g1, g2 = (rng.normal(size=6) for _ in range(4))
    s = state(11)
    t = s.copy()
    out = np.empty(6)
    bio1.recombine(x1, x2, g1, g2, s, out)
    r1, r2 = uniform(t), uniform(t)
    w = np.array([uniform(t) for _ in range(6)])
    assert np.allclose(out, w * x1 + (1 - w) * x2 + r1 * g1 + r2 * g2, rtol=0, atol=1e-15)  # (4.5)
    assert s[0] == t[0]  # the same number of draws


def test_mutation_rate_and_strength():
    n = 7
    assert bio1.mutation_rate(0.0, 0.0, n) == pytest.approx(1 / n)  # M_r ∈ [1/n, 1]  (4.6, 4.9)
    assert bio1.mutation_rate(1.0, 1.0, n) == pytest.approx(1.0)
    assert bio1.mutation_rate(0.2, 0.6, n) == pytest.approx((0.4 * (n - 1) + 1) / n)
    span = np.linspace(1.0, 4.0, n)
    x0 = np.linspace(-1, 1, n)
    # the fittest picked twice (ξ = 0): no mutation at all [S 4.3.5]
    x = x0.copy()
    bio1.mutate(x, 0.0, 0.0, span, state(5))
    assert np.all(x == x0)
    # replay: each gene with probability M_r, x_i += w_i·ξ∅·Δn_i, w_i ∈ [−1, 1]  (4.6, 4.8, 4.10)
    xi1, xi2 = 0.5, 0.3
    s = state(9)
    t = s.copy()
    x = x0.copy()
    bio1.mutate(x, xi1, xi2, span, s)
    rate, avg = (0.4 * (n - 1) + 1) / n, 0.4
    y = x0.copy()
    for i in range(n):
        if uniform(t) < rate:
            y[i] += (2 * uniform(t) - 1) * avg * span[i]
    assert np.allclose(x, y, rtol=0, atol=1e-15) and s[0] == t[0]
    assert np.all(np.abs(x - x0) <= avg * span + 1e-15)
    assert np.any(x != x0)


def test_adoption_pulls_towards_parents_and_the_fittest():
    rng = np.random.default_rng(6)
    x0, x1, x2, best = (rng.normal(size=5) for _ in range(4))
    s = state(2)
    t = s.copy()
    x = x0.copy()
    bio1.adopt(x, x1, x2, best, s)
    rp, rs = uniform(t), uniform(t)
    w = np.array([uniform(t) for _ in range(5)])
    assert np.allclose(x, x0 + w * rp * ((x1 + x2) / 2 - x0) + (1 - w) * rs * (best - x0), rtol=0, atol=1e-15)  # (4.11)
    # with both parents at x itself, every gene moves towards the fittest and never past it
    for seed in range(20):
        x = x0.copy()
        bio1.adopt(x, x0, x0, best, state(seed))
        assert np.all(np.abs(best - x) <= np.abs(best - x0) + 1e-15)
        assert np.all(np.sign(x - x0) * np.sign(best - x0) >= 0)
        assert np.linalg.norm(best - x) < np.linalg.norm(best - x0)


def test_clipping():
    x = np.array([-3.0, 0.5, 4.0])
    bio1.clip(x, np.array([-1.0, -1.0, -1.0]), np.array([1.0, 1.0, 2.0]))  # (4.12)
    assert list(x) == [-1.0, 0.5, 2.0]


def test_offspring_gradient_is_the_change_after_recombination():
    rng = np.random.default_rng(8)
    n = 6
    X = rng.uniform(-1, 1, (4, n))
    Gr = rng.normal(0, 0.1, (4, n))
    xi = np.array([0.0, 0.3, 0.6, 1.0])
    lo, hi = -np.ones(n) * 1.2, np.ones(n) * 1.2
    span = hi - lo
    s = state(21)
    t = s.copy()
    x, g, rec = np.empty(n), np.empty(n), np.empty(n)
    bounds = np.array([lo, hi, lo, hi])
    bio1.offspring(bio1.Population(X, Gr, np.zeros(4), xi), 2, 3, 0, bounds, span, s, x, g, rec)
    # replay R, M, A, Ξ in order
    y = np.empty(n)
    bio1.recombine(X[2], X[3], Gr[2], Gr[3], t, y)
    r = y.copy()
    bio1.mutate(y, xi[2], xi[3], span, t)
    bio1.adopt(y, X[2], X[3], X[0], t)
    y = np.clip(y, lo, hi)
    assert np.array_equal(x, y) and s[0] == t[0]
    assert np.allclose(g, y - r, rtol=0, atol=0)  # g_i = ΞAMR(x_i) − R(x_i)  (4.13)
    assert np.all(x >= lo) and np.all(x <= hi)
    assert np.any(g != 0.0)
    # adoption switched off [S 5.4.4]: R, M, Ξ only
    s, t = state(22), state(22)
    bio1.offspring(bio1.Population(X, Gr, np.zeros(4), xi), 2, 3, 0, bounds, span, s, x, g, rec, False)
    bio1.recombine(X[2], X[3], Gr[2], Gr[3], t, y)
    bio1.mutate(y, xi[2], xi[3], span, t)
    assert np.array_equal(x, np.clip(y, lo, hi)) and s[0] == t[0]


def test_niching_removes_beaten_parents():
    def run(a, b, fc, f1, f2):
        pool = np.array([10, 11, 12, 13])
        gamma = bio1.niche(pool, 4, a, b, fc, f1, f2)  # (4.14)
        return list(pool[:gamma])

    assert run(0, 2, 5.0, 1.0, 2.0) == [10, 11, 12, 13]  # child worse than both: Γ
    assert run(0, 2, 1.5, 1.0, 2.0) == [10, 11, 13]  # beats P2 only
    assert run(2, 0, 1.5, 2.0, 1.0) == [10, 11, 13]  # beats P1 only (P1 later in the pool)
    assert run(1, 3, 0.5, 1.0, 2.0) == [10, 12]  # beats both
    assert run(3, 0, 0.5, 1.0, 2.0) == [11, 12]
    assert run(1, 1, 0.5, 1.0, 1.0) == [10, 12, 13]  # one parent picked twice: removed once
    assert run(0, 2, 1.0, 1.0, 2.0) == [10, 11, 13]  # equal fitness is not worse


def test_initialization_is_biased_with_the_seed():
    n = 6
    X, Gr = np.empty((12, n)), np.ones((12, n))
    theta = np.linspace(-0.5, 0.5, n)
    slo, shi = -np.arange(1, n + 1.0), np.arange(1, n + 1.0)
    bio1.initialize(X, Gr, theta, slo, shi, state(4))  # (4.20)
    assert np.array_equal(X[0], theta)
    assert np.all(X[1:] >= slo) and np.all(X[1:] <= shi)
    assert len({tuple(r) for r in X}) == 12
    assert np.abs(X[1:].mean(axis=0)).max() < 0.6 * shi.max()
    assert np.all(Gr == 0.0)


def test_exploitation_gene_by_gene():
    """(4.18, 4.19) replayed in Python on a position goal (deterministic Ω)."""
    robot = bioik.load_robot("ur5")
    tip = robot.tips[0]
    rng = np.random.default_rng(12)
    target = robot.link_pose(robot.random_configuration(rng), tip)[:3, 3]
    _, ctx = ctx_for(robot, [bioik.PositionGoal(tip, target)])
    lo, hi = robot.lower, robot.upper
    x0 = robot.random_configuration(rng)
    g0 = rng.normal(0, 0.01, robot.dof)
    s = state(31)
    t = s.copy()
    x, g = x0.copy(), g0.copy()
    mean, moved = bio1.exploit(ctx, x, g, lo, hi, s)
    y, h = x0.copy(), g0.copy()
    pis = []
    for i in range(robot.dof):
        pi = bio1.fitness(ctx, y, t, False)
        v = y[i]
        rp = uniform(t) * max(min(pi, hi[i] - v), 0.0)
        rm = -uniform(t) * max(min(pi, v - lo[i]), 0.0)
        y[i] = v + rp
        fp = bio1.fitness(ctx, y, t, False)
        y[i] = v + rm
        fm = bio1.fitness(ctx, y, t, False)
        y[i] = v
        assert 0.0 <= rp <= pi and -pi <= rm <= 0.0
        if fp < pi and fp <= fm:
            y[i], h[i], pi = v + rp, h[i] + rp, fp
        elif fm < pi and fm <= fp:
            y[i], h[i], pi = v + rm, h[i] + rm, fm
        pis.append(pi)
    assert np.array_equal(x, y) and np.array_equal(g, h) and s[0] == t[0]
    assert mean == pytest.approx(np.mean(pis), rel=1e-12)  # (4.19)
    assert moved and np.any(x != x0)
    assert np.allclose(g - g0, x - x0, atol=1e-15)  # the steps enter the gradient
    before = bio1.fitness(ctx, x0, state(), False)
    after = bio1.fitness(ctx, x, state(), False)
    assert after < before  # a deterministic objective only improves
    assert np.all(x >= lo) and np.all(x <= hi)


def test_wipe_test_exploitable():
    """Second part of (4.22): at an exact solution no exploitation step improves Ω̄;
    far from it, some gene does."""
    robot = bioik.load_robot("panda")
    tip = robot.tips[0]
    rng = np.random.default_rng(2)
    q = robot.random_configuration(rng)
    _, ctx = ctx_for(robot, [bioik.PoseGoal(tip, robot.link_pose(q, tip))])
    f = bio1.fitness(ctx, q, state(), True)
    assert f < 1e-7
    assert not bio1.exploitable(ctx, q.copy(), f, robot.lower, robot.upper, state(1))
    x = np.clip(q + 0.3, robot.lower, robot.upper)
    x_before = x.copy()
    assert bio1.exploitable(ctx, x, bio1.fitness(ctx, x, state(), True), robot.lower, robot.upper, state(1))
    assert np.array_equal(x, x_before)


def test_generation_keeps_the_exploited_elites_and_sorts():
    """Fig. 4.2 lines 7–23: elites exploited first, then ψ − κ offspring; the new
    population is elites ∪ offspring (4.15), sorted, with extinction factors (4.7)."""
    robot = bioik.load_robot("ur5")
    tip = robot.tips[0]
    rng = np.random.default_rng(14)
    T = robot.link_pose(robot.random_configuration(rng), tip)
    _, ctx = ctx_for(robot, [bioik.PoseGoal(tip, T)])
    P, kappa, n = 12, 4, robot.dof
    lo, hi = robot.lower, robot.upper
    slo, shi = robot.lower, robot.upper
    X, Gr = np.empty((P, n)), np.zeros((P, n))
    s = state(41)
    bio1.initialize(X, Gr, robot.random_configuration(rng), slo, shi, s)
    fit = np.array([bio1.fitness(ctx, X[k], s, False) for k in range(P)])
    order = np.argsort(fit, kind="stable")
    X, fit = X[order].copy(), fit[order].copy()
    xi = np.empty(P)
    bio1.extinction_factors(fit, xi)
    # replay the elites' exploitation on copies
    t = s.copy()
    elites = X[:kappa].copy()
    eg = Gr[:kappa].copy()
    efit = [bio1.exploit(ctx, elites[k], eg[k], lo, hi, t)[0] for k in range(kappa)]
    CX, CG, cfit = np.empty((P, n)), np.empty((P, n)), np.empty(P)
    pool, rec = np.empty(P, dtype=np.int64), np.empty(n)
    bio1.generation(ctx, bio1.Population(X, Gr, fit, xi), bio1.Offspring(CX, CG, cfit, pool, rec), kappa,
                    np.array([lo, hi, slo, shi]), shi - slo, s, np.inf)
    rows = {tuple(r): k for k, r in enumerate(X)}
    for k in range(kappa):
        assert tuple(elites[k]) in rows
        assert fit[rows[tuple(elites[k])]] == pytest.approx(efit[k])
    for c in range(P - kappa):
        assert tuple(CX[c]) in rows
    assert np.all(np.diff(fit) >= 0)
    expect = np.empty(P)
    bio1.extinction_factors(fit, expect)
    assert np.array_equal(xi, expect) and xi[0] == 0.0 and xi[-1] == 1.0


# ---------------------------------------------------------------- the search


@pytest.mark.parametrize("robot_name,at_least", [("ur5", 7), ("panda", 7)])
def test_solves_fk_targets(robot_name, at_least):
    """Measured with 2000 generations (tolerance 1e-5): ur5 7/8, panda 7/8 (ur5 was 6/8
    while a wipe re-seeded the population with Φ instead of θ)."""
    assert count_solved(robot_name, "bio1", 2000) >= at_least


def test_components_switch_off():
    """The switches of [S 5.4]: without wipes none happens; each switch changes the search;
    the defaults are all on."""
    robot = bioik.load_robot("ur5")
    tip = robot.tips[0]
    rng = np.random.default_rng(31)
    T = robot.link_pose(robot.random_configuration(rng), tip)
    seed = robot.random_configuration(rng)

    def run(**params):
        return bioik.solve(robot, [bioik.PoseGoal(tip, T)], seed=seed, solver="bio1", timeout=3600.0, max_iterations=300,
                           random_seed=2, position_tolerance=1e-9, rotation_tolerance=1e-9, **params)

    base = run()
    assert base.restarts > 0 and run(wipes=0).restarts == 0
    assert np.array_equal(run(random_weights=1, adoption=1, exploitation=1, wipes=1).q, base.q)
    for name in ("random_weights", "adoption", "exploitation"):
        assert not np.array_equal(run(**{name: 0}).q, base.q), name
    with pytest.raises(ValueError, match="adoption"):
        run(adoption=2)


def test_unreachable_target_reports_failure_with_best_approximation():
    res = check_unreachable("panda", "bio1", 300)
    robot = bioik.load_robot("panda")
    tip = robot.tips[0]
    T = robot.link_pose(robot.center(), tip)
    T[:3, 3] += [5.0, 0.0, 0.0]
    # the best approximation by the balanced fitness (4.16, 4.17), closer than the seed
    seed_error = np.linalg.norm(robot.link_pose(robot.center(), tip)[:3, 3] - T[:3, 3])
    assert res.goal_errors[0, 0] < seed_error - 0.1
    _, ctx = ctx_for(robot, [bioik.PoseGoal(tip, T)])
    assert bio1.fitness(ctx, res.q, state(), True) < bio1.fitness(ctx, robot.center(), state(), True) - 0.3  # measured 8.96 vs 9.70


def test_never_leaves_limits():
    check_within_limits("panda", "bio1", 200)


def test_reproducible():
    robot = bioik.load_robot("ur5")
    tip = robot.tips[0]
    rng = np.random.default_rng(9)
    T = robot.link_pose(robot.random_configuration(rng), tip)
    seed = robot.random_configuration(rng)
    a, b, c = (bioik.solve(robot, [bioik.PoseGoal(tip, T)], seed=seed, solver="bio1", timeout=3600.0, max_iterations=150, random_seed=k)
               for k in (4, 4, 5))
    assert np.array_equal(a.q, b.q) and a.iterations == b.iterations
    assert not np.array_equal(a.q, c.q)


def test_seed_solution_returns_at_once():
    robot = bioik.load_robot("ur5")
    tip = robot.tips[0]
    q = robot.random_configuration(np.random.default_rng(10))
    res = bioik.solve(robot, [bioik.PoseGoal(tip, robot.link_pose(q, tip))], seed=q, solver="bio1", timeout=3600.0, max_iterations=100, random_seed=0)
    assert res.success and res.iterations == 0 and np.allclose(res.q, q)


def test_registered():
    fam = bioik.solvers.registry.SOLVERS["bio1"]
    assert dict(fam.defaults) == {"population": 12, "elites": 4, "random_weights": 1, "adoption": 1, "exploitation": 1, "wipes": 1}


def test_large_populations_sort_like_the_insertion_sort():
    """Above INSERTION_SORT_MAX the merge sort gives the insertion sort's order, ties included."""
    rng = np.random.default_rng(8)
    P, n = bio1.INSERTION_SORT_MAX + 37, 6
    fit = rng.integers(0, 20, P).astype(float)  # many ties: stability matters
    X, Gr = rng.normal(size=(P, n)), rng.normal(size=(P, n))
    order = sorted(range(P), key=lambda i: fit[i])  # Python's sort is stable
    expected = X[order].copy(), Gr[order].copy(), fit[order].copy()
    bio1.sort_population(X, Gr, fit, np.empty(n))
    assert np.array_equal(X, expected[0]) and np.array_equal(Gr, expected[1]) and np.array_equal(fit, expected[2])
