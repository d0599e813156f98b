"""PassageFinder: the opening a tool must pass, found from the scene's distance field."""

import math

import numpy as np
import pytest

from bioik import scenes
from bioik.kinematics.frames import align_z
from bioik.scene import Cylinder, Scene, difference
from bioik.scene.passage import PassageFinder, cone_directions
from bioik.scene.poses import pose_from


def _at(x, y, z):
    return pose_from((x, y, z))


@pytest.fixture(scope="module")
def tank():
    """A closed can (radius 0.2 m, 0.4 m tall, 1 cm walls) with a 6 cm hole in its lid, on a floor."""
    scene = Scene()
    scene.add_box("floor", (2.0, 2.0, 0.02), _at(0.0, 0.0, -0.01))
    hole = (Cylinder(0.03, 0.04), _at(0.0, 0.0, 0.195))
    scene.add("can", difference(Cylinder(0.2, 0.4), Cylinder(0.19, 0.38), hole), _at(0.5, 0.0, 0.2))
    return scene


def test_cone_directions_are_unit_and_inside_the_cone():
    axis = np.array([0.0, 0.6, 0.8])
    d = cone_directions(axis, math.radians(30.0), 500)
    assert np.allclose(np.linalg.norm(d, axis=1), 1.0)
    assert (d @ axis >= math.cos(math.radians(30.0)) - 1e-12).all()
    assert d.mean(axis=0) @ axis > 0.9  # spread around the axis, not bunched to one side


def test_the_opening_of_a_can_is_found_from_points_inside(tank):
    finder = PassageFinder(tank, reach=0.5, radius=0.004)
    for point, tool_axis in [((0.5, 0.05, 0.01), (0, 0, -1)),        # on the bottom, tool pointing down
                             ((0.65, 0.0, 0.15), (1, 0, 0)),          # on the side wall
                             ((0.37, -0.08, 0.05), (-0.85, -0.5, 0))]:  # low on the wall, facing away
        p = finder.find(point, tool_axis)
        assert p is not None, point
        assert np.linalg.norm(p.point[:2] - (0.5, 0.0)) < 0.01, (point, p)  # on the hole's axis
        assert 0.37 < p.point[2] < 0.42, (point, p)                           # at the lid
        assert 0.05 < p.diameter < 0.075, (point, p)                          # the 6 cm hole
        assert p.axis @ (np.asarray(point) - p.point) > 0.0                   # pointing into the can


def test_a_point_just_under_the_lid_is_found_by_stepping_back_along_the_tool(tank):
    """No straight line leaves from high on the wall (the lid is in the way at that angle);
    from a point back along the tool, where its tip segment ends, one does."""
    finder = PassageFinder(tank, reach=0.5, radius=0.004)
    p = finder.find((0.69, 0.0, 0.37), (1, 0, 0))
    assert p is not None and np.linalg.norm(p.point[:2] - (0.5, 0.0)) < 0.015


def test_points_in_the_open_or_sealed_in_have_none(tank):
    finder = PassageFinder(tank, reach=0.5, radius=0.004)
    assert finder.find((1.2, 0.5, 0.0), (0, 0, -1)) is None  # on the floor, nothing around
    assert finder.find((0.5, 0.0, 0.4), (0, 0, -1)) is None  # on the lid, outside
    sealed = Scene()
    sealed.add("box", difference(Cylinder(0.2, 0.4), Cylinder(0.19, 0.38)), _at(0.0, 0.0, 0.2))
    assert PassageFinder(sealed, reach=0.5).find((0.0, 0.0, 0.02), (0, 0, -1)) is None
    assert PassageFinder(Scene(), reach=0.5).find((0.0, 0.0, 0.0), (0, 0, 1)) is None


def test_a_point_with_many_ways_out_is_in_the_open():
    """A box open on one side (a shelf compartment, 20 cm deep, 8 cm high): its mouth is
    narrower than `narrow`, but a tenth of the rays from the back wall get out, so the tool
    need not pass one place."""
    shelf = Scene()
    for name, z in (("below", -0.045), ("above", 0.045)):
        shelf.add_box(name, (0.2, 0.4, 0.01), _at(0.0, 0.0, z))
    shelf.add_box("back", (0.01, 0.4, 0.1), _at(-0.105, 0.0, 0.0))
    point = (-0.1, 0.0, 0.0)
    assert PassageFinder(shelf, reach=0.5, radius=0.004).find(point, (-1, 0, 0)) is None
    assert PassageFinder(shelf, reach=0.5, radius=0.004, enclosed=1.0).find(point, (-1, 0, 0)) is not None


def test_rays_out_are_counted_only_until_enough_get_out():
    """The open-or-enclosed verdict stops marching once more than `enclosed` of the rays
    got out: the count stops at `need`, and without a bound it is every ray that gets out."""
    from bioik.scene.passage import _escaping

    shelf = Scene()
    for name, z in (("below", -0.045), ("above", 0.045)):
        shelf.add_box(name, (0.2, 0.4, 0.01), _at(0.0, 0.0, z))
    shelf.add_box("back", (0.01, 0.4, 0.1), _at(-0.105, 0.0, 0.0))
    finder = PassageFinder(shelf, reach=0.5, radius=0.004)
    lo, hi = finder._bounds()
    p = np.array([-0.1, 0.0, 0.0])
    dirs = np.ascontiguousarray(finder._open @ align_z(np.array([1.0, 0.0, 0.0])).T)  # `find`'s rays, tool along −x
    total = _escaping(finder.blob, p, dirs, lo, hi, finder.skip, finder.step, len(dirs) + 1)
    assert 10 < total < 100  # about a tenth get out of the compartment's mouth
    assert _escaping(finder.blob, p, dirs, lo, hi, finder.skip, finder.step, 5) == 5
    assert _escaping(finder.blob, p, dirs, lo, hi, finder.skip, finder.step, total) == total
    # at the threshold: `total` rays out is the open where `enclosed` asks for fewer, not where it asks for that many
    assert PassageFinder(shelf, reach=0.5, radius=0.004, enclosed=(total - 0.5) / 250).find(p, (-1, 0, 0)) is None
    assert PassageFinder(shelf, reach=0.5, radius=0.004, enclosed=total / 250).find(p, (-1, 0, 0)) is not None


def test_the_hydrogen_tank_opening_is_found_for_its_stored_targets():
    scenario = scenes.load("HydrogenTankSmall")
    finder = PassageFinder(scenario.scene, reach=0.46, radius=0.004)
    centre = np.asarray(scenario.opening.point)
    found = [finder.find(T[:3, 3], T[:3, 2]) for T in scenario.targets().poses[:40]]
    assert all(p is not None for p in found)
    assert max(np.linalg.norm(p.point - centre) for p in found) < 0.04  # within the lid's 3.5 cm hole's reach


@pytest.mark.parametrize("kwargs, error", [
    (dict(reach=0.04), ValueError),                 # skip (0.05) ≥ reach
    (dict(reach=float("nan")), ValueError),
    (dict(reach=0.5, radius=-1.0), ValueError),
    (dict(reach=0.5, rays=0), ValueError),
    (dict(reach=0.5, half_angle=0.0), ValueError),
    (dict(reach=0.5, enclosed=-0.1), ValueError),
])
def test_bad_settings_are_refused(tank, kwargs, error):
    with pytest.raises(error):
        PassageFinder(tank, **kwargs)


def test_bad_points_are_refused(tank):
    finder = PassageFinder(tank, reach=0.5)
    with pytest.raises(ValueError, match="finite"):
        finder.find((np.nan, 0, 0), (0, 0, 1))
    with pytest.raises(ValueError, match="axis not zero"):
        finder.find((0, 0, 0), (0, 0, 0))
    with pytest.raises(TypeError, match="bioik.Scene"):
        PassageFinder("scene.toml", reach=0.5)


def test_find_stops_at_its_deadline_and_batches_change_nothing(tank, monkeypatch):
    """Rays are marched in batches with a clock read between them: a deadline already
    passed gives None at once, and the batch size does not change what is found."""
    import time

    from bioik.scene import passage

    finder = PassageFinder(tank, reach=0.5, radius=0.004)
    point, tool_axis = (0.5, 0.05, 0.01), (0, 0, -1)
    found = finder.find(point, tool_axis)
    assert found is not None
    assert finder.find(point, tool_axis, deadline=time.monotonic()) is None
    monkeypatch.setattr(passage, "BATCH", 7)  # batches that end mid-cone, mid-fan
    again = finder.find(point, tool_axis, deadline=time.monotonic() + 60.0)
    np.testing.assert_array_equal(again.point, found.point)
    np.testing.assert_array_equal(again.axis, found.axis)
    assert again.diameter == found.diameter


def test_a_known_passage_is_taken_where_a_corridor_reaches_it(tank):
    """find(known=...): a passage found for one point is the answer for another inside the
    same can (one ray instead of the search); a known 'passage' no corridor reaches (here
    one under the floor) is passed over, and the point's own is searched for."""
    from bioik.scene.passage import Passage

    finder = PassageFinder(tank, reach=0.5, radius=0.004)
    first = finder.find((0.5, 0.05, 0.01), (0, 0, -1))
    assert first is not None
    assert finder.find((0.65, 0.0, 0.15), (1, 0, 0), known=[first]) is first
    buried = Passage(np.array([0.5, 0.0, -0.3]), np.array([0.0, 0.0, 1.0]), 0.05)
    found = finder.find((0.65, 0.0, 0.15), (1, 0, 0), known=[buried])
    assert found is not None and found is not buried and 0.37 < found.point[2] < 0.42
    assert finder.find((1.2, 0.5, 0.0), (0, 0, -1), known=[first]) is None  # in the open: no passage, known or not


def test_a_refreshed_finder_follows_the_scene_moved():
    """After scene.move, refresh() carries the obstacles' new poses into the finder: the
    can's opening is found where the can went; until then the finder says it is behind."""
    scene = Scene()
    hole = (Cylinder(0.03, 0.04), _at(0.0, 0.0, 0.195))
    scene.add("can", difference(Cylinder(0.2, 0.4), Cylinder(0.19, 0.38), hole), _at(0.5, 0.0, 0.2))
    finder = PassageFinder(scene, reach=0.5, radius=0.004)
    before = finder.find((0.5, 0.05, 0.01), (0, 0, -1))
    scene.move("can", _at(0.8, 0.0, 0.2))
    assert finder.pose_version != scene.pose_version
    finder.refresh()
    assert finder.pose_version == scene.pose_version
    after = finder.find((0.8, 0.05, 0.01), (0, 0, -1))
    assert before is not None and after is not None
    np.testing.assert_allclose(after.point, before.point + (0.3, 0.0, 0.0), atol=0.005)
