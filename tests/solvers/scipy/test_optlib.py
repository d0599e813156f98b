"""`optlib_*`: scipy.optimize methods on the IK cost with random restarts [R 3.5.3, E Table 3.1].

Measured (8 FK targets from random seeds, tolerance 1e-5; ur5 / panda):
bfgs 8/8, 8/8 and lbfgsb 8/8, 8/8 (1000 iterations); newton (Newton-CG, Gauss–Newton
Hessian) 7/8, 8/8 (1000); cg 8/8, 8/8 (2000); gd (projected steepest descent, Armijo) only
4/8, 6/8 with 3000 — it converges linearly, and ill-conditioned targets still sit at
1e-5…1e-4 m when a run's 200 steps are up, as [R 3.5.2, 3.5.3] found for plain descent;
nelder_mead 6/8, 7/8 with 6000 (runs of up to 2000 simplex iterations). The tests assert
these counts with a margin of one or two targets.
"""

import numpy as np
import pytest

import bioik
from baseline_helpers import check_unreachable, check_within_limits, count_solved
from bioik.problem import Problem
from bioik.solvers.scipy import optlib

CASES = [  # solver, budget, at least (ur5, panda)
    ("optlib_bfgs", 1000, (7, 7)),
    ("optlib_lbfgsb", 1000, (7, 7)),
    ("optlib_newton", 1000, (6, 7)),
    ("optlib_cg", 2000, (7, 7)),
    ("optlib_gd", 3000, (3, 4)),
    ("optlib_nelder_mead", 6000, (5, 5)),
]
ALL = [c[0] for c in CASES]


@pytest.mark.parametrize("robot_index,robot_name", [(0, "ur5"), (1, "panda")])
@pytest.mark.parametrize("solver,budget,at_least", CASES)
def test_solves_fk_targets(solver, budget, at_least, robot_index, robot_name):
    assert count_solved(robot_name, solver, budget) >= at_least[robot_index]


@pytest.mark.parametrize("robot_name", ["ur5", "panda"])
@pytest.mark.parametrize("solver", ALL)
def test_reports_failure_on_unreachable(solver, robot_name):
    res = check_unreachable(robot_name, solver, 100)
    assert res.goal_errors[0, 0] < 5.0  # its best approximation


@pytest.mark.parametrize("solver", ALL)
def test_respects_limits(solver):
    for robot_name in ("ur5", "panda"):
        check_within_limits(robot_name, solver, 60, n=3)


def test_penalised_cost_outside_limits():
    """The unbounded methods see cost(clip(q)) + k‖q − clip(q)‖², gradient pointing back in."""
    robot = bioik.load_robot("panda")
    q = robot.random_configuration(np.random.default_rng(1))
    goals = [bioik.PoseGoal(robot.tips[0], robot.link_pose(robot.center(), robot.tips[0]))]
    p = Problem(robot, goals)
    p.update(goals, q)
    f = optlib.PenalisedCost(p, 1.0)
    out = q.copy()
    out[3] = robot.upper[3] + 0.2
    inside = np.clip(out, robot.lower, robot.upper)
    v_out, g_out = f(out)
    v_in, _ = f(inside)
    assert v_out == pytest.approx(v_in + 0.04)
    assert g_out[3] == pytest.approx(0.4)
    h = 1e-6
    numeric = np.array([(f(q + h * e)[0] - f(q - h * e)[0]) / (2 * h) for e in np.eye(robot.dof)])
    np.testing.assert_allclose(f(q)[1], numeric, rtol=1e-5, atol=1e-8)
    H = f.hessian(out)
    assert H[3, 3] == pytest.approx(2.0) and np.all(H[3, np.arange(7) != 3] == 0.0)


def test_gradient_descent_descends():
    """optlib_gd never raises the cost: the answer costs less than the seed (all targets)."""
    robot = bioik.load_robot("ur5")
    from baseline_helpers import fk_targets

    for k, (T, seed) in enumerate(fk_targets(robot, 4, 5)):
        goal = [bioik.PoseGoal(robot.tips[0], T)]
        at_seed = bioik.solve(robot, goal, seed=seed, solver="optlib_gd", timeout=3600.0, max_iterations=1, random_seed=k)
        res = bioik.solve(robot, goal, seed=seed, solver="optlib_gd", timeout=3600.0, max_iterations=150, random_seed=k)
        assert res.cost < 0.5 * at_seed.cost
