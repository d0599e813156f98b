"""bio2's kernels: the evolution (`evolve`, `select`) and the single-pose line search,
which makes the same draws and arithmetic as the general one."""

import numpy as np
import pytest

import bioik
from bioik.goals.kernels import ALL_KINDS
from bioik.problem.layout import unpack
from bioik.goals.pose import pose_cost
from bioik.problem import Problem
from bioik.kinematics.extrapolate import curvature
from bioik.kinematics.frames import qmul
from bioik.kinematics.jacobian import fk_jacobians
from bioik.solvers.evolutionary import bio2

P, C = 2, 16


@pytest.fixture(scope="module", params=["ur5", "panda"])
def setup(request):
    robot = bioik.load_robot(request.param)
    rng = np.random.default_rng(3)
    T = robot.link_pose(robot.random_configuration(rng), robot.tips[0])
    p = Problem(robot, [bioik.PoseGoal(robot.tips[0], T, weight=1.3)])
    prob = unpack(p.ibuf, p.fbuf)
    seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
    gi, gf, gw = prob.gi, prob.gf, prob.gw
    x0 = robot.random_configuration(rng)
    frames0, J0 = np.empty((1, 7)), np.empty((6, robot.dof))
    fk_jacobians(seg_i, seg_f, out_seg, out_tf, x0, np.empty((max(seg_i.shape[0], 1), 7)), frames0, J0)
    models = np.zeros((1, bio2.MODEL))
    bio2.goal_models(gi, gf, gw, frames0, models, bio2.SQUARE_QUATERNION)
    Q0 = np.empty_like(J0)
    curvature(J0, Q0)
    return robot, prob, bio2.Expansion(x0, frames0, J0, Q0, models)


def goal_scratch(n, out=None):
    return bio2.GoalScratch(np.empty((1, 7)), np.empty(8), np.empty((8, n)), np.empty((32, 3)),
                            np.empty(2) if out is None else out)


def line_scratch(n):
    M = (n + 7) // 8 * 8
    return bio2.LineScratch(np.empty((5, 6)), np.empty((1, n)), np.empty(n), np.empty(M), np.full((10, M), np.nan))


def population(setup):
    """Two individuals near x0 with their offsets and costs on the model at x0."""
    robot, prob, (x0, frames0, J0, Q0, models) = setup
    gi = prob.gi
    n = robot.dof
    genes = np.tile(x0, (P, 1))
    genes[1] += 0.01
    poff, fit, f2 = np.zeros((P, 6)), np.empty(P), np.empty(2)
    for k in range(P):
        bio2.offsets(J0, Q0, x0, genes, k, poff, k)
        bio2.pose_score(gi, models, poff, k, f2)
        fit[k] = f2[0]
    return bio2.Species(genes, np.zeros((P, n)), fit, poff)


def run_evolve(setup, pose_only, gens=8, seed=11):
    robot, prob, ex = setup
    n = robot.dof
    pop = population(setup)
    rng = np.array([seed], dtype=np.uint64)
    bio2.evolve(pop, bio2.pool_scratch(P, C, n, 6), ex, prob, goal_scratch(n), bio2.NORMALS, rng, gens, 0.3, False, False, pose_only,
                np.inf, ALL_KINDS)
    return pop, rng


@pytest.mark.parametrize("kind", ["pose", "position", "orientation"])
def test_model_cost_is_the_pose_cost_of_the_predicted_frame(kind):
    """`model_cost`'s closed form (no quaternion product per candidate) equals the weighted
    pose cost of the frame the offsets predict, as the reference implementation
    extrapolates it: position moved by o[:3], rotation quaternion q + ½·(0, o[3:]) ⊗ q,
    not normalised [R 3.8], from far to tiny angles to the target."""
    rng = np.random.default_rng(7)
    robot = bioik.load_robot("panda")
    tip = robot.tips[0]
    for trial in range(200):
        T = robot.link_pose(robot.random_configuration(rng), tip)
        goal = {"pose": bioik.PoseGoal(tip, T, weight=1.7, rotation_scale=0.3),
                "position": bioik.PositionGoal(tip, T[:3, 3], weight=1.7),
                "orientation": bioik.OrientationGoal(tip, T[:3, :3], weight=1.7)}[kind]
        p = Problem(robot, [goal])
        prob = unpack(p.ibuf, p.fbuf)
        gi, gf, gw = prob.gi, prob.gf, prob.gw
        frames0 = np.empty((1, 7))
        frames0[0, :3] = gf[0, :3] + rng.normal(size=3) * 10.0 ** rng.uniform(-6, 0)
        q = gf[0, 3:7] + rng.normal(size=4) * 10.0 ** rng.uniform(-9, 0)  # from near the target to anywhere
        frames0[0, 3:] = q / np.linalg.norm(q)
        models = np.zeros((1, bio2.MODEL))
        bio2.goal_models(gi, gf, gw, frames0, models, bio2.SQUARE_QUATERNION)
        o = rng.normal(size=6) * 10.0 ** rng.uniform(-9, -1)
        w, x, y, z = frames0[0, 3:] + 0.5 * np.array(qmul(0.0, *o[3:], *frames0[0, 3:]))
        expected = pose_cost(gi[0, 0], gf, 0, *(frames0[0, :3] + o[:3]), w, x, y, z) * gw[0] ** 2
        got = bio2.model_cost(bio2.goal_model(models, 0), *o)
        assert got == pytest.approx(expected, rel=1e-6, abs=1e-20), trial


def test_vectorised_pose_scoring_equals_the_general_scorer(setup):
    """`evolve` scores children with `score_pose_children` (children innermost, SIMD) when
    every goal is pose-type, else with `full_score` one by one: the same draws and costs."""
    a, ra = run_evolve(setup, True)
    b, rb = run_evolve(setup, False)
    for u, v in zip(a, b):  # genes, momenta, fitness, offsets of the population
        np.testing.assert_array_equal(u, v)
    assert ra[0] == rb[0]


def test_evolve_keeps_the_best_and_extrapolates_consistently(setup):
    robot, prob, (x0, frames0, J0, Q0, models) = setup
    gi, bounds = prob.gi, prob.bounds
    start = population(setup)
    (genes, moms, fit, poff), _ = run_evolve(setup, True, gens=40)
    assert fit[0] <= fit[1] and fit[0] < start[2][0]  # sorted, and better than the seed population
    assert not np.array_equal(genes, start[0]) and np.any(moms != 0.0)
    assert np.all(genes >= bounds[0]) and np.all(genes <= bounds[1])
    # each individual's offsets are the step model's prediction J0·Δ + Q0·Δ², Δ = genes − x0
    np.testing.assert_allclose(poff, (genes - x0) @ J0.T + (genes - x0) ** 2 @ Q0.T, atol=1e-12)
    f2 = np.empty(2)
    for k in range(P):  # and its fitness is the pose cost on that model
        bio2.pose_score(gi, models, poff, k, f2)
        assert f2[0] == pytest.approx(fit[k], rel=1e-9, abs=1e-15)


def test_selection_keeps_the_best_and_preselects_by_secondary_cost():
    """`select`: the best P of parents and children by primary cost become the population,
    best first, parents winning ties; with secondary goals only the secondary-best
    children (a random number of them) compete."""
    P2, C2, n = 2, 6, 3
    parents = np.array([[0.0] * n, [1.0] * n])  # gene values name the candidates: 0, 1 parents; 2.. children
    cg = np.tile(np.arange(2.0, 2 + C2), (n, 1))
    primary = np.array([5.0, 5.0, 1.0, 9.0, 0.5, 5.0, 2.0, 7.0])  # parents, then children
    secondary = np.array([3.0, 1.0, 9.0, 2.0, 4.0, 0.0])  # children
    cf = np.array([primary[P2:], secondary])
    idx = np.empty(P2 + C2, dtype=np.int64)

    def pool(cf):
        return bio2.ChildPool(cg, cg.copy(), cf, cg[:2].copy(), np.empty(C2), np.zeros(C2), np.empty(C2), idx,
                              np.empty((1, 2)), np.empty((1, n)))

    def species():
        return bio2.Species(parents.copy(), parents.copy(), primary[:P2].copy(), parents[:, :2].copy())

    def run(has_secondary, seed=0):
        pop = species()
        bio2.select(pop, pool(cf), np.array([seed], dtype=np.uint64), has_secondary, 0.3)
        return pop.genes[:, 0], pop.fit

    names, fit = run(False)
    assert list(names) == [4.0, 2.0] and list(fit) == [0.5, 1.0]
    cf_tie = cf.copy()
    cf_tie[0] = 5.0  # every child ties with the parents: the parents stay, in order
    pop = species()
    bio2.select(pop, pool(cf_tie), np.array([0], dtype=np.uint64), False, 0.3)
    assert list(pop.genes[:, 0]) == [0.0, 1.0]
    by_secondary = [7.0, 3.0, 5.0, 2.0, 6.0, 4.0]  # children from best to worst secondary cost
    winners = set()
    for seed in range(60):
        names, fit = run(True, seed)
        best = names[0]
        winners.add(best)
        # the winner is a parent or the best by primary cost within a secondary-best prefix
        survivors = [c for c in by_secondary[: by_secondary.index(best) + 1]] if best >= 2 else []
        assert best in (0.0, 1.0) or primary[int(best)] == min(primary[int(c)] for c in survivors)
    # prefixes of 1–3 survivors leave parent 0 best, 4–5 child 2, all 6 child 4
    assert winners == {0.0, 2.0, 4.0}


@pytest.mark.parametrize("variant", [bio2.QUADRATIC, bio2.LINEAR])
def test_line_search_single_equals_line_search(setup, variant):
    robot, prob, ex = setup
    x0, J0, Q0, models, gi = ex.x0, ex.J0, ex.Q0, ex.models, prob.gi
    n = robot.dof
    start = x0 + 0.02
    poff, f2 = np.zeros((1, 6)), np.empty(2)
    bio2.offsets(J0, Q0, x0, start[None, :], 0, poff, 0)
    bio2.pose_score(gi, models, poff, 0, f2)
    fx = f2[0]
    xa, xb = start.copy(), start.copy()
    ra, rb = np.array([5], dtype=np.uint64), np.array([5], dtype=np.uint64)
    fa = bio2.line_search(xa, fx, ex, prob, goal_scratch(n, f2), line_scratch(n), ra, 8, 1e-6, variant, True, np.inf, ALL_KINDS)
    fb = bio2.line_search_single(xb, fx, ex, prob.bounds, line_scratch(n), rb, 8, 1e-6, variant, np.inf)
    assert fa == fb and fa <= fx
    assert fa < fx or variant == bio2.LINEAR  # the linear step aims at f = 0 and may overshoot
    np.testing.assert_array_equal(xa, xb)
    assert ra[0] == rb[0]
    # the offsets carried from step to step (the model is linear) match a recomputation
    bio2.offsets(J0, Q0, x0, xa[None, :], 0, poff, 0)
    bio2.pose_score(gi, models, poff, 0, f2)
    assert f2[0] == pytest.approx(fa, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("P2,C2", [(1, 1), (1, 16), (2, 1), (2, 16), (3, 5), (4, 16)])
def test_rank_candidates_is_a_stable_sort_of_parents_then_children(P2, C2):
    """Without secondary goals the winners are the first P of (cost, candidate index)
    order — ties go to parents, then to earlier children — for any P and C."""
    rng = np.random.default_rng(P2 * 100 + C2)
    idx = np.empty(P2 + C2, dtype=np.int64)
    for _ in range(200):
        fit = np.sort(rng.integers(0, 6, P2).astype(float))  # parents are sorted; small integers make ties
        children = rng.integers(0, 7, C2).astype(float)
        children[children == 6] = np.inf  # a child whose cost overflowed never beats a parent
        cf = np.array([children, np.zeros(C2)])
        bio2.rank_candidates(fit, cf, idx, np.array([1], dtype=np.uint64), False)
        costs = np.concatenate([fit, cf[0]])
        expected = sorted(range(P2 + C2), key=lambda j: (costs[j], j))[:P2]
        assert list(idx[:P2]) == expected


def test_line_search_descends_the_combined_cost_and_accepts_on_the_primary():
    """As the reference implementation: the gradient and the support points use primary +
    secondary cost, a step is kept only if the primary cost falls, and the returned cost
    is the primary cost at the returned point."""
    robot = bioik.load_robot("panda")
    rng = np.random.default_rng(11)
    x0 = robot.random_configuration(rng)
    T = robot.link_pose(x0 + 0.03, robot.tips[0])  # near: the model is then nearly quadratic
    ends = {}
    for secondary_weight in (0.0, 0.02):
        goals = [bioik.PoseGoal(robot.tips[0], T), bioik.CenterJointsGoal(weight=secondary_weight, secondary=True)]
        p = Problem(robot, goals)
        p.update(goals, x0, 1e-5, 1e-5)
        prob = unpack(p.ibuf, p.fbuf)
        seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
        gi, gf, gw = prob.gi, prob.gf, prob.gw
        n = robot.dof
        frames0, J0 = np.empty((1, 7)), np.empty((6, n))
        fk_jacobians(seg_i, seg_f, out_seg, out_tf, x0, np.empty((max(seg_i.shape[0], 1), 7)), frames0, J0)
        models = np.zeros((2, bio2.MODEL))
        bio2.goal_models(gi, gf, gw, frames0, models, bio2.SQUARE_QUATERNION)
        Q0 = np.empty_like(J0)
        curvature(J0, Q0)
        ex = bio2.Expansion(x0, frames0, J0, Q0, models)

        def cost(x):
            off, gs = np.zeros((1, 6)), goal_scratch(n)
            bio2.offsets(J0, Q0, x0, x[None, :], 0, off, 0)
            bio2.full_score(prob, ex, off, 0, x[None, :], 0, gs, ALL_KINDS)
            return gs.out.copy()

        x = x0 + 0.01
        fx = cost(x)[0]
        f = bio2.line_search(x, fx, ex, prob, goal_scratch(n), line_scratch(n), np.array([5], dtype=np.uint64), 8, 1e-7,
                             bio2.QUADRATIC, False, np.inf, ALL_KINDS)
        assert f < fx and f == pytest.approx(cost(x)[0], rel=1e-9)
        ends[secondary_weight] = x.copy()
    # the secondary cost bends the path: the search ends elsewhere
    assert np.abs(ends[0.0] - ends[0.02]).max() > 1e-6
