"""The scene as collision-aware peers take it (bioik.bench.peers.export): runs without the peers.

The convex pieces of EBIKE's non-convex solids partition bioik's solid: a random point is
inside the solid exactly when it is inside one of the pieces (checked on 20000 points per
solid; a point may only disagree within CUT_OFFSET of a cut), and the pieces' volumes add
up to the solid's.
"""

from __future__ import annotations

import numpy as np
import pytest

import bioik
from bioik import scenes
from bioik.bench.peers import export

pytest.importorskip("manifold3d")
POINTS = 20000


def _inside_pieces(pieces: list[np.ndarray], P: np.ndarray) -> np.ndarray:
    from scipy.spatial import ConvexHull

    inside = np.zeros(len(P), dtype=bool)
    for V in pieces:
        eq = ConvexHull(V).equations  # n·x + d ≤ 0 inside
        inside |= (P @ eq[:, :3].T + eq[:, 3]).max(axis=1) <= export.CUT_OFFSET
    return inside


@pytest.mark.parametrize(("scenario", "obstacle"), [("Barrel", "barrel"), ("HydrogenTankSmall", "tank")])
def test_convex_pieces_partition_the_boolean_solid(scenario, obstacle):
    from scipy.spatial import ConvexHull

    mesh = scenes.load(scenario).scene.obstacles[obstacle].shape.mesh
    pieces = export.convex_pieces(mesh)
    assert len(pieces) > 1  # the solid is not convex
    assert sum(ConvexHull(V).volume for V in pieces) == pytest.approx(mesh.volume, rel=1e-9)
    lo, hi = mesh.bounds
    P = np.random.default_rng(0).uniform(lo - 0.01, hi + 0.01, (POINTS, 3))
    solid = mesh.contains(P)
    assert 0.02 * POINTS < solid.sum() < 0.98 * POINTS  # both kinds of points are tried
    np.testing.assert_array_equal(_inside_pieces(pieces, P), solid)


def test_a_convex_solid_is_one_piece_and_an_open_mesh_is_refused():
    import trimesh

    box = trimesh.creation.box(extents=(0.2, 0.3, 0.4))
    (V,) = export.convex_pieces(box)
    assert len(V) == 8
    with pytest.raises(ValueError, match="not closed"):
        export.convex_pieces(trimesh.Trimesh(box.vertices, box.faces[:-2]))


def test_every_primitive_goes_as_it_is_and_a_surface_is_reported():
    import trimesh

    scene = bioik.Scene()
    T = np.eye(4)
    T[:3, 3] = (0.5, 0.0, 0.2)
    scene.add_box("box", (0.1, 0.2, 0.3), T)
    scene.add_sphere("ball", 0.05, T)
    scene.add_cylinder("post", 0.04, 0.5, T)
    scene.add_capsule("rod", 0.02, 0.3, T)
    sheet = trimesh.creation.box(extents=(0.1, 0.1, 0.1))
    scene.add_mesh("sheet", trimesh.Trimesh(sheet.vertices, sheet.faces[:-2]), T, solid=False)
    scene.allow_contact("box", "wrist_3_link")
    ex = export.export_scene(scene)
    kinds = {name: [(g.kind, g.size) for g in geoms] for name, geoms in ex.obstacles.items()}
    assert kinds == {"box": [("box", (0.1, 0.2, 0.3))], "ball": [("sphere", (0.05,))], "post": [("cylinder", (0.04, 0.5))],
                     "rod": [("capsule", (0.02, 0.3))], "sheet": []}
    assert all(np.array_equal(g.pose, T) for geoms in ex.obstacles.values() for g in geoms)
    assert ex.notes == ["obstacle 'sheet' left out: a Surface (an open mesh, no inside) has no convex form"]
    ur5 = bioik.load_robot("ur5")
    pairs = export.scene_pairs(ur5, ex)
    assert ("wrist_3_link", "box") not in pairs and ("wrist_2_link", "box") in pairs
    assert not any(o == "sheet" for _, o in pairs)


def test_filters_follow_the_exact_check():
    robot = bioik.load_robot("elise_ur10")
    pairs = export.self_pairs(robot)
    assert ("wrist_2_link", "endoscope_mount") not in pairs and ("endoscope_mount", "wrist_2_link") not in pairs
    assert ("shoulder_link", "forearm_link") in pairs or ("forearm_link", "shoulder_link") in pairs
    ex = export.export_scene(scenes.load("Shelf").scene)
    scene_pairs = export.scene_pairs(robot, ex)
    assert ("base_link", "pedestal") not in scene_pairs and ("endoscope_link_3", "shelf_back") not in scene_pairs
    assert ("endoscope_link_2", "shelf_back") in scene_pairs and ("endoscope_link_3", "floor") in scene_pairs
    geoms = export.link_geoms(robot)
    assert {g.kind for gs in geoms.values() for g in gs} <= {"box", "cylinder", "sphere"}
