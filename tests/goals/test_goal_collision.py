"""CollisionAvoidanceGoal: its residual against the definition (robot spheres vs the scene's
distances and vs each other), its Jacobian against finite differences, moving obstacles,
and the bad input it refuses."""

import numpy as np
import pytest

import bioik
from bioik import CollisionAvoidanceGoal, Problem
from bioik.collision import allowed_collisions, sphere_model, sphere_pairs
from bioik.scene import Scene
from goal_helpers import residual


def pose(x, y, z):
    T = np.eye(4)
    T[:3, 3] = (x, y, z)
    return T


@pytest.fixture(scope="module")
def ur5():
    return bioik.load_robot("ur5")


def expected(robot, goal, q):
    """The residual by its definition, from numpy: sphere centres from FK, the scene's
    distances from `Scene.distance`, pairs from the allowed-collision matrix with their slack."""
    model = sphere_model(robot)
    poses = np.array([robot.link_pose(q, link) for link in model.links])
    c = model.world(poses)
    env = 0.0
    if goal.scene is not None and len(goal.scene):
        d, _ = goal.scene.distance(c)
        env = np.sum(np.maximum(0.0, goal.margin + model.radii - d) ** 2)
    own = 0.0
    pairs = sphere_pairs(robot, model, allowed_collisions(robot))
    for (i, j), slack in zip(pairs.index, pairs.slack):
        pen = goal.margin + model.radii[i] + model.radii[j] - slack - np.linalg.norm(c[i] - c[j])
        own += max(pen, 0.0) ** 2
    return np.sqrt([env, own]) / goal.epsilon


def test_residual_matches_its_definition(ur5):
    scene = Scene()
    scene.add_box("table", (1.0, 1.0, 0.05), pose(0.0, 0.0, -0.2))
    scene.add_sphere("ball", 0.1, pose(0.3, 0.1, 0.4))
    scene.add_cylinder("post", 0.05, 0.8, pose(-0.3, 0.2, 0.2))
    goal = CollisionAvoidanceGoal(scene, margin=0.01)
    problem = Problem(ur5, [goal])
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(30):
        q = ur5.random_configuration(rng)
        r = residual(problem, q)
        np.testing.assert_allclose(r, expected(ur5, goal, q), rtol=1e-9, atol=1e-9)
        hits += r[0] > 0
    assert 5 <= hits < 30  # some configurations collide, some do not


def test_jacobian_matches_finite_differences(ur5):
    scene = Scene()
    scene.add_box("wall", (0.1, 2.0, 2.0), pose(0.35, 0.0, 0.3))
    goal = CollisionAvoidanceGoal(scene, margin=0.02)
    problem = Problem(ur5, [goal])
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(40):
        q = ur5.random_configuration(rng)
        r, Jr = residual(problem, q, with_jac=True)
        if r.min() <= 1e-3:  # a row at 0 (or nearly) has a kink; compare where both rows are smooth
            continue
        h = 1e-7
        for v in range(ur5.dof):
            dq = np.zeros(ur5.dof)
            dq[v] = h
            fd = (residual(problem, q + dq) - residual(problem, q - dq)) / (2 * h)
            np.testing.assert_allclose(Jr[:, v], fd, rtol=1e-4, atol=1e-4)
        checked += 1
    assert checked >= 3


def test_far_scene_costs_nothing_and_the_goal_is_met(ur5):
    scene = Scene()
    scene.add_box("far", (0.1, 0.1, 0.1), pose(5.0, 0.0, 0.0))
    goal = CollisionAvoidanceGoal(scene, self_collision=False)
    problem = Problem(ur5, [goal])
    ok, errors, cost, _ = problem.accept(np.zeros(ur5.dof))
    assert ok and cost == 0.0 and errors[0, 0] == 0.0


def test_moving_an_obstacle_is_read_by_the_next_evaluation_without_a_new_problem(ur5):
    scene = Scene()
    scene.add_sphere("ball", 0.1, pose(5.0, 0.0, 0.0))
    goal = CollisionAvoidanceGoal(scene, self_collision=False)
    solver = bioik.Solver(ur5, "lm")
    q = np.zeros(ur5.dof)
    tip = ur5.link_pose(q, ur5.tips[0])[:3, 3]
    first = solver.problem([goal])
    assert first.accept(q)[0]
    scene.move("ball", pose(*tip))
    second = solver.problem([goal])
    assert second is first  # same layout: the prepared problem is reused ...
    second.update([goal])  # what every solve does before its search
    ok, errors, _, _ = second.accept(q)
    assert not ok and errors[0, 0] > 1.0  # ... and reads the moved ball
    scene.add_box("box", (0.1, 0.1, 0.1), pose(5.0, 0.0, 0.0))
    assert solver.problem([goal]) is not first  # a new obstacle: a new layout


def test_allowed_pairs_are_ignored(ur5):
    scene = Scene()
    scene.add_box("table", (0.3, 0.3, 0.1), pose(0.0, 0.0, -0.05))  # the base stands on it, spheres sink in
    q = np.zeros(ur5.dof)
    touching = CollisionAvoidanceGoal(scene, self_collision=False)
    assert residual(Problem(ur5, [touching]), q)[0] > 0
    links = [l for l in sphere_model(ur5).links if "base" in l or "shoulder" in l]
    allowed = CollisionAvoidanceGoal(scene, self_collision=False, allowed=[(l, "table") for l in links])
    assert residual(Problem(ur5, [allowed]), q)[0] == 0.0


def test_self_collision_only(ur5):
    goal = CollisionAvoidanceGoal()
    problem = Problem(ur5, [goal])
    rng = np.random.default_rng(2)
    rows = np.array([residual(problem, ur5.random_configuration(rng)) for _ in range(200)])
    assert np.all(rows[:, 0] == 0.0) and np.any(rows[:, 1] > 0.0)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"scene": "table"}, "bioik.Scene"),
        ({"margin": -0.1}, "margin"),
        ({"epsilon": 0.0}, "epsilon"),
        ({"margin": float("nan")}, "margin"),
        ({"allowed": [("base_link",)]}, "pairs"),
        ({"allowed": 5}, "allowed must be a list of .link, obstacle. name pairs"),
        ({"self_collision": np.array([np.nan] * 3)}, "self_collision must be True or False"),
        ({"lower_grids": 1}, "lower_grids must be True or False"),
    ],
)
def test_bad_arguments_are_named(kwargs, match):
    with pytest.raises((TypeError, ValueError), match=match):
        CollisionAvoidanceGoal(**kwargs)


def test_allowed_names_must_exist(ur5):
    scene = Scene()
    scene.add_box("table", (1.0, 1.0, 0.1))
    with pytest.raises(ValueError, match="no collision geometry"):
        Problem(ur5, [CollisionAvoidanceGoal(scene, allowed=[("nowhere", "table")])])
    with pytest.raises(ValueError, match="not in the scene"):
        Problem(ur5, [CollisionAvoidanceGoal(scene, allowed=[(sphere_model(ur5).links[0], "chair")])])


def test_the_scenes_contacts_of_links_a_partial_cover_leaves_out_allow_nothing(ur5):
    """A cover of part of the robot (`spheres=`) with a scene that lets another link touch
    a table: that contact has nothing to allow here, not an error; a contact naming no link
    of the robot is still refused."""
    from bioik.decoupling import _restrict

    scene = Scene()
    scene.add_box("table", (1.0, 1.0, 0.1))
    full = sphere_model(ur5)
    part = _restrict(full, full.links[2:])
    scene.allow_contact("table", full.links[0])
    problem = Problem(ur5, [CollisionAvoidanceGoal(scene, spheres=part)])
    assert np.isfinite(problem.cost(ur5.center())).all()
    scene.allow_contact("table", "nowhere")
    with pytest.raises(ValueError, match="'nowhere' has no collision geometry"):
        Problem(ur5, [CollisionAvoidanceGoal(scene, spheres=part)])


def test_a_reassigned_field_is_read_by_the_next_problem(ur5):
    """The cover and pairs are kept per robot, but not past a change of the fields they
    come from."""
    goal = CollisionAvoidanceGoal()
    rng = np.random.default_rng(2)
    q = next(q for q in (ur5.random_configuration(rng) for _ in range(200)) if residual(Problem(ur5, [goal]), q)[1] > 0)
    goal.self_collision = False
    assert residual(Problem(ur5, [goal]), q)[1] == 0.0


def test_sphere_centres_follow_extrapolated_link_frames_to_second_order(ur5):
    """BioIK 2 scores children on link frames extrapolated from the step's FK: the kernel
    places the spheres on whatever frames it is given, so their centres are extrapolated
    with the links, with the extrapolation's second-order error."""
    from bioik.goals.kernels import MAX_LINK_ROWS, goal_output, goal_residual
    from bioik.kinematics.frames import quat_from_matrix
    from bioik.problem.layout import unpack

    goal = CollisionAvoidanceGoal(Scene())
    problem = Problem(ur5, [goal])
    p = unpack(problem.ibuf, problem.fbuf)
    model = sphere_model(ur5)
    S = len(model)
    world = int(p.aux[3])  # the kernel's world-centre scratch (the block starts at 0)
    rng = np.random.default_rng(5)
    q0 = ur5.random_configuration(rng)
    direction = rng.normal(size=ur5.dof)
    direction /= np.linalg.norm(direction)
    errors = []
    for h in (0.02, 0.01):
        q = q0 + h * direction
        T = ur5.extrapolate(q0, q[None], list(model.links))[0]
        frames = np.zeros((len(p.out_seg), 7))
        for k in range(len(model.links)):
            o = goal_output(p.gi, 0, k)
            frames[o, :3], frames[o, 3:] = T[k, :3, 3], quat_from_matrix(T[k, :3, :3])
        n = ur5.dof
        goal_residual(p.gi, p.gf, 0, frames, np.zeros((6 * len(frames), n)), q, p.vdata, p.aux,
                      np.zeros(max(MAX_LINK_ROWS, n)), np.zeros((max(MAX_LINK_ROWS, n), n)), False, np.zeros((4 * MAX_LINK_ROWS, 3)))
        predicted = p.aux[world : world + 3 * S].reshape(S, 3)
        exact = model.world(np.array([ur5.link_pose(q, link) for link in model.links]))
        errors.append(np.abs(predicted - exact).max())
    assert errors[0] < 2e-3
    assert 3.0 < errors[0] / errors[1] < 5.0  # halving the step quarters the error


def test_lower_grids_charges_a_mesh_by_its_grid_less_the_error_bound(ur5):
    """lower_grids: the scene part of the residual reads the mesh's field lowered by
    GRID_SLACK·h (a lower bound of the distance), the primitives' exactly as before."""
    import trimesh

    from bioik.scene.scene import GRID_SLACK

    scene = Scene()
    scene.add_mesh("block", trimesh.creation.box(extents=(0.3, 0.3, 0.3)), pose(0.45, 0.0, 0.3), resolution=0.01)
    plain, lowered = CollisionAvoidanceGoal(scene), CollisionAvoidanceGoal(scene, lower_grids=True)
    model = sphere_model(ur5)
    rng = np.random.default_rng(2)
    grew = 0
    for _ in range(20):
        q = ur5.random_configuration(rng)
        c = model.world(np.array([ur5.link_pose(q, link) for link in model.links]))
        d, _ = scene.distance(c)
        want = np.sqrt(np.sum(np.maximum(0.0, model.radii - (d - GRID_SLACK * 0.01)) ** 2)) / lowered.epsilon
        r0, r1 = residual(Problem(ur5, [plain]), q), residual(Problem(ur5, [lowered]), q)
        np.testing.assert_allclose(r1[0], want, rtol=1e-9, atol=1e-9)
        assert r1[0] >= r0[0] and r1[1] == r0[1]
        grew += r1[0] > r0[0]
    assert grew > 0


def test_both_rows_are_their_definitions_for_a_thin_cover_near_a_mesh_solid():
    """elise_ur10 with the endoscope's thin cover near a boolean solid (an SDF grid, read
    inside and outside its node box) and in random poses: the scene row and the self row
    equal their definitions over every sphere and pair (the link-pair culling drops none
    that overlaps)."""
    from bioik import scenes
    from bioik.scene import Cylinder, difference

    robot = bioik.load_robot("elise_ur10")
    scene = Scene()
    tank = difference(Cylinder(0.16, 0.32), Cylinder(0.15, 0.30), (Cylinder(0.0175, 0.04), pose(0.0, 0.0, 0.155)))
    scene.add("tank", tank, pose(0.65, 0.0, -0.69))
    scene.add_box("post", (0.05, 0.05, 0.5), pose(0.3, 0.4, -0.5))
    model = sphere_model(robot, links=scenes.ENDOSCOPE_COVER)
    goal = CollisionAvoidanceGoal(scene, spheres=model)
    problem = Problem(robot, [goal])
    pairs = sphere_pairs(robot, model, allowed_collisions(robot))
    witnesses = scenes.load("HydrogenTankSmall").targets().witnesses[:20]
    rng = np.random.default_rng(4)
    hits, own_hits = 0, 0
    for q in np.concatenate([witnesses, witnesses + 0.03 * rng.standard_normal(witnesses.shape),
                             robot.random_configuration(rng, 20)]):
        q = np.clip(q, robot.lower, robot.upper)
        c = model.world(np.array([robot.link_pose(q, link) for link in model.links]))
        d, _ = scene.distance(c)
        env = np.sqrt(np.sum(np.maximum(0.0, model.radii - d) ** 2)) / goal.epsilon
        i, j = pairs.index.T
        gap = model.radii[i] + model.radii[j] - pairs.slack - np.linalg.norm(c[i] - c[j], axis=1)
        own = np.sqrt(np.sum(np.maximum(0.0, gap) ** 2)) / goal.epsilon
        np.testing.assert_allclose(residual(problem, q), [env, own], rtol=1e-12, atol=1e-12)
        hits += env > 0
        own_hits += own > 0
    assert 5 <= hits < 60 and own_hits >= 3
