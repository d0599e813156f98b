"""Scene files: a TOML scene equals the one built in code, booleans and meshes in files,
and every bad input names the file, the obstacle and the key."""

import numpy as np
import pytest
import trimesh

from bioik.scene import Box, Capsule, Cylinder, Scene, SceneError, Solid, Sphere, Surface
from bioik.scene.poses import pose_from

SCENE = """
[[obstacle]]
name = "table"
box = [1.2, 0.8, 0.05]
position = [0.5, 0.0, -0.025]
rpy = [0.0, 0.0, 0.3]

[[obstacle]]
name = "ball"
sphere = 0.1
position = [0.3, 0.3, 0.3]

[[obstacle]]
name = "post"
cylinder = { radius = 0.05, length = 0.6 }
quaternion = [0.9, 0.3, 0.1, -0.2]

[[obstacle]]
name = "rod"
capsule = { radius = 0.03, length = 0.4 }
position = [0.0, 0.4, -0.3]

[[obstacle]]
name = "cube"
mesh = "meshes/cube.stl"
scale = 0.001
resolution = 0.02
position = [-0.5, 0.0, 0.0]

[[obstacle]]
name = "tank"
position = [0.0, -0.6, 0.5]
resolution = 0.02
difference = [
    { cylinder = { radius = 0.3, length = 0.6 } },
    { cylinder = { radius = 0.27, length = 0.54 } },
    { cylinder = { radius = 0.035, length = 0.2 }, position = [0.1, 0.0, 0.3] },
]
"""


@pytest.fixture
def scene_file(tmp_path):
    (tmp_path / "meshes").mkdir()
    trimesh.creation.box(extents=(100, 100, 100)).export(tmp_path / "meshes" / "cube.stl")
    path = tmp_path / "scene.toml"
    path.write_text(SCENE)
    return path


def test_file_round_trip_matches_the_scene_built_in_code(scene_file):
    s = Scene.from_file(scene_file)
    assert s.names == ["table", "ball", "post", "rod", "cube", "tank"]
    shapes = [o.shape for o in s.obstacles.values()]
    assert shapes[0] == Box((1.2, 0.8, 0.05)) and shapes[1] == Sphere(0.1)
    assert shapes[2] == Cylinder(0.05, 0.6) and shapes[3] == Capsule(0.03, 0.4)
    assert isinstance(shapes[4], Solid) and shapes[4].resolution == 0.02
    assert isinstance(shapes[5], Solid) and shapes[5].mesh.is_watertight
    code = Scene()
    code.add_box("table", (1.2, 0.8, 0.05), pose_from([0.5, 0, -0.025], rpy=[0, 0, 0.3]))
    code.add_sphere("ball", 0.1, pose_from([0.3, 0.3, 0.3]))
    code.add_cylinder("post", 0.05, 0.6, pose_from(quaternion=[0.9, 0.3, 0.1, -0.2]))
    code.add_capsule("rod", 0.03, 0.4, pose_from([0, 0.4, -0.3]))
    code.add_mesh("cube", scene_file.parent / "meshes" / "cube.stl", pose_from([-0.5, 0, 0]), scale=0.001, resolution=0.02)
    code.add("tank", shapes[5], pose_from([0, -0.6, 0.5]))
    for a, b in zip(s.obstacles.values(), code.obstacles.values()):
        assert np.allclose(a.pose, b.pose)
    p = np.random.default_rng(0).uniform(-1, 1, (300, 3))
    assert np.allclose(s.distance(p)[0], code.distance(p)[0])
    # the tank: its cavity is outside, its wall inside
    d, _ = s.distance([[0, -0.6, 0.5], [0.285, -0.6, 0.5]])
    assert d[0] > 0.2 and d[1] < 0


def test_open_mesh_as_surface_in_a_file(tmp_path):
    trimesh.Trimesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]]).export(tmp_path / "sheet.ply")
    path = tmp_path / "s.toml"
    path.write_text('[[obstacle]]\nname = "sheet"\nmesh = "sheet.ply"\nsolid = false\nresolution = 0.05\n')
    assert isinstance(Scene.from_file(path).obstacles["sheet"].shape, Surface)
    path.write_text('[[obstacle]]\nname = "sheet"\nmesh = "sheet.ply"\n')
    with pytest.raises(SceneError, match="obstacle 'sheet', key 'mesh'.*not watertight.*solid=False"):
        Scene.from_file(path)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("[[obstacle]\nname=", "not valid TOML"),
        ('[scene]\nx = 1\n', "unknown top-level key 'scene'"),
        ('[[obstacle]]\nbox = [1, 1, 1]\n', "obstacle '#1', key 'name'"),
        ('[[obstacle]]\nname = "a"\nbox = [1, 1, 1]\ncolour = "red"\n', "obstacle 'a', key 'colour': unknown key"),
        ('[[obstacle]]\nname = "a"\n', "obstacle 'a': needs exactly one shape key"),
        ('[[obstacle]]\nname = "a"\nbox = [1, 1, 1]\nsphere = 1\n', "exactly one shape key.*box, sphere"),
        ('[[obstacle]]\nname = "a"\nbox = [1, 1]\n', "obstacle 'a', key 'box'.*3 edge lengths"),
        ('[[obstacle]]\nname = "a"\nbox = [1, "x", 1]\n', "key 'box'.*number"),
        ('[[obstacle]]\nname = "a"\nsphere = -1\n', "key 'sphere'.*> 0"),
        ('[[obstacle]]\nname = "a"\ncylinder = { radius = 1 }\n', "key 'cylinder'.*length"),
        ('[[obstacle]]\nname = "a"\nsphere = 1\nposition = [0, 0]\n', "key 'position'.*3 finite"),
        ('[[obstacle]]\nname = "a"\nsphere = 1\nrpy = [0, 0, 0]\nquaternion = [1, 0, 0, 0]\n', "rpy or quaternion"),
        ('[[obstacle]]\nname = "a"\nsphere = 1\nquaternion = [0, 0, 0, 0]\n', "key 'quaternion'.*zero"),
        ('[[obstacle]]\nname = "a"\nsphere = 1\nscale = 2\n', "key 'scale': only meshes"),
        ('[[obstacle]]\nname = "a"\nsphere = 1\nresolution = 0.1\n', "key 'resolution'"),
        ('[[obstacle]]\nname = "a"\nmesh = "missing.stl"\n', "obstacle 'a', key 'mesh'.*does not exist"),
        ('[[obstacle]]\nname = "a"\nunion = []\n', "key 'union'.*non-empty"),
        ('[[obstacle]]\nname = "a"\nunion = [{ sphere = 1, name = "x" }]\n', "key 'name': unknown key"),
        ('[[obstacle]]\nname = "a"\nsphere = 1\n[[obstacle]]\nname = "a"\nsphere = 2\n', "obstacle 'a', key 'name'.*twice"),
        ('[[obstacle]]\nname = "a"\nsphere = 1\ntouch = "base_link"\n', "key 'touch'.*list of robot link names"),
    ],
)
def test_bad_files_name_the_file_obstacle_and_key(tmp_path, text, match):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(SceneError, match=match) as e:
        Scene.from_file(path)
    assert "bad.toml" in str(e.value)


def test_missing_file():
    with pytest.raises(SceneError, match="scene file '/no/such.toml' does not exist"):
        Scene.from_file("/no/such.toml")


def test_touch_lists_the_links_that_may_touch_an_obstacle(tmp_path):
    path = tmp_path / "cell.toml"
    path.write_text('[[obstacle]]\nname = "table"\nbox = [1, 1, 0.1]\ntouch = ["base_link", "shoulder_link"]\n'
                    '[[obstacle]]\nname = "post"\nsphere = 0.1\n')
    assert Scene.from_file(path).allowed_contacts == (("base_link", "table"), ("shoulder_link", "table"))
