"""Boolean solids: the hollow tank against trimesh within the grid's bound, posed parts,
unions, and parts that cannot take part."""

import numpy as np
import pytest
import trimesh

from bioik.scene import Box, Cylinder, Scene, SceneError, Solid, Sphere, Surface, difference, union
from bioik.scene.grid import BAND, grid_for
from bioik.scene.poses import pose_from

SQRT3 = np.sqrt(3.0)


def tank():
    """A closed 1 m tank with 3 cm walls and a 7 cm round opening through the top."""
    opening = (Cylinder(0.035, 0.2), pose_from([0.2, 0.0, 0.5]))
    return difference(Cylinder(0.5, 1.0), Cylinder(0.47, 0.94), opening)


def test_tank_grid_matches_trimesh_within_the_documented_bound():
    solid = tank()
    assert isinstance(solid, Solid) and solid.mesh.is_watertight
    g = grid_for(solid)  # the default grid
    h = g.spacing
    rng = np.random.default_rng(0)
    # near the walls and the opening, and anywhere in the node box
    p = np.concatenate([
        rng.uniform(-0.53, 0.53, (1200, 3)),
        np.c_[rng.uniform(0.15, 0.25, (300, 2)) * [1, 0.5], rng.uniform(0.42, 0.55, 300)],
    ])
    d, _ = g.distance(p)
    ref = -trimesh.proximity.signed_distance(solid.mesh, p)
    err = np.abs(d - ref)
    assert err.max() <= 1.5 * SQRT3 * h
    near = np.abs(ref) < (BAND - SQRT3) * h
    assert near.sum() > 20 and err[near].max() <= SQRT3 / 2 * h
    # the cavity and the opening are outside the solid; the wall is inside
    cav, hole, wall = g.distance([[0.0, 0.0, 0.0], [0.2, 0.0, 0.5], [0.485, 0.0, 0.0]])[0]
    assert cav == pytest.approx(0.47, abs=h) and hole > 0.0 and wall < 0.0


def test_union_and_posed_parts():
    u = union(Box((0.2, 0.2, 0.2)), (Sphere(0.1), pose_from([0.2, 0.0, 0.0])))
    s = Scene()
    s.add("u", Solid(u.mesh, resolution=0.01))
    d, _ = s.distance([[0.0, 0.0, 0.0], [0.2, 0.0, 0.0], [0.35, 0.0, 0.0], [0.0, 0.0, 0.3]])
    assert d == pytest.approx([-0.1, -0.1, 0.05, 0.2], abs=SQRT3 / 2 * 0.01 + 0.002)  # icosphere facets
    one = union(trimesh.creation.box(extents=(0.1, 0.1, 0.1)))
    assert one.mesh.volume == pytest.approx(1e-3)


def test_bad_parts_are_refused():
    sheet = trimesh.Trimesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    with pytest.raises(SceneError, match="Surface"):
        difference(Box((1, 1, 1)), Surface(sheet))
    with pytest.raises(SceneError, match="parts are shapes"):
        union(Box((1, 1, 1)), "box")
    with pytest.raises(SceneError, match="needs at least one"):
        union()
    with pytest.raises(SceneError, match="rotation"):
        union((Box((1, 1, 1)), np.diag([1.0, 1.0, -1.0, 1.0])))
    with pytest.raises(SceneError, match="empty"):
        difference(Box((0.1, 0.1, 0.1)), Box((1, 1, 1)))


def test_the_lowered_pack_never_overstates_the_distance_to_a_mesh():
    """What the goals pack (`pack(lowered=True)`): a lower bound of the exact signed distance, so
    a sphere the collision costs call clear is clear of the mesh itself; moved, it stays so."""
    from bioik.scene import sdf
    from bioik.scene.scene import GRID_SLACK

    solid = tank()
    s = Scene()
    s.add("tank", solid, pose_from([0.3, -0.1, 0.2]))
    h = s.grid("tank").spacing
    rng = np.random.default_rng(5)
    local = np.concatenate([rng.uniform(-0.53, 0.53, (1500, 3)),
                            np.c_[rng.uniform(0.15, 0.25, (300, 2)) * [1, 0.5], rng.uniform(0.42, 0.55, 300)]])
    blob = s.pack(lowered=True)
    d, _ = sdf.distances(blob, local + [0.3, -0.1, 0.2])
    ref = -trimesh.proximity.signed_distance(solid.mesh, local)
    assert np.all(d <= ref + 1e-9) and np.max(ref - d) <= (SQRT3 + GRID_SLACK) * h
    plain, _ = s.distance(local[:50] + [0.3, -0.1, 0.2])
    assert np.allclose(plain - d[:50], GRID_SLACK * h)  # Scene.distance keeps the plain interpolant
    s.move("tank", pose_from([0.0, 0.2, 0.1]))
    s.write_poses(blob)
    assert np.array_equal(blob, s.pack(lowered=True))  # the bounding sphere keeps its slack
