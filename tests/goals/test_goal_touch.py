"""TouchGoal on the link's real collision geometry: its gap against geometry sampled
independently (primitives) and against every mesh vertex (a mesh robot), against coal's
distance after a solve onto a table top, the optional in-plane point, its Jacobian
against finite differences, and the input it refuses."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from goal_helpers import assert_jacobian, random_unit, residual, tree

import bioik
from bioik import Problem, TouchGoal, UnknownNameError
from bioik.collision.link_geometry import link_pieces
from bioik.goals.touch import tangents
from bioik.scene import Scene


@pytest.fixture(scope="module")
def ur5():
    return bioik.load_robot("ur5")


def surface_samples(robot, link: str, q: np.ndarray, count: int = 20000) -> np.ndarray:
    """Points on the link's collision geometry (world frame), drawn on each primitive's
    exact surface (sphere, cylinder, box) or taken as a mesh's vertices: an independent
    stand-in for the geometry the goal reads."""
    rng = np.random.default_rng(0)
    T = robot.link_pose(q, link)
    entry = next(l for l in robot.model.links if l.name == link)
    out = []
    for piece in link_pieces(entry):
        if piece.kind == "sphere":
            u = rng.normal(size=(count, 3))
            P = piece.size[0] * u / np.linalg.norm(u, axis=1, keepdims=True)
        elif piece.kind == "cylinder":
            a = rng.uniform(0, 2 * np.pi, count)
            z = rng.choice([-0.5, 0.5], count) * piece.size[1]
            P = np.c_[piece.size[0] * np.cos(a), piece.size[0] * np.sin(a), z]  # the two rims
        elif piece.kind == "box":
            P = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * 0.5 * np.asarray(piece.size)
        else:
            P = piece.mesh.vertices
        P = P @ piece.origin[:3, :3].T + piece.origin[:3, 3]
        out.append(P @ T[:3, :3].T + T[:3, 3])
    return np.vstack(out)


def lowest(robot, goal: TouchGoal, q) -> tuple[float, np.ndarray]:
    """(least height over the plane, that point) among the samples."""
    X = surface_samples(robot, goal.link, q)
    h = (X - goal.point) @ goal.normal
    k = int(np.argmin(h))
    return float(h[k]), X[k]


@pytest.mark.parametrize("link", ["forearm_link", "wrist_1_link", "wrist_3_link"])
def test_the_gap_is_that_of_the_real_geometry(ur5, link, rng):
    """Cylinders and spheres (ur5's links): the goal's gap is the least height of the
    geometry's surface, never above the sampled surface's and within the sampling's reach
    of it; rows 1–2 are the in-plane offset of that lowest point."""
    for _ in range(10):
        goal = TouchGoal(link, rng.normal(size=3), random_unit(rng))
        q = ur5.random_configuration(rng)
        r = residual(Problem(ur5, [goal]), q)
        h, x = lowest(ur5, goal, q)
        assert r[0] <= h + 1e-12
        assert r[0] == pytest.approx(h, abs=2e-4)  # 20,000 samples of a few cm of surface
        t1, t2 = tangents(goal.normal)
        contact = goal.point + r[0] * goal.normal + r[1] * t1 + r[2] * t2
        assert np.linalg.norm(contact - x) <= 0.02  # the lowest point, up to the samples' spacing


def test_a_cylinder_touches_with_its_rim_and_its_end():
    """wrist_3_link is one cylinder: along its axis the end face is lowest (its centre is the
    contact point), across it the side, and obliquely the rim."""
    ur5 = bioik.load_robot("ur5")
    q = ur5.center()
    T = ur5.link_pose(q, "wrist_3_link")
    piece = link_pieces(next(l for l in ur5.model.links if l.name == "wrist_3_link"))[0]
    radius, half = piece.size[0], 0.5 * piece.size[1]
    c = T[:3, :3] @ piece.origin[:3, 3] + T[:3, 3]
    a = T[:3, :3] @ piece.origin[:3, 2]
    side = np.cross(a, random_unit(np.random.default_rng(1)))
    side /= np.linalg.norm(side)
    point = c - 0.5 * random_unit(np.random.default_rng(2))
    for n, gap in ((a, -half), (-a, -half), (side, -radius), ((a + side) / np.sqrt(2), -(half + radius) / np.sqrt(2))):
        r = residual(Problem(ur5, [TouchGoal("wrist_3_link", point, n)]), q)
        assert r[0] == pytest.approx(n @ (c - point) + gap, abs=1e-12)


def _corpus():
    """benchmarks/corpus.py, which loads example-robot-data's robots as a user would."""
    if "corpus" not in sys.modules:
        spec = importlib.util.spec_from_file_location("corpus", Path(__file__).parents[2] / "benchmarks" / "corpus.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["corpus"] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
    return sys.modules["corpus"]


def test_a_mesh_link_touches_with_its_lowest_vertex():
    """A panda from example-robot-data (real collision meshes): the gap is the least height
    over every vertex of the link's meshes, exactly."""
    corpus = _corpus()
    if corpus.robots_folder() is None:
        pytest.skip("example-robot-data is not installed (pip install example-robot-data)")
    panda = corpus.load(next(e for e in corpus.CORPUS if e.name == "panda"), corpus.robots_folder())
    rng = np.random.default_rng(3)
    for link in ("panda_link4", "panda_hand", "panda_leftfinger"):
        for _ in range(5):
            goal = TouchGoal(link, rng.normal(size=3), random_unit(rng))
            q = panda.random_configuration(rng)
            h, _ = lowest(panda, goal, q)
            assert residual(Problem(panda, [goal]), q)[0] == pytest.approx(h, abs=1e-12)


def test_without_at_point_only_the_gap_counts(ur5, rng):
    goal = TouchGoal("forearm_link", rng.normal(size=3), random_unit(rng), at_point=False)
    q = ur5.random_configuration(rng)
    r = residual(Problem(ur5, [goal]), q)
    assert r[1] == r[2] == 0.0
    assert r[0] == residual(Problem(ur5, [TouchGoal("forearm_link", goal.point, goal.normal)]), q)[0]


@pytest.mark.parametrize("robot_name, link", [("ur5", "forearm_link"), ("ur5", "wrist_1_link"), ("tree", "l1")])
@pytest.mark.parametrize("at_point", [True, False])
def test_jacobian_matches_finite_differences(robot_name, link, at_point, rng):
    robot = tree() if robot_name == "tree" else bioik.load_robot(robot_name)
    for _ in range(10):
        goal = TouchGoal(link, rng.normal(size=3), rng.normal(size=3), at_point=at_point)
        assert_jacobian(robot, goal, robot.random_configuration(rng))


@pytest.mark.parametrize("at_point", [True, False])
def test_lm_puts_the_wrist_on_a_table_top_by_coal(ur5, at_point):
    """The table's top face is the plane; after the solve coal's distance from wrist_3_link's
    real geometry to the table is the goal's gap, within the tolerance."""
    top = 0.3
    table = Scene()
    table.add_box("table", (3.0, 3.0, 0.1), np.array([[1, 0, 0, 0.45], [0, 1, 0, 0.0], [0, 0, 1, top - 0.05], [0, 0, 0, 1]]))  # the plane, where the wrist reaches
    point = np.array([0.4, 0.15, top])
    goal = TouchGoal("wrist_3_link", point, (0.0, 0.0, 1.0), at_point=at_point)
    res = bioik.solve(ur5, [goal], seed=np.zeros(ur5.dof), solver="lm", timeout=3600.0, random_seed=5, max_iterations=300)
    assert res.success
    checker = bioik.CollisionChecker(ur5, table)
    gap = next(c for c in checker.closest(res.q, k=50) if c.a == "wrist_3_link" and c.b == "table")
    assert abs(gap.distance) <= 1e-5
    if at_point:
        assert np.linalg.norm(gap.point_a - point) <= 1e-3  # coal's witness: on the contact patch


def test_links_without_geometry_and_unknown_links_are_named(ur5):
    with pytest.raises(ValueError, match=r"TouchGoal: link 'tool0' has no collision geometry.*wrist_3_link"):
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
    with pytest.raises(ValueError, match="TouchGoal: at_point must be True or False"):
        TouchGoal("wrist_3_link", (0, 0, 0), (0, 0, 1), at_point="yes")


def test_the_tangents_complete_a_right_handed_frame(rng):
    for n in [*np.eye(3), -np.eye(3)[2], *(random_unit(rng) for _ in range(20))]:
        t1, t2 = tangents(n)
        np.testing.assert_allclose(np.array([n, t1, t2]) @ np.array([n, t1, t2]).T, np.eye(3), atol=1e-15)
        np.testing.assert_allclose(np.cross(n, t1), t2, atol=1e-15)


def test_the_normal_is_normalised():
    assert np.array_equal(TouchGoal("wrist_3_link", (0, 0, 0), (0.0, 0.0, -4.0)).normal, [0.0, 0.0, -1.0])


def test_a_reassigned_link_is_read_by_the_next_problem(ur5, rng):
    goal = TouchGoal("forearm_link", rng.normal(size=3), random_unit(rng))
    q = ur5.random_configuration(rng)
    Problem(ur5, [goal])
    goal.link = "wrist_1_link"
    r = residual(Problem(ur5, [goal]), q)
    assert r[0] == pytest.approx(lowest(ur5, goal, q)[0], abs=2e-4)
