"""`trac`: TRAC-IK-style race of kdl and SLSQP, and its modes [E 3.1.2]."""

import threading
import time

import numpy as np
import pytest

import bioik
from baseline_helpers import check_unreachable, check_within_limits, count_solved, fk_targets
from bioik.solvers.scipy import trac
from bioik.solvers.scipy.trac import condition_number, manipulability


@pytest.mark.parametrize("robot_name", ["ur5", "panda"])
def test_solves_fk_targets(robot_name):
    assert count_solved(robot_name, "trac", 2000) == 8


@pytest.mark.parametrize("robot_name", ["ur5", "panda"])
def test_sqp_side_solves_when_kdl_is_crippled(robot_name):
    # min_step=1 makes every kdl attempt a single step (it restarts at once): kdl alone
    # solves nothing, so what trac solves here the SLSQP side solved
    assert count_solved(robot_name, "kdl", 2000, min_step=1.0) == 0
    assert count_solved(robot_name, "trac", 1000, min_step=1.0, kdl_slice=1) >= 6


@pytest.mark.parametrize("robot_name", ["ur5", "panda"])
def test_unreachable_target_reports_failure(robot_name):
    res = check_unreachable(robot_name, "trac", 300)
    assert res.restarts > 0
    # the best approximation seen, better than the seed (5 m off, rotation exact: cost 25)
    assert res.cost < 25.0 - 0.5


def test_never_leaves_limits():
    check_within_limits("panda", "trac", 200)


def _solve_all(robot, solver, targets, budget):
    tip = robot.tips[0]
    out = []
    for k, (T, seed) in enumerate(targets):
        res = bioik.solve(robot, [bioik.PoseGoal(tip, T)], seed=seed, solver=solver, timeout=3600.0, max_iterations=budget, random_seed=k)
        assert res.success
        assert np.all(res.q >= robot.lower) and np.all(res.q <= robot.upper)
        assert res.iterations <= budget
        out.append(res)
    return out


@pytest.mark.parametrize("robot_name", ["ur5", "panda"])
def test_distance_mode_is_nearest_to_seed(robot_name):
    robot = bioik.load_robot(robot_name)
    targets = fk_targets(robot, 6, 7)
    speed = _solve_all(robot, "trac", targets, 1000)
    near = _solve_all(robot, "trac_distance", targets, 1000)
    d_speed = np.array([np.linalg.norm(r.q - s) for r, (_, s) in zip(speed, targets)])
    d_near = np.array([np.linalg.norm(r.q - s) for r, (_, s) in zip(near, targets)])
    assert np.all(d_near <= d_speed + 1e-9)
    assert np.sum(d_near < d_speed - 1e-3) >= 3
    assert all(r.iterations == 1000 for r in near)  # used the whole budget


def test_manip_modes_pick_better_conditioned_solutions():
    robot = bioik.load_robot("panda")  # redundant: a self-motion to choose along
    tip = robot.tips[0]
    targets = fk_targets(robot, 6, 7)
    speed = _solve_all(robot, "trac", targets, 1000)
    m1 = _solve_all(robot, "trac_manip1", targets, 1000)
    m2 = _solve_all(robot, "trac_manip2", targets, 1000)
    mu = lambda rs: np.array([manipulability(robot.jacobian(r.q, tip)) for r in rs])
    kappa = lambda rs: np.array([condition_number(robot.jacobian(r.q, tip)) for r in rs])
    assert np.all(mu(m1) >= mu(speed) - 1e-12)
    assert np.sum(mu(m1) > 1.05 * mu(speed)) >= 4
    assert np.all(kappa(m2) <= kappa(speed) + 1e-9)
    assert np.sum(kappa(m2) < 0.95 * kappa(speed)) >= 4


def test_measures():
    J = np.diag([2.0, 1.0, 0.5, 1.0, 1.0, 1.0])
    assert manipulability(J) == pytest.approx(1.0)
    assert manipulability(J) == pytest.approx(np.sqrt(np.linalg.det(J @ J.T)))
    assert condition_number(J) == pytest.approx(4.0)
    J7 = np.random.default_rng(0).normal(size=(6, 7))
    assert manipulability(J7) == pytest.approx(np.sqrt(np.linalg.det(J7 @ J7.T)))


def test_distance_mode_without_seed_takes_the_first_solution():
    robot = bioik.load_robot("panda")
    tip = robot.tips[0]
    T, _ = fk_targets(robot, 1, 3)[0]
    a = bioik.solve(robot, [bioik.PoseGoal(tip, T)], solver="trac", timeout=3600.0, max_iterations=1000, random_seed=4)
    b = bioik.solve(robot, [bioik.PoseGoal(tip, T)], solver="trac_distance", timeout=3600.0, max_iterations=1000, random_seed=4)
    assert a.success and b.success
    np.testing.assert_array_equal(a.q, b.q)
    assert a.iterations == b.iterations


def test_distance_mode_uses_the_whole_timeout():
    robot = bioik.load_robot("panda")
    tip = robot.tips[0]
    T, seed = fk_targets(robot, 1, 3)[0]
    res = bioik.solve(robot, [bioik.PoseGoal(tip, T)], seed=seed, solver="trac_distance", timeout=0.05, random_seed=1)
    assert res.success
    assert res.time >= 0.045


def test_reproducible_and_refuses_other_goals():
    robot = bioik.load_robot("ur5")
    tip = robot.tips[0]
    T, seed = fk_targets(robot, 1, 9)[0]
    a, b = (bioik.solve(robot, [bioik.PoseGoal(tip, T)], seed=seed, solver="trac_manip1", timeout=3600.0, max_iterations=400, random_seed=2)
            for _ in range(2))
    np.testing.assert_array_equal(a.q, b.q)
    with pytest.raises(ValueError, match="trac.*only position, orientation and pose goals"):
        bioik.solve(robot, [bioik.LookAtGoal("tool0", [1.0, 0.0, 0.0])], solver="trac")


def _race_threads(monkeypatch, sqp_delay: float) -> tuple[list, list]:
    """Record the threads kdl's kernel and SLSQP's objective run on (SLSQP slowed by sqp_delay s per call)."""
    kdl_threads, sqp_threads = [], []
    kernel, objective = trac.kdl.kdl_search, trac._Race.sqp_fun

    def kdl_search(*args):
        kdl_threads.append(threading.get_ident())
        return kernel(*args)

    def sqp_fun(self, x):
        sqp_threads.append(threading.get_ident())
        time.sleep(sqp_delay)
        return objective(self, x)

    monkeypatch.setattr(trac.kdl, "kdl_search", kdl_search)
    monkeypatch.setattr(trac._Race, "sqp_fun", sqp_fun)
    return kdl_threads, sqp_threads


def test_kdl_and_slsqp_race_on_two_threads(monkeypatch):
    """With no iteration budget kdl searches on a thread of its own while SLSQP holds the
    caller's: an SLSQP that takes 0.3 s per evaluation does not hold kdl back, which answers
    during SLSQP's first evaluations, from random seeds far from the targets."""
    robot = bioik.load_robot("ur5")
    tip = robot.tips[0]
    rng = np.random.default_rng(8)
    solver = bioik.Solver(robot, "trac")
    solver.solve([bioik.PoseGoal(tip, robot.link_pose(robot.center(), tip))], seed=robot.center())  # prepared
    kdl_threads, sqp_threads = _race_threads(monkeypatch, 0.3)
    for k in range(4):
        T = robot.link_pose(robot.random_configuration(rng), tip)
        del sqp_threads[:]
        res = solver.solve([bioik.PoseGoal(tip, T)], seed=robot.random_configuration(rng), timeout=60.0, random_seed=k)
        assert res.success and robot.within_limits(res.q)
        assert len(sqp_threads) <= 3, len(sqp_threads)
        assert set(sqp_threads) <= {threading.get_ident()}  # SLSQP in the caller (if it got to evaluate at all)
    assert threading.get_ident() not in kdl_threads


@pytest.mark.parametrize("options", [{"concurrent": 0, "timeout": 60.0}, {"timeout": 3600.0, "max_iterations": 5000}],
                         ids=["concurrent=0", "a budget"])
def test_turns_on_one_thread_when_asked_or_given_a_budget(monkeypatch, options):
    robot = bioik.load_robot("ur5")
    tip = robot.tips[0]
    kdl_threads, _ = _race_threads(monkeypatch, 0.0)
    T, seed = fk_targets(robot, 1, 5)[0]
    res = bioik.solve(robot, [bioik.PoseGoal(tip, T)], seed=seed, solver="trac", random_seed=1, **options)
    assert res.success
    assert set(kdl_threads) == {threading.get_ident()}
