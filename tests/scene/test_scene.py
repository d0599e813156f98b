"""Scene: editing, versions, packing and write_poses, move without a grid rebuild, mesh
files, bounds, and every bad input."""

import numpy as np
import pytest
import trimesh

from bioik.scene import Box, Obstacle, Scene, SceneError, Solid, grid, sdf
from bioik.scene.poses import pose_from


def test_obstacles_keep_insertion_order_and_the_mapping_is_read_only():
    s = Scene()
    s.add_box("b", (0.1, 0.2, 0.3))
    s.add_sphere("s", 0.1, pose_from([1, 0, 0]))
    s.add_cylinder("c", 0.1, 0.2)
    s.add_capsule("k", 0.1, 0.2)
    assert s.names == ["b", "s", "c", "k"] and len(s) == 4 and "s" in s and "x" not in s
    assert isinstance(s.obstacles["s"], Obstacle) and s.obstacles["s"].pose[0, 3] == 1.0
    with pytest.raises(TypeError):
        s.obstacles["x"] = None
    with pytest.raises(ValueError):
        s.obstacles["s"].pose[0, 3] = 2.0
    s.remove("s")
    assert s.names == ["b", "c", "k"]
    assert sdf.obstacle_count(s.pack()) == 3


def test_versions_move_and_write_poses():
    s = Scene()
    s.add_sphere("a", 0.1)
    s.add_box("b", (0.2, 0.2, 0.2), pose_from([1, 0, 0]))
    layout, poses = s.layout_version, s.pose_version
    blob = s.pack()
    s.move("a", pose_from([0, 2, 0]))
    assert s.layout_version == layout and s.pose_version != poses
    p = np.array([[0.0, 2.0, 0.0]])
    assert sdf.distances(blob, p)[0][0] == pytest.approx(np.hypot(1.0, 2.0) - np.sqrt(3) * 0.1, rel=0.2)  # stale
    s.write_poses(blob)
    assert sdf.distances(blob, p)[0][0] == pytest.approx(-0.1)
    assert np.array_equal(blob, s.pack())
    s.add_sphere("c", 0.1)
    assert s.layout_version != layout
    with pytest.raises(SceneError, match="pack\\(\\) again"):
        s.write_poses(blob)
    with pytest.raises(SceneError, match="another layout"):
        Scene().write_poses(blob)


def test_move_changes_distances_without_rebuilding_the_grid(monkeypatch):
    s = Scene()
    s.add_mesh("ball", trimesh.creation.icosphere(subdivisions=3, radius=0.2), resolution=0.02)
    d0, _ = s.distance([[0.0, 0.0, 0.0]])
    calls = []
    monkeypatch.setattr(grid, "build_grid", lambda *a, **k: calls.append(1))
    monkeypatch.setattr(grid, "_load", lambda *a, **k: calls.append(1))
    s.move("ball", pose_from([0.5, 0, 0], rpy=[0.3, 0.2, 0.1]))
    d1, g1 = s.distance([[0.25, 0.0, 0.0], [0.5, 0.0, 0.0]])
    assert not calls
    assert d1[0] == pytest.approx(0.05, abs=0.02) and d1[1] == pytest.approx(d0[0], abs=1e-6)
    assert np.allclose(g1[0], (-1, 0, 0), atol=0.05)
    s.pack()
    assert not calls


def test_a_shared_solid_is_stored_once_and_rotated_grids_match_trimesh():
    solid = Solid(trimesh.creation.box(extents=(0.3, 0.2, 0.1)), resolution=0.01)
    s = Scene()
    T = pose_from([0.3, -0.1, 0.2], rpy=[0.4, -0.3, 1.1])
    s.add("a", solid, T)
    s.add("b", solid, pose_from([-1, 0, 0]))
    n = solid.mesh.extents / 0.01 + 9
    assert len(s.pack()) == sdf.HEADER + 2 * sdf.REC + int(np.prod(np.round(n)))
    rng = np.random.default_rng(0)
    p = T[:3, 3] + rng.uniform(-0.25, 0.25, (400, 3))
    d, _ = s.distance(p)
    mesh = solid.mesh.copy()
    mesh.apply_transform(T)
    ref = -trimesh.proximity.signed_distance(mesh, p)
    assert np.abs(d - ref).max() <= 1.5 * np.sqrt(3) * 0.01


@pytest.mark.parametrize("ext", ["stl", "obj", "ply", "glb"])
def test_add_mesh_reads_files_and_scales(tmp_path, ext):
    path = tmp_path / f"cube.{ext}"
    if ext == "glb":  # a scene file: two meshes concatenated into one
        a, b = trimesh.creation.box(extents=(100, 100, 100)), trimesh.creation.box(extents=(100, 100, 100))
        b.apply_translation([300, 0, 0])
        trimesh.Scene([a, b]).export(path)
    else:
        trimesh.creation.box(extents=(100, 100, 100)).export(path)
    s = Scene()
    s.add_mesh("cube", str(path), scale=0.001, resolution=0.01)
    d, _ = s.distance([[0.0, 0.0, 0.0], [0.3, 0.0, 0.0], [0.0, 0.0, 0.15]])
    assert d[0] == pytest.approx(-0.05, abs=0.01)
    assert d[1] == pytest.approx(-0.05 if ext == "glb" else 0.25, abs=0.01)
    assert d[2] == pytest.approx(0.1, abs=0.01)


def test_bounds_cover_every_obstacle():
    s = Scene()
    s.add_box("b", (0.2, 0.4, 0.6), pose_from([1, 0, 0]))
    s.add_cylinder("c", 0.1, 1.0, pose_from([0, 0, 0], rpy=[np.pi / 2, 0, 0]))
    s.add_sphere("s", 0.5, pose_from([0, 0, 2]))
    lo, hi = s.bounds()
    assert np.allclose(lo, [-0.5, -0.5, -0.3]) and np.allclose(hi, [1.1, 0.5, 2.5])
    with pytest.raises(SceneError, match="empty"):
        Scene().bounds()


def test_empty_scene_is_cutoff_everywhere():
    d, g = Scene().distance([[0, 0, 0]], cutoff=0.3)
    assert d[0] == 0.3 and not g.any()


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda s: s.add_box("b", (1, 1, 1)), "already in the scene"),
        (lambda s: s.add_box("x", (1, np.nan, 1)), "obstacle 'x'.*finite"),
        (lambda s: s.add_sphere("x", -1.0), "obstacle 'x'.*> 0"),
        (lambda s: s.add_cylinder("x", "wide", 1.0), "obstacle 'x'.*number"),
        (lambda s: s.add("", Box((1, 1, 1))), "non-empty"),
        (lambda s: s.add("x", "box"), "must be a Box"),
        (lambda s: s.remove("nope"), "unknown obstacle 'nope'; the scene has: 'b'"),
        (lambda s: s.move("nope", np.eye(4)), "unknown obstacle"),
        (lambda s: s.move("b", np.eye(3)), "obstacle 'b': pose must be a 4×4"),
        (lambda s: s.move("b", np.full((4, 4), np.nan)), "non-finite"),
        (lambda s: s.move("b", np.diag([1.0, 1.0, -1.0, 1.0])), "rotation"),
        (lambda s: s.move("b", np.diag([2.0, 1.0, 1.0, 1.0])), "rotation"),
        (lambda s: s.move("b", np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 1.0]])), "last row"),
        (lambda s: s.add_mesh("m", "/no/such/file.stl"), "obstacle 'm': mesh file .* does not exist"),
        (lambda s: s.add_mesh("m", 3), "trimesh.Trimesh or a mesh file"),
        (lambda s: s.add_mesh("m", trimesh.creation.box(), scale=0.0), "scale"),
        (lambda s: s.add_mesh("m", trimesh.Trimesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])), "obstacle 'm'.*not watertight.*solid=False"),
    ],
)
def test_bad_input_is_a_clear_scene_error(call, match):
    s = Scene()
    s.add_box("b", (1, 1, 1))
    with pytest.raises(SceneError, match=match):
        call(s)
    assert s.names == ["b"]


def test_unreadable_mesh_file(tmp_path):
    bad = tmp_path / "bad.stl"
    bad.write_text("solid nothing\nendsolid\n")
    with pytest.raises(SceneError, match="obstacle 'm'.*bad.stl"):
        Scene().add_mesh("m", bad)


def test_allowed_contacts_follow_their_obstacle_and_change_the_layout():
    scene = Scene()
    scene.add_box("table", (1, 1, 0.1))
    scene.add_sphere("ball", 0.1)
    version = scene.layout_version
    scene.allow_contact("table", "base_link", "shoulder_link")
    scene.allow_contact("table", "base_link")  # already there: nothing changes
    assert scene.allowed_contacts == (("base_link", "table"), ("shoulder_link", "table"))
    assert scene.layout_version != version
    with pytest.raises(SceneError, match="unknown obstacle 'shelf'"):
        scene.allow_contact("shelf", "base_link")
    with pytest.raises(SceneError, match="non-empty strings"):
        scene.allow_contact("ball", "")
    scene.remove("table")
    assert scene.allowed_contacts == ()
