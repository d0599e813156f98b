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
