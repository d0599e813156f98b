"""Jacobians against central finite differences; extrapolation error is second order, and
third order with the curvature terms."""

import numpy as np
import pytest
from urdf_samples import TREE_URDF

import bioik
from bioik.kinematics.extrapolate import curvature
from bioik.kinematics.frames import quat_from_matrix


def rotation_vector(R):
    """Axis-angle vector of a small rotation matrix."""
    angle = np.arccos(np.clip((np.trace(R) - 1) / 2, -1, 1))
    if angle < 1e-12:
        return np.zeros(3)
    return angle / (2 * np.sin(angle)) * np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])


def numeric_jacobian(robot, q, link, point, h=1e-6):
    J = np.zeros((6, robot.dof))
    for i in range(robot.dof):
        dq = np.zeros(robot.dof)
        dq[i] = h
        Tp, Tm = robot.link_pose(q + dq, link), robot.link_pose(q - dq, link)
        J[:3, i] = (Tp[:3, :3] @ point + Tp[:3, 3] - Tm[:3, :3] @ point - Tm[:3, 3]) / (2 * h)
        J[3:, i] = rotation_vector(Tp[:3, :3] @ Tm[:3, :3].T) / (2 * h)
    return J


def test_jacobian_matches_finite_differences(rng):
    robot = bioik.load_robot(TREE_URDF)
    for _ in range(20):
        q = robot.random_configuration(rng)
        for link in ("tip_a", "tip_b", "l2"):
            point = rng.normal(size=3) * 0.1
            np.testing.assert_allclose(robot.jacobian(q, link, point), numeric_jacobian(robot, q, link, point), atol=1e-6)


def test_jacobian_of_mimic_chain_counts_both_joints(rng):
    robot = bioik.load_robot(TREE_URDF)
    q = robot.random_configuration(rng)
    J = robot.jacobian(q, "tip_b")
    # the slide variable moves tip_b by translation and, via the mimic joint, by rotation
    assert np.linalg.norm(J[3:, robot.variable_names.index("slide")]) > 1.0


def test_extrapolation_error_shrinks_quadratically(rng):
    robot = bioik.load_robot(TREE_URDF)
    q0 = robot.random_configuration(rng)
    direction = rng.normal(size=robot.dof)
    direction /= np.linalg.norm(direction)
    errors = []
    for h in (1e-1, 1e-2, 1e-3):
        pred = robot.extrapolate(q0, [q0 + h * direction], ["tip_a", "tip_b"])[0]
        exact = robot.fk(q0 + h * direction, links=["tip_a", "tip_b"])
        err = max(np.abs(pred[:, :3, 3] - exact[:, :3, 3]).max(), max(np.linalg.norm(rotation_vector(pred[k, :3, :3] @ exact[k, :3, :3].T)) for k in range(2)))
        errors.append(err)
    assert errors[0] < 0.05
    # ten times smaller steps → about a hundred times smaller error
    assert 50 < errors[0] / errors[1] < 200
    assert 50 < errors[1] / errors[2] < 200


def test_extrapolation_is_exact_at_the_expansion_point(rng):
    robot = bioik.load_robot(TREE_URDF)
    q0 = robot.random_configuration(rng)
    pred = robot.extrapolate(q0, [q0], ["tip_a"])[0, 0]
    exact = robot.link_pose(q0, "tip_a")
    np.testing.assert_allclose(pred, exact, atol=1e-12)
    assert abs(np.linalg.norm(quat_from_matrix(pred[:3, :3])) - 1) < 1e-12


@pytest.mark.parametrize("robot_name", ["ur5", "panda"])
def test_curvature_is_the_second_order_term_of_fk(robot_name, rng):
    """Moving one joint by Δ moves the tip by J·Δ + Q·Δ² up to O(Δ³): the curvature term
    takes the first-order model's error from O(Δ²) to O(Δ³)."""
    robot = bioik.load_robot(robot_name)
    tip = robot.tips[0]
    for _ in range(5):
        q0 = robot.random_configuration(rng)
        J = robot.jacobian(q0, tip)
        Q = np.empty_like(J)
        curvature(J, Q)
        assert np.all(Q[3:] == 0.0)
        p0 = robot.link_pose(q0, tip)[:3, 3]
        for v in range(robot.dof):
            for delta in (1e-2, -1e-2):
                q = q0.copy()
                q[v] += delta
                moved = robot.link_pose(q, tip)[:3, 3] - p0
                first = np.linalg.norm(moved - J[:3, v] * delta)
                second = np.linalg.norm(moved - J[:3, v] * delta - Q[:3, v] * delta**2)
                assert second <= 1e-6 and (second <= 0.05 * first or first <= 1e-9)
