"""The single-goal fast path of `lm` is the same search as the general `lm` kernel.

`bioik.solve` takes the fast path for one primary pose-type goal without a callback; an
accepting callback forces the general path, so the two can be compared step for step.
"""

import numpy as np
import pytest

import bioik
from bioik.solvers import result
from bioik.solvers.registry import Family


@pytest.fixture(scope="module")
def ur5():
    return bioik.load_robot("ur5")


def goal_of(kind, robot, q, tip):
    T = robot.link_pose(q, tip)
    if kind == "pose":
        return bioik.PoseGoal(tip, T, rotation_scale=0.7)
    if kind == "position":
        return bioik.PositionGoal(tip, T[:3, 3])
    return bioik.OrientationGoal(tip, T[:3, :3])


@pytest.mark.parametrize("robot_name", ["ur5", "panda", "elise_ur10"])
@pytest.mark.parametrize("kind", ["pose", "position", "orientation"])
@pytest.mark.parametrize("budget", [1, 4, 25])
def test_fast_path_takes_the_same_steps_as_the_general_kernel(robot_name, kind, budget):
    robot = bioik.load_robot(robot_name)
    tip = robot.tips[0]
    rng = np.random.default_rng(3)
    goal = goal_of(kind, robot, robot.random_configuration(rng), tip)
    seed = robot.random_configuration(rng)
    fast = bioik.solve(robot, [goal], seed=seed, max_iterations=budget, random_seed=9, timeout=3600.0)
    general = bioik.solve(robot, [goal], seed=seed, max_iterations=budget, random_seed=9, timeout=3600.0, callback=lambda q: True)
    assert fast.iterations == general.iterations
    assert fast.restarts == general.restarts
    np.testing.assert_allclose(fast.q, general.q, atol=1e-9)
    assert fast.success == general.success
    np.testing.assert_allclose(fast.goal_errors, general.goal_errors, atol=1e-12)
    assert fast.cost == pytest.approx(general.cost, abs=1e-15, rel=1e-9)


@pytest.mark.parametrize("solver", ["lm", "bio2_lm"])
def test_fast_path_works_on_a_long_chain(solver):
    # the query's scratch lives in the solver's io array, sized for the robot: a 40-joint
    # chain needs a 40×40 system and 40 segments of FK
    snake = bioik.robots.snake(40)
    tip = snake.tips[0]
    rng = np.random.default_rng(5)
    goal = bioik.PositionGoal(tip, snake.link_pose(snake.random_configuration(rng), tip)[:3, 3])
    seed = snake.random_configuration(rng)
    fast = bioik.solve(snake, [goal], seed=seed, solver=solver, max_iterations=200, random_seed=1, timeout=3600.0)
    assert fast.success
    assert np.linalg.norm(snake.link_pose(fast.q, tip)[:3, 3] - goal.position) <= 1e-5
    if solver == "lm":
        general = bioik.solve(snake, [goal], seed=seed, solver=solver, max_iterations=200, random_seed=1, timeout=3600.0,
                              callback=lambda q: True)
        assert fast.iterations == general.iterations
        np.testing.assert_allclose(fast.q, general.q, atol=1e-9)


def test_fast_path_is_taken_for_single_pose_goals(ur5, monkeypatch):
    calls = []
    family = result.SOLVERS["lm"]
    original = family.single_pose

    def spy(*args):
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(result, "SOLVERS", {**result.SOLVERS, "lm": Family(family.name, family.defaults, family.search, single_pose=spy)})
    tip = ur5.tips[0]
    q = ur5.center()
    bioik.solve(ur5, [bioik.PoseGoal(tip, ur5.link_pose(q, tip))], seed=q, solver="lm", acceptance="trac")
    assert calls  # the warm-up and the solve
    n = len(calls)
    bioik.solve(ur5, [bioik.PoseGoal(tip, ur5.link_pose(q, tip)), bioik.CenterJointsGoal()], seed=q, solver="lm", acceptance="trac")
    assert len(calls) == n  # two goals: the general path


@pytest.mark.parametrize("mode", ["norm", "trac", "kdl"])
def test_fast_path_reports_the_exact_acceptance_test(ur5, mode):
    tip = ur5.tips[0]
    rng = np.random.default_rng(11)
    for k in range(10):
        T = ur5.link_pose(ur5.random_configuration(rng), tip)
        res = bioik.solve(ur5, [bioik.PoseGoal(tip, T)], seed=ur5.random_configuration(rng), acceptance=mode,
                          random_seed=k, max_iterations=2000, timeout=3600.0)
        assert res.success
        assert ur5.within_limits(res.q)
        A = ur5.link_pose(res.q, tip)
        assert res.goal_errors[0, 0] == pytest.approx(np.linalg.norm(A[:3, 3] - T[:3, 3]), abs=1e-12)
        assert res.goal_errors[0, 0] <= 1e-5 * (np.sqrt(3) if mode == "trac" else 1.0)


def test_fast_path_handles_seed_problems(ur5):
    tip = ur5.tips[0]
    goal = bioik.PoseGoal(tip, ur5.link_pose(ur5.center(), tip))
    with pytest.raises(ValueError, match="seed"):
        bioik.solve(ur5, [goal], seed=[0.0] * (ur5.dof - 1))
    bad = ur5.center()
    bad[2] = np.nan
    with pytest.raises(ValueError, match="seed"):
        bioik.solve(ur5, [goal], seed=bad)
    far = ur5.upper + 1.0
    res = bioik.solve(ur5, [goal], seed=far, max_iterations=3, random_seed=0, timeout=3600.0)
    assert res.seed_clipped and ur5.within_limits(res.q)


def test_zero_weight_goal_does_not_read_garbage(ur5):
    tip = ur5.tips[0]
    q = ur5.center()
    res = bioik.solve(ur5, [bioik.PoseGoal(tip, ur5.link_pose(q, tip), weight=0.0)], seed=q, max_iterations=5, random_seed=0, timeout=3600.0)
    assert np.all(np.isfinite(res.q)) and ur5.within_limits(res.q)
