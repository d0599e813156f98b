"""The sphere cover holds every point of every link's collision geometry; its size trades
against tolerance and max_spheres; it is cached."""

import numpy as np
import pytest

import bioik
from bioik.collision import spheres as sp
from bioik.collision.link_geometry import link_pieces
from bioik.collision.spheres import sphere_model
from bioik.robots import names

from collision_helpers import mesh_robot, piece_points


def _uncovered(robot, model, rng) -> list[str]:
    bad = []
    for k, name in enumerate(model.links):
        C, R = model.centres[model.link_of == k], model.radii[model.link_of == k]
        for p in link_pieces(robot.model.link(name)):
            pts = piece_points(p, rng)
            d = np.linalg.norm(pts[:, None, :] - C[None], axis=2) - R[None]
            worst = d.min(axis=1).max()
            if worst > 1e-9:
                bad.append(f"{name} {p.kind}: a point {worst:.2e} m outside")
    return bad


@pytest.mark.parametrize("name", names())
def test_every_point_of_every_link_is_inside_a_sphere(name):
    robot = bioik.load_robot(name)
    model = sphere_model(robot)
    assert model.links == tuple(l.name for l in robot.model.links if l.collision)
    assert _uncovered(robot, model, np.random.default_rng(0)) == []


@pytest.mark.parametrize("tolerance,max_spheres", [(0.005, 20), (0.1, 3), (0.02, 1)])
def test_the_cover_holds_for_other_parameters(tolerance, max_spheres):
    robot = bioik.load_robot("panda")
    model = sphere_model(robot, tolerance=tolerance, max_spheres=max_spheres)
    assert max(model.per_link().values()) <= max_spheres
    assert _uncovered(robot, model, np.random.default_rng(1)) == []


def test_a_mesh_link_is_covered_surface_and_inside(tmp_path):
    robot = mesh_robot(tmp_path)
    model = sphere_model(robot)
    assert model.per_link()["arm"] >= 2
    assert _uncovered(robot, model, np.random.default_rng(2)) == []


def test_default_sizes_and_the_count_precision_trade_off():
    robot = bioik.load_robot("elise_ur10")
    default = sphere_model(robot)
    assert 30 <= len(default) <= 45
    fine, coarse = sphere_model(robot, tolerance=0.005, max_spheres=30), sphere_model(robot, tolerance=0.1)
    assert len(coarse) < len(default) < len(fine)
    # finer covers overshoot less: the upper arm's (radius 0.075 m) spheres shrink towards it
    def biggest(m):
        return m.radii[m.link_of == m.links.index("upper_arm_link")].max()

    assert 0.075 < biggest(fine) <= 0.08 < biggest(default) <= 0.095 < biggest(coarse)


def test_a_capsule_is_covered_by_spheres_of_its_radius_plus_at_most_the_tolerance():
    robot = bioik.load_robot("ur5")
    model = sphere_model(robot, tolerance=0.01, max_spheres=20)
    k = model.links.index("upper_arm_link")
    radii = model.radii[model.link_of == k]
    assert radii.max() <= 0.06 + 0.01 + 1e-6


def test_world_centres_follow_the_link_poses():
    robot = bioik.load_robot("ur5")
    model = sphere_model(robot)
    q = robot.random_configuration(3)
    poses = robot.fk(q, model.links)
    w = model.world(poses)
    i = 5
    T = robot.link_pose(q, model.links[model.link_of[i]])
    assert np.allclose(w[i], T[:3, :3] @ model.centres[i] + T[:3, 3])


def test_cached_in_memory_and_on_disk(monkeypatch):
    robot = bioik.load_robot("iiwa14")
    first = sphere_model(robot, tolerance=0.0123)
    assert sphere_model(robot, tolerance=0.0123) is first
    sp._memory.clear()
    monkeypatch.setattr(sp, "_build", lambda *a: pytest.fail("rebuilt although cached on disk"))
    again = sphere_model(robot, tolerance=0.0123)
    assert np.array_equal(again.radii, first.radii) and np.array_equal(again.centres, first.centres)


@pytest.mark.parametrize("kw", [{"tolerance": 0}, {"tolerance": float("nan")}, {"max_spheres": 0}, {"max_spheres": 2.5}])
def test_bad_parameters_are_named(kw):
    with pytest.raises(ValueError, match=next(iter(kw))):
        sphere_model(bioik.load_robot("ur5"), **kw)


def test_per_link_settings_thin_one_link_and_leave_the_others():
    robot = bioik.load_robot("elise_ur10")
    default = sphere_model(robot)
    thin = sphere_model(robot, links={"endoscope_link_1": (0.003, 40)})
    k = thin.links.index("endoscope_link_1")
    # the 4 mm endoscope shaft: 17.5 mm spheres by default, at most 4 + 3 mm with its own setting
    assert default.radii[default.link_of == k].max() > 0.017
    assert thin.radii[thin.link_of == k].max() <= 0.007 + 1e-6
    assert 10 < thin.per_link()["endoscope_link_1"] <= 40
    others = thin.link_of != k
    assert np.array_equal(thin.radii[others], default.radii[default.link_of != k])
    assert _uncovered(robot, thin, np.random.default_rng(3)) == []


@pytest.mark.parametrize("links,match", [({"tool0": (0.01, 4)}, "not a link with collision geometry"),
                                         ({"endoscope_link_1": 0.01}, r"\(tolerance, max_spheres\)"),
                                         ({"endoscope_link_1": (0.0, 4)}, r"links\['endoscope_link_1'\]: tolerance")])
def test_bad_per_link_settings_are_named(links, match):
    with pytest.raises(ValueError, match=match):
        sphere_model(bioik.load_robot("elise_ur10"), links=links)
