"""URDF loading: contents read correctly, and every bad input gets a clear error."""

from collections import Counter

import numpy as np
import pytest
from urdf_samples import TREE_URDF

import bioik
from bioik.model import URDFError, UnknownNameError, parse_urdf
from bioik.model.urdf import _follow


def test_reads_limits_inertials_and_collision_geometry():
    model = parse_urdf(TREE_URDF)
    assert model.link("base").mass == 2.0
    np.testing.assert_allclose(model.link("base").com, [0, 0, 0.1])
    assert [g.kind for g in model.link("base").collision] == ["box"]
    assert model.link("base").collision[0].size == (0.2, 0.2, 0.1)
    cyl = model.link("l1").collision[0]
    assert (cyl.kind, cyl.size) == ("cylinder", (0.05, 0.3))
    assert cyl.origin[2, 3] == 0.15
    assert model.link("l2").collision[0].size == (0.04,)
    v = model.variables[model.variable_index("j1")]
    assert (v.lower, v.upper, v.velocity) == (-2.5, 2.0, 2.0)
    assert model.variables[model.variable_index("j2")].velocity == 1.0  # URDF default: none given
    assert model.leaves == ["tip_a", "tip_b"]


def test_loads_from_a_path(tmp_path):
    path = tmp_path / "tree.urdf"
    path.write_text(TREE_URDF)
    assert bioik.load_robot(str(path)).dof == 4
    assert bioik.load_robot(path).dof == 4


def test_malformed_xml_says_where():
    bad = TREE_URDF.replace("</joint>", "", 1)
    with pytest.raises(URDFError, match=r"malformed XML .* line \d+, column \d+"):
        parse_urdf(bad)


def test_joint_without_parent():
    bad = TREE_URDF.replace('<parent link="l1"/><child link="l2"/>', '<child link="l2"/>')
    with pytest.raises(URDFError, match=r"line \d+: joint 'j2' has no <parent"):
        parse_urdf(bad)


def test_joint_naming_a_missing_link():
    bad = TREE_URDF.replace('<parent link="l2"/>', '<parent link="nowhere"/>')
    with pytest.raises(URDFError, match="'nowhere', which is not a <link>"):
        parse_urdf(bad)


def test_cycle_is_rejected():
    cyc = """<robot name="c"><link name="a"/><link name="b"/><link name="c"/>
    <joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>
    <joint name="bc" type="fixed"><parent link="b"/><child link="c"/></joint>
    <joint name="cb" type="fixed"><parent link="c"/><child link="b"/></joint></robot>"""
    with pytest.raises(URDFError, match="child of two joints|cycle"):
        parse_urdf(cyc)
    loop = """<robot name="c"><link name="r"/><link name="a"/><link name="b"/>
    <joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>
    <joint name="ba" type="fixed"><parent link="b"/><child link="a"/></joint></robot>"""
    with pytest.raises(URDFError, match="cycle"):
        parse_urdf(loop)


def test_bad_joint_type_missing_limit_and_zero_axis():
    with pytest.raises(URDFError, match="type 'hinge'; expected one of"):
        parse_urdf(TREE_URDF.replace('name="j3" type="revolute"', 'name="j3" type="hinge"'))
    no_limit = TREE_URDF.replace('<limit lower="-1.5" upper="1.5" velocity="1.0" effort="10"/>', "")
    with pytest.raises(URDFError, match="revolute joint 'j3' has no <limit"):
        parse_urdf(no_limit)
    with pytest.raises(URDFError, match="axis .* expected a non-zero vector"):
        parse_urdf(TREE_URDF.replace('<axis xyz="0 0 -1"/>', '<axis xyz="0 0 0"/>'))


def test_mimic_of_unknown_joint():
    with pytest.raises(URDFError, match="mimics 'ghost'"):
        parse_urdf(TREE_URDF.replace('mimic joint="slide"', 'mimic joint="ghost"'))


def test_missing_file_and_unknown_robot_name():
    with pytest.raises(URDFError, match="does not exist"):
        bioik.load_robot("/no/such/robot.urdf")
    with pytest.raises(UnknownNameError, match="unknown robot 'ur55'.*ur5"):
        bioik.load_robot("ur55")


def test_unknown_link_lists_closest_names():
    robot = bioik.load_robot(TREE_URDF)
    with pytest.raises(UnknownNameError, match="unknown link .tip_c.*closest: tip_[ab], tip_[ab]"):
        robot.link_pose(np.zeros(4), "tip_c")
    with pytest.raises(UnknownNameError, match="unknown joint 'j4'"):
        robot.with_group(["j1", "j4"])


def test_bad_configurations():
    robot = bioik.load_robot(TREE_URDF)
    with pytest.raises(ValueError, match=r"must have 4 values \(j1, j2, j3, slide\); got shape \(3,\)"):
        robot.link_pose([0, 0, 0], "tip_a")
    with pytest.raises(ValueError, match="NaN or inf at j2"):
        robot.link_pose([0, np.nan, 0, 0], "tip_a")
    with pytest.raises(ValueError, match=r"shape \(N, 4\)"):
        robot.fk(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="NaN or inf"):
        robot.jacobian([0, 0, np.inf, 0], "tip_a")


def test_a_chain_of_mimics_is_walked_once():
    """Each joint's mimic is read a few times however long the chain (a walk from every
    joint took n² steps: 16 s for a 4,000-joint chain of mimics)."""
    n = 500
    types = {f"j{i}": "revolute" for i in range(n)}
    reads = Counter()

    class Counting(dict):
        def __getitem__(self, name):
            reads[name] += 1
            return super().__getitem__(name)

    mimics = Counting({f"j{i}": (f"j{i - 1}", 2.0, 1.0) if i else None for i in range(n)})
    followed = {}
    for name in reversed(types):  # the longest walk first: then every other joint is known
        _follow("<test>", name, types, mimics, followed)
    assert sum(reads.values()) <= 3 * n
    assert followed["j3"] == ("j0", 8.0, 7.0)  # q3 = 2·q2 + 1 = 2·(2·(2·q0 + 1) + 1) + 1


def test_a_mesh_name_too_long_for_a_path_is_a_mesh_not_found(tmp_path):
    path = tmp_path / "long_mesh.urdf"
    path.write_text(TREE_URDF.replace('<sphere radius="0.04"/>', f'<mesh filename="{"m" * 5000}.stl"/>'))
    assert parse_urdf(path).link("l2").collision[0].path is None
