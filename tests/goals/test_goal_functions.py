"""LinkFunctionGoal and JointFunctionGoal: user Python callables, evaluated by `Problem`."""

import numpy as np
import pytest
from goal_helpers import tree

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
    assert problem.python_goals == [0]
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


def test_python_goals_next_to_compiled_goals(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    goals = [
        PositionGoal("tip_a", rng.normal(size=3)),
        LinkFunctionGoal("tip_b", lambda T: 0.25),
        JointFunctionGoal(lambda q: q + 0.1),
    ]
    problem = Problem(robot, goals)
    assert problem.python_goals == [1, 2]
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
