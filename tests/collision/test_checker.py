"""Exact checks: self-collision, obstacles with analytic penetration, margin, allowed
pairs, scene changes, solids' insides, threads."""

import threading

import numpy as np
import pytest
import trimesh

import bioik
from bioik.collision import CollisionChecker, Contact
from bioik.collision.link_geometry import link_pieces
from bioik.scene import Box, Capsule, Cylinder, Solid, Sphere, Surface

from collision_helpers import FakeScene, translation

UR5 = bioik.load_robot("ur5")
HOME = np.zeros(6)
FOLDED = np.array([0.0, -1.57, 3.1, 0.0, 0.0, 0.0])  # elbow folded fully: forearm onto the shoulder


def test_home_is_free_and_a_folded_elbow_collides_with_itself():
    c = CollisionChecker(UR5)
    assert c(HOME) and c.is_free(HOME)
    assert not c(FOLDED)
    contacts = c.contacts(FOLDED, n=5)
    assert contacts and all(isinstance(x, Contact) and x.kind == "self" and x.distance < 0 for x in contacts)
    assert [x.distance for x in contacts] == sorted(x.distance for x in contacts)
    assert not c.acm.allowed(contacts[0].a, contacts[0].b)


def _upper_arm_point():
    """The middle of the upper arm's axis at home (base frame): a 0.06 m capsule along x."""
    T = UR5.link_pose(HOME, "upper_arm_link") @ link_pieces(UR5.model.link("upper_arm_link"))[0].origin
    assert np.allclose(T[:3, 2], [1, 0, 0])
    return T[:3, 3], T


def test_a_box_through_a_link_reports_the_analytic_penetration():
    centre, T = _upper_arm_point()
    scene = FakeScene()
    # a box below the arm with its top face 0.02 m above the arm's lowest line: 0.02 m deep
    z_top = centre[2] - 0.06 + 0.02
    scene.add("slab", Box((0.1, 0.1, 0.1)), translation(centre[0], centre[1], z_top - 0.05))
    c = CollisionChecker(UR5, scene)
    assert not c(HOME)
    (hit,) = [x for x in c.contacts(HOME) if x.b == "slab"]
    assert hit.kind == "scene" and hit.a == "upper_arm_link"
    assert hit.distance == pytest.approx(-0.02, abs=1e-6)
    assert np.isclose(hit.point_a[2], centre[2] - 0.06, atol=1e-6) or np.isclose(hit.point_b[2], centre[2] - 0.06, atol=1e-6)
    # in the slab, yet free of itself: the scene left out, its own links not
    assert c.is_free_of_itself(HOME) and not c.is_free_of_itself(FOLDED)


def test_margin_counts_near_pairs_as_collisions():
    centre, _ = _upper_arm_point()
    scene = FakeScene()
    scene.add("slab", Box((0.1, 0.1, 0.1)), translation(centre[0], centre[1], centre[2] - 0.06 - 0.03 - 0.05))  # 3 cm below
    assert CollisionChecker(UR5, scene)(HOME)
    assert CollisionChecker(UR5, scene, margin=0.01)(HOME)  # (forearm–wrist_2 are 0.015 m apart)
    near = CollisionChecker(UR5, scene, margin=0.04)
    assert not near(HOME)
    (c,) = [x for x in near.contacts(HOME) if x.b == "slab"]
    assert c.distance == pytest.approx(0.03, abs=1e-6)
    assert [x for x in near.closest(HOME, 30) if x.b == "slab"][0].distance == pytest.approx(0.03, abs=1e-6)
    with pytest.raises(ValueError, match="margin"):
        CollisionChecker(UR5, margin=-1)


def test_allowed_link_obstacle_pairs_are_never_checked():
    scene = FakeScene()
    scene.add("table", Box((1.0, 1.0, 0.1)), translation(0, 0, -0.045))  # the base stands 5 mm deep in the table
    assert {x.a for x in CollisionChecker(UR5, scene).contacts(HOME)} == {"base_link", "shoulder_link"}
    some = CollisionChecker(UR5, scene, allowed=[("base_link", "table")])
    assert not some(HOME) and {x.a for x in some.contacts(HOME)} == {"shoulder_link"}
    assert CollisionChecker(UR5, scene, allowed=[("base_link", "table"), ("shoulder_link", "table")])(HOME)


@pytest.mark.parametrize("shape", [Sphere(0.05), Cylinder(0.05, 0.1), Capsule(0.03, 0.1), Box((0.1, 0.1, 0.1))])
def test_every_primitive_kind_is_found_where_it_overlaps_a_link(shape):
    centre, _ = _upper_arm_point()
    scene = FakeScene()
    scene.add("o", shape, translation(*centre))
    c = CollisionChecker(UR5, scene)
    assert not c(HOME)
    scene.move("o", translation(centre[0], centre[1], centre[2] + 0.5))
    assert c(HOME)


def test_scene_changes_are_seen_add_move_remove():
    centre, _ = _upper_arm_point()
    scene = FakeScene()
    c = CollisionChecker(UR5, scene)
    assert c(HOME)
    scene.add("ball", Sphere(0.05), translation(*centre))
    assert not c(HOME)
    scene.move("ball", translation(centre[0], centre[1], centre[2] + 0.3))
    assert c(HOME)
    scene.move("ball", translation(*centre))
    scene.remove("ball")
    assert c(HOME)


def test_mesh_solids_surface_and_inside():
    centre, _ = _upper_arm_point()
    blob = trimesh.creation.icosphere(subdivisions=4, radius=0.5)
    scene = FakeScene()
    # a big closed solid swallowing the whole upper arm: no surface crossing, still a collision
    scene.add("blob", Solid(blob), translation(*centre))
    c = CollisionChecker(UR5, scene)
    assert not c(HOME)
    assert any(x.b == "blob" and x.distance < 0 for x in c.contacts(HOME, n=20))
    # its surface through the arm: the deepest of several triangle contacts is kept
    scene.move("blob", translation(centre[0], centre[1], centre[2] - 0.5 + 0.02 - 0.06))
    (hit,) = [x for x in c.contacts(HOME, n=20) if x.b == "blob" and x.a == "upper_arm_link"]
    assert -0.03 < hit.distance < -0.01
    scene.move("blob", translation(centre[0], centre[1], centre[2] - 0.7))
    assert c(HOME)


def test_threads_agree_with_one_thread():
    centre, _ = _upper_arm_point()
    scene = FakeScene()
    scene.add("ball", Sphere(0.15), translation(0.4, 0.2, 0.3))
    scene.add("blob", Solid(trimesh.creation.icosphere(subdivisions=3, radius=0.2)), translation(-0.3, 0.3, 0.4))
    c = CollisionChecker(UR5, scene)
    Q = UR5.random_configuration(np.random.default_rng(0), 400)
    want = [c(q) for q in Q]
    assert 0 < sum(want) < len(want)
    got: dict[int, list[bool]] = {}

    def work(k):
        got[k] = [c(q) for q in Q[k::4]] + [c(q) for q in Q[k::4]]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        assert got[k] == want[k::4] * 2


def test_works_as_a_solution_callback_signature():
    c = CollisionChecker(bioik.load_robot("panda"))
    q = c.robot.center()
    assert isinstance(c(q), bool)



@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_mesh_penetration_is_the_deepest_of_its_triangle_contacts(order):
    """Two wide triangles under the upper arm (a capsule of radius 0.06 along x), one
    0.005 m into it, one 0.03 m: coal reports a contact per triangle, and the pair's depth
    is the deeper one, whichever triangle comes first (a surface mesh as well as a solid)."""
    centre, _ = _upper_arm_point()

    def triangle(x0, z):  # horizontal, under x ∈ [x0, x0 + 0.1], 0.6 m across y
        return [(x0, -0.3, z), (x0 + 0.1, -0.3, z), (x0 + 0.05, 0.3, z)]

    triangles = [triangle(-0.12, -0.055), triangle(0.02, -0.03)]
    V = np.array(triangles[order[0]] + triangles[order[1]])
    scene = FakeScene()
    scene.add("sheet", Surface(trimesh.Trimesh(V, np.array([[0, 1, 2], [3, 4, 5]]), process=False)), translation(*centre))
    (hit,) = [x for x in CollisionChecker(UR5, scene).contacts(HOME, n=20) if x.b == "sheet"]
    assert hit.a == "upper_arm_link" and hit.distance == pytest.approx(-0.03, abs=1e-9)
