"""An SRDF in bioik's terms: groups selectable by name with their tips, end effectors,
named configurations, virtual and passive joints, and a clear error for each misfit."""

import numpy as np
import pytest

import bioik
from bioik.model.names import UnknownNameError
from bioik.model.srdf import SRDFError, SRDFWarning, parse_srdf, semantics

SRDF = """<robot name="ur5">
  <group name="arm"><chain base_link="base_link" tip_link="wrist_3_link"/></group>
  <group name="wrist"><joint name="wrist_1_joint"/><joint name="wrist_2_joint"/><link name="wrist_3_link"/></group>
  <group name="shoulder"><joint name="shoulder_pan_joint"/><joint name="shoulder_lift_joint"/></group>
  <group name="both"><group name="shoulder"/><group name="wrist"/></group>
  <group name="tool"><link name="tool0"/></group>
  <end_effector name="gripper" parent_link="tool0" group="tool" parent_group="arm"/>
  <group_state name="home" group="arm">
    <joint name="shoulder_lift_joint" value="-1.5"/><joint name="elbow_joint" value="1.0"/>
  </group_state>
  <group_state name="home" group="wrist"><joint name="wrist_2_joint" value="0.5"/></group_state>
  <passive_joint name="wrist_3_joint"/>
</robot>"""


def load(text=SRDF, **kw):
    """ur5 from its URDF file: a plain URDF, no bundled groups."""
    return bioik.load_robot(bioik.robots.urdf_path("ur5"), srdf=text, **kw)


def test_groups_are_selectable_by_name_with_moveit_membership():
    robot = load(group="arm")
    assert robot.variable_names == ["shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint"]
    assert robot.tips == ["tool0"]  # the end effector's parent link, not the chain's tip
    wrist = robot.with_group("wrist")  # <link> adds the joint above it, but that joint is passive
    assert wrist.variable_names == ["wrist_1_joint", "wrist_2_joint"] and wrist.tips == ["wrist_3_link"]
    both = robot.with_group("both")
    assert both.variable_names == ["shoulder_pan_joint", "shoulder_lift_joint", "wrist_1_joint", "wrist_2_joint"]
    assert both.tips == ["wrist_3_link"]  # shoulder_lift's link lies above the wrist's: not a tip


def test_with_no_group_named_every_active_joint_moves_and_the_tips_come_from_the_srdf():
    robot = load()
    assert robot.group.name == "all" and robot.dof == 5  # the passive wrist_3_joint stays out
    assert robot.tips == ["tool0"]
    assert bioik.load_robot(bioik.robots.urdf_path("ur5")).dof == 6
    assert bioik.load_robot("ur5", srdf=SRDF).group.name == "manipulator"  # a bundled robot keeps its default group


def test_group_states_are_named_configurations_for_the_active_group():
    robot = load(group="arm")
    assert robot.named_configurations == ["home"]
    q = robot.named_configuration("home")
    assert q.tolist() == [0.0, -1.5, 1.0, 0.0, 0.5]  # states of one name for two groups combine
    assert robot.with_group("shoulder").named_configuration("home").tolist() == [0.0, -1.5]
    p = bioik.Problem(robot, [bioik.PoseGoal("tool0", robot.link_pose(q, "tool0"))])
    assert p.accept(q)[0]
    with pytest.raises(UnknownNameError, match="unknown named configuration 'hom' of robot 'ur5'; closest: home"):
        robot.named_configuration("hom")
    with pytest.raises(UnknownNameError, match="it has none"):
        bioik.load_robot("ur5").named_configuration("home")


@pytest.mark.parametrize("state,match", [
    ('<group_state name="s" group="arm"><joint name="elbow" value="0"/></group_state>', "sets unknown joint 'elbow' .closest: elbow_joint"),
    ('<group_state name="s" group="arm"><joint name="elbow_joint" value="9"/></group_state>', r"value 9 is outside its limits \[-3.14159, 3.14159\]"),
    ('<group_state name="s" group="shoulder"><joint name="elbow_joint" value="0"/></group_state>', "not in group 'shoulder'"),
    ('<group_state name="s" group="arms"><joint name="elbow_joint" value="0"/></group_state>', "unknown group 'arms'"),
])
def test_a_bad_group_state_is_named_when_used(state, match):
    text = SRDF.replace("</robot>", state + "</robot>")
    with pytest.warns(SRDFWarning, match=match):
        robot = load(text, group="arm")
    with pytest.raises(SRDFError, match=rf"named configuration 's' of robot 'ur5' cannot be used: <SRDF string>: line \d+: group_state 's'.*{match}"):
        robot.named_configuration("s")
    assert robot.named_configuration("home").shape == (5,)


def test_a_non_number_is_a_parse_error():
    with pytest.raises(SRDFError, match=r"line 1: <joint name='a'> value 'x'; expected finite numbers"):
        parse_srdf('<robot><group_state name="s" group="g"><joint name="a" value="x"/></group_state></robot>')


def test_an_end_effector_outside_its_parent_group_is_reported():
    text = SRDF.replace('parent_link="tool0" group="tool" parent_group="arm"', 'parent_link="tool0" group="tool" parent_group="shoulder"')
    model = bioik.load_robot("ur5").model
    with pytest.raises(SRDFError, match="end_effector 'gripper': parent_link 'tool0' is not a link of its parent_group 'shoulder'"):
        parse_srdf(text, model)
    assert "end_effector 'gripper' hangs from unknown link 'tol0'" in "; ".join(
        semantics(parse_srdf(SRDF.replace('parent_link="tool0"', 'parent_link="tol0"')), model).problems)


def test_a_cycle_of_subgroups_is_refused_for_those_groups():
    text = SRDF.replace('<group name="tool">', '<group name="a"><group name="b"/></group><group name="b"><group name="a"/></group><group name="tool">')
    with pytest.warns(SRDFWarning):
        robot = load(text)
    with pytest.raises(SRDFError, match="group 'a' contains itself"):
        robot.with_group("a")


@pytest.mark.parametrize("kind,names", [
    ("planar", ["base_joint/x", "base_joint/y", "base_joint/theta"]),
    ("floating", [f"base_joint/{a}" for a in ("trans_x", "trans_y", "trans_z", "rot_x", "rot_y", "rot_z")]),
])
def test_a_virtual_joint_becomes_a_base_that_moves_the_whole_robot(kind, names):
    text = SRDF.replace("</robot>", f'<virtual_joint name="base_joint" type="{kind}" parent_frame="world" child_link="base_link"/>'
                        '<group name="whole"><joint name="base_joint"/><chain base_link="base_link" tip_link="tool0"/></group></robot>')
    robot = load(text, group="whole")
    assert robot.variable_names[:len(names)] == names and robot.link_names[0] == "world"
    q = np.zeros(robot.dof)
    q[0], q[1] = 0.3, -0.2
    moved = robot.link_pose(q, "tool0")
    still = robot.link_pose(np.zeros(robot.dof), "tool0")
    assert np.allclose(moved[:3, 3] - still[:3, 3], [0.3, -0.2, 0.0], atol=1e-12)
    assert load(text, group="arm").dof == 5  # a group without the virtual joint keeps the base still


def test_a_virtual_joint_below_the_root_is_refused():
    text = SRDF.replace("</robot>", '<virtual_joint name="v" type="floating" parent_frame="world" child_link="tool0"/></robot>')
    with pytest.raises(SRDFError, match=r"line \d+: virtual joint 'v' holds link 'tool0', but the root link of robot 'ur5' is"):
        load(text)


def test_a_floating_group_state_takes_a_quaternion():
    text = SRDF.replace("</robot>", '<virtual_joint name="v" type="floating" parent_frame="world" child_link="base_link"/>'
                        '<group name="body"><joint name="v"/></group>'
                        '<group_state name="up" group="body"><joint name="v" value="0 0 1 0 0 0.7071068 0.7071068"/></group_state></robot>')
    robot = load(text, group="body")
    assert np.allclose(robot.named_configuration("up"), [0, 0, 1, 0, 0, np.pi / 2], atol=1e-6)
