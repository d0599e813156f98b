"""Goals that share no variable are independent components; a component's step is the
damped step of its own rows and variables; a search splits the humanoid's feet from its
upper body and solves what the whole problem solves."""

import numpy as np
import pytest

import bioik
from bioik.problem.layout import unpack
from bioik.solvers.core.components import component_costs, component_step, goal_components
from bioik.solvers.core.linalg import damped_step


def _labels(robot, goals, split=True):
    p = bioik.problem.Problem(robot, goals)
    prob = unpack(p.ibuf, p.fbuf)
    G, n = len(goals), robot.dof
    R = 1 + int(prob.gi[:, 5].sum())
    goal_comp, var_comp, row_comp = np.empty(G, np.int64), np.empty(n, np.int64), np.empty(R, np.int64)
    C = goal_components(prob.gi, prob.seg_i, prob.out_seg, n, goal_comp, var_comp, row_comp, split)
    return C, goal_comp, var_comp, row_comp


def _names(robot, var_comp, c):
    return {v for v, k in zip(robot.variable_names, var_comp) if k == c}


def test_the_humanoids_feet_and_upper_body_are_three_components():
    robot = bioik.load_robot("humanoid")
    q = robot.center()
    goals = [bioik.PoseGoal(t, robot.link_pose(q, t)) for t in ("left_foot", "right_foot", "left_hand", "right_hand")]
    C, goal_comp, var_comp, row_comp = _labels(robot, goals)
    assert C == 3
    assert list(goal_comp) == [0, 1, 2, 2]  # the hands share the waist
    legs = [_names(robot, var_comp, c) for c in (0, 1)]
    assert all(len(leg) == 6 for leg in legs) and not legs[0] & legs[1]
    upper = _names(robot, var_comp, 2)
    assert any("waist" in v or "torso" in v or "spine" in v for v in upper) and len(upper) >= 17
    assert _names(robot, var_comp, 3) == set(robot.variable_names) - legs[0] - legs[1] - upper  # the head: no goal
    assert list(row_comp[:28]) == [0] * 7 + [1] * 7 + [2] * 14


@pytest.mark.parametrize("case", ["one goal", "shared torso", "a non-pose goal", "switched off"])
def test_one_component(case):
    if case == "switched off":  # independent_goals=0
        robot = bioik.load_robot("dual_ur5")
        goals = [bioik.PoseGoal("left_tool0", np.eye(4)), bioik.PoseGoal("right_tool0", np.eye(4))]
        assert _labels(robot, goals)[0] == 2
        C, goal_comp, var_comp, row_comp = _labels(robot, goals, split=False)
        assert C == 1 and not goal_comp.any() and not var_comp.any() and not row_comp.any()
        return
    if case == "one goal":
        robot = bioik.load_robot("ur5")
        goals = [bioik.PoseGoal("tool0", np.eye(4))]
    else:
        robot = bioik.load_robot("dual_ur5", group="torso_both_arms" if case == "shared torso" else "both_arms")
        goals = [bioik.PoseGoal("left_tool0", np.eye(4)), bioik.PoseGoal("right_tool0", np.eye(4))]
        if case == "a non-pose goal":
            goals.append(bioik.LookAtGoal("left_tool0", [1.0, 0.0, 1.0]))
    C, goal_comp, var_comp, row_comp = _labels(robot, goals)
    assert C == 1 and not goal_comp.any() and not var_comp.any() and not row_comp.any()


def test_a_components_step_is_the_damped_step_of_its_block(rng):
    n, rows = 8, 10
    var_comp = np.array([0, 1, 0, 2, 1, 1, 0, 2])  # variable 3 and 7: no goal (label C = 2)
    row_comp = np.array([0, 0, 1, 1, 1, 0, 1, 0, 1, 1])
    Je = rng.normal(size=(rows, n))
    Je[np.ix_(row_comp == 0, var_comp != 0)] = 0.0
    Je[np.ix_(row_comp == 1, var_comp != 1)] = 0.0
    e = rng.normal(size=rows)
    costs = np.empty(2)
    component_costs(e, rows, row_comp, costs)
    np.testing.assert_allclose(costs, [0.5 * np.sum(e[row_comp == c] ** 2) for c in (0, 1)])
    dq = np.full(n, 7.0)
    m = max(rows, n)
    free = (np.zeros(n), -np.ones(n), np.ones(n))  # q, lo, hi: no joint on a limit
    for c, lam in ((0, 0.3), (1, 0.01)):
        component_step(Je, e, rows, c, lam, var_comp, row_comp, np.empty(n, np.int64), np.empty((rows, n)), np.empty(rows),
                       np.empty((m, m)), np.empty(m), np.empty(n), dq, *free, np.empty(n), np.empty((m, m)), np.empty(m))
        Jc = Je[np.ix_(row_comp == c, var_comp == c)]
        expected = -np.linalg.solve(Jc.T @ Jc + lam * np.eye(Jc.shape[1]), Jc.T @ e[row_comp == c])
        np.testing.assert_allclose(dq[var_comp == c], expected, rtol=1e-9)
    assert np.all(dq[var_comp == 2] == 7.0)  # left alone
    v = int(np.flatnonzero(var_comp == 0)[0])  # put a joint on the limit its step points to: it is held
    q, lo, hi = np.zeros(n), -np.ones(n), np.ones(n)
    q[v] = hi[v] if dq[v] > 0 else lo[v]
    held = np.full(n, 7.0)
    component_step(Je, e, rows, 0, 0.3, var_comp, row_comp, np.empty(n, np.int64), np.empty((rows, n)), np.empty(rows),
                   np.empty((m, m)), np.empty(m), np.empty(n), held, q, lo, hi, np.empty(n), np.empty((m, m)), np.empty(m))
    assert held[v] == 0.0 and not np.allclose(held[var_comp == 0], dq[var_comp == 0])
    whole = np.empty(n)  # with one damping for both, the blocks together are the whole damped step
    dq2 = np.zeros(n)
    for c in (0, 1):
        component_step(Je, e, rows, c, 0.05, var_comp, row_comp, np.empty(n, np.int64), np.empty((rows, n)), np.empty(rows),
                       np.empty((m, m)), np.empty(m), np.empty(n), dq2, *free, np.empty(n), np.empty((m, m)), np.empty(m))
    assert damped_step(Je, e, rows, n, 0.05, np.empty((m, m)), np.empty(m), whole)
    np.testing.assert_allclose(dq2[var_comp != 2], whole[var_comp != 2], rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("solver, budget", [("lm", 200), ("bio2_lm", 20)])  # iterations; generations
def test_the_split_searches_solve_all_four_limbs_of_the_humanoid(solver, budget):
    """Seeded, iteration budget: the split search (lm; bio2_lm's LM attempts) solves every
    one of these reachable whole-body targets from a random start (lm needs at most 62
    iterations here, bio2_lm 5 generations)."""
    robot = bioik.load_robot("humanoid")
    rng = np.random.default_rng(2)
    solved = 0
    for i in range(20):
        qt = robot.random_configuration(rng)
        goals = [bioik.PoseGoal(t, robot.link_pose(qt, t)) for t in robot.tips]
        res = bioik.solve(robot, goals, seed=robot.random_configuration(rng), solver=solver, timeout=3600.0,
                          max_iterations=budget, random_seed=i)
        solved += res.success
        assert robot.within_limits(res.q)
    assert solved == 20
