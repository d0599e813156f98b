"""`solve_batch`: the same answers as N single solves (bit-identical with an iteration
budget) whatever the thread count, on the compiled one-pose path and on the fallback
(several goals, a callback, a scene); arrays of the right shapes; bad input refused."""

import numpy as np
import pytest

import bioik
from bioik import (BatchResult, CenterJointsGoal, CollisionAvoidanceGoal, GoalBatch, OrientationGoal, PoseGoal,
                   PositionGoal)
from bioik.collision import CoverProof
from bioik.collision.cover_proof import proof_cover
from bioik.solvers import one_call
from bioik.solvers.core.params import ParameterError

ROBOT = bioik.load_robot("ur5")
TIP = ROBOT.tips[0]
N = 24
RNG = np.random.default_rng(19)
POSES = ROBOT.fk(ROBOT.random_configuration(RNG, N), links=[TIP])[:, 0]
SEEDS = ROBOT.random_configuration(RNG, N)
#: Deterministic runs: an iteration budget and a timeout no query reaches.
EXACT = dict(timeout=3600.0, max_iterations=150, random_seed=41)


def singles(goal_lists, seeds, solver="lm", **kw) -> list[bioik.Result]:
    """The N single solves a batch must reproduce: query i with random seed s + i."""
    s = kw.pop("random_seed")
    return [bioik.solve(ROBOT, g, seed=None if seeds is None else seeds[i], solver=solver, random_seed=s + i, **kw)
            for i, g in enumerate(goal_lists)]


def assert_same(batch: BatchResult, results: list[bioik.Result]) -> None:
    """Bit-identical, field by field."""
    assert len(batch) == len(results)
    for i, r in enumerate(results):
        assert batch.q[i].tobytes() == r.q.tobytes(), i
        assert (batch.success[i], batch.cost[i], batch.iterations[i], batch.restarts[i]) == (
            r.success, r.cost, r.iterations, r.restarts), i
        assert batch.goal_errors[i].tobytes() == r.goal_errors.tobytes(), i
        assert (batch.seed_clipped[i], batch.callback_calls[i]) == (r.seed_clipped, r.callback_calls), i
    assert batch.solver == results[0].solver


@pytest.mark.parametrize("solver", ["lm", "bio2_lm"])
@pytest.mark.parametrize("seeded", [True, False], ids=["seeds", "random-starts"])
def test_one_pose_batch_equals_single_solves_at_any_thread_count(solver, seeded):
    seeds = SEEDS if seeded else None
    expected = singles([[PoseGoal(TIP, T)] for T in POSES], seeds, solver, **EXACT)
    batch = GoalBatch([PoseGoal(TIP, POSES[0])], POSES)
    for threads in (1, 2, 3):
        assert_same(bioik.solve_batch(ROBOT, batch, seeds, solver=solver, threads=threads, **EXACT), expected)
    assert sum(r.success for r in expected) > N // 2  # not vacuous


def test_list_of_goal_lists_equals_goal_batch_and_singles():
    goals = [[PoseGoal(TIP, T, weight=0.5, position_tolerance=1e-4)] for T in POSES]
    expected = singles(goals, SEEDS, **EXACT)
    assert_same(bioik.solve_batch(ROBOT, goals, SEEDS, threads=2, **EXACT), expected)
    template = [PoseGoal(TIP, POSES[0], weight=0.5, position_tolerance=1e-4)]
    assert_same(bioik.solve_batch(ROBOT, GoalBatch(template, POSES), SEEDS, threads=2, **EXACT), expected)


def test_position_and_orientation_targets():
    points = POSES[:, :3, 3]
    expected = singles([[PositionGoal(TIP, p)] for p in points], SEEDS, **EXACT)
    assert_same(bioik.solve_batch(ROBOT, GoalBatch([PositionGoal(TIP, points[0])], points), SEEDS, **EXACT), expected)
    rotations = POSES[:, :3, :3]
    expected = singles([[OrientationGoal(TIP, R)] for R in rotations], SEEDS, **EXACT)
    assert_same(bioik.solve_batch(ROBOT, GoalBatch([OrientationGoal(TIP, rotations[0])], rotations), SEEDS, **EXACT),
                expected)


def test_solver_method_and_shapes():
    solver = bioik.Solver(ROBOT, "lm", timeout=0.01)
    res = solver.solve_batch(GoalBatch([PoseGoal(TIP, POSES[0])], POSES), SEEDS[0], threads=2)
    assert res.q.shape == (N, ROBOT.dof) and res.goal_errors.shape == (N, 1, 2)
    for a in (res.success, res.seed_clipped):
        assert a.shape == (N,) and a.dtype == bool
    for a in (res.cost, res.time, res.iterations, res.restarts, res.callback_calls):
        assert a.shape == (N,)
    assert np.all(res.time > 0) and res.success.all()
    assert np.all((res.q >= ROBOT.lower) & (res.q <= ROBOT.upper))
    errors = [np.linalg.norm(ROBOT.link_pose(q, TIP)[:3, 3] - T[:3, 3]) for q, T in zip(res.q, POSES)]
    assert max(errors) <= 1e-5


def test_several_goals_per_query():
    """Two varied goals and a fixed secondary one: the general search, on threads."""
    points = POSES[:, :3, 3]
    elbow = ROBOT.fk(ROBOT.random_configuration(RNG, N), links=["forearm_link"])[:, 0, :3, 3]
    template = [PositionGoal(TIP, points[0]), PositionGoal("forearm_link", elbow[0], weight=0.1),
                CenterJointsGoal(weight=0.01, secondary=True)]
    batch = GoalBatch(template, {0: points, 1: elbow})
    expected = singles([batch.query(i) for i in range(N)], SEEDS, **EXACT)
    for threads in (1, 2):
        res = bioik.solve_batch(ROBOT, batch, SEEDS, threads=threads, **EXACT)
        assert res.goal_errors.shape == (N, 3, 2)
        assert_same(res, expected)


def test_callback_batch():
    """A callback that rejects answers with a positive first joint: the fallback runs `solve`
    per query (rejection sampling), the same answers on one thread or two."""
    def negative_base(q):
        return bool(q[0] < 0.0)

    goals = [[PoseGoal(TIP, T)] for T in POSES[:8]]
    expected = singles(goals, SEEDS[:8], callback=negative_base, **EXACT)
    for threads in (1, 2):
        res = bioik.solve_batch(ROBOT, goals, SEEDS[:8], callback=negative_base, threads=threads, **EXACT)
        assert_same(res, expected)
    assert np.all(res.callback_calls >= 1) and np.all(res.q[res.success, 0] < 0.0)


def test_a_batch_inside_a_batch_callback_finishes_and_errors_reach_the_caller():
    """The batch threads are shared between calls: a callback that runs a batch of its own
    (on a pool thread, while the pool is busy) must not wait on the pool forever, and a
    callback's error stops the batch and is raised to the caller."""
    inner = GoalBatch([PoseGoal(TIP, POSES[0])], POSES[:4])

    def nested(q):
        return bool(bioik.solve_batch(ROBOT, inner, SEEDS[:4], threads=2, **EXACT).success.all())

    goals = [[PoseGoal(TIP, T)] for T in POSES[:6]]
    res = bioik.solve_batch(ROBOT, goals, SEEDS[:6], callback=nested, threads=2, **EXACT)
    assert res.success.all() and np.all(res.callback_calls == 1)

    def broken(q):
        raise RuntimeError("callback broke")

    with pytest.raises(RuntimeError, match="callback broke"):
        bioik.solve_batch(ROBOT, goals, SEEDS[:6], callback=broken, threads=2, **EXACT)


def post_scene() -> tuple[bioik.Scene, bioik.CollisionChecker]:
    """A post beside ur5, and its exact checker."""
    scene = bioik.Scene()
    box = np.eye(4)
    box[:3, 3] = (0.45, 0.2, 0.15)
    scene.add_box("post", (0.1, 0.1, 0.3), box)
    return scene, bioik.CollisionChecker(ROBOT, scene)


def test_scene_batch_is_collision_free_and_equals_single_solves():
    scene, checker = post_scene()
    targets = [T for T in POSES if T[2, 3] > 0.1][:6]
    goals = [[PoseGoal(TIP, T)] for T in targets]
    expected = singles(goals, SEEDS[:6], scene=scene, **EXACT)
    res = bioik.solve_batch(ROBOT, goals, SEEDS[:6], scene=scene, threads=2, **EXACT)
    assert_same(res, expected)
    assert res.success.any()
    assert all(checker.is_free(q) for q in res.q[res.success])
    template = [PoseGoal(TIP, targets[0]), CollisionAvoidanceGoal(scene)]
    res = bioik.solve_batch(ROBOT, GoalBatch(template, np.array(targets)), SEEDS[:6], threads=2, **EXACT)
    assert all(checker.is_free(q) for q in res.q[res.success])


def test_a_timed_scene_batch_tries_free_in_compiled_chunks_and_answers_clear(monkeypatch):
    scene, checker = post_scene()
    targets = np.array([T for T in POSES if T[2, 3] > 0.1])
    n = len(targets)
    solves = []
    solve = bioik.Solver.solve
    monkeypatch.setattr(bioik.Solver, "solve", lambda self, *a, **k: solves.append(1) or solve(self, *a, **k))
    res = bioik.solve_batch(ROBOT, GoalBatch([PoseGoal(TIP, targets[0])], targets), SEEDS[:n], scene=scene, threads=2,
                            timeout=1.0, random_seed=3)
    assert res.success.all() and all(checker.is_free(q) for q in res.q)
    assert res.goal_errors.shape == (n, 2, 2)  # the pose goal's and the scene's collision goal's
    assert np.all(res.callback_calls >= 1) and np.all(res.iterations >= 1)
    assert len(solves) < n // 2  # the rest were cleared by the cover's proof, with no solve call
    for i in np.flatnonzero(res.iterations <= 10)[:3]:  # a proven answer's errors are the acceptance test's own
        one = bioik.solve(ROBOT, [PoseGoal(TIP, targets[i])], res.q[i], scene=scene, max_iterations=1)
        assert np.allclose(one.goal_errors, res.goal_errors[i], atol=1e-12)


def test_a_timed_scene_batch_gives_the_single_solves_proven_answers(monkeypatch):
    """With the clock out of the free tries' way, a query whose single solve (random seed
    `random_seed + i`) ends on a free answer the cover proves clear gets that answer from
    the batch, bit for bit: the same tries, seeds, proof and acceptance test, in one
    compiled call per chunk."""
    monkeypatch.setattr(one_call, "FREE_FIRST_TIME", 60.0)
    scene, checker = post_scene()
    proof = CoverProof(ROBOT, proof_cover(ROBOT), scene, 0.0, (), checker.acm)
    targets = np.array([T for T in POSES if T[2, 3] > 0.1])
    n = len(targets)
    batch = GoalBatch([PoseGoal(TIP, targets[0])], targets)
    for seeds in (SEEDS[:n], None):
        res = bioik.solve_batch(ROBOT, batch, seeds, scene=scene, threads=2, timeout=1.0, random_seed=7)
        assert res.success.all()
        same = 0
        for i in range(n):
            r = bioik.solve(ROBOT, [PoseGoal(TIP, targets[i])], None if seeds is None else seeds[i], scene=scene,
                            timeout=1.0, random_seed=7 + i)
            if r.iterations > one_call.FREE_FIRST_ITERATIONS or proof.unproven(r.q) != 0:
                continue  # the collision-cost search's answer (timed), or one coal cleared
            same += 1
            assert res.q[i].tobytes() == r.q.tobytes(), i
            assert (res.iterations[i], res.restarts[i], res.callback_calls[i], res.seed_clipped[i]) == (
                r.iterations, r.restarts, r.callback_calls, r.seed_clipped), i
            assert res.goal_errors[i].tobytes() == r.goal_errors.tobytes() and res.cost[i] == r.cost, i
        assert same >= n // 2


def test_a_scene_batch_solves_the_queries_with_no_proven_answer_in_place(monkeypatch):
    """Queries whose free answers the proof cannot clear go on as whole solves inside their
    chunk, and each result lands at its own query's index, whatever thread solved it. Here
    the proof sees a phantom wall at x > 0.2 m that coal does not: answers reaching past it
    are left to whole solves."""
    scene, checker = post_scene()
    targets = np.array([T for T in POSES if T[2, 3] > 0.1])
    n = len(targets)
    phantom = post_scene()[0]
    wall = np.eye(4)
    wall[0, 3] = 1.2
    phantom.add_box("wall", (2.0, 3.0, 3.0), wall)
    seen = CoverProof(ROBOT, proof_cover(ROBOT), phantom, 0.0, (), checker.acm)
    arguments = CoverProof.arguments
    monkeypatch.setattr(CoverProof, "arguments", lambda self: arguments(seen))
    solves = []
    solve = bioik.Solver.solve
    monkeypatch.setattr(bioik.Solver, "solve", lambda self, *a, **k: solves.append(a[0][0].pose) or solve(self, *a, **k))
    res = bioik.solve_batch(ROBOT, GoalBatch([PoseGoal(TIP, targets[0])], targets), SEEDS[:n], scene=scene, threads=2,
                            timeout=1.0, random_seed=5)
    assert 0 < len(solves) < n
    assert res.success.all() and all(checker.is_free(q) for q in res.q)
    reached = ROBOT.fk(res.q, links=[TIP])[:, 0]
    assert np.allclose(reached[:, :3, 3], targets[:, :3, 3], atol=1e-4)  # each answer reaches its own target
    assert np.all(res.goal_errors[:, 0, 0] <= 1e-5)
    whole = np.array([any(np.array_equal(t, T) for t in solves) for T in targets])
    assert all(seen.unproven(q) == 0 for q in res.q[~whole])  # a batch answer: clear of the wall too
    assert any(seen.unproven(q) != 0 for q in res.q[whole])  # a whole solve's: past it
    assert np.all(res.callback_calls >= 1)


def test_timeout_is_per_query():
    res = bioik.solve_batch(ROBOT, GoalBatch([PoseGoal(TIP, POSES[0])], POSES), timeout=0.002, threads=1)
    assert res.time.max() < 0.05  # each query has its own 2 ms (plus what the machine steals)


BATCH = GoalBatch([PoseGoal(TIP, POSES[0])], POSES)


@pytest.mark.parametrize("call, error, match", [
    (lambda: bioik.solve_batch(ROBOT, BATCH, SEEDS[:5]), ValueError, r"seeds must have shape \(24, 6\)"),
    (lambda: bioik.solve_batch(ROBOT, BATCH, SEEDS[:, :3]), ValueError, "seeds must have shape"),
    (lambda: bioik.solve_batch(ROBOT, BATCH, np.where(np.arange(N)[:, None] == 7, np.nan, SEEDS)), ValueError,
     r"seeds\[7\] contains NaN"),
    (lambda: bioik.solve_batch(ROBOT, BATCH, timeout=0.0), ParameterError, "timeout"),
    (lambda: bioik.solve_batch(ROBOT, BATCH, timeout=-1.0), ParameterError, "timeout"),
    (lambda: bioik.solve_batch(ROBOT, BATCH, threads=0), ValueError, "threads must be an int >= 1"),
    (lambda: bioik.solve_batch(ROBOT, BATCH, threads=True), ValueError, "threads must be an int >= 1"),
    (lambda: bioik.solve_batch(ROBOT, BATCH, max_iterations=0), ParameterError, "max_iterations"),
    (lambda: bioik.solve_batch(ROBOT, [], SEEDS), ValueError, "no queries"),
    (lambda: bioik.solve_batch(ROBOT, PoseGoal(TIP, POSES[0])), TypeError, "GoalBatch or a list of goal lists"),
    (lambda: bioik.solve_batch(ROBOT, [[PoseGoal(TIP, POSES[0])], []]), ValueError, "one goal structure"),
    (lambda: bioik.solve_batch(ROBOT, GoalBatch([PoseGoal(TIP, POSES[0])], POSES[:, :3])), ValueError,
     r"N 4×4 poses .* got shape \(24, 3, 4\)"),
    (lambda: bioik.solve_batch(ROBOT, GoalBatch([PoseGoal(TIP, POSES[0])], np.where(np.arange(N)[:, None, None] == 3,
                                                                                   np.nan, POSES))),
     ValueError, r"targets\[3\]: pose contains NaN"),
    (lambda: bioik.solve_batch(ROBOT, GoalBatch([PositionGoal(TIP, POSES[0, :3, 3])], [[0, 0, np.inf]])), ValueError,
     r"targets\[0\]: PositionGoal: position contains NaN or inf"),
    (lambda: GoalBatch([PoseGoal(TIP, POSES[0]), PositionGoal(TIP, (0, 0, 0))], {0: POSES, 1: POSES[:3, :3, 3]}),
     ValueError, "differ in number"),
    (lambda: GoalBatch([PoseGoal(TIP, POSES[0])], {1: POSES}), ValueError, "not the index of a goal"),
    (lambda: GoalBatch([CenterJointsGoal()], POSES), TypeError, "has no target to vary"),
])
def test_bad_input_is_refused_clearly(call, error, match):
    with pytest.raises(error, match=match):
        call()
