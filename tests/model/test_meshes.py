"""Mesh references resolve only inside the URDF's folder and the given mesh folders."""

import os
from pathlib import Path

import pytest

import bioik
from bioik.model import URDFError, mesh_candidates, parse_urdf, resolve_mesh


def urdf_with_mesh(filename: str) -> str:
    return f"""<robot name="m"><link name="base"/>
  <link name="l1"><collision><geometry><mesh filename="{filename}" scale="0.001"/></geometry></collision></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="l1"/><limit lower="-1" upper="1"/></joint></robot>"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tmp/pkg/urdf/{local.stl, robot.urdf}, tmp/pkg/meshes/a.stl, tmp/secret.stl: returns tmp."""
    (tmp_path / "pkg" / "urdf").mkdir(parents=True)
    (tmp_path / "pkg" / "meshes").mkdir()
    for f in ("pkg/urdf/local.stl", "pkg/meshes/a.stl", "secret.stl"):
        (tmp_path / f).write_bytes(b"solid x\nendsolid x\n")
    return tmp_path


def load(tree: Path, filename: str, **kw):
    path = tree / "pkg" / "urdf" / "robot.urdf"
    path.write_text(urdf_with_mesh(filename))
    return parse_urdf(path, **kw).link("l1").collision[0]


def test_relative_mesh_in_the_urdf_folder(tree):
    g = load(tree, "local.stl")
    assert (g.kind, g.filename, g.path, g.size) == ("mesh", "local.stl", (tree / "pkg/urdf/local.stl").resolve(), (0.001,) * 3)


def test_relative_mesh_beside_the_urdf_folder_needs_that_folder(tree):
    with pytest.raises(URDFError, match=r"line 2: link 'l1': mesh '../meshes/a.stl' resolves to .*pkg/meshes/a.stl', outside"):
        load(tree, "../meshes/a.stl")
    assert load(tree, "../meshes/a.stl", mesh_dirs=[tree / "pkg"]).path == (tree / "pkg/meshes/a.stl").resolve()


@pytest.mark.parametrize("mesh_dir", ["", "pkg"])
def test_package_uri(tree, mesh_dir):
    g = load(tree, "package://pkg/meshes/a.stl", mesh_dirs=[str(tree / mesh_dir)])
    assert g.path == (tree / "pkg/meshes/a.stl").resolve()


def test_file_uri_and_absolute_path_inside(tree):
    inside = (tree / "pkg/urdf/local.stl").resolve()
    assert load(tree, f"file://{inside}").path == inside
    assert load(tree, str(inside)).path == inside
    spaced = tree / "pkg/urdf/my part.stl"
    spaced.write_bytes(b"")
    assert load(tree, "file://" + str(spaced.resolve()).replace(" ", "%20")).path == spaced.resolve()


@pytest.mark.parametrize("reference", [
    "../../etc/passwd", "../../../../../../../../etc/passwd", "/etc/passwd", "file:///etc/passwd",
    "package://pkg/../../../etc/passwd", "../../secret.stl",
])
def test_references_outside_are_refused(tree, reference):
    with pytest.raises(URDFError) as e:
        load(tree, reference, mesh_dirs=[tree / "pkg"])
    message = str(e.value)
    for part in ("link 'l1'", f"mesh {reference!r}", "outside the URDF's folder and the mesh folders", "allow_outside=True"):
        assert part in message


def test_allow_outside_trusts_the_urdf(tree):
    assert load(tree, "../../secret.stl", allow_outside=True).path == (tree / "secret.stl").resolve()
    assert load(tree, str(tree / "secret.stl"), allow_outside=True).path == (tree / "secret.stl").resolve()


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
def test_a_link_inside_pointing_outside_is_refused(tree):
    (tree / "pkg/urdf/link.stl").symlink_to(tree / "secret.stl")
    with pytest.raises(URDFError, match="resolves to .*secret.stl', outside"):
        load(tree, "link.stl")


def test_other_schemes_are_refused(tree):
    with pytest.raises(URDFError, match=r"link 'l1': mesh 'http://x/a.stl' has the URI scheme http://; expected a relative path, package://"):
        load(tree, "http://x/a.stl")


def test_missing_mesh_loads_without_a_path_and_resolve_mesh_says_where_it_looked(tree):
    assert load(tree, "missing.stl").path is None
    with pytest.raises(URDFError, match=r"mesh 'missing.stl' not found; looked at .*pkg/urdf/missing.stl"):
        resolve_mesh("missing.stl", tree / "pkg/urdf")
    assert resolve_mesh("package://pkg/meshes/a.stl", mesh_dirs=[tree]) == (tree / "pkg/meshes/a.stl").resolve()


def test_urdf_text_resolves_only_in_mesh_dirs(tree):
    model = parse_urdf(urdf_with_mesh("meshes/a.stl"))
    assert model.link("l1").collision[0].path is None
    model = parse_urdf(urdf_with_mesh("meshes/a.stl"), mesh_dirs=[tree / "pkg"])
    assert model.link("l1").collision[0].path == (tree / "pkg/meshes/a.stl").resolve()
    with pytest.raises(URDFError, match="outside the URDF's folder and the mesh folders .none: URDF text and no mesh_dirs."):
        parse_urdf(urdf_with_mesh(str(tree / "secret.stl")))
    assert mesh_candidates("a.stl") == []


def test_load_robot_passes_mesh_options(tree):
    text = urdf_with_mesh("../../secret.stl")
    with pytest.raises(URDFError, match="outside"):
        bioik.load_robot(text, mesh_dirs=[tree / "pkg"])
    robot = bioik.load_robot(text, mesh_dirs=[tree / "pkg"], allow_outside=True)
    assert robot.model.link("l1").collision[0].filename == "../../secret.stl"


def _package(root: Path, folder: str, name: str | None = None) -> Path:
    """root/folder as a ROS package (package.xml naming `name`, or none) with meshes/a.stl."""
    pkg = root / folder
    (pkg / "meshes").mkdir(parents=True)
    (pkg / "meshes" / "a.stl").write_bytes(b"solid x\nendsolid x\n")
    if name is not None:
        (pkg / "package.xml").write_text(f"<package format='3'>\n  <name>{name}</name>\n</package>\n")
    return pkg


def _urdf_in(folder: Path, reference: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "robot.urdf"
    path.write_text(urdf_with_mesh(reference))
    return path


@pytest.fixture
def no_ros(monkeypatch):
    for v in ("ROS_PACKAGE_PATH", "AMENT_PREFIX_PATH"):
        monkeypatch.delenv(v, raising=False)
    return monkeypatch


def test_a_package_above_the_urdf_is_found_by_its_name_or_package_xml(tmp_path, no_ros):
    """A description package as pip or a checkout lays it out: the URDF below the package folder."""
    pkg = _package(tmp_path, "src/my_robot_description", "my_robot_description")
    urdf = _urdf_in(pkg / "urdf", "package://my_robot_description/meshes/a.stl")
    assert parse_urdf(urdf).link("l1").collision[0].path == (pkg / "meshes/a.stl").resolve()
    renamed = _package(tmp_path, "checkout-2", "other_description")  # folder name differs: package.xml decides
    urdf = _urdf_in(renamed / "robots", "package://other_description/meshes/a.stl")
    assert parse_urdf(urdf).link("l1").collision[0].path == (renamed / "meshes/a.stl").resolve()


def test_ros_package_path_and_ament_prefix_path_are_searched(tmp_path, no_ros):
    ws = tmp_path / "ws"
    pkg = _package(ws, "src/group/arm_description", "arm_description")
    share = _package(tmp_path / "install", "share/hand_description")
    urdf = _urdf_in(tmp_path / "elsewhere", "package://arm_description/meshes/a.stl")
    no_ros.setenv("ROS_PACKAGE_PATH", str(ws / "src"))
    assert parse_urdf(urdf).link("l1").collision[0].path == (pkg / "meshes/a.stl").resolve()
    urdf = _urdf_in(tmp_path / "elsewhere2", "package://hand_description/meshes/a.stl")
    no_ros.setenv("AMENT_PREFIX_PATH", str(tmp_path / "install"))
    assert parse_urdf(urdf).link("l1").collision[0].path == (share / "meshes/a.stl").resolve()


def test_package_dirs_name_a_package_and_stay_confined(tmp_path, no_ros):
    pkg = _package(tmp_path, "anywhere")
    urdf = _urdf_in(tmp_path / "robot", "package://thing/meshes/a.stl")
    assert parse_urdf(urdf).link("l1").collision[0].path is None
    robot = bioik.load_robot(urdf, package_dirs={"thing": pkg})
    assert robot.model.link("l1").collision[0].path == (pkg / "meshes/a.stl").resolve()
    (tmp_path / "secret.stl").write_bytes(b"")
    escape = _urdf_in(tmp_path / "robot2", "package://thing/../secret.stl")
    with pytest.raises(URDFError, match="outside the URDF's folder and the mesh folders"):
        parse_urdf(escape, package_dirs={"thing": pkg})


def test_an_unresolved_package_says_where_it_looked_and_how_to_name_it(tmp_path, no_ros):
    urdf = _urdf_in(tmp_path / "robot", "package://nowhere_description/meshes/a.stl")
    with pytest.raises(URDFError) as e:
        resolve_mesh("package://nowhere_description/meshes/a.stl", urdf.parent)
    message = str(e.value)
    for part in ("mesh 'package://nowhere_description/meshes/a.stl' not found", "ROS_PACKAGE_PATH=''", "AMENT_PREFIX_PATH=''",
                 "the folders above the URDF", "package_dirs={'nowhere_description': '/path/to/nowhere_description'}"):
        assert part in message
    from bioik.collision.link_geometry import MeshNotFoundError, link_pieces

    robot = bioik.load_robot(urdf)
    with pytest.raises(MeshNotFoundError, match=r"link 'l1': collision mesh 'package://nowhere_description/meshes/a.stl' was not "
                                                r"found .*package_dirs=\{'nowhere_description'"):
        link_pieces(robot.model.link("l1"))
