"""Solving with a scene: every solver that takes the collision goal returns a success only
when coal's exact check finds the answer collision-free; a target inside an obstacle fails
honestly; the user's callback still has the last word (deterministic: iteration budgets)."""

import numpy as np
import pytest

import bioik
from bioik import CollisionAvoidanceGoal, PoseGoal, PositionGoal, UnsupportedGoalsError

ROBOT = bioik.load_robot("ur5")
TIP = ROBOT.tips[0]
ALLOWED = [("base_link", "table"), ("shoulder_link", "table")]


def pose(x, y, z):
    T = np.eye(4)
    T[:3, 3] = (x, y, z)
    return T


def table_and_boxes(top: float = 0.0) -> bioik.Scene:
    """A table whose top is at height `top` (the robot stands on it at 0) and three posts."""
    scene = bioik.Scene()
    scene.add_box("table", (1.6, 1.6, 0.04), pose(0, 0, top - 0.02))
    scene.add_box("b1", (0.1, 0.1, 0.3), pose(0.45, 0.2, 0.15))
    scene.add_box("b2", (0.1, 0.1, 0.3), pose(-0.3, 0.45, 0.15))
    scene.add_box("b3", (0.1, 0.1, 0.3), pose(0.1, -0.5, 0.15))
    return scene


SCENE = table_and_boxes()
#: The table 2 cm lower: the robot's base does not touch it, so no pair must be allowed.
LOWER = table_and_boxes(top=-0.02)


@pytest.fixture(scope="module")
def checker():
    return bioik.CollisionChecker(ROBOT, SCENE, allowed=ALLOWED)


@pytest.fixture(scope="module")
def targets(checker):
    """Tip poses above the table with a collision-free witness, and random seeds."""
    rng = np.random.default_rng(4)
    out = []
    while len(out) < 4:
        q = ROBOT.random_configuration(rng)
        T = ROBOT.link_pose(q, TIP)
        if T[2, 3] > 0.05 and checker.is_free(q):
            out.append((T, ROBOT.random_configuration(rng)))
    return out


@pytest.mark.parametrize("solver", bioik.solvers.registry.untrained_names())
def test_no_success_collides(solver, checker, targets):
    goal = CollisionAvoidanceGoal(SCENE, allowed=ALLOWED)
    solved = 0
    for k, (T, seed) in enumerate(targets):
        try:
            res = bioik.solve(ROBOT, [PoseGoal(TIP, T), goal], seed=seed, solver=solver, timeout=3600.0,
                              max_iterations=300, random_seed=k)
        except UnsupportedGoalsError:
            # pose-only solvers: rejection sampling with the exact check only [E 8.1]
            assert solver not in ("lm", "bio2_lm", "bio2_memetic", "bio1", "gd"), solver
            res = bioik.solve(ROBOT, [PoseGoal(TIP, T)], scene=LOWER, seed=seed, solver=solver, timeout=3600.0,
                              max_iterations=300, random_seed=k)
            if res.success:
                assert bioik.CollisionChecker(ROBOT, LOWER).is_free(res.q), solver
        assert np.all(res.q >= ROBOT.lower) and np.all(res.q <= ROBOT.upper)
        if res.success:
            solved += 1
            assert checker.is_free(res.q), (solver, k, checker.contacts(res.q, 3))
            assert np.linalg.norm(ROBOT.link_pose(res.q, TIP)[:3, 3] - T[:3, 3]) <= 1e-5
    if solver in ("lm", "bio2_lm"):
        assert solved == len(targets), solver


def test_scene_argument_adds_the_goal_and_the_exact_check(checker, targets):
    calls = []

    def callback(q):
        calls.append(q.copy())
        assert checker.is_free(q), "the user's callback sees only collision-free answers"
        return True

    T, seed = targets[0]
    # without allowed pairs the fixed base touches the table top: every answer would collide, and
    # the solve says so before searching
    with pytest.raises(bioik.SceneError, match=r"link 'base_link' of robot 'ur5' touches obstacle 'table'.*allow_contact"):
        bioik.solve(ROBOT, [PoseGoal(TIP, T)], seed=seed, scene=SCENE, timeout=3600.0, max_iterations=500,
                    random_seed=0, callback=lambda q: callback(q))
    assert not calls
    res = bioik.solve(ROBOT, [PoseGoal(TIP, T), CollisionAvoidanceGoal(SCENE, allowed=ALLOWED)], seed=seed,
                      scene=SCENE, timeout=3600.0, max_iterations=500, random_seed=0, callback=callback)
    assert res.success and len(calls) >= 1 and checker.is_free(res.q)


def test_user_callback_rejection_still_counts(targets):
    T, seed = targets[1]
    res = bioik.solve(ROBOT, [PoseGoal(TIP, T), CollisionAvoidanceGoal(SCENE, allowed=ALLOWED)], seed=seed,
                      timeout=3600.0, max_iterations=200, random_seed=0, callback=lambda q: False)
    assert not res.success and res.callback_calls >= 1


@pytest.mark.parametrize("solver", ["lm", "bio2_lm"])
def test_target_inside_an_obstacle_fails_honestly(solver):
    goal = PositionGoal(TIP, (0.45, 0.2, 0.15))  # the centre of box b1
    res = bioik.solve(ROBOT, [goal, CollisionAvoidanceGoal(SCENE, allowed=ALLOWED)], seed=ROBOT.center(),
                      solver=solver, timeout=3600.0, max_iterations=300, random_seed=1)
    assert not res.success
    # the same target is reachable when the box is not there
    free = bioik.solve(ROBOT, [goal], seed=ROBOT.center(), solver=solver, timeout=3600.0, max_iterations=300, random_seed=1)
    assert free.success


def test_moving_an_obstacle_between_solves(checker, targets):
    scene = table_and_boxes()
    goal = CollisionAvoidanceGoal(scene, allowed=ALLOWED)
    T, seed = targets[2]
    first = bioik.solve(ROBOT, [PoseGoal(TIP, T), goal], seed=seed, timeout=3600.0, max_iterations=300, random_seed=0)
    assert first.success
    # put box b1 around the tip of that answer: the next solve must find another way or fail
    scene.move("b1", pose(*ROBOT.link_pose(first.q, TIP)[:3, 3]))
    moved = bioik.CollisionChecker(ROBOT, scene, allowed=ALLOWED)
    assert not moved.is_free(first.q)
    second = bioik.solve(ROBOT, [PoseGoal(TIP, T), goal], seed=first.q, timeout=3600.0, max_iterations=300, random_seed=0)
    assert not second.success


def test_bad_scene_argument():
    with pytest.raises(TypeError, match="scene must be a bioik.Scene"):
        bioik.solve(ROBOT, [PositionGoal(TIP, (0.3, 0.2, 0.4))], scene="scene.toml", timeout=0.01)


def test_contacts_the_scene_allows_need_no_goal_of_your_own(checker, targets):
    scene = table_and_boxes()
    scene.allow_contact("table", "base_link", "shoulder_link")
    T, seed = targets[0]
    res = bioik.solve(ROBOT, [PoseGoal(TIP, T)], seed=seed, scene=scene, timeout=3600.0, max_iterations=500, random_seed=0)
    assert res.success and checker.is_free(res.q)
    assert bioik.CollisionChecker(ROBOT, scene).is_free(res.q)  # the checker reads the scene's contacts too
