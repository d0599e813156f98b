"""Shapes validate their sizes and give meshes; Solid needs a watertight mesh."""

import pytest
import trimesh

from bioik.scene import Box, Capsule, Cylinder, SceneError, Solid, Sphere, Surface


def test_shapes_validate_and_mesh():
    assert Box([1, 2, 3]).size == (1.0, 2.0, 3.0)
    assert Box((1, 2, 3)).trimesh().extents.tolist() == [1, 2, 3]
    for shape in (Sphere(0.1), Cylinder(0.1, 0.2), Capsule(0.1, 0.2)):
        assert shape.trimesh().is_watertight
    with pytest.raises(ValueError, match="3 edge lengths"):
        Box((1, 2))
    with pytest.raises(ValueError, match="finite"):
        Sphere(float("nan"))
    with pytest.raises(TypeError, match="number"):
        Capsule("a", 1)


def test_solid_and_surface():
    sheet = trimesh.Trimesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]], metadata={"file_name": "sheet.stl"})
    with pytest.raises(SceneError, match="'sheet.stl' is not watertight.*solid=False"):
        Solid(sheet)
    assert Surface(sheet, resolution=0.1).resolution == 0.1
    with pytest.raises(ValueError, match="resolution"):
        Solid(trimesh.creation.box(), resolution=0)
    with pytest.raises(TypeError, match="trimesh.Trimesh"):
        Solid("mesh.stl")
