"""ClearanceGoal: r = √Σ (2ε/(ε + d))² over the robot's spheres, d = max(0, D(c) − ρ − m):
its residual against the definition (sphere centres from FK, distances from
`Scene.distance`), what ε means, its Jacobian against finite differences, moving
obstacles, a solve that backs away, and the bad input it refuses."""

import numpy as np
import pytest
from goal_helpers import assert_jacobian, residual, three_obstacles, translation, tree

import bioik
from bioik import ClearanceGoal, Problem
from bioik.collision import SphereModel, sphere_model
from bioik.scene import Scene


@pytest.fixture(scope="module")
def ur5():
    return bioik.load_robot("ur5")


def surface_distances(robot, goal, q) -> np.ndarray:
    """D(c) − ρ − m of every sphere, from FK and `Scene.distance` (numpy)."""
    model = sphere_model(robot)
    c = model.world(np.array([robot.link_pose(q, link) for link in model.links]))
    D, _ = goal.scene.distance(c)
    return D - model.radii - goal.margin


def expected(robot, goal, q) -> float:
    d = np.maximum(0.0, surface_distances(robot, goal, q))
    return float(np.sqrt(np.sum((2 * goal.epsilon / (goal.epsilon + d)) ** 2)))


def test_residual_matches_its_definition(ur5):
    goal = ClearanceGoal(three_obstacles(), epsilon=0.03, margin=0.01)
    problem = Problem(ur5, [goal])
    rng = np.random.default_rng(0)
    inside = 0
    for _ in range(30):
        q = ur5.random_configuration(rng)
        np.testing.assert_allclose(residual(problem, q), [expected(ur5, goal, q)], rtol=1e-9)
        inside += surface_distances(ur5, goal, q).min() <= 0.0
    assert 3 <= inside < 30  # some configurations touch an obstacle (cost 4 there), some do not


def test_epsilon_is_the_distance_that_costs_one():
    """One sphere of radius 0.04 on l2, a ball ahead of it: cost 1 at d = ε, 4 in contact
    or inside, (2ε/(ε + d))² between."""
    robot = tree()
    q = robot.center()
    centre = robot.link_pose(q, "l2")[:3, 3]
    spheres = SphereModel(("l2",), np.array([0]), np.zeros((1, 3)), np.array([0.04]))
    scene = Scene()
    scene.add_sphere("ball", 0.1, translation(*(centre + (0.04 + 0.1 + 0.05, 0.0, 0.0))))
    for eps, margin, cost in ((0.05, 0.0, 1.0), (0.1, 0.0, (0.2 / 0.15) ** 2), (0.05, 0.05, 4.0), (0.05, 0.2, 4.0)):
        goal = ClearanceGoal(scene, epsilon=eps, margin=margin, spheres=spheres)
        np.testing.assert_allclose(residual(Problem(robot, [goal]), q) ** 2, [cost], rtol=1e-12)


def test_an_empty_scene_costs_nothing(ur5):
    goal = ClearanceGoal(Scene(), secondary=False)
    problem = Problem(ur5, [goal])
    ok, errors, cost, _ = problem.accept(np.zeros(ur5.dof))
    assert ok and cost == 0.0 and errors[0, 0] == 0.0


def test_jacobian_matches_finite_differences(ur5):
    goal = ClearanceGoal(three_obstacles(), epsilon=0.05, margin=0.02)
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(20):
        q = ur5.random_configuration(rng)
        if np.abs(surface_distances(ur5, goal, q)).min() > 1e-3:  # away from the kink at d = 0
            assert_jacobian(ur5, goal, q, atol=1e-5)
            checked += 1
    assert checked >= 10


def test_moving_an_obstacle_is_read_by_the_next_evaluation(ur5):
    scene = Scene()
    scene.add_sphere("ball", 0.05, translation(3.0, 0.0, 0.0))
    goal = ClearanceGoal(scene)
    q = np.zeros(ur5.dof)
    solver = bioik.Solver(ur5, "lm")
    problem = solver.problem([goal])
    far = residual(problem, q)[0]
    tip = ur5.link_pose(q, ur5.tips[0])[:3, 3]
    scene.move("ball", translation(*(tip + (0.0, 0.0, 0.3))))
    assert solver.problem([goal]) is problem
    problem.update([goal])
    near = residual(problem, q)[0]
    assert near == pytest.approx(expected(ur5, goal, q), rel=1e-9)
    assert near > 2 * far


def test_lm_backs_the_arm_away_from_an_obstacle(ur5):
    """As the only (primary) goal the cost is never met: lm spends its iteration budget and
    returns the configuration of least cost, clear of the ball the seed nearly touched —
    by its steps, not a random restart (stall_ratio > 1: no attempt ever stalls)."""
    q0 = np.array([0.0, -1.2, 1.0, -1.4, -1.5, 0.0])
    tip = ur5.link_pose(q0, "wrist_2_link")[:3, 3]
    scene = Scene()
    scene.add_sphere("ball", 0.08, translation(*(tip + (0.0, 0.0, 0.2))))
    goal = ClearanceGoal(scene, epsilon=0.05, secondary=False)
    before = surface_distances(ur5, goal, q0)
    assert before.min() < 0.1
    res = bioik.solve(ur5, [goal], seed=q0, solver="lm", timeout=3600.0, random_seed=3, max_iterations=20,
                      stall_ratio=2.0, attempt_iterations=1000)
    assert not res.success and res.restarts == 0
    after = surface_distances(ur5, goal, res.q)
    assert expected(ur5, goal, res.q) < 0.5 * expected(ur5, goal, q0)
    assert after.min() > before.min() + 0.05


def test_secondary_by_default():
    goal = ClearanceGoal(Scene())
    assert goal.is_secondary and ClearanceGoal.size == 1


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"scene": None}, TypeError, "scene must be a bioik.Scene"),
        ({"scene": "table"}, TypeError, "scene must be a bioik.Scene"),
        ({"epsilon": 0.0}, ValueError, "epsilon"),
        ({"epsilon": float("inf")}, ValueError, "epsilon"),
        ({"margin": -0.01}, ValueError, "margin"),
        ({"margin": float("nan")}, ValueError, "margin"),
        ({"weight": -1.0}, ValueError, "weight"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=f"ClearanceGoal: {match}"):
        ClearanceGoal(**{"scene": Scene(), **kwargs})


BARE_URDF = """<?xml version="1.0"?>
<robot name="bare">
  <link name="base"/><link name="arm"/>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" velocity="1" effort="1"/></joint>
</robot>
"""


def test_a_robot_without_collision_geometry_is_named():
    robot = bioik.load_robot(BARE_URDF)
    with pytest.raises(ValueError, match="ClearanceGoal: robot .* has no link with collision geometry"):
        Problem(robot, [ClearanceGoal(Scene())])
