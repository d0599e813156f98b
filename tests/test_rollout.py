"""rollout(): the configuration after each iteration, replayed from budgets 1..K."""

import numpy as np
import pytest

import bioik


@pytest.fixture(scope="module")
def problem():
    robot = bioik.load_robot("panda")
    rng = np.random.default_rng(1)
    T = robot.link_pose(robot.random_configuration(rng), robot.tips[0])
    return robot, [bioik.PoseGoal(robot.tips[0], T)], robot.random_configuration(rng)


def test_lm_rollout_descends_to_the_solution(problem):
    robot, goals, seed = problem
    ro = bioik.rollout(robot, goals, seed, iterations=60, solver="lm", random_seed=4)
    assert ro.success and 3 <= len(ro.q) < 60  # ends at the first answer that passes the acceptance test
    assert np.all(np.diff(ro.cost) <= 1e-12)  # LM keeps only improving steps
    assert ro.cost[0] > 0.1 and ro.cost[-1] < 1e-9
    assert np.all(ro.q >= robot.lower) and np.all(ro.q <= robot.upper)
    stopped = bioik.solve(robot, goals, seed, solver="lm", timeout=3600.0, random_seed=4, max_iterations=len(ro.q))
    assert stopped.success  # the last row is the solve stopped there
    np.testing.assert_array_equal(ro.q[-1], stopped.q)
    before = bioik.solve(robot, goals, seed, solver="lm", timeout=3600.0, random_seed=4, max_iterations=len(ro.q) - 1)
    assert not before.success


@pytest.mark.parametrize("solver", ["kdl", "bio2"])
def test_each_row_is_the_solve_stopped_there(problem, solver):
    robot, goals, seed = problem
    ro = bioik.rollout(robot, goals, seed, iterations=12, solver=solver, random_seed=2)
    assert ro.q.shape == (12, robot.dof) and not ro.success
    for k in (1, 5, 12):
        res = bioik.solve(robot, goals, seed, solver=solver, timeout=3600.0, random_seed=2, max_iterations=k)
        np.testing.assert_array_equal(ro.q[k - 1], res.q)
        assert ro.cost[k - 1] == pytest.approx(res.cost)
    assert len({tuple(q) for q in ro.q}) > 3  # it moves


def test_a_stuck_solver_ends_its_rollout_early(problem):
    robot, goals, seed = problem
    ro = bioik.rollout(robot, goals, seed, iterations=200, solver="gd", random_seed=0)
    assert not ro.success and len(ro.q) < 200  # `gd` stops once a step is rejected


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_bad_iterations(problem, bad):
    robot, goals, seed = problem
    with pytest.raises(ValueError, match="iterations must be an integer >= 1"):
        bioik.rollout(robot, goals, seed, iterations=bad)
