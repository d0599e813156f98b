"""bio2's ablation switches [R Tables 3.8–3.14]: each changes what it names, and only that.
Iteration budgets, no clock."""

import numpy as np
import pytest

import bioik
from bioik.goals.kernels import ALL_KINDS
from bioik.kinematics.extrapolate import curvature
from bioik.kinematics.frames import qmul
from bioik.kinematics.jacobian import fk_jacobians
from bioik.problem import Problem
from bioik.problem.layout import unpack
from bioik.solvers.evolutionary import bio2


@pytest.fixture(scope="module")
def ur5_model():
    """ur5, a pose goal and the step's model around a random configuration."""
    robot = bioik.load_robot("ur5")
    rng = np.random.default_rng(3)
    p = Problem(robot, [bioik.PoseGoal(robot.tips[0], robot.link_pose(robot.random_configuration(rng), robot.tips[0]))])
    prob = unpack(p.ibuf, p.fbuf)
    x0 = robot.random_configuration(rng)
    frames0, J0, Q0 = np.empty((1, 7)), np.empty((6, robot.dof)), np.empty((6, robot.dof))
    fk_jacobians(prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf, x0, np.empty((max(prob.seg_i.shape[0], 1), 7)), frames0, J0)
    models = np.zeros((1, bio2.MODEL))
    bio2.goal_models(prob.gi, prob.gf, prob.gw, frames0, models, bio2.SQUARE_QUATERNION)
    curvature(J0, Q0)
    return prob, bio2.Expansion(x0, frames0, J0, Q0, models)


def evolve_with(ur5_model, mom_mix, per_gene=False, gens=20, pose_only=True, rotation=bio2.SQUARE_QUATERNION):
    """Two individuals near the model's x0 after `gens` generations of `evolve` (the model's
    rotation distance set to `rotation`)."""
    prob, ex = ur5_model
    ex = ex._replace(models=ex.models.copy())
    ex.models[:, 21] = rotation
    n = ex.x0.shape[0]
    genes = np.tile(ex.x0, (2, 1))
    genes[1] += 0.01
    poff, fit, f2 = np.zeros((2, 6)), np.empty(2), np.empty(2)
    for k in range(2):
        bio2.offsets(ex.J0, ex.Q0, ex.x0, genes, k, poff, k)
        bio2.pose_score(prob.gi, ex.models, poff, k, f2)
        fit[k] = f2[0]
    pop = bio2.Species(genes, np.zeros((2, n)), fit, poff)
    gs = bio2.GoalScratch(np.empty((1, 7)), np.empty(8), np.empty((8, n)), np.empty((32, 3)), np.empty(2))
    bio2.evolve(pop, bio2.pool_scratch(2, 16, n, 6), ex, prob, gs, bio2.NORMALS, np.array([11], dtype=np.uint64), gens,
                mom_mix, per_gene, False, pose_only, np.inf, ALL_KINDS)
    return pop


def test_per_gene_mutation_draws_a_rate_per_gene():
    """Per child, every gene shares one rate (the first row, drawn as `draw_rates` draws it);
    per gene, the rates of a child differ."""
    n, C = 6, 16
    shared, per_gene, row = np.empty((n, C)), np.empty((n, C)), np.empty(C)
    bio2.draw_rates(np.array([5], dtype=np.uint64), row)
    bio2.draw_mutation_rates(np.array([5], dtype=np.uint64), shared, False)
    bio2.draw_mutation_rates(np.array([5], dtype=np.uint64), per_gene, True)
    np.testing.assert_array_equal(shared, np.tile(row, (n, 1)))
    np.testing.assert_array_equal(per_gene[0], row)
    assert all(len(set(per_gene[:, c])) > 1 for c in range(C))
    for rates in (shared, per_gene):
        k = np.log2(rates * 2.0**23)
        assert np.all((k == np.round(k)) & (k >= 0) & (k < 16))


def test_per_gene_mutation_changes_the_children(ur5_model):
    a, b = evolve_with(ur5_model, 0.3), evolve_with(ur5_model, 0.3, per_gene=True)
    assert not np.array_equal(a.genes, b.genes)


def test_no_momentum_mix_keeps_the_momenta_at_zero(ur5_model):
    """`momentum_mix` 0 is [R Table 3.12]'s "without particle swarm": the momenta stay zero
    while the population moves."""
    assert np.any(evolve_with(ur5_model, 0.3).moms != 0.0)
    pop = evolve_with(ur5_model, 0.0)
    assert np.all(pop.moms == 0.0) and not np.all(pop.genes[0] == ur5_model[1].x0)


@pytest.mark.parametrize("kind", [bio2.SQUARE_QUATERNION, bio2.NORM_DOT, bio2.SQUARE_ANGLE])
def test_every_rotation_distance_scores_children_alike_in_both_scorers(ur5_model, kind):
    """The children's SIMD scorer (the square quaternion distance as a constant,
    `square_quaternion_model`) and the general one give the same population."""
    a, b = evolve_with(ur5_model, 0.3, rotation=kind), evolve_with(ur5_model, 0.3, pose_only=False, rotation=kind)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    if kind != bio2.SQUARE_QUATERNION:
        assert not np.array_equal(a.genes, evolve_with(ur5_model, 0.3).genes)


def test_random_init_starts_every_individual_at_a_random_configuration():
    rng = np.random.default_rng(1)
    lo, hi = -np.ones(5), np.array([1.0, 2, 3, 4, 5])
    q = rng.uniform(lo, hi)
    seeded = bio2.initial_genes(q, 2, 2, 3, 0, False, False, np.array([3], dtype=np.uint64), lo, hi)
    assert np.all(seeded == q)
    genes = bio2.initial_genes(q, 2, 2, 3, 0, False, True, np.array([3], dtype=np.uint64), lo, hi).reshape(-1, 5)
    assert not np.any(np.all(genes == q, axis=1))
    assert len({tuple(g) for g in genes}) == 12 and np.all((genes >= lo) & (genes <= hi))


def unreachable(robot_name="ur5"):
    robot = bioik.load_robot(robot_name)
    T = np.eye(4)
    T[:3, 3] = [5.0, 0.0, 0.0]  # far beyond the reach: every step stalls somewhere
    return robot, [bioik.PoseGoal(robot.tips[0], T)]


def test_wipeouts_off_never_wipes():
    robot, goals = unreachable()
    kw = dict(solver="bio2_memetic", seed=np.zeros(robot.dof), max_iterations=60, timeout=100.0, random_seed=4)
    assert bioik.solve(robot, goals, **kw).restarts > 0
    res = bioik.solve(robot, goals, wipeouts=0, **kw)
    assert res.restarts == 0 and res.iterations == 60


def test_the_default_switches_are_the_full_algorithm():
    """Stating every default explicitly changes nothing (seeded: the same answer)."""
    robot, goals = unreachable()
    kw = dict(solver="bio2_memetic", seed=np.zeros(robot.dof), max_iterations=30, timeout=100.0, random_seed=9)
    a = bioik.solve(robot, goals, **kw)
    b = bioik.solve(robot, goals, per_gene_mutation=0, wipeouts=1, random_init=0, rotation_distance=0, **kw)
    np.testing.assert_array_equal(a.q, b.q)
    c = bioik.solve(robot, goals, rotation_distance=2, **kw)
    assert not np.array_equal(a.q, c.q)


def expected_distance(u, t, kind):
    """[R 3.8]'s measures in numpy: square quaternion distance, norm and dot product, square angle."""
    if kind == bio2.SQUARE_QUATERNION:
        return min(np.sum((u - t) ** 2), np.sum((u + t) ** 2))
    dot = abs(np.dot(u / np.linalg.norm(u), t))
    if kind == bio2.NORM_DOT:
        return 1.0 - dot
    # the angle between the rotations, from the half-angle's sine (accurate at small angles too)
    half = np.linalg.norm(u / np.linalg.norm(u) - np.sign(np.dot(u, t)) * t) / 2.0
    return (4.0 * np.arcsin(half)) ** 2


@pytest.mark.parametrize("kind", [bio2.SQUARE_QUATERNION, bio2.NORM_DOT, bio2.SQUARE_ANGLE])
def test_rotation_distances_match_their_formulas(kind):
    """`rotation_distance` from (s, v) = t* ⊗ u against numpy on u, t directly, for
    unnormalised u from far away to near the target, and the same for −u."""
    rng = np.random.default_rng(kind)
    for trial in range(500):
        t = rng.normal(size=4)
        t /= np.linalg.norm(t)
        u = t + rng.normal(size=4) * 10.0 ** rng.uniform(-4, 1)
        for sign in (1.0, -1.0):
            s, v1, v2, v3 = qmul(t[0], -t[1], -t[2], -t[3], *(sign * u))
            got = bio2.rotation_distance(s, v1, v2, v3, kind)
            assert got == pytest.approx(expected_distance(sign * u, t, kind), rel=1e-7, abs=1e-14), (trial, sign)


@pytest.mark.parametrize("kind", [bio2.SQUARE_QUATERNION, bio2.NORM_DOT, bio2.SQUARE_ANGLE])
def test_model_cost_uses_the_rows_rotation_distance(kind):
    """`goal_models(…, kind)`: the model's cost is the weighted position error plus the
    weighted rotation distance of the extrapolated (unnormalised) quaternion."""
    rng = np.random.default_rng(10 + kind)
    robot = bioik.load_robot("iiwa14")
    tip = robot.tips[0]
    for trial in range(50):
        T = robot.link_pose(robot.random_configuration(rng), tip)
        p = Problem(robot, [bioik.PoseGoal(tip, T, weight=1.7)])
        prob = unpack(p.ibuf, p.fbuf)
        gi, gf, gw = prob.gi, prob.gf, prob.gw
        frames0 = np.empty((1, 7))
        frames0[0, :3] = gf[0, :3] + rng.normal(size=3) * 0.1
        q = rng.normal(size=4)
        frames0[0, 3:] = q / np.linalg.norm(q)
        models = np.zeros((1, bio2.MODEL))
        bio2.goal_models(gi, gf, gw, frames0, models, kind)
        o = rng.normal(size=6) * 10.0 ** rng.uniform(-6, -1)
        u = frames0[0, 3:] + 0.5 * np.array(qmul(0.0, *o[3:], *frames0[0, 3:]))
        wp, wr = models[0, 3], models[0, 4]
        expected = wp * np.sum((frames0[0, :3] + o[:3] - gf[0, :3]) ** 2) + wr * expected_distance(u, gf[0, 3:7], kind)
        assert bio2.model_cost(bio2.goal_model(models, 0), *o) == pytest.approx(expected, rel=1e-6, abs=1e-20), trial
