"""invert_chain: the chain seen from its tip reproduces every link's frame, keeps joint
names, variables and limits, and refuses what it cannot invert."""

import numpy as np
import pytest

import bioik
from bioik.kinematics.robot import Robot
from bioik.model.invert import invert_chain


@pytest.mark.parametrize("robot_name, base, tip", [
    ("elise_ur10", "endoscope_mount", "endoscope_tip"),
    ("elise_ur10", "base_link", "endoscope_tip"),
    ("ur5", "shoulder_link", "tool0"),
    ("mobile_ur5", "lift_link", "tool0"),  # a prismatic lift in the chain
])
def test_every_link_of_the_inverted_chain_sits_where_it_does_in_the_robot(robot_name, base, tip):
    robot = bioik.load_robot(robot_name)
    inverted = Robot(invert_chain(robot.model, base, tip))
    assert inverted.model.links[inverted.model.root].name == tip and inverted.tips == [base]
    chain = [robot.model.links[robot.model.joints[j].child].name for j in robot.model.chain(base, tip)] + [base]
    rng = np.random.default_rng(1)
    for q in robot.random_configuration(rng, 20):
        qi = np.array([q[robot.variable_names.index(n)] for n in inverted.variable_names])
        T_tip = robot.link_pose(q, tip)
        for link in chain:
            assert np.allclose(T_tip @ inverted.link_pose(qi, link), robot.link_pose(q, link), atol=1e-12)


def test_joints_keep_their_names_variables_limits_and_links_their_geometry():
    model = bioik.load_robot("elise_ur10").model
    inv = invert_chain(model, "endoscope_mount", "endoscope_tip")
    assert inv.variable_names == ["endoscope_roll_joint", "endoscope_bend1_joint", "endoscope_bend2_joint"]
    for v in inv.variables:
        w = model.variables[model.variable_index(v.name)]
        assert (v.lower, v.upper, v.joint) == (w.lower, w.upper, w.joint)
    for name in ("endoscope_link_1", "endoscope_link_2", "endoscope_link_3"):
        assert inv.link(name).collision == model.link(name).collision
    for j in inv.joints:
        if j.motions:
            assert np.allclose(j.origin, np.eye(4))
            assert np.allclose(j.motions[0].axis, -model.joint(j.name).motions[0].axis)


def test_what_cannot_be_inverted_is_refused_by_name():
    mobile = bioik.load_robot("mobile_ur5").model
    with pytest.raises(ValueError, match="is planar"):
        invert_chain(mobile, mobile.links[mobile.root].name, "tool0")
    ur5 = bioik.load_robot("ur5").model
    with pytest.raises(ValueError, match="not an ancestor"):
        invert_chain(ur5, "tool0", "base_link")
    with pytest.raises(ValueError, match="the same link"):
        invert_chain(ur5, "tool0", "tool0")
