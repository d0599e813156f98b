"""The general search near obstacles: a slice's best answer is polished on the other goals
and counts when the exact check finds it free (`bioik.solvers.search`)."""

import dataclasses

import numpy as np
import pytest

import bioik
from bioik.solvers import search


def near_targets(robot, n: int, gap: float = 0.001):
    """n (configuration, scene) pairs: a box under the tip whose nearest point is `gap` from
    the robot's real geometry at the configuration (the covers reach into it)."""
    rng = np.random.default_rng(3)
    out = []
    while len(out) < n:
        q = robot.random_configuration(rng)
        T = np.eye(4)
        T[:3, 3] = robot.link_pose(q, robot.tips[0])[:3, 3] + [0.0, 0.0, -0.5]
        scene = bioik.Scene()
        scene.add_box("slab", (0.2, 0.2, 0.2), T)
        checker = bioik.CollisionChecker(robot, scene)
        if not checker.is_free(q):
            continue
        T[2, 3] += min(c.distance for c in checker.closest(q, k=50) if c.b == "slab") - gap
        scene.move("slab", T)
        if bioik.CollisionChecker(robot, scene).is_free(q):
            out.append((q, scene))
    return out


@pytest.fixture(scope="module")
def ur5():
    return bioik.load_robot("ur5")


def test_a_pose_a_millimetre_above_a_box_is_reached(ur5, monkeypatch):
    """Seeded at a witness 1 mm clear of the box, with an iteration budget: the covers alone
    settle off the pose on some targets; with the polish every one is solved and free."""
    targets = near_targets(ur5, 12)
    solved = {}
    for first in (10**9, search.FIRST_SLICE_ITERATIONS):  # a first slice past the budget: no polish
        monkeypatch.setattr(search, "FIRST_SLICE_ITERATIONS", first)
        solved[first] = 0
        for q, scene in targets:
            res = bioik.solve(ur5, [bioik.PoseGoal(ur5.tips[0], ur5.link_pose(q, ur5.tips[0]))], seed=q, scene=scene,
                              max_iterations=400, random_seed=0)
            assert not res.success or bioik.CollisionChecker(ur5, scene).is_free(res.q)
            solved[first] += res.success
    # measured: 6 of 12 without the polish, 12 of 12 with it
    assert solved[10**9] <= 9 and solved[64] == 12, solved


def test_the_polish_never_accepts_a_colliding_answer(ur5):
    """Targets whose witness is 1 mm *inside* the box: whatever is returned as a success is
    free by the exact check."""
    for q, scene in near_targets(ur5, 8, gap=-0.001):
        res = bioik.solve(ur5, [bioik.PoseGoal(ur5.tips[0], ur5.link_pose(q, ur5.tips[0]))], seed=q, scene=scene,
                          max_iterations=400, random_seed=0)
        assert not res.success or bioik.CollisionChecker(ur5, scene).is_free(res.q)



def python_loop(solver: bioik.Solver) -> bioik.Solver:
    """The same solver with the search among obstacles run from Python (`GeneralPath._search`'s loop)."""
    solver.family = dataclasses.replace(solver.family, scene_search=None)
    return solver


def same(a, b) -> bool:
    """Bit-identical results (all but the time)."""
    return (np.array_equal(a.q, b.q) and a.success == b.success and a.iterations == b.iterations
            and a.restarts == b.restarts and a.callback_calls == b.callback_calls and a.seed_clipped == b.seed_clipped
            and np.array_equal(a.goal_errors, b.goal_errors) and a.cost == b.cost and a.primary_cost == b.primary_cost)


def test_the_compiled_search_among_obstacles_is_the_python_loop_bit_for_bit(ur5, monkeypatch):
    """With an iteration budget, the compiled sliced search (`bioik.solvers.core.scene_search`)
    gives what `_search`'s Python loop gives, bit for bit: from witnesses 1 mm clear of a box
    and 1 mm inside it (polished answers, answers the cover leaves to coal, failures), from
    random starts, and with a user callback that rejects answers (the rejected answer, the
    restarts after it, the callback's last word)."""
    compiled, loop = bioik.Solver(ur5, "lm"), python_loop(bioik.Solver(ur5, "lm"))
    calls = []
    run = compiled._search_compiled
    monkeypatch.setattr(compiled, "_search_compiled", lambda *a, **k: calls.append(1) or run(*a, **k))
    outcomes = {"polished": 0, "failed": 0, "rejected": 0}

    def user(q):  # rejects half of all answers, by the answer alone
        return bool(np.sin(1e4 * q[0]) > 0.0)

    pairs = near_targets(ur5, 6) + near_targets(ur5, 6, gap=-0.001)
    for i, (q, scene) in enumerate(pairs):
        goals = [bioik.PoseGoal(ur5.tips[0], ur5.link_pose(q, ur5.tips[0]))]
        for seed, callback in ((q, None), (None, None), (q, user)):
            kwargs = dict(seed=seed, scene=scene, max_iterations=300, random_seed=i, callback=callback)
            a, b = compiled.solve(goals, **kwargs), loop.solve(goals, **kwargs)
            assert same(a, b), (i, seed is None, callback is None, a, b)
            outcomes["failed"] += not a.success
            outcomes["rejected"] += callback is not None and a.callback_calls > 1
            outcomes["polished"] += a.success and a.goal_errors[1, 0] > 0.0  # the covers still touch
    assert len(calls) == 3 * len(pairs)
    assert all(v > 0 for v in outcomes.values()), outcomes


@pytest.mark.parametrize("name", ["panda", "dual_ur5"])
def test_the_compiled_search_is_the_python_loop_for_several_goals(name):
    """A pose goal for each of up to two tips and a secondary minimal-displacement goal
    among a box and a ball that keep clear of a witness (the general goal set; dual_ur5's
    two arms are independent sub-problems): compiled and Python loop agree bit for bit,
    from a perturbed witness and from random starts. The timeout is long so that only
    the iteration budget ends a search."""
    robot = bioik.load_robot(name)
    rng = np.random.default_rng(5)
    compiled, loop = bioik.Solver(robot, "lm"), python_loop(bioik.Solver(robot, "lm"))
    solved = runs = 0
    while runs < 8:
        q = robot.random_configuration(rng)
        tip = robot.link_pose(q, robot.tips[0])[:3, 3]
        scene = bioik.Scene()
        for obstacle, offset in (("box", [0.0, 0.0, -0.25]), ("ball", rng.normal(0.0, 0.3, 3))):
            T = np.eye(4)
            T[:3, 3] = tip + offset + rng.normal(0.0, 0.15, 3)
            scene.add_box(obstacle, (0.2, 0.2, 0.05), T) if obstacle == "box" else scene.add_sphere(obstacle, 0.08, T)
        if not bioik.CollisionChecker(robot, scene).is_free(q):
            continue
        goals = [bioik.PoseGoal(t, robot.link_pose(q, t)) for t in robot.tips[:2]] + [bioik.MinimalDisplacementGoal(secondary=True)]
        for seed in (q + rng.normal(0.0, 0.3, robot.dof), None):
            kwargs = dict(seed=seed, scene=scene, max_iterations=400, random_seed=runs, timeout=30.0)
            a, b = compiled.solve(goals, **kwargs), loop.solve(goals, **kwargs)
            assert same(a, b), (runs, seed is None, a, b)
            solved += a.success
            runs += 1
    assert solved >= 2, solved
