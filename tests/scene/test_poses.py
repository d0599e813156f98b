"""Pose validation and the position + rpy / quaternion forms."""

import numpy as np
import pytest

from bioik.scene import SceneError
from bioik.scene.poses import pose_from, validate_pose


def test_rpy_and_quaternion_agree_with_urdf_conventions():
    # yaw 90°: x → y
    T = pose_from([1, 2, 3], rpy=[0, 0, np.pi / 2])
    assert np.allclose(T[:3, :3] @ [1, 0, 0], [0, 1, 0]) and np.allclose(T[:3, 3], [1, 2, 3])
    c = np.cos(np.pi / 4)
    assert np.allclose(pose_from(quaternion=[c, 0, 0, c]), pose_from(rpy=[0, 0, np.pi / 2]))
    r, p, y = 0.3, -0.4, 1.2
    Rx = np.array([[1, 0, 0], [0, np.cos(r), -np.sin(r)], [0, np.sin(r), np.cos(r)]])
    Ry = np.array([[np.cos(p), 0, np.sin(p)], [0, 1, 0], [-np.sin(p), 0, np.cos(p)]])
    Rz = np.array([[np.cos(y), -np.sin(y), 0], [np.sin(y), np.cos(y), 0], [0, 0, 1]])
    assert np.allclose(pose_from(rpy=[r, p, y])[:3, :3], Rz @ Ry @ Rx)
    assert np.allclose(pose_from(quaternion=[2, 0, 0, 0]), np.eye(4))  # normalised


def test_validate_pose_returns_a_read_only_copy_and_names_the_obstacle():
    T = np.eye(4)
    out = validate_pose(T, "x")
    assert out is not T and not out.flags.writeable
    assert np.array_equal(validate_pose(None, "x"), np.eye(4))
    near = np.eye(4)
    near[0, 0] += 2e-7
    validate_pose(near, "x")  # within tolerance
    for bad, match in [([[1, 2]], "obstacle 'y': pose must be a 4×4"), (np.diag([-1.0, -1.0, -1.0, 1.0]), "rotation"), ("eye", "4×4")]:
        with pytest.raises(SceneError, match=match):
            validate_pose(bad, "y")
