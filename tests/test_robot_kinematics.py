"""The bundled arms equal the manufacturers' published kinematics (independent numpy DH)."""

import numpy as np
import pytest

import bioik


def rot_x(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])


def rot_z(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])


def trans(x, y, z):
    T = np.eye(4)
    T[:3, 3] = (x, y, z)
    return T


def standard_dh(q, d, a, alpha):
    T = np.eye(4)
    for qi, di, ai, al in zip(q, d, a, alpha):
        T = T @ rot_z(qi) @ trans(0, 0, di) @ trans(ai, 0, 0) @ rot_x(al)
    return T


def modified_dh(q, d, a, alpha):
    T = np.eye(4)
    for qi, di, ai, al in zip(q, d, a, alpha):
        T = T @ rot_x(al) @ trans(ai, 0, 0) @ rot_z(qi) @ trans(0, 0, di)
    return T


UR = {
    # Universal Robots' published DH parameters
    "ur5": dict(d=[0.089159, 0, 0, 0.10915, 0.09465, 0.0823], a=[0, -0.425, -0.39225, 0, 0, 0]),
    "ur10": dict(d=[0.1273, 0, 0, 0.163941, 0.1157, 0.0922], a=[0, -0.612, -0.5723, 0, 0, 0]),
}
UR_ALPHA = [np.pi / 2, 0, 0, np.pi / 2, -np.pi / 2, 0]


def reference(name, q):
    if name in UR:
        return rot_z(np.pi) @ standard_dh(q, UR[name]["d"], UR[name]["a"], UR_ALPHA)  # base_link is the foot, turned π
    if name == "panda":  # Franka's published modified DH table, flange 0.107 m along z of frame 7
        a = [0, 0, 0, 0.0825, -0.0825, 0, 0.088]
        d = [0.333, 0, 0.316, 0, 0.384, 0, 0]
        alpha = [0, -np.pi / 2, np.pi / 2, np.pi / 2, -np.pi / 2, np.pi / 2, np.pi / 2]
        return modified_dh(q, d, a, alpha) @ trans(0, 0, 0.107)
    # KUKA iiwa 14 R820: 0.36 / 0.42 / 0.40 / 0.126 m (datasheet)
    d = [0.36, 0, 0.42, 0, 0.40, 0, 0.126]
    alpha = [-np.pi / 2, np.pi / 2, np.pi / 2, -np.pi / 2, -np.pi / 2, np.pi / 2, 0]
    return standard_dh(q, d, [0] * 7, alpha)


@pytest.mark.parametrize("name", ["ur5", "ur10", "panda", "iiwa14"])
def test_flange_equals_published_kinematics(name):
    robot = bioik.load_robot(name)
    tip = robot.tips[0]
    rng = np.random.default_rng(3)
    for q in [np.zeros(robot.dof), *robot.random_configuration(rng, 50)]:
        np.testing.assert_allclose(robot.link_pose(q, tip), reference(name, q), atol=1e-6)


@pytest.mark.parametrize(
    "name, lower, upper",
    [
        ("panda", [-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973], [2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973]),
        ("iiwa14", np.radians([-170, -120, -170, -120, -170, -120, -175]), np.radians([170, 120, 170, 120, 170, 120, 175])),
    ],
)
def test_published_joint_limits(name, lower, upper):
    robot = bioik.load_robot(name)
    np.testing.assert_allclose(robot.lower, lower, atol=1e-4)
    np.testing.assert_allclose(robot.upper, upper, atol=1e-4)


def test_endoscope_is_the_ur10_plus_three_joints():
    elise = bioik.load_robot("elise_ur10")
    ur10 = bioik.load_robot("ur10")
    assert elise.variable_names == ur10.variable_names + ["endoscope_roll_joint", "endoscope_bend1_joint", "endoscope_bend2_joint"]
    q = np.random.default_rng(0).uniform(ur10.lower, ur10.upper)
    np.testing.assert_allclose(elise.link_pose(np.append(q, [0, 0, 0]), "tool0"), ur10.link_pose(q, "tool0"), atol=1e-12)
    # straight endoscope: the tip lies on tool0's z axis
    rel = np.linalg.inv(ur10.link_pose(q, "tool0")) @ elise.link_pose(np.append(q, [0.3, 0, 0]), "endoscope_tip")
    np.testing.assert_allclose(rel[:2, 3], 0, atol=1e-9)
    assert rel[2, 3] > 0.3
