"""The bundled EBIKE scenarios (bioik.scenes): they load, their boolean solids are closed,
targets lie on the target surfaces facing into them, the tank openings are open, the
robot's ready pose is free, sampling is seeded."""

import numpy as np
import pytest

import bioik
from bioik import scenes
from bioik.scene import Solid

NAMES = ["Random", "Table", "SmallTable", "TableObjects", "Shelf", "Barrel", "HydrogenTank", "HydrogenTankSmall"]


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """Each scenario once, its grids cached in a temporary directory (never ~/.cache)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BIOIK_CACHE_DIR", str(tmp_path_factory.mktemp("sdf-cache")))
        out = {name: scenes.load(name) for name in NAMES}
        for s in out.values():
            if len(s.scene):
                s.scene.distance(np.zeros((1, 3)))  # builds every grid while the cache dir is set
        yield out


def _bound(scene) -> float:
    """The largest near-surface grid error (√3/2·h, bioik.scene.grid) of any mesh obstacle (0: all exact)."""
    hs = [scene.grid(o.name).spacing for o in scene if isinstance(o.shape, Solid)]
    return max((np.sqrt(3) / 2 * h for h in hs), default=0.0)


def test_names_in_the_order_of_the_thesis():
    assert scenes.names() == NAMES


def test_unknown_name_lists_the_scenarios():
    with pytest.raises(bioik.UnknownNameError, match="HydrogenTank"):
        scenes.load("HydrogenTnak")
    with pytest.raises(bioik.UnknownNameError, match="Random"):
        scenes.load("nothing like it")


@pytest.mark.parametrize("name", NAMES)
def test_every_scenario_loads_with_a_fresh_scene(loaded, name):
    s = loaded[name]
    assert s.name == name and isinstance(s.scene, bioik.Scene)
    assert s.target_surfaces
    if name == "Random":
        assert len(s.scene) == 0 and s.opening is None
    else:
        assert {"pedestal", "floor"} <= set(s.scene.names)
        assert ("base_link", "pedestal") in s.scene.allowed_contacts
    assert (s.opening is not None) == name.startswith("HydrogenTank")


def test_load_builds_a_new_scene_each_call():
    a, b = scenes.load("Table"), scenes.load("Table")
    assert a.scene is not b.scene
    a.scene.remove("table_top")
    assert "table_top" in b.scene


@pytest.mark.parametrize("name", ["Barrel", "HydrogenTank", "HydrogenTankSmall"])
def test_boolean_solids_are_watertight(loaded, name):
    solids = [o for o in loaded[name].scene if isinstance(o.shape, Solid)]
    assert solids
    for o in solids:
        mesh = o.shape.trimesh()
        assert mesh.is_watertight and mesh.is_volume, o.name
        assert loaded[name].scene.grid(o.name).spacing > 0


@pytest.mark.parametrize("name", NAMES[1:])
def test_targets_lie_on_the_surfaces_facing_into_them(loaded, name):
    s = loaded[name]
    T = s.sample_targets(300, rng=7)
    assert T.shape == (300, 4, 4)
    R = T[:, :3, :3]
    np.testing.assert_allclose(R.transpose(0, 2, 1) @ R, np.broadcast_to(np.eye(3), R.shape), atol=1e-12)
    np.testing.assert_allclose(np.linalg.det(R), 1.0, atol=1e-12)
    p, z = T[:, :3, 3], T[:, :3, 2]
    bound = _bound(s.scene)
    d, _ = s.scene.distance(p)
    assert np.abs(d).max() <= bound + 1e-6
    # 4 mm either side stays within the thinnest wall (1 cm): free space in front (near a
    # concave edge, e.g. where a can stands on the table, barely), material behind
    step = 0.004
    front, _ = s.scene.distance(p - step * z)
    behind, _ = s.scene.distance(p + step * z)
    assert np.all(front > -bound - 1e-6)
    assert np.all(behind < 0.0)
    assert np.all(behind < front)


def test_random_targets_are_tip_poses_of_random_configurations(loaded):
    T = loaded["Random"].sample_targets(5, rng=3)
    robot = bioik.load_robot("elise_ur10")
    Q = robot.random_configuration(np.random.default_rng(3), 5)
    np.testing.assert_allclose(T, robot.fk(Q, ["endoscope_tip"])[:, 0])


@pytest.mark.parametrize("name", ["Random", "TableObjects", "HydrogenTank"])
def test_sampling_is_deterministic_with_a_seed(loaded, name):
    s = loaded[name]
    np.testing.assert_array_equal(s.sample_targets(20, rng=11), s.sample_targets(20, np.random.default_rng(11)))
    assert not np.array_equal(s.sample_targets(20, rng=11), s.sample_targets(20, rng=12))


@pytest.mark.parametrize("name, diameter", [("HydrogenTank", 0.07), ("HydrogenTankSmall", 0.035)])
def test_the_tank_opening_is_open_where_documented(loaded, name, diameter):
    s = loaded[name]
    o = s.opening
    assert o.diameter == diameter
    point, axis = np.array(o.point), np.array(o.axis)
    np.testing.assert_allclose(axis, (0.0, 0.0, -1.0))
    # on the axis through the lid (1 cm thick) and just inside: free space
    on_axis = point + np.linspace(-0.01, 0.03, 9)[:, None] * axis
    d, _ = s.scene.distance(on_axis)
    assert np.all(d > 0.0)
    # beside the hole, in the lid: solid
    beside = point + 0.005 * axis + np.array([diameter / 2 + 0.02, 0.0, 0.0])
    assert s.scene.distance(beside[None])[0][0] < 0.0
    # the two tanks differ only in the opening
    other = loaded["HydrogenTankSmall" if name == "HydrogenTank" else "HydrogenTank"]
    assert other.opening.point == o.point and other.target_surfaces == s.target_surfaces


@pytest.mark.parametrize("name", NAMES)
def test_the_ready_pose_is_collision_free(loaded, name):
    pytest.importorskip("coal")
    robot = bioik.load_robot("elise_ur10")
    assert bioik.CollisionChecker(robot, loaded[name].scene).is_free(scenes.READY)
