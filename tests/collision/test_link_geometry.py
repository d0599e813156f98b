"""Link collision geometry as pieces and meshes; a missing mesh names link and file."""

import numpy as np
import pytest

import bioik
from bioik.collision.link_geometry import MeshNotFoundError, collision_links, geometry_digest, link_meshes, link_pieces

from collision_helpers import MESH_URDF, mesh_robot


def test_primitives_become_meshes_in_the_link_frame():
    robot = bioik.load_robot("ur5")
    meshes = link_meshes(robot.model)
    assert list(meshes) == list(collision_links(robot.model))
    upper = meshes["upper_arm_link"]
    # the 0.425 m long upper arm cylinder (radius 0.06) plus its end spheres
    assert 0.425 + 0.12 - 1e-3 < np.ptp(upper.vertices, axis=0).max() < 0.425 + 0.12 + 0.07


def test_a_mesh_is_loaded_scaled_and_placed(tmp_path):
    robot = mesh_robot(tmp_path)
    (piece,) = link_pieces(robot.model.link("arm"))
    assert piece.kind == "mesh" and piece.size == (1.0, 1.0, 2.0)
    m = piece.trimesh()
    assert m.is_watertight
    # scaled ×2 along z: the 0.15 m tall tube is about 0.3 m tall (before its small tilts)
    assert np.ptp(piece.mesh.vertices[:, 2]) > 0.25
    assert np.allclose(piece.vertices(), m.vertices)


def test_pieces_vertices_hull_contains_primitives():
    robot = bioik.load_robot("panda")
    for p in link_pieces(robot.model.link("panda_link1")):
        hull = np.ptp(p.vertices(), axis=0)
        assert np.all(hull >= np.ptp(p.trimesh().vertices, axis=0) - 1e-12)


def test_an_unresolved_mesh_names_link_and_file(tmp_path):
    (tmp_path / "meshbot.urdf").write_text(MESH_URDF)  # part.stl not written
    robot = bioik.load_robot(tmp_path / "meshbot.urdf")
    with pytest.raises(MeshNotFoundError, match=r"link 'arm'.*'part.stl'.*mesh_dirs"):
        link_pieces(robot.model.link("arm"))
    with pytest.raises(FileNotFoundError):
        link_meshes(robot.model)


def test_the_digest_changes_with_the_geometry(tmp_path):
    a = geometry_digest(mesh_robot(tmp_path).model)
    assert a == geometry_digest(mesh_robot(tmp_path).model)
    assert a != geometry_digest(bioik.load_robot("ur5").model)


def _one_mesh_robot(tmp_path, name: str, content: bytes) -> "bioik.Robot":
    import bioik

    (tmp_path / name).write_bytes(content)
    (tmp_path / "r.urdf").write_text(f"""<robot name="m"><link name="base"/>
  <link name="l1"><collision><geometry><mesh filename="{name}"/></geometry></collision></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="l1"/><limit lower="-1" upper="1"/></joint></robot>""")
    return bioik.load_robot(tmp_path / "r.urdf")


DAE_LINES = b"""<?xml version="1.0"?><COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
<library_geometries><geometry id="g"><mesh><source id="p"><float_array id="a" count="6">0 0 0 1 0 0</float_array>
<technique_common><accessor source="#a" count="2" stride="3"><param name="X" type="float"/><param name="Y" type="float"/>
<param name="Z" type="float"/></accessor></technique_common></source><vertices id="v"><input semantic="POSITION" source="#p"/>
</vertices><lines count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>0 1</p></lines></mesh></geometry>
</library_geometries><library_visual_scenes><visual_scene id="s"><node><instance_geometry url="#g"/></node></visual_scene>
</library_visual_scenes><scene><instance_visual_scene url="#s"/></scene></COLLADA>"""


@pytest.mark.parametrize("name,content,match", [
    ("broken.stl", b"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0\n", r"could not be read|holds no triangles"),
    ("empty.obj", b"", "holds no triangles"),
    ("lines.dae", DAE_LINES, "holds no triangles"),
])
def test_a_mesh_that_gives_no_triangles_is_a_clear_error(tmp_path, name, content, match):
    from bioik.collision.spheres import sphere_model
    from bioik.model import URDFError

    robot = _one_mesh_robot(tmp_path, name, content)
    with pytest.raises(URDFError, match=rf"link 'l1': collision mesh '{name}' \(.*{name}\) ({match}).*expected a triangle mesh"):
        sphere_model(robot)


def test_an_open_mesh_is_covered_as_a_surface_and_said_so(tmp_path, monkeypatch):
    """Said when the cover is built (a cached cover was built, and said so, before)."""
    import trimesh

    from bioik.collision.link_geometry import OpenMeshWarning
    from bioik.collision.spheres import sphere_model

    box = trimesh.creation.box((0.1, 0.1, 0.1))
    box.update_faces(np.arange(len(box.faces)) != 0)  # one triangle gone: no longer closed
    robot = _one_mesh_robot(tmp_path, "open.stl", box.export(file_type="stl"))
    monkeypatch.setenv("BIOIK_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.warns(OpenMeshWarning, match="robot 'm': the collision meshes of l1 are not closed.*assumed"):
        cover = sphere_model(robot, tolerance=0.0123)
    d = np.linalg.norm(box.vertices[:, None] - cover.centres[None], axis=2) - cover.radii[None]
    assert (d.min(axis=1) <= 1e-9).all()
