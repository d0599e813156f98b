"""Forward kinematics against yourdfpy (an independent implementation) and by construction."""

import io

import numpy as np
import pytest
import yourdfpy
from urdf_samples import TREE_URDF

import bioik


def reference(urdf_text, robot, q, link):
    u = yourdfpy.URDF.load(io.BytesIO(urdf_text.encode()), load_meshes=False)
    u.update_cfg(robot.full_configuration(q))
    return u.get_transform(link, u.base_link)


def test_tree_matches_yourdfpy_for_every_link(rng):
    robot = bioik.load_robot(TREE_URDF)
    u = yourdfpy.URDF.load(io.BytesIO(TREE_URDF.encode()), load_meshes=False)
    Q = robot.random_configuration(rng, 200)
    poses = robot.fk(Q)
    assert poses.shape == (200, len(robot.link_names), 4, 4)
    for n in range(len(Q)):
        u.update_cfg(robot.full_configuration(Q[n]))
        for k, link in enumerate(robot.link_names):
            np.testing.assert_allclose(poses[n, k], u.get_transform(link, "base"), atol=1e-9)


def test_link_pose_equals_batch_fk(rng):
    robot = bioik.load_robot(TREE_URDF)
    q = robot.random_configuration(rng)
    for k, link in enumerate(robot.link_names):
        np.testing.assert_allclose(robot.link_pose(q, link), robot.fk(q)[k], atol=1e-14)
    assert robot.fk(q, links=["tip_b"]).shape == (1, 4, 4)


def test_mimic_joint_follows_its_source():
    robot = bioik.load_robot(TREE_URDF)
    q = np.zeros(robot.dof)
    finger = robot.model.joint("finger_joint").motions[0]
    assert finger.variable == robot.model.variable_index("slide")
    assert (finger.multiplier, finger.offset) == (2.0, 0.1)
    poses = []
    for slide in (0.0, 0.1):
        q[robot.variable_names.index("slide")] = slide
        T_slider, T_finger = robot.link_pose(q, "slider"), robot.link_pose(q, "finger")
        poses.append((T_slider, T_finger))
        rel = np.linalg.inv(T_slider) @ T_finger
        angle = 2.0 * slide + 0.1  # rotation about y by the mimic value
        np.testing.assert_allclose(rel[:3, :3], [[np.cos(angle), 0, np.sin(angle)], [0, 1, 0], [-np.sin(angle), 0, np.cos(angle)]], atol=1e-12)
    # the prismatic joint moved the slider 0.1 along its axis (x of the joint frame)
    d = poses[1][0][:3, 3] - poses[0][0][:3, 3]
    np.testing.assert_allclose(np.linalg.norm(d), 0.1, atol=1e-12)
    np.testing.assert_allclose(d / 0.1, poses[0][0][:3, 0], atol=1e-12)


def test_continuous_joint_is_unbounded_and_periodic():
    robot = bioik.load_robot(TREE_URDF)
    i = robot.variable_names.index("j2")
    assert robot.lower[i] == -np.inf and robot.upper[i] == np.inf
    assert robot.sample_lower[i] == -np.pi and robot.sample_upper[i] == np.pi
    q = np.zeros(robot.dof)
    q2 = q.copy()
    q2[i] = 2 * np.pi
    np.testing.assert_allclose(robot.link_pose(q, "tip_a"), robot.link_pose(q2, "tip_a"), atol=1e-12)


PLANAR_FLOATING = """<robot name="pf">
  <link name="world"/><link name="cart"/><link name="body"/>
  <joint name="plane" type="planar"><parent link="world"/><child link="cart"/><origin xyz="0 0 0.5"/><axis xyz="0 0 1"/></joint>
  <joint name="free" type="floating"><parent link="cart"/><child link="body"/><origin xyz="0.1 0 0"/></joint>
</robot>"""


def test_planar_and_floating_joints_are_multi_variable():
    robot = bioik.load_robot(PLANAR_FLOATING)
    assert robot.variable_names == ["plane/x", "plane/y", "plane/theta"] + [
        f"free/{n}" for n in ("trans_x", "trans_y", "trans_z", "rot_x", "rot_y", "rot_z")
    ]
    q = np.zeros(robot.dof)
    q[0], q[1], q[2] = 0.3, -0.2, 0.5
    T = robot.link_pose(q, "cart")
    np.testing.assert_allclose(T[:3, 3], [0.3, -0.2, 0.5], atol=1e-12)  # plane/x along x, plane/y along y
    np.testing.assert_allclose(T[:3, :3], [[np.cos(0.5), -np.sin(0.5), 0], [np.sin(0.5), np.cos(0.5), 0], [0, 0, 1]], atol=1e-12)
    q[:] = 0
    q[3:6] = [0.1, 0.2, 0.3]
    q[8] = 0.7  # rot_z
    T = robot.link_pose(q, "body")
    np.testing.assert_allclose(T[:3, 3], [0.2, 0.2, 0.8], atol=1e-12)
    np.testing.assert_allclose(T[:3, :3], [[np.cos(0.7), -np.sin(0.7), 0], [np.sin(0.7), np.cos(0.7), 0], [0, 0, 1]], atol=1e-12)


@pytest.mark.parametrize("normal", [(0, 0, 1), (1, 0, 0), (0, -1, 0), (1, 1, 1)])
def test_planar_joint_moves_in_its_plane(normal):
    """x and y translate along two orthogonal in-plane directions, x × y = the normal (right-handed)."""
    robot = bioik.load_robot(PLANAR_FLOATING.replace('xyz="0 0 1"', 'xyz="%g %g %g"' % normal), group=["plane"])
    n = np.array(normal) / np.linalg.norm(normal)
    u, w = (robot.link_pose(q, "cart")[:3, 3] - [0, 0, 0.5] for q in ([1, 0, 0], [0, 1, 0]))
    np.testing.assert_allclose([u @ n, w @ n, u @ w], 0, atol=1e-12)
    np.testing.assert_allclose(np.cross(u, w), n, atol=1e-12)
    if normal == (0, 0, 1):
        np.testing.assert_allclose([u, w], [[1, 0, 0], [0, 1, 0]], atol=1e-12)


def test_frozen_joints_keep_their_values(rng):
    full = bioik.load_robot(TREE_URDF)
    arm = full.with_group(["j1", "j2", "j3"]).with_frozen({"slide": 0.15})
    assert arm.variable_names == ["j1", "j2", "j3"]
    q = arm.random_configuration(rng)
    qf = np.append(q, 0.15)
    for link in ("tip_a", "tip_b"):
        np.testing.assert_allclose(arm.link_pose(q, link), full.link_pose(qf, link), atol=1e-12)


def test_chain_group_selects_its_joints_and_tip():
    robot = bioik.load_robot(TREE_URDF, group=[("base", "tip_b")])
    assert robot.variable_names == ["j1", "slide"]
    assert robot.tips == ["tip_b"]


@pytest.mark.parametrize("scale", [1e-8, 1e-5, 1e-2, 1.0])  # small angles take the skew part, large ones the trace
def test_fk_pose_errors_are_the_distance_and_angle_from_each_target(rng, scale):
    from scipy.spatial.transform import Rotation

    from bioik.kinematics.fk import fk_pose_errors

    robot = bioik.load_robot("dual_ur5")
    links = ["left_tool0", "right_tool0"]
    idx = np.array([robot.link_index(l) for l in links])
    p = robot.program
    for _ in range(20):
        q = robot.random_configuration(rng)
        A = robot.fk(q, links=links)
        T = A.copy()
        turns = Rotation.from_rotvec(rng.normal(size=(2, 3)) * scale)
        shifts = rng.normal(size=(2, 3)) * scale
        for k in range(2):
            T[k, :3, :3] = A[k, :3, :3] @ turns[k].as_matrix()
            T[k, :3, 3] += shifts[k]
        errors = np.empty((2, 2))
        fk_pose_errors(p.seg_i, p.seg_f, p.out_seg, p.out_tf, q, idx, T, np.empty((p.seg_i.shape[0], 7)), errors)
        np.testing.assert_allclose(errors[:, 0], np.linalg.norm(shifts, axis=1), rtol=1e-6, atol=1e-14)
        np.testing.assert_allclose(errors[:, 1], turns.magnitude(), rtol=1e-6, atol=1e-12)
