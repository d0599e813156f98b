"""LinkFunctionGoal and JointFunctionGoal: user functions the kernels call through C callbacks,
plain Python ones and numba @njit ones alike."""

import numpy as np
import pytest
from goal_helpers import residual, tree
from numba import njit

import bioik

from bioik import JointFunctionGoal, LinkFunctionGoal, PositionGoal, Problem


def test_link_function_gets_the_link_pose(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    T0 = robot.link_pose(q, "tip_a")
    seen = []

    def f(T):
        seen.append(T)
        return float(np.sum((T[:3, 3] - T0[:3, 3]) ** 2))

    goal = LinkFunctionGoal("tip_a", f, weight=3.0)
    problem = Problem(robot, [goal])
    assert problem.function_goals == [0] and problem.python_goals == []
    assert problem.cost(q)[0] < 1e-28
    np.testing.assert_allclose(seen[-1], T0, atol=1e-12)
    q2 = robot.random_configuration(rng)
    expected = np.sum((robot.link_pose(q2, "tip_a")[:3, 3] - T0[:3, 3]) ** 2)
    assert problem.cost(q2)[0] == pytest.approx(9.0 * expected)


def test_link_function_acceptance(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    for c in (0.0, (5e-6) ** 2, (2e-5) ** 2, 0.3):
        ok, errors, primary, _ = Problem(robot, [LinkFunctionGoal("l2", lambda T, c=c: c)]).accept(q)
        assert ok == (np.sqrt(c) <= 1e-5)
        assert errors[0, 0] == pytest.approx(np.sqrt(c))
        assert primary == pytest.approx(c)


def test_joint_function_cost_and_acceptance():
    robot = tree()
    clip = JointFunctionGoal(lambda q: np.clip(q, -1.0, 1.0), weight=2.0)
    q = np.array([0.5, -0.3, 0.2, 0.1])
    problem = Problem(robot, [clip])
    assert problem.accept(q)[0] and problem.cost(q)[0] == 0.0
    q2 = np.array([1.5, -2.0, 0.2, 0.1])
    assert problem.cost(q2)[0] == pytest.approx(4.0 * (0.5**2 + 1.0**2))
    ok, errors, _, _ = problem.accept(q2)
    assert not ok and errors[0, 0] == pytest.approx(np.sqrt(1.25))


def test_joint_function_gets_a_copy():
    robot = tree()

    def f(q):
        q[:] = 0.0
        return q

    q = np.full(4, 0.1)
    assert Problem(robot, [JointFunctionGoal(f)]).cost(q)[0] == pytest.approx(0.04)
    assert q.tolist() == [0.1] * 4


def test_function_goals_next_to_other_goals(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    goals = [
        PositionGoal("tip_a", rng.normal(size=3)),
        LinkFunctionGoal("tip_b", lambda T: 0.25),
        JointFunctionGoal(lambda q: q + 0.1),
    ]
    problem = Problem(robot, goals)
    assert problem.function_goals == [1, 2]
    single = Problem(robot, goals[:1]).cost(q)[0]
    assert problem.cost(q)[0] == pytest.approx(single + 0.25 + 4 * 0.01)


@pytest.mark.parametrize("bad", [None, 3.0, "cost"])
def test_function_must_be_callable(bad):
    with pytest.raises(ValueError, match="LinkFunctionGoal: function must be callable"):
        LinkFunctionGoal("tip_a", bad)
    with pytest.raises(ValueError, match="JointFunctionGoal: function must be callable"):
        JointFunctionGoal(bad)


@pytest.mark.parametrize(
    "value, message",
    [(np.nan, "a finite cost"), (-1.0, "a finite cost"), (np.zeros(2), "one number"), ("x", "a number"), (None, "a number")],
)
def test_link_function_bad_return(value, message):
    problem = Problem(tree(), [LinkFunctionGoal("tip_a", lambda T: value)])
    with pytest.raises(ValueError, match=f"LinkFunctionGoal: function must return {message}"):
        problem.cost(np.zeros(4))


@pytest.mark.parametrize("value, message", [(np.zeros(3), "4 values"), (np.full(4, np.nan), "NaN"), (None, "4"), ("abc", "4")])
def test_joint_function_bad_return(value, message):
    problem = Problem(tree(), [JointFunctionGoal(lambda q: value)])
    with pytest.raises(ValueError, match=f"JointFunctionGoal: function .*{message}"):
        problem.cost(np.zeros(4))


def test_weight_and_tolerance_are_checked():
    with pytest.raises(ValueError, match="JointFunctionGoal: weight"):
        JointFunctionGoal(np.sin, weight=np.nan)
    with pytest.raises(ValueError, match="LinkFunctionGoal: tolerance"):
        LinkFunctionGoal("tip_a", np.sum, tolerance=-1.0)


@njit
def _jit_distance(T):
    return (T[0, 3] - 0.3) ** 2 + (T[1, 3] + 0.1) ** 2 + (T[2, 3] - 0.2) ** 2 + T[2, 0] ** 2


def _py_distance(T):
    return (T[0, 3] - 0.3) ** 2 + (T[1, 3] + 0.1) ** 2 + (T[2, 3] - 0.2) ** 2 + T[2, 0] ** 2


@njit
def _jit_mirror(q):
    out = q.copy()
    out[1] = q[0]
    return out


def test_an_njit_function_gives_what_the_python_one_gives(rng):
    """The compiled callback (numba cfunc) and the Python one (ctypes) compute the same
    residual and, by the same central differences, the same Jacobian."""
    robot = tree()
    for _ in range(5):
        q = robot.random_configuration(rng)
        r_jit, J_jit = residual(Problem(robot, [LinkFunctionGoal("tip_b", _jit_distance)]), q, with_jac=True)
        r_py, J_py = residual(Problem(robot, [LinkFunctionGoal("tip_b", _py_distance)]), q, with_jac=True)
        np.testing.assert_allclose(r_jit, r_py, rtol=1e-12)
        np.testing.assert_allclose(J_jit, J_py, rtol=1e-6, atol=1e-9)
        r_q, J_q = residual(Problem(robot, [JointFunctionGoal(_jit_mirror)]), q, with_jac=True)
        expected = _jit_mirror(q) - q
        np.testing.assert_allclose(r_q, expected, atol=1e-15)
        np.testing.assert_allclose(J_q, np.eye(4)[[0, 0, 2, 3]] - np.eye(4), atol=1e-8)


@pytest.mark.parametrize("solver", ["lm", "bio2_lm", "bio2_memetic", "relaxed", "optlib_lbfgsb", "bio2_memetic_lbfgs", "gd_c"])
@pytest.mark.parametrize("function", [_jit_mirror, lambda q: np.array([q[0], q[0], *q[2:]])], ids=["njit", "python"])
def test_every_solver_that_takes_residual_goals_takes_a_joint_function(solver, function):
    """ur5's shoulder lift mirrors its pan while the tool reaches a point: every such solver
    solves it, on either path, and the answer meets both goals."""
    robot = bioik.load_robot("ur5")
    goals = [bioik.PositionGoal("tool0", [0.3, 0.2, 0.4]), JointFunctionGoal(function)]
    res = bioik.solve(robot, goals, robot.center(), solver=solver, timeout=3600.0, max_iterations=3000, random_seed=0)
    assert res.success and res.solver == solver
    assert abs(res.q[0] - res.q[1]) <= 1e-5
    assert np.linalg.norm(robot.link_pose(res.q, "tool0")[:3, 3] - [0.3, 0.2, 0.4]) <= 1e-5


def test_the_default_solver_takes_function_goals(rng):
    robot = bioik.load_robot("ur5")
    T = robot.link_pose(robot.random_configuration(rng), "tool0")
    goals = [bioik.PositionGoal("tool0", T[:3, 3]), JointFunctionGoal(_jit_mirror, weight=0.5, secondary=True)]
    res = bioik.solve(robot, goals, robot.center(), timeout=3600.0, max_iterations=500, random_seed=1)
    assert res.success and res.solver == bioik.solvers.DEFAULT_SOLVER


def test_what_a_python_function_raises_during_a_search_is_raised_after_it():
    robot = bioik.load_robot("ur5")
    calls = []

    def fails_later(T):
        calls.append(1)
        if len(calls) > 20:
            raise ZeroDivisionError("the user's own error")
        return float(T[2, 3] ** 2)

    with pytest.raises(ZeroDivisionError, match="the user's own error"):
        bioik.solve(robot, [LinkFunctionGoal("tool0", fails_later)], robot.center(), solver="lm", timeout=3600.0,
                    max_iterations=100, random_seed=0)


@njit
def _jit_negative(T):
    return -1.0 - T[0, 3] ** 2


def test_an_njit_function_returning_a_negative_cost_is_named():
    robot = bioik.load_robot("ur5")
    with pytest.raises(ValueError, match="LinkFunctionGoal: function must return a finite cost >= 0"):
        bioik.solve(robot, [LinkFunctionGoal("tool0", _jit_negative)], robot.center(), solver="lm", timeout=3600.0,
                    max_iterations=10, random_seed=0)
