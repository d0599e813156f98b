"""Geometric Jacobians (linear rows then angular rows, robot base frame), compiled."""

from __future__ import annotations

from numba import njit

from bioik.kinematics.fk import fk_frames
from bioik.kinematics.frames import JIT, KERNEL, qrot, qzaxis
from bioik.model.robot_model import REVOLUTE


@njit(inline="always", **JIT)
def add_point_jacobian(seg_i, seg_f, seg, last, px, py, pz, J, rows):
    """Add the columns of a point (px, py, pz) moved by segment `last` and its ancestors.

    J rows rows..rows+5 receive the linear then angular velocity per unit variable rate
    (`rows` lets several links share one stacked Jacobian). J must be zeroed by the caller.
    """
    s = last
    while s >= 0:
        ax, ay, az = qzaxis(seg[s, 3], seg[s, 4], seg[s, 5], seg[s, 6])
        v = seg_i[s, 2]
        m = seg_f[s, 7]
        if seg_i[s, 1] == REVOLUTE:
            dx, dy, dz = px - seg[s, 0], py - seg[s, 1], pz - seg[s, 2]
            J[rows + 0, v] += m * (ay * dz - az * dy)
            J[rows + 1, v] += m * (az * dx - ax * dz)
            J[rows + 2, v] += m * (ax * dy - ay * dx)
            J[rows + 3, v] += m * ax
            J[rows + 4, v] += m * ay
            J[rows + 5, v] += m * az
        else:
            J[rows + 0, v] += m * ax
            J[rows + 1, v] += m * ay
            J[rows + 2, v] += m * az
        s = seg_i[s, 0]


@njit(**JIT)
def jacobian(seg_i, seg_f, out_seg, out_tf, q, o, point, seg, frames, J):
    """6×n Jacobian of a point fixed on requested link o (point in that link's frame).

    Writes FK of all requested links into frames as a by-product; J is overwritten.
    """
    fk_frames(seg_i, seg_f, out_seg, out_tf, q, seg, frames)
    J[:, :] = 0.0
    f = frames[o]
    rx, ry, rz = qrot(f[3], f[4], f[5], f[6], point[0], point[1], point[2])
    add_point_jacobian(seg_i, seg_f, seg, out_seg[o], f[0] + rx, f[1] + ry, f[2] + rz, J, 0)


@njit(**KERNEL)
def fk_jacobians(seg_i, seg_f, out_seg, out_tf, q, seg, frames, J):
    """Frames of all requested links and their Jacobians stacked in J (6·O, n)."""
    fk_frames(seg_i, seg_f, out_seg, out_tf, q, seg, frames)
    J[:, :] = 0.0
    for o in range(out_seg.shape[0]):
        add_point_jacobian(seg_i, seg_f, seg, out_seg[o], frames[o, 0], frames[o, 1], frames[o, 2], J, 6 * o)
