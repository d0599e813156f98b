"""Parsed robots come back from the disk cache without the URDF parser, and never stale:
a changed URDF, a mesh file that appears or a damaged entry mean parsing again."""

import numpy as np
import pytest

import bioik.model.urdf as urdf
from bioik.model import model_cache
from bioik.model.urdf import parse_urdf
from urdf_samples import TREE_URDF

MESH_URDF = """<?xml version="1.0"?>
<robot name="m">
  <link name="base"><collision><geometry><mesh filename="part.stl"/></geometry></collision></link>
  <link name="tip"/>
  <joint name="j" type="revolute"><parent link="base"/><child link="tip"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" velocity="1" effort="1"/></joint>
</robot>
"""


def no_parser(*args, **kwargs):
    pytest.fail("the URDF parser ran although the model was cached")


def same(a, b) -> bool:
    return (a.link_names == b.link_names and [j.name for j in a.joints] == [j.name for j in b.joints]
            and all(np.array_equal(x.origin, y.origin) for x, y in zip(a.joints, b.joints)))


def test_a_second_parse_comes_from_the_cache(tmp_path, monkeypatch):
    path = tmp_path / "tree.urdf"
    path.write_text(TREE_URDF)
    first = parse_urdf(path)
    monkeypatch.setattr(urdf, "_yourdfpy", no_parser)
    again = parse_urdf(path)
    assert again is not first and same(again, first)


def test_a_changed_urdf_is_parsed_again(tmp_path, monkeypatch):
    path = tmp_path / "tree.urdf"
    path.write_text(TREE_URDF)
    parse_urdf(path)
    path.write_text(TREE_URDF.replace('xyz="0.1 0 0.2"', 'xyz="0.1 0 0.25"'))
    calls = []
    real = urdf._yourdfpy
    monkeypatch.setattr(urdf, "_yourdfpy", lambda *a: calls.append(1) or real(*a))
    model = parse_urdf(path)
    assert calls and np.isclose(model.joints[0].origin[2, 3], 0.25)


def test_a_mesh_file_that_appears_is_found(tmp_path):
    path = tmp_path / "m.urdf"
    path.write_text(MESH_URDF)
    assert parse_urdf(path).link("base").collision[0].path is None
    (tmp_path / "part.stl").write_text("solid part\nendsolid part\n")
    assert parse_urdf(path).link("base").collision[0].path == tmp_path / "part.stl"


def test_a_damaged_entry_means_parsing_again(tmp_path, monkeypatch):
    path = tmp_path / "tree.urdf"
    path.write_text(TREE_URDF)
    first = parse_urdf(path)
    for entry in model_cache._cache_dir.cache_dir("models").glob("*.pkl"):
        entry.write_bytes(b"not a pickle")
    assert same(parse_urdf(path), first)


def test_errors_are_never_cached(tmp_path):
    path = tmp_path / "bad.urdf"
    path.write_text(TREE_URDF.replace('velocity="2.0"', 'velocity="nan"'))
    for _ in range(2):
        with pytest.raises(urdf.URDFError, match="velocity"):
            parse_urdf(path)
