"""Geometric Jacobians (linear rows then angular rows, robot base frame), compiled."""

from __future__ import annotations

from numba import njit

from bioik.kinematics.fk import fk_frames
from bioik.kinematics.frames import JIT, KERNEL, qrot, qzaxis
from bioik.model.robot_model import REVOLUTE


@njit(inline="always", **JIT)
def add_weighted_point_jacobian(seg_i, seg_f, seg, last, px, py, pz, J, prow, rrow, wp, wr, has_p, has_r):
    """Add the columns of a point (px, py, pz) moved by segment `last` and its ancestors:
    wp × its linear velocity per unit variable rate into rows prow..prow+2 (if has_p),
    wr × the angular velocity into rows rrow..rrow+2 (if has_r). J must be zeroed by the
    caller. The one home of the geometric Jacobian: the plain one is wp = wr = 1, the
    one-call pose path weights the rows of its residual."""
    s = last
    while s >= 0:
        ax, ay, az = qzaxis(seg[s, 3], seg[s, 4], seg[s, 5], seg[s, 6])
        v = seg_i[s, 2]
        m = seg_f[s, 7]
        if seg_i[s, 1] == REVOLUTE:
            if has_p:
                dx, dy, dz = px - seg[s, 0], py - seg[s, 1], pz - seg[s, 2]
                c = wp * m
                J[prow + 0, v] += c * (ay * dz - az * dy)
                J[prow + 1, v] += c * (az * dx - ax * dz)
                J[prow + 2, v] += c * (ax * dy - ay * dx)
            if has_r:
                c = wr * m
                J[rrow + 0, v] += c * ax
                J[rrow + 1, v] += c * ay
                J[rrow + 2, v] += c * az
        elif has_p:
            c = wp * m
            J[prow + 0, v] += c * ax
            J[prow + 1, v] += c * ay
            J[prow + 2, v] += c * az
        s = seg_i[s, 0]


@njit(inline="always", **JIT)
def add_point_jacobian(seg_i, seg_f, seg, last, px, py, pz, J, rows):
    """Add the columns of a point (px, py, pz) moved by segment `last` and its ancestors.

    J rows rows..rows+5 receive the linear then angular velocity per unit variable rate
    (`rows` lets several links share one stacked Jacobian). J must be zeroed by the caller.
    """
    add_weighted_point_jacobian(seg_i, seg_f, seg, last, px, py, pz, J, rows, rows + 3, 1.0, 1.0, True, True)


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
