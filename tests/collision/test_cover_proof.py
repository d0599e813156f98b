"""The cover's proof never clears a colliding configuration: its fine cover holds every point
of every link's geometry (bundled robots and a mesh robot), and on random configurations in
cluttered scenes (primitives and a mesh obstacle's grid, a margin, allowed contacts, a moved
obstacle) the proof-first check gives coal's verdict every time, while proving most clear
configurations without it."""

import numpy as np
import pytest
import trimesh

import bioik
from bioik.collision.checker import CollisionChecker
from bioik.collision.cover_proof import SCENE, SELF, CoverProof, proof_cover
from bioik.collision.guard import proof_first
from bioik.robots import names

from collision_helpers import mesh_robot, translation
from test_spheres import _uncovered

pytest.importorskip("coal")


@pytest.mark.parametrize("name", names())
def test_the_proof_cover_holds_every_point_of_every_link(name):
    robot = bioik.load_robot(name)
    assert _uncovered(robot, proof_cover(robot), np.random.default_rng(3)) == []


def test_the_proof_cover_holds_a_mesh_link_surface_and_inside(tmp_path):
    robot = mesh_robot(tmp_path)
    assert _uncovered(robot, proof_cover(robot), np.random.default_rng(4)) == []


def clutter(robot: bioik.Robot, rng: np.random.Generator, mesh: bool = True) -> bioik.Scene:
    """Boxes, balls, a capsule and (with `mesh`) a mesh solid strewn where the robot reaches."""
    reach = np.linalg.norm(robot.link_pose(robot.center(), robot.tips[0])[:3, 3]) + 0.2
    scene = bioik.Scene()
    for k in range(6):
        c = rng.uniform(-reach, reach, 3)
        if k % 3 == 0:
            scene.add_box(f"box{k}", rng.uniform(0.05, 0.3, 3), translation(*c))
        elif k % 3 == 1:
            scene.add_sphere(f"ball{k}", rng.uniform(0.03, 0.12), translation(*c))
        else:
            scene.add(f"cap{k}", bioik.scene.Capsule(rng.uniform(0.02, 0.06), rng.uniform(0.1, 0.4)), translation(*c))
    if mesh:
        scene.add_mesh("torus", trimesh.creation.torus(0.15, 0.04), translation(*rng.uniform(-reach, reach, 3)))
    return scene


def verdicts(robot, scene, n, rng, margin=0.0, allowed=()):
    """(proof-first verdicts, coal's verdicts, proof bits) on n random configurations."""
    checker = bioik.CollisionChecker(robot, scene, margin=margin, allowed=allowed)
    assert checker.fixed_contacts() == []  # as a solve demands (`bioik.collision.guard`): the proof leaves fixed links out
    proof = CoverProof(robot, proof_cover(robot), scene, margin, allowed, checker.acm)
    check = proof_first(proof, checker)
    Q = robot.random_configuration(rng, n)
    return (np.array([check(q) for q in Q]), np.array([checker.is_free(q) for q in Q]),
            np.array([proof.unproven(q) for q in Q]))


@pytest.mark.parametrize("name", names())
def test_the_proof_first_check_gives_coals_verdict_on_every_bundled_robot(name):
    robot = bioik.load_robot(name)
    rng = np.random.default_rng(5)
    fast, exact, bits = verdicts(robot, clutter(robot, rng, mesh=name in ("ur5", "panda")), 150, rng)
    assert np.array_equal(fast, exact)
    assert not np.any((bits == 0) & ~exact)  # the proof alone never clears a colliding one
    assert 0 < np.count_nonzero(~exact) < len(exact)  # the scenes collide sometimes, not always


def test_most_clear_configurations_of_ur5_are_proved_without_coal():
    robot = bioik.load_robot("ur5")
    rng = np.random.default_rng(6)
    fast, exact, bits = verdicts(robot, clutter(robot, rng), 400, rng)
    assert np.array_equal(fast, exact)
    assert np.count_nonzero(bits[exact] == 0) >= 0.5 * np.count_nonzero(exact)


def test_unproven_rows_gives_unproven_of_each_row_asked():
    robot = bioik.load_robot("ur5")
    rng = np.random.default_rng(8)
    scene = clutter(robot, rng)
    proof = CoverProof(robot, proof_cover(robot), scene, 0.0, (), bioik.CollisionChecker(robot, scene).acm)
    Q = robot.random_configuration(rng, 60)
    ok = rng.random(60) < 0.7
    bits = np.full(60, 99, dtype=np.int64)
    proof.unproven_rows(Q, ok, bits, 5, 55)
    expected = np.array([proof.unproven(q) if ok[i] else -1 for i, q in enumerate(Q)])
    assert np.array_equal(bits[5:55], expected[5:55]) and np.all(bits[:5] == 99) and np.all(bits[55:] == 99)
    assert 0 in bits[5:55] and np.any(bits[5:55] > 0)  # some rows proved clear, some not: a real test


def test_margin_and_allowed_contacts_are_the_exact_checks():
    robot = bioik.load_robot("ur5")
    scene = bioik.Scene()
    scene.add_box("table", (1.6, 1.6, 0.04), translation(0, 0, -0.02))  # the base stands on it
    scene.add_box("post", (0.1, 0.1, 0.6), translation(0.35, 0.2, 0.3))
    allowed = [("base_link", "table"), ("shoulder_link", "table")]
    rng = np.random.default_rng(7)
    for margin in (0.0, 0.0005):  # (ur5's wrist_1 and wrist_3 covers come within 0.7 mm at best)
        fast, exact, bits = verdicts(robot, scene, 300, rng, margin, allowed)
        assert np.array_equal(fast, exact)
        assert np.count_nonzero(bits == 0) > 0
    # without the contact allowed, the base on the table is never proved clear (fixed links
    # are coal's to decide, and it refuses them)
    checker = bioik.CollisionChecker(robot, scene)
    assert CoverProof(robot, proof_cover(robot), scene, 0.0, (), checker.acm).unproven(robot.center()) == 0 \
        or not checker.is_free(robot.center())


def test_a_mesh_robot_in_clutter(tmp_path):
    robot = mesh_robot(tmp_path)
    rng = np.random.default_rng(8)
    scene = bioik.Scene()
    scene.add_sphere("ball", 0.02, translation(0.08, 0, 0.38))  # the tilted tube's ends sweep past both
    scene.add_mesh("torus", trimesh.creation.torus(0.05, 0.015), translation(-0.12, 0, 0.14))
    fast, exact, bits = verdicts(robot, scene, 300, rng)
    assert np.array_equal(fast, exact)
    assert np.count_nonzero(~exact) > 0 and np.count_nonzero(bits == 0) > 0


def test_the_proof_follows_a_moved_obstacle():
    robot = bioik.load_robot("ur5")
    scene = bioik.Scene()
    scene.add_sphere("ball", 0.05, translation(2.0, 0, 0))
    checker = bioik.CollisionChecker(robot, scene)
    proof = CoverProof(robot, proof_cover(robot), scene, 0.0, (), checker.acm)
    q = robot.center()
    assert not proof.unproven(q) & SCENE
    tip = robot.link_pose(q, robot.tips[0])[:3, 3]
    scene.move("ball", translation(*tip))
    assert proof.unproven(q) & SCENE and not checker.is_free(q)
    scene.move("ball", translation(2.0, 0, 0))
    assert not proof.unproven(q) & SCENE


def test_self_pairs_get_no_slack():
    robot = bioik.load_robot("ur5")
    checker = bioik.CollisionChecker(robot)
    proof = CoverProof(robot, proof_cover(robot), None, 0.0, (), checker.acm)
    Q = robot.random_configuration(np.random.default_rng(9), 400)
    bits = np.array([proof.unproven(q) for q in Q])
    free = np.array([checker.is_free(q) for q in Q])
    assert not np.any(bits & SCENE)
    assert not np.any((bits == 0) & ~free) and np.any(~free)  # ur5 folds into itself sometimes
    # no pairs checked: nothing to prove
    none = CoverProof(robot, proof_cover(robot), None, 0.0, (), None)
    assert all(none.unproven(q) == 0 for q in Q[:20])


def test_a_solve_calls_coal_only_where_the_proof_cannot_decide(monkeypatch):
    robot = bioik.load_robot("ur5")
    scene = bioik.Scene()
    scene.add_box("table", (1.6, 1.6, 0.04), translation(0, 0, -0.05))
    scene.add_box("post", (0.1, 0.1, 0.3), translation(0.45, 0.2, 0.15))
    calls = []
    for name in ("is_free", "is_free_of_scene", "is_free_of_itself"):
        monkeypatch.setattr(CollisionChecker, name,
                            lambda self, q, orig=getattr(CollisionChecker, name): calls.append(1) or orig(self, q))
    checker = bioik.CollisionChecker(robot, scene)
    rng = np.random.default_rng(10)
    targets = []
    while len(targets) < 40:
        q = robot.random_configuration(rng)
        T = robot.link_pose(q, robot.tips[0])
        if T[2, 3] > 0.05 and checker.is_free(q):
            targets.append(T)
    solver = bioik.Solver(robot)
    solver.solve([bioik.PoseGoal(robot.tips[0], targets[0])], scene=scene, max_iterations=500)  # builds the checks
    calls.clear()
    results = [solver.solve([bioik.PoseGoal(robot.tips[0], T)], scene=scene, random_seed=k, max_iterations=2000)
               for k, T in enumerate(targets)]
    assert sum(r.success for r in results) >= 38
    made = len(calls)
    assert all(checker.is_free(r.q) for r in results if r.success)
    assert made <= len(targets) // 2  # without the proof, every success is one call at least


def test_a_configuration_coal_calls_touching_is_left_to_coal():
    """elise_ur10's wrist a fraction of a micrometre above a cylinder's top in TableObjects:
    coal counts that as contact (its GJK tolerance), so the proof must not clear it — it
    once did, and a solve reported success for an answer the benchmark's coal check
    rejected."""
    from bioik import scenes

    robot = bioik.load_robot(scenes.ROBOT)
    scene = scenes.load("TableObjects").scene
    q = np.array([3.055594985828436, 4.528538914820137, -2.0504381353323025, 3.4269183849754814, -2.281762108144361,
                  -2.303486477221027, 2.7169791973451773, 1.4052512833504707, 0.9260397014082901])
    checker = CollisionChecker(robot, scene)
    assert not checker.is_free_of_scene(q)
    gap = min(c.distance for c in checker.closest(q, k=3) if c.kind == "scene")
    assert gap == 0.0  # in contact, by coal
    proof = CoverProof(robot, proof_cover(robot), scene, 0.0, (), checker.acm)
    assert proof.unproven(q) & SCENE
    assert not proof_first(proof, checker)(q)
