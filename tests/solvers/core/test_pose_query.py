"""Every solver's whole-query kernel (`search_query`) is the same search as its general path.

An accepting callback forces the general path (`Problem.update`, the family's compiled
search, the acceptance test in Python), so the two can be compared result for result.
"""

import numpy as np
import pytest

import bioik
from bioik.solvers.registry import SOLVERS

WHOLE_QUERY = sorted(name for name, family in SOLVERS.items()
                     if family.single_pose is not None and family.network is None and name != "lm")


def test_every_compiled_search_has_a_whole_query_kernel():
    # the Python-driven searches (scipy, Python goals) are the only ones without one
    assert {"kdl", "jac", "nullspace", "gd", "gd_r", "gd_c", "gd_c_4", "bio1", "bio2", "bio2_memetic", "bio2_lm"} <= set(WHOLE_QUERY)
    assert SOLVERS["relaxed"].single_pose is None and SOLVERS["bio2_memetic_lbfgs"].single_pose is None


@pytest.mark.parametrize("solver", WHOLE_QUERY)
@pytest.mark.parametrize("random_start", [False, True])
def test_whole_query_matches_the_general_path(solver, random_start):
    robot = bioik.load_robot("panda")
    tip = robot.tips[0]
    rng = np.random.default_rng(7)
    goal = bioik.PoseGoal(tip, robot.link_pose(robot.random_configuration(rng), tip))
    seed = None if random_start else robot.random_configuration(rng)
    kw = dict(seed=seed, solver=solver, max_iterations=30, random_seed=4, timeout=3600.0)
    fast = bioik.solve(robot, [goal], **kw)
    general = bioik.solve(robot, [goal], callback=lambda q: True, **kw)
    assert (fast.iterations, fast.restarts, fast.success) == (general.iterations, general.restarts, general.success)
    np.testing.assert_allclose(fast.q, general.q, atol=1e-12)
    np.testing.assert_allclose(fast.goal_errors, general.goal_errors, atol=1e-12)
    assert robot.within_limits(fast.q)


@pytest.mark.parametrize("solver", ["kdl", "bio2_memetic", "jac"])
def test_whole_query_solves_and_reports_exact_errors(solver):
    robot = bioik.load_robot("ur5")
    tip = robot.tips[0]
    rng = np.random.default_rng(2)
    for k in range(5):
        T = robot.link_pose(robot.random_configuration(rng), tip)
        res = bioik.solve(robot, [bioik.PoseGoal(tip, T)], seed=robot.random_configuration(rng), solver=solver,
                          max_iterations=3000, random_seed=k, timeout=3600.0)
        A = robot.link_pose(res.q, tip)
        assert res.success and robot.within_limits(res.q)
        assert res.goal_errors[0, 0] == pytest.approx(np.linalg.norm(A[:3, 3] - T[:3, 3]), abs=1e-12)
        assert res.goal_errors[0, 0] <= 1e-5 and res.goal_errors[0, 1] <= 1e-5


def test_a_workspace_larger_than_the_memory_is_refused_up_front():
    """A 250,000-joint chain loads, but its one-call workspace (quadratic in the joints)
    would need hundreds of GiB: a clear refusal, not numpy's MemoryError or an OOM kill."""
    from bioik.solvers.core.pose_query import new_io

    with pytest.raises(ValueError, match=r"robot too large to solve: 250,000 variables need a [\d,]+ GiB workspace"):
        new_io(np.zeros(3), np.zeros(250_000), 250_000)
    assert new_io(np.zeros(3), np.zeros(6), 6).ndim == 1
