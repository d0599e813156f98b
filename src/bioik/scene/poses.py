"""Poses of obstacles: validation of 4×4 transforms, and the position + rpy / quaternion
forms scene files use.

Every pose is a 4×4 homogeneous transform [R t; 0 0 0 1] from the obstacle's frame to
the robot's base frame. A matrix that is not one (wrong shape, NaN, R not a rotation)
would silently shear or mirror the obstacle's distance field, so it is refused.
"""

from __future__ import annotations

import numpy as np

from bioik.scene.errors import SceneError


def validate_pose(pose, name: str) -> np.ndarray:
    """A read-only float64 copy of a 4×4 homogeneous transform [R t; 0 0 0 1] with R a
    rotation (orthonormal, det +1, to 1e-6); None is the identity."""
    if pose is None:
        out = np.eye(4)
    else:
        try:
            out = np.array(pose, dtype=np.float64)
        except (TypeError, ValueError):
            raise SceneError(f"obstacle {name!r}: pose must be a 4×4 homogeneous transform [R t; 0 0 0 1]; got {pose!r}") from None
        if out.shape != (4, 4):
            raise SceneError(f"obstacle {name!r}: pose must be a 4×4 homogeneous transform [R t; 0 0 0 1]; got shape {out.shape}")
        if not np.isfinite(out).all():
            raise SceneError(f"obstacle {name!r}: pose has non-finite entries (expected a 4×4 transform [R t; 0 0 0 1])")
        if np.abs(out[3] - (0.0, 0.0, 0.0, 1.0)).max() > 1e-6:
            raise SceneError(f"obstacle {name!r}: pose's last row must be [0, 0, 0, 1]; got {out[3].tolist()}")
        R = out[:3, :3]
        if np.abs(R.T @ R - np.eye(3)).max() > 1e-6 or np.linalg.det(R) < 0.0:
            raise SceneError(
                f"obstacle {name!r}: pose's upper-left 3×3 block must be a rotation (orthonormal, det +1, "
                f"to 1e-6); got det {np.linalg.det(R):.6g}"
            )
        out[3] = (0.0, 0.0, 0.0, 1.0)
    out.flags.writeable = False
    return out


def pose_from(position=None, rpy=None, quaternion=None, *, name: str = "pose") -> np.ndarray:
    """4×4 transform from a position and either roll-pitch-yaw (URDF: R = Rz(y)·Ry(p)·Rx(r))
    or a unit quaternion (w, x, y, z; normalised here, must not be zero)."""
    T = np.eye(4)
    if position is not None:
        T[:3, 3] = _vector(position, 3, "position", name)
    if rpy is not None and quaternion is not None:
        raise SceneError(f"obstacle {name!r}: give rpy or quaternion, not both")
    if rpy is not None:
        r, p, y = _vector(rpy, 3, "rpy", name)
        cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
        T[:3, :3] = [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    if quaternion is not None:
        q = _vector(quaternion, 4, "quaternion", name)
        n = np.linalg.norm(q)
        if n < 1e-9:
            raise SceneError(f"obstacle {name!r}: quaternion [w, x, y, z] must not be zero")
        w, x, y, z = q / n
        T[:3, :3] = [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    return T


def _vector(value, n: int, key: str, name: str) -> np.ndarray:
    try:
        v = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        v = None
    if v is None or v.shape != (n,) or not np.isfinite(v).all():
        raise SceneError(f"obstacle {name!r}: {key} must be {n} finite numbers; got {value!r}")
    return v
