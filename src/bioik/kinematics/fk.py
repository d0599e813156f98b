"""Forward kinematics kernels over a `KinematicProgram` (numba, no allocation inside).

`seg` arrays hold one 7-float frame per segment, in the robot base frame; `frames`
arrays hold one per requested link.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.kinematics.frames import JIT, KERNEL, frame_to_matrix, qmul, qrot, qzaxis
from bioik.model.robot_model import REVOLUTE


@njit(inline="always", **JIT)
def segment_frame(seg_i, seg_f, q, s, seg):
    """Frame of segment s from its parent's frame (already in seg) and q.

    Hot path: indexes rows directly — an array view per call costs more than the math.
    """
    parent = seg_i[s, 0]
    fx, fy, fz = seg_f[s, 0], seg_f[s, 1], seg_f[s, 2]
    fw, fqx, fqy, fqz = seg_f[s, 3], seg_f[s, 4], seg_f[s, 5], seg_f[s, 6]
    if parent < 0:
        px, py, pz = fx, fy, fz
        w, x, y, z = fw, fqx, fqy, fqz
    else:
        Pw, Px, Py, Pz = seg[parent, 3], seg[parent, 4], seg[parent, 5], seg[parent, 6]
        rx, ry, rz = qrot(Pw, Px, Py, Pz, fx, fy, fz)
        px, py, pz = seg[parent, 0] + rx, seg[parent, 1] + ry, seg[parent, 2] + rz
        w, x, y, z = qmul(Pw, Px, Py, Pz, fw, fqx, fqy, fqz)
    value = seg_f[s, 7] * q[seg_i[s, 2]] + seg_f[s, 8]
    if seg_i[s, 1] == REVOLUTE:
        c = np.cos(0.5 * value)
        sn = np.sin(0.5 * value)
        seg[s, 3] = w * c - z * sn
        seg[s, 4] = x * c + y * sn
        seg[s, 5] = y * c - x * sn
        seg[s, 6] = z * c + w * sn
        seg[s, 0], seg[s, 1], seg[s, 2] = px, py, pz
    else:
        ax, ay, az = qzaxis(w, x, y, z)
        seg[s, 0], seg[s, 1], seg[s, 2] = px + value * ax, py + value * ay, pz + value * az
        seg[s, 3], seg[s, 4], seg[s, 5], seg[s, 6] = w, x, y, z


@njit(**JIT)
def fk_segments(seg_i, seg_f, q, seg):
    """Frames of all segments for configuration q."""
    for s in range(seg_i.shape[0]):
        segment_frame(seg_i, seg_f, q, s, seg)


@njit(inline="always", **JIT)
def _output(out_seg, out_tf, seg, o, frames, k):
    """Frame of requested link o from the segment frames, written into frames[k]."""
    s = out_seg[o]
    if s < 0:
        for c in range(7):
            frames[k, c] = out_tf[o, c]
        return
    Pw, Px, Py, Pz = seg[s, 3], seg[s, 4], seg[s, 5], seg[s, 6]
    rx, ry, rz = qrot(Pw, Px, Py, Pz, out_tf[o, 0], out_tf[o, 1], out_tf[o, 2])
    frames[k, 0], frames[k, 1], frames[k, 2] = seg[s, 0] + rx, seg[s, 1] + ry, seg[s, 2] + rz
    w, x, y, z = qmul(Pw, Px, Py, Pz, out_tf[o, 3], out_tf[o, 4], out_tf[o, 5], out_tf[o, 6])
    frames[k, 3], frames[k, 4], frames[k, 5], frames[k, 6] = w, x, y, z


@njit(**KERNEL)
def fk_frames(seg_i, seg_f, out_seg, out_tf, q, seg, frames):
    """Frames of every requested link for configuration q."""
    fk_segments(seg_i, seg_f, q, seg)
    for o in range(out_seg.shape[0]):
        _output(out_seg, out_tf, seg, o, frames, o)


@njit(**JIT)
def fk_batch(seg_i, seg_f, out_seg, out_tf, Q, outputs, seg, result):
    """4×4 poses of the requested links `outputs` for each row of Q → result (N, L, 4, 4)."""
    f = np.empty((1, 7))
    for n in range(Q.shape[0]):
        fk_segments(seg_i, seg_f, Q[n], seg)
        for k in range(outputs.shape[0]):
            _output(out_seg, out_tf, seg, outputs[k], f, 0)
            frame_to_matrix(f[0], result[n, k])


@njit(**JIT)
def fk_link(seg_i, seg_f, out_seg, out_tf, q, o, seg, chain, result):
    """4×4 pose of one requested link, computing only the segments on its path.

    chain: int64 scratch of length ≥ number of segments.
    """
    n = 0
    s = out_seg[o]
    while s >= 0:
        chain[n] = s
        n += 1
        s = seg_i[s, 0]
    for k in range(n - 1, -1, -1):
        segment_frame(seg_i, seg_f, q, chain[k], seg)
    f = np.empty((1, 7))
    _output(out_seg, out_tf, seg, o, f, 0)
    frame_to_matrix(f[0], result)


@njit(**JIT)
def fk_pose_errors(seg_i, seg_f, out_seg, out_tf, q, outputs, T, seg, errors):
    """errors[k] ← (position error m, rotation angle rad) of requested link outputs[k] at q
    from the target pose T[k] (4×4), by exact FK: what a benchmark checks an answer with,
    in one call (the check runs inside the timed solve). The angle comes from the trace of
    AᵀT, or below 1e-3 rad from its skew part (arccos is ill-conditioned near 0)."""
    fk_segments(seg_i, seg_f, q, seg)
    f = np.empty((1, 7))
    A = np.empty((4, 4))
    for k in range(outputs.shape[0]):
        _output(out_seg, out_tf, seg, outputs[k], f, 0)
        frame_to_matrix(f[0], A)
        Tk = T[k]
        dx, dy, dz = A[0, 3] - Tk[0, 3], A[1, 3] - Tk[1, 3], A[2, 3] - Tk[2, 3]
        errors[k, 0] = np.sqrt(dx * dx + dy * dy + dz * dz)
        trace = 0.0
        for i in range(3):
            for j in range(3):
                trace += A[j, i] * Tk[j, i]  # (AᵀT)ᵢᵢ summed
        angle = np.arccos(min(1.0, max(-1.0, (trace - 1.0) / 2.0)))
        if angle < 1e-3:
            x = y = z = 0.0
            for j in range(3):  # the skew part of R = AᵀT: R21 − R12, R02 − R20, R10 − R01
                x += A[j, 2] * Tk[j, 1] - A[j, 1] * Tk[j, 2]
                y += A[j, 0] * Tk[j, 2] - A[j, 2] * Tk[j, 0]
                z += A[j, 1] * Tk[j, 0] - A[j, 0] * Tk[j, 1]
            angle = np.arcsin(min(1.0, np.sqrt(x * x + y * y + z * z) / 2.0))
        errors[k, 1] = angle
