"""Model and robot fingerprints: the same content hashes the same, any edit hashes otherwise;
the default group's tips are the leaves a joint variable moves."""

import pytest
from urdf_samples import TREE_URDF

import bioik
from bioik.model import parse_urdf
from bioik.model.fingerprint import model_fingerprint

UR5 = bioik.robots.urdf_path("ur5")
PAN = '<origin xyz="0 0 0.089159" rpy="0 0 3.141592653589793"/>\n    <axis xyz="0 0 1"/>\n    <limit lower="-6.28318530717959"'


def test_same_urdf_parsed_twice_hashes_the_same(tmp_path):
    copy = tmp_path / "copy.urdf"
    copy.write_text(UR5.read_text())
    a, b = parse_urdf(UR5), parse_urdf(copy)
    assert a is not b and model_fingerprint(a) == model_fingerprint(b)
    assert len(model_fingerprint(a)) == 64 and int(model_fingerprint(a), 16) >= 0
    # the bundled name and its URDF path: the same joints, tip and frozen values
    assert bioik.load_robot("ur5").fingerprint == bioik.load_robot(str(copy)).fingerprint


@pytest.mark.parametrize("edit", [
    ('xyz="0 0 0.089159"', 'xyz="0 0 0.0891591"'),  # an origin
    ('lower="-6.28318530717959" upper="6.28318530717959" effort="150"', 'lower="-3.2" upper="6.28318530717959" effort="150"'),  # a limit
    ('<axis xyz="0 0 1"/>\n    <limit lower="-6.28318530717959"', '<axis xyz="0 0 -1"/>\n    <limit lower="-6.28318530717959"'),  # an axis
    ('<origin xyz="0 0 0.02"/>', '<origin xyz="0 0 0.021"/>'),  # a collision shape
])
def test_an_edit_changes_the_hash(edit):
    text = UR5.read_text()
    old, new = edit
    assert PAN in text and old in text
    edited = text.replace(old, new, 1)
    assert model_fingerprint(parse_urdf(edited)) != model_fingerprint(parse_urdf(text))
    assert bioik.load_robot(edited).fingerprint != bioik.load_robot(text).fingerprint


def test_robot_hash_covers_group_tips_and_frozen_values():
    tree = bioik.load_robot(TREE_URDF)
    arm = tree.with_group(["j1", "j2"])
    assert len({tree.fingerprint, arm.fingerprint, arm.with_frozen({"j3": 0.5}).fingerprint,
                tree.with_group({"joints": ["j1", "j2", "j3", "slide"], "tips": ["l2"]}).fingerprint}) == 4
    assert tree.with_group(["j1", "j2"]).fingerprint == arm.fingerprint
    assert model_fingerprint(arm.model) == model_fingerprint(tree.model)


def test_default_tips_are_the_leaves_a_variable_moves():
    # ur5's `base` hangs off base_link by a fixed joint: a leaf, but nothing moves it
    assert parse_urdf(UR5).leaves == ["base", "tool0"]
    assert bioik.load_robot(str(UR5)).tips == ["tool0"]
    assert bioik.load_robot(TREE_URDF).tips == ["tip_a", "tip_b"]  # tip_b moves by a mimic joint
    fixed_only = '<robot name="r"><link name="a"/><link name="b"/><joint name="f" type="fixed"><parent link="a"/><child link="b"/></joint></robot>'
    assert bioik.load_robot(fixed_only).tips == ["b"]  # nothing moves: the leaves stay the tips
