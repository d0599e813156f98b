"""SRDF reading: groups and disabled collisions, names checked against the model, clear errors."""

import pytest

import bioik
from bioik.model.srdf import SRDFError, SRDFWarning, parse_srdf

TEXT = """<?xml version="1.0"?>
<robot name="ur5">
  <group name="manipulator"><chain base_link="base_link" tip_link="tool0"/></group>
  <group name="wrist"><joint name="wrist_1_joint"/><joint name="wrist_2_joint"/><link name="wrist_3_link"/></group>
  <group name="both"><group name="wrist"/></group>
  <group_state name="home" group="manipulator"><joint name="elbow_joint" value="0"/></group_state>
  <disable_collisions link1="base_link" link2="shoulder_link" reason="Adjacent"/>
  <disable_collisions link1="wrist_1_link" link2="wrist_3_link" reason="Never"/>
</robot>"""


def test_groups_and_disabled_pairs_are_read(tmp_path):
    robot = bioik.load_robot("ur5")
    (tmp_path / "ur5.srdf").write_text(TEXT)
    for source in (TEXT, tmp_path / "ur5.srdf", TEXT.encode()):
        s = parse_srdf(source, robot.model)
        assert s.name == "ur5"
        assert s.groups["manipulator"].chains == (("base_link", "tool0"),)
        assert s.groups["wrist"].joints == ("wrist_1_joint", "wrist_2_joint") and s.groups["wrist"].links == ("wrist_3_link",)
        assert s.groups["both"].subgroups == ("wrist",)
        assert s.disabled == (("base_link", "shoulder_link", "Adjacent"), ("wrist_1_link", "wrist_3_link", "Never"))


def test_load_robot_keeps_the_srdf_through_group_and_frozen_changes():
    robot = bioik.load_robot("ur5", srdf=TEXT)
    assert robot.srdf.disabled[0][:2] == ("base_link", "shoulder_link")
    assert robot.with_group(["shoulder_pan_joint"]).srdf is robot.srdf
    assert robot.with_group(["shoulder_pan_joint"]).with_frozen({"elbow_joint": 0.5}).srdf is robot.srdf
    assert bioik.load_robot("ur5").srdf is None


def test_unknown_names_are_listed_with_the_known_ones():
    """As MoveIt does, a part that does not fit is left out with one warning, the rest is
    used, and selecting the broken group says why; `parse_srdf(..., model)` is strict."""
    bad = TEXT.replace('link2="wrist_3_link"', 'link2="wrist_3_lnk"').replace('"wrist_2_joint"', '"wrist_two"')
    with pytest.warns(SRDFWarning) as w:
        robot = bioik.load_robot("ur5", srdf=bad)
    msg = str(w[0].message)
    assert "unknown link 'wrist_3_lnk' (closest: wrist_3_link" in msg
    assert "unknown joint 'wrist_two'" in msg and "wrist_2_joint" in msg
    assert robot.with_group("manipulator").dof == 6
    with pytest.raises(SRDFError, match=r"group 'wrist' of robot 'ur5' cannot be used: .*line 4: group 'wrist' names unknown joint 'wrist_two'"):
        robot.with_group("wrist")
    with pytest.raises(SRDFError, match="group 'both' contains group 'wrist', which cannot be used"):
        robot.with_group("both")
    assert ("wrist_1_link", "wrist_3_lnk") not in {d[:2] for d in robot.semantics.disabled}
    with pytest.raises(SRDFError, match="does not fit robot 'ur5'"):
        parse_srdf(bad, robot.model)


@pytest.mark.parametrize("text,match", [
    ("<robot><disable_collisions link1='a'/></robot>", "line 1: <disable_collisions> has no 'link2' attribute"),
    ("<robot><group name='g'></robot>", "malformed XML in <SRDF string> at line 1"),
    ("<srdf/>", "root element is <srdf>, expected <robot>"),
    ("<robot><group name='g'/><group name='g'/></robot>", "group 'g' is defined twice"),
])
def test_bad_srdf_is_one_clear_error(text, match):
    with pytest.raises(SRDFError, match=match):
        parse_srdf(text)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(SRDFError, match="does not exist"):
        parse_srdf(tmp_path / "nope.srdf")


@pytest.mark.parametrize("text,match", [
    ('<!DOCTYPE robot [<!ENTITY x SYSTEM "file:///etc/hostname">]><robot><group name="&x;"/></robot>', "entit.* refused"),
    ('<!DOCTYPE robot [<!ENTITY x "g">]><robot><group name="&x;"/></robot>', "entit.* refused"),
    ('<robot xmlns:xi="http://www.w3.org/2001/XInclude"><xi:include href="/etc/hostname" parse="text"/></robot>',
     r"line 1: <xi:include> is refused"),
], ids=["external-entity", "internal-entity", "xinclude"])
def test_entities_and_xincludes_are_refused_not_resolved(text, match):
    with pytest.raises(SRDFError, match=match):
        parse_srdf(text)
