"""ObstacleDistanceGoal: r = √Σ max(0, δ + ρ − d(c))² over one link's spheres, d the
distance to one named obstacle (or to all): its residual against the definition (the
obstacle alone in a scene of its own, `Scene.distance`), its Jacobian against finite
differences, moving obstacles, a solve, and the names and input it refuses."""

import numpy as np
import pytest
from goal_helpers import assert_jacobian, residual, three_obstacles, translation

import bioik
from bioik import ObstacleDistanceGoal, Problem, UnknownNameError
from bioik.collision import sphere_model
from bioik.scene import Scene


@pytest.fixture(scope="module")
def ur5():
    return bioik.load_robot("ur5")


def shortfalls(robot, goal, q) -> np.ndarray:
    """δ + ρ − d(c) of each of the link's spheres, d from a scene holding only the named
    obstacle (or the goal's whole scene), so no mask is involved."""
    model = sphere_model(robot)
    k = model.links.index(goal.link)
    c = model.world(np.array([robot.link_pose(q, link) for link in model.links]))[model.link_of == k]
    scene = goal.scene
    if goal.obstacle is not None:
        scene = Scene()
        o = goal.scene.obstacles[goal.obstacle]
        scene.add(o.name, o.shape, o.pose)
    d, _ = scene.distance(c)
    return goal.distance + model.radii[model.link_of == k] - d


def expected(robot, goal, q) -> float:
    return float(np.sqrt(np.sum(np.maximum(0.0, shortfalls(robot, goal, q)) ** 2)))


@pytest.mark.parametrize("link, obstacle, distance", [("forearm_link", "ball", 0.3), ("upper_arm_link", "post", 0.3),
                                                      ("wrist_1_link", "table", 0.3), ("forearm_link", None, 0.05)])
def test_residual_matches_its_definition(ur5, link, obstacle, distance):
    goal = ObstacleDistanceGoal(link, three_obstacles(), obstacle, distance)
    problem = Problem(ur5, [goal])
    rng = np.random.default_rng(0)
    short = 0
    for _ in range(30):
        q = ur5.random_configuration(rng)
        np.testing.assert_allclose(residual(problem, q), [expected(ur5, goal, q)], rtol=1e-9, atol=1e-12)
        short += residual(problem, q)[0] > 0.0
    assert 3 <= short < 30  # the link is too near in some configurations, far enough in others


def test_the_named_obstacle_is_the_only_one_read(ur5):
    """The link inside the table but far from the ball: only a goal on the table (or on
    every obstacle) sees it."""
    scene = Scene()
    q = np.zeros(ur5.dof)
    wrist = ur5.link_pose(q, "wrist_2_link")[:3, 3]
    scene.add_box("table", (0.4, 0.4, 0.4), translation(*wrist))
    scene.add_sphere("ball", 0.05, translation(*(wrist + (0.0, 0.0, 2.0))))
    near = [residual(Problem(ur5, [ObstacleDistanceGoal("wrist_2_link", scene, name, 0.1)]), q)[0]
            for name in ("table", "ball", None)]
    assert near[0] > 0.2 and near[1] == 0.0 and near[2] == near[0]


def test_jacobian_matches_finite_differences(ur5):
    goal = ObstacleDistanceGoal("forearm_link", three_obstacles(), "ball", distance=0.4)
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(40):
        q = ur5.random_configuration(rng)
        s = shortfalls(ur5, goal, q)
        if s.max() > 0.0 and np.abs(s).min() > 1e-3:  # not zero, no sphere at the kink
            assert_jacobian(ur5, goal, q, atol=1e-5)
            checked += 1
    assert checked >= 5


def test_moving_the_obstacle_is_read_by_the_next_evaluation(ur5):
    scene = three_obstacles()
    goal = ObstacleDistanceGoal("wrist_3_link", scene, "ball", 0.05)
    q = np.zeros(ur5.dof)
    solver = bioik.Solver(ur5, "lm")
    problem = solver.problem([goal])
    assert residual(problem, q)[0] == 0.0
    scene.move("ball", translation(*ur5.link_pose(q, "wrist_3_link")[:3, 3]))
    assert solver.problem([goal]) is problem
    problem.update([goal])
    assert residual(problem, q)[0] == pytest.approx(expected(ur5, goal, q), rel=1e-12)
    assert residual(problem, q)[0] > 0.1


def test_lm_moves_the_link_away(ur5):
    """A pose close to the ball, the forearm to keep 0.15 m from it: lm meets the goal,
    and every sphere of the forearm is at least 0.15 m out."""
    q0 = np.array([0.0, -1.2, 1.0, -1.4, -1.5, 0.0])
    model = sphere_model(ur5)
    centres = model.world(np.array([ur5.link_pose(q0, link) for link in model.links]))
    ball = centres[model.link_of == model.links.index("forearm_link")].mean(axis=0) + (0.0, 0.0, 0.2)
    scene = three_obstacles()
    scene.move("ball", translation(*ball))
    goal = ObstacleDistanceGoal("forearm_link", scene, "ball", 0.15)
    assert expected(ur5, goal, q0) > 0.05
    res = bioik.solve(ur5, [goal], seed=q0, solver="lm", timeout=3600.0, random_seed=4, max_iterations=200)
    assert res.success
    assert shortfalls(ur5, goal, res.q).max() <= goal.tolerance


def test_an_unknown_obstacle_is_named_with_the_scenes_obstacles():
    with pytest.raises(UnknownNameError, match=r"ObstacleDistanceGoal: obstacle 'bal' is not in the scene; closest: ball"):
        ObstacleDistanceGoal("forearm_link", three_obstacles(), "bal")
    with pytest.raises(UnknownNameError, match="the scene is empty"):
        ObstacleDistanceGoal("forearm_link", Scene(), "ball")


def test_an_obstacle_removed_later_is_named_when_the_problem_is_built(ur5):
    scene = three_obstacles()
    goal = ObstacleDistanceGoal("forearm_link", scene, "post")
    scene.remove("post")
    with pytest.raises(UnknownNameError, match="'post' is not in the scene"):
        Problem(ur5, [goal])


def test_unknown_links_and_links_without_geometry_are_named(ur5):
    scene = three_obstacles()
    with pytest.raises(UnknownNameError, match="forarm_link"):
        Problem(ur5, [ObstacleDistanceGoal("forarm_link", scene, "ball")])
    with pytest.raises(ValueError, match=r"ObstacleDistanceGoal: link 'tool0' has no collision geometry .*wrist_3_link"):
        Problem(ur5, [ObstacleDistanceGoal("tool0", scene, "ball")])


def test_naming_an_obstacle_needs_a_scene_a_mask_can_hold():
    scene = Scene()
    for k in range(53):
        scene.add_sphere(f"s{k}", 0.01, translation(k, 0.0, 0.0))
    ObstacleDistanceGoal("forearm_link", scene)  # no name: no mask
    with pytest.raises(ValueError, match="a mask holds the first 52 obstacles only; the scene has 53"):
        ObstacleDistanceGoal("forearm_link", scene, "s0")


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"scene": None}, TypeError, "scene must be a bioik.Scene"),
        ({"obstacle": 3}, TypeError, "obstacle must be an obstacle name"),
        ({"distance": -0.1}, ValueError, "distance"),
        ({"distance": float("nan")}, ValueError, "distance"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=f"ObstacleDistanceGoal: {match}"):
        ObstacleDistanceGoal(**{"link": "forearm_link", "scene": three_obstacles(), **kwargs})
