"""`max_iterations=N` means N iterations for every solver: at most N are made, `Result.iterations`
counts them, a search that cannot succeed makes exactly N, and N = 1 searches (one step of a
local solver, one generation of an evolutionary one), not just the seed."""

import numpy as np
import pytest

import bioik
from bioik.solvers import names
from bioik.solvers.registry import SOLVERS as SOLVERS_BY_NAME

#: The solvers that need a trained network are covered by tests/solvers/neural.
SOLVERS = [s for s in names() if not s.startswith("neural")]
#: Solvers whose first iteration need not move the answer: an evolution keeps the seed while
#: no child beats it, jac's undamped pseudo-inverse step may be refused, and gd_c_4 steps
#: its four chains in turn (the step of the seed's chain is evaluated in its next turn).
MAY_KEEP_THE_SEED = {"bio2", "bio2_memetic", "bio2_memetic_l", "jac", "bio1", "gd_c_4"}


@pytest.fixture(scope="module")
def ur5_problem():
    robot = bioik.load_robot("ur5")
    seed = robot.random_configuration(np.random.default_rng(3))
    T = robot.link_pose(seed + 0.3, "tool0")
    far = np.eye(4)
    far[:3, 3] = 5.0  # out of reach: no search can succeed, so every one spends its budget
    return robot, seed, T, far


def position_error(robot, q, T):
    return float(np.linalg.norm(robot.link_pose(q, "tool0")[:3, 3] - T[:3, 3]))


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("secondary", [False, True], ids=["one goal", "with a secondary goal"])
def test_an_unreachable_target_spends_exactly_the_budget(ur5_problem, solver, secondary):
    robot, seed, _, far = ur5_problem
    if secondary and not SOLVERS_BY_NAME[solver].secondary_goals:
        pytest.skip(f"{solver} refuses secondary goals")
    goals = [bioik.PoseGoal("tool0", far)] + ([bioik.CenterJointsGoal()] if secondary else [])
    for n in (1, 3):
        res = bioik.solve(robot, goals, seed, solver=solver, timeout=3600.0, max_iterations=n, random_seed=1)
        assert not res.success
        assert res.iterations == n, (solver, n, res.iterations)


@pytest.mark.parametrize("solver", SOLVERS)
def test_a_budget_of_one_searches(ur5_problem, solver):
    """One iteration from a seed 0.3 rad per joint off the target: at most one is reported,
    and a local solver's answer is nearer the target than the seed."""
    robot, seed, T, _ = ur5_problem
    res = bioik.solve(robot, [bioik.PoseGoal("tool0", T)], seed, solver=solver, timeout=3600.0, max_iterations=1, random_seed=1)
    assert res.iterations == 1
    if solver not in MAY_KEEP_THE_SEED:
        assert position_error(robot, res.q, T) < position_error(robot, seed, T), solver
