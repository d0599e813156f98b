"""TouchGoal: the link's deepest sphere along −n touches the plane through p at p, r = c − ρn − p
in the frame (n, t₁, t₂): its residual against the definition (sphere centres from FK),
which sphere it picks, its Jacobian against finite differences, a solve onto a table top,
and the input it refuses."""

import numpy as np
import pytest
from goal_helpers import assert_jacobian, random_unit, residual, tree

import bioik
from bioik import Problem, TouchGoal, UnknownNameError
from bioik.collision import SphereModel, sphere_model
from bioik.goals.touch import tangents
from bioik.scene import Scene


@pytest.fixture(scope="module")
def ur5():
    return bioik.load_robot("ur5")


def heights(robot, goal, q) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """n·(c_k − p) − ρ_k, centres c_k and radii ρ_k of the link's spheres (numpy)."""
    model = sphere_model(robot) if goal.spheres is None else goal.spheres
    mine = model.link_of == model.links.index(goal.link)
    T = robot.link_pose(q, goal.link)
    c = model.centres[mine] @ T[:3, :3].T + T[:3, 3]
    rho = model.radii[mine]
    return (c - goal.point) @ goal.normal - rho, c, rho


def expected(robot, goal, q) -> np.ndarray:
    h, c, rho = heights(robot, goal, q)
    k = int(np.argmin(h))
    t1, t2 = tangents(goal.normal)
    return np.array([h[k], t1 @ (c[k] - goal.point), t2 @ (c[k] - goal.point)])


@pytest.mark.parametrize("link", ["forearm_link", "wrist_1_link", "wrist_3_link"])
def test_residual_matches_its_definition(ur5, link, rng):
    for _ in range(10):
        goal = TouchGoal(link, rng.normal(size=3), rng.normal(size=3))
        q = ur5.random_configuration(rng)
        r = residual(Problem(ur5, [goal]), q)
        np.testing.assert_allclose(r, expected(ur5, goal, q), atol=1e-12)
        h, c, rho = heights(ur5, goal, q)
        k = int(np.argmin(h))
        assert np.linalg.norm(r) == pytest.approx(np.linalg.norm(c[k] - rho[k] * goal.normal - goal.point), rel=1e-12)


def test_the_tangents_complete_a_right_handed_frame(rng):
    for n in [*np.eye(3), -np.eye(3)[2], *(random_unit(rng) for _ in range(20))]:
        t1, t2 = tangents(n)
        np.testing.assert_allclose(np.array([n, t1, t2]) @ np.array([n, t1, t2]).T, np.eye(3), atol=1e-15)
        np.testing.assert_allclose(np.cross(n, t1), t2, atol=1e-15)


def test_the_deepest_sphere_along_the_normal_touches():
    """Two spheres on l2, 0.1 m either side of its origin along its x axis, radii 0.02 and
    0.05: which one touches depends on the normal."""
    robot = tree()
    q = robot.center()
    T = robot.link_pose(q, "l2")
    spheres = SphereModel(("l2",), np.array([0, 0]), np.array([[0.1, 0.0, 0.0], [-0.1, 0.0, 0.0]]), np.array([0.02, 0.05]))
    x = T[:3, 0]
    point = T[:3, 3] + 0.3 * random_unit(np.random.default_rng(0))
    for n, k in ((-x, 0), (x, 1)):
        c, rho = T[:3, 3] + (0.1 if k == 0 else -0.1) * x, (0.02, 0.05)[k]
        r = residual(Problem(robot, [TouchGoal("l2", point, n, spheres=spheres)]), q)
        assert r[0] == pytest.approx(n @ (c - point) - rho, abs=1e-12)
        assert np.linalg.norm(r) == pytest.approx(np.linalg.norm(c - rho * n - point), abs=1e-12)
    # a normal across the axis: both equally high but for the radii, the larger one is deeper
    y = T[:3, 1]
    r = residual(Problem(robot, [TouchGoal("l2", point, y, spheres=spheres)]), q)
    assert r[0] == pytest.approx(y @ (T[:3, 3] - point) - 0.05, abs=1e-12)


@pytest.mark.parametrize("robot_name, link", [("ur5", "forearm_link"), ("ur5", "wrist_1_link"), ("tree", "l1")])
def test_jacobian_matches_finite_differences(robot_name, link, rng):
    robot = tree() if robot_name == "tree" else bioik.load_robot(robot_name)
    checked = 0
    for _ in range(10):
        goal = TouchGoal(link, rng.normal(size=3), rng.normal(size=3))
        q = robot.random_configuration(rng)
        h = np.sort(heights(robot, goal, q)[0])
        if len(h) > 1 and h[1] - h[0] < 1e-4:  # two spheres nearly as deep: the choice may switch
            continue
        assert_jacobian(robot, goal, q)
        checked += 1
    assert checked >= 5


def test_lm_puts_the_tool_link_on_a_table_top(ur5):
    """The table's top face is the plane; wrist_3_link (the flange, one sphere) touches it
    at a point: after the solve its sphere lies on the table within 1e-4 m (by the
    scene's own distance) and touches it at the point."""
    table = Scene()
    top = 0.3
    table.add_box("table", (0.6, 0.6, 0.1), np.array([[1, 0, 0, 0.45], [0, 1, 0, 0.0], [0, 0, 1, top - 0.05], [0, 0, 0, 1]]))
    point = np.array([0.4, 0.15, top])
    goal = TouchGoal("wrist_3_link", point, (0.0, 0.0, 1.0))
    res = bioik.solve(ur5, [goal], seed=np.zeros(ur5.dof), solver="lm", timeout=3600.0, random_seed=5,
                      max_iterations=300)
    assert res.success
    _, c, rho = heights(ur5, goal, res.q)
    d, _ = table.distance(c)
    assert abs(d[0] - rho[0]) <= 1e-4
    assert np.linalg.norm(c[0] - rho[0] * goal.normal - point) <= 1e-4


def test_links_without_spheres_and_unknown_links_are_named(ur5):
    with pytest.raises(ValueError, match=r"TouchGoal: link 'tool0' has no collision geometry .*wrist_3_link"):
        Problem(ur5, [TouchGoal("tool0", (0, 0, 0), (0, 0, 1))])
    with pytest.raises(UnknownNameError, match="tool1"):
        Problem(ur5, [TouchGoal("tool1", (0, 0, 0), (0, 0, 1))])


@pytest.mark.parametrize(
    "point, normal, match",
    [
        ((0, 0, 0), (0, 0, 0), "normal must be a non-zero 3-vector"),
        ((0, 0, 0), (0, 1), "normal must be 3 numbers"),
        ((0, 0, 0), (0, np.inf, 1), "normal contains NaN or inf"),
        ((0, np.nan, 0), (0, 0, 1), "point contains NaN or inf"),
        ("here", (0, 0, 1), "point must be 3 numbers"),
    ],
)
def test_bad_input(point, normal, match):
    with pytest.raises(ValueError, match=f"TouchGoal: {match}"):
        TouchGoal("wrist_3_link", point, normal)


def test_the_normal_is_normalised():
    assert np.array_equal(TouchGoal("wrist_3_link", (0, 0, 0), (0.0, 0.0, -4.0)).normal, [0.0, 0.0, -1.0])


def test_a_reassigned_link_is_read_by_the_next_problem(ur5, rng):
    goal = TouchGoal("forearm_link", rng.normal(size=3), rng.normal(size=3))
    q = ur5.random_configuration(rng)
    Problem(ur5, [goal])
    goal.link = "wrist_1_link"
    np.testing.assert_allclose(residual(Problem(ur5, [goal]), q), expected(ur5, goal, q), atol=1e-12)
