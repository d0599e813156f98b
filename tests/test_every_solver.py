"""Every registered solver keeps the promises of the one API: answers within limits, success
only when the answer passes the acceptance test on exact FK, the iteration budget obeyed."""

import numpy as np
import pytest

import bioik

ROBOT = bioik.load_robot("ur5")
TIP = ROBOT.tips[0]


def problems():
    """Reachable targets from seeds at the joint limits, and one target out of reach."""
    rng = np.random.default_rng(31)
    out = []
    for k in range(3):
        T = ROBOT.link_pose(ROBOT.random_configuration(rng), TIP)
        if k == 2:
            T[:3, 3] *= 3.0
        out.append((T, np.where(rng.random(ROBOT.dof) < 0.5, ROBOT.lower, ROBOT.upper)))
    return out


@pytest.mark.parametrize("solver", bioik.solvers.names())
def test_answers_are_within_limits_and_success_is_honest(solver):
    for k, (T, seed) in enumerate(problems()):
        res = bioik.solve(ROBOT, [bioik.PoseGoal(TIP, T)], seed=seed, solver=solver, timeout=3600.0, max_iterations=40, random_seed=k)
        assert res.q.shape == (ROBOT.dof,) and np.all(np.isfinite(res.q))
        assert np.all(res.q >= ROBOT.lower) and np.all(res.q <= ROBOT.upper), solver
        A = ROBOT.link_pose(res.q, TIP)
        dp = np.linalg.norm(A[:3, 3] - T[:3, 3])
        if res.success:
            assert dp <= 1e-5, (solver, dp)
        if k == 2:
            assert not res.success and dp > 0.1
        assert res.solver == solver
