"""Whole queries for one pose, position or orientation goal: the case users call in loops.

`bioik.solve` hands such a query (goal row, seed, run arguments) to a solver's whole-query
kernel in one compiled call: `query_start` stores the goal and checks and clips the seed,
the solver searches, `query_finish` wraps the turns and runs the exact acceptance test.
The helpers below put the search loops' pieces together: FK of the chain, the reduced
pose residual (`bioik.goals.pose.reduced_pose_residual`, where its 6×6 step is derived)
and its Jacobian (weighted rows of `bioik.kinematics.jacobian`'s point Jacobian).
"""

from __future__ import annotations

import os

import numpy as np
from numba import njit

from bioik.goals.pose import pose_errors, pose_met, reduced_pose_residual
from bioik.goals.base import ORIENTATION, POSE, POSITION
from bioik.goals.joints import REFERENCE
from bioik.goals.kernels import KIND
from bioik.problem import layout
from bioik.problem.layout import BUDGET, DEADLINE, MODE, RANDOM_START, RUN_SLOTS, SEED, unpack  # noqa: F401 — io's first slots
from bioik.kinematics.fk import segment_frame
from bioik.kinematics.frames import JIT, qmul, qrot
from bioik.kinematics.jacobian import add_weighted_point_jacobian
from bioik.kinematics.limits import wrap_near

#: Layout of the `io` array (one array instead of many arguments: a cheaper compiled call).
#: In, per query: run arguments (the slots of the `run` array of the general kernels,
#: `bioik.problem.layout`), the goal's weight and tolerances. Out: counters and the acceptance report
#: (`evaluate`'s layout for one goal). Scratch: the random state. Set once per solver: the
#: number of settings, the settings, the robot's multiturn flags (n), then room for a
#: `workspace` (scratch), so that an `lm` query allocates nothing.
WEIGHT, POSITION_TOL, ROTATION_TOL = range(RUN_SLOTS, RUN_SLOTS + 3)
ITERATIONS, RESTARTS, CLIPPED = range(ROTATION_TOL + 1, ROTATION_TOL + 4)
REPORT = CLIPPED + 1
RNG = REPORT + 6  # the search's random state (a uint64 view: no allocation per query)
N_SETTINGS = RNG + 1
SETTINGS = N_SETTINGS + 1


def new_io(settings: np.ndarray, multiturn: np.ndarray, segments: int) -> np.ndarray:
    """The `io` array for a solver with these settings on a robot with these multiturn
    flags and `segments` kinematic segments."""
    # the kernel's Python body (integer arithmetic, the same value): loading the compiled
    # one would cost a process that solves one pose a few ms
    size = workspace_size.py_func(segments, len(multiturn))
    memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    if 8 * size > memory:  # refused up front: numpy would fail, or the kernel be killed touching it
        raise ValueError(f"robot too large to solve: {len(multiturn):,} variables need a {8 * size / 2**30:,.0f} GiB "
                         f"workspace, more than this machine's {memory / 2**30:,.0f} GiB of memory; solve a smaller group")
    work = np.zeros(size)
    return np.concatenate([np.zeros(N_SETTINGS), [len(settings)], settings, multiturn, work])


@njit(inline="always", **JIT)
def query_start(prob, row, q, io):
    """prob: the problem buffers' views (`unpack`, taken once per query: it costs more
    than a pose solve's FK). Store the goal's row, weight and tolerances into the problem buffers; unless
    io[RANDOM_START], check the seed q (−1: not finite), clip it into the limits (1 if it
    was outside, else 0) and make it the reference of the turn wrapping."""
    gf, gw, gt, vdata, bounds = prob.gf, prob.gw, prob.gt, prob.vdata, prob.bounds
    for i in range(row.shape[0]):  # element loop: a slice assignment needs reference counting
        gf[0, i] = row[i]
    gw[0], gt[0, 0], gt[0, 1] = io[WEIGHT], io[POSITION_TOL], io[ROTATION_TOL]
    if io[RANDOM_START] > 0.0:
        return 0
    clipped = 0
    for i in range(q.shape[0]):
        if not np.isfinite(q[i]):
            return -1
        if q[i] < bounds[0, i] or q[i] > bounds[1, i]:
            q[i] = min(max(q[i], bounds[0, i]), bounds[1, i])
            clipped = 1
    for i in range(q.shape[0]):  # element loop: a whole-column copy needs reference counting
        vdata[i, REFERENCE] = q[i]
    return clipped


@njit(inline="always", **JIT)
def search_query(ibuf, fbuf, row, q, io, search, extra):
    """A general compiled search `search(ibuf, fbuf, q, settings, run, stats, *extra)` as a
    whole query: the run arguments are io's first five slots and the settings io's. Each
    solver's query kernel calls this with its own search (a compile-time constant)."""
    prob = unpack(ibuf, fbuf)
    clipped = query_start(prob, row, q, io)
    if clipped < 0:
        return -1
    stats = np.zeros(layout.STATS_SLOTS, dtype=np.int64)
    found = search(ibuf, fbuf, q, io[SETTINGS : multiturn_start(io)], io[:RUN_SLOTS], stats, *extra)
    io[ITERATIONS], io[RESTARTS] = stats[layout.ITERATIONS], stats[layout.RESTARTS]
    return query_finish(prob, q, io, clipped, found, io_workspace(io, prob.seg_i, q.shape[0]), False)


@njit(inline="always", **JIT)
def query_finish(prob, q, io, clipped, found, work, frame_at_q):
    """Wrap q to the turn nearest the reference, then the exact acceptance test at q (FK,
    then `pose_met`, the test `evaluate` applies) into io[REPORT:]; the clip flag into io.
    work: a `workspace`; frame_at_q: its `frame` holds the exact FK of q already (as `met`
    left it), so unless the wrapping moved q the FK is not computed again. Returns 1 if
    the search's own test passed (found), else 0."""
    seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
    gi, gf, gw, gt, vdata, bounds = prob.gi, prob.gf, prob.gw, prob.gt, prob.vdata, prob.bounds
    n = q.shape[0]
    t = multiturn_start(io)
    moved = wrap_near(q, vdata[:, REFERENCE], bounds[0], bounds[1], io[t : t + n])
    kind, has_p, has_r, wp, wr, r0, R = goal_rows(gi, gf, gw)
    g = gf[0]
    seg, e, _, _, _, _, frame, err, _, _, _, _, _ = work
    if frame_at_q and not moved:
        px, py, pz, qw, qx, qy, qz = frame[0], frame[1], frame[2], frame[3], frame[4], frame[5], frame[6]
    else:
        px, py, pz, qw, qx, qy, qz = tip_frame(seg_i, seg_f, q, seg, out_seg[0], out_tf[0])
    cost = 2.0 * reduced_pose_residual(g, has_p, has_r, wp, wr, r0, px, py, pz, qw, qx, qy, qz, e)
    dp, dr, ok = met(kind, g, px, py, pz, qw, qx, qy, qz, frame, err, gt[0, 0], gt[0, 1], int(io[MODE]))
    report = io[REPORT:]
    report[0], report[1], report[2] = 1.0 if ok else 0.0, cost, 0.0
    report[3], report[4], report[5] = dp, dr, cost
    io[CLIPPED] = clipped
    return 1 if found else 0


@njit(**JIT)
def workspace_size(segments, n):
    """Length of the buffer a `workspace` for this many segments and n variables needs."""
    m = max(6, n)
    return 7 * max(segments, 1) + 6 + 6 * n + 2 * (m * m + m) + n + 7 + 6 + 3 * n


@njit(inline="always", **JIT)
def workspace(buf, seg_i, n):
    """Scratch for the pose helpers, carved from buf (at least `workspace_size` long):
    (FK segments, reduced residual, its Jacobian, normal equations, right-hand side, step,
    frame, errors, trial point, best point, and `held_step`'s limit sides, normal equations
    and right-hand side) for a chain of seg_i.shape[0] segments and n variables."""
    S = max(seg_i.shape[0], 1)
    m = max(6, n)
    k = 0
    seg = buf[k : k + 7 * S].reshape((S, 7))
    k += 7 * S
    e = buf[k : k + 6]
    k += 6
    Je = buf[k : k + 6 * n].reshape((6, n))
    k += 6 * n
    M = buf[k : k + m * m].reshape((m, m))
    k += m * m
    b = buf[k : k + m]
    k += m
    dq = buf[k : k + n]
    k += n
    frame = buf[k : k + 7]
    k += 7
    err = buf[k : k + 6]
    k += 6
    xt, x, side = buf[k : k + n], buf[k + n : k + 2 * n], buf[k + 2 * n : k + 3 * n]
    k += 3 * n
    N = buf[k : k + m * m].reshape((m, m))
    k += m * m
    return seg, e, Je, M, b, dq, frame, err, xt, x, side, N, buf[k : k + m]


@njit(inline="always", **JIT)
def multiturn_start(io):
    """Index of the robot's multiturn flags in `io` (after the settings); the workspace
    scratch follows them."""
    return SETTINGS + int(io[N_SETTINGS])


@njit(inline="always", **JIT)
def io_workspace(io, seg_i, n):
    """The `workspace` in the scratch at the end of `io` (see `new_io`)."""
    return workspace(io[multiturn_start(io) + n :], seg_i, n)


@njit(inline="always", **JIT)
def tip_frame(seg_i, seg_f, q, seg, tip, tf):
    """Exact FK of the chain; the goal link's frame as (px, py, pz, qw, qx, qy, qz)."""
    for s in range(seg_i.shape[0]):
        segment_frame(seg_i, seg_f, q, s, seg)
    if tip < 0:
        return tf[0], tf[1], tf[2], tf[3], tf[4], tf[5], tf[6]
    Pw, Px, Py, Pz = seg[tip, 3], seg[tip, 4], seg[tip, 5], seg[tip, 6]
    rx, ry, rz = qrot(Pw, Px, Py, Pz, tf[0], tf[1], tf[2])
    qw, qx, qy, qz = qmul(Pw, Px, Py, Pz, tf[3], tf[4], tf[5], tf[6])
    return seg[tip, 0] + rx, seg[tip, 1] + ry, seg[tip, 2] + rz, qw, qx, qy, qz


@njit(inline="always", **JIT)
def met(kind, g, px, py, pz, qw, qx, qy, qz, frame, err, tp, tr, mode):
    """(position error, rotation angle, met) of the goal at this frame."""
    frame[0], frame[1], frame[2] = px, py, pz
    frame[3], frame[4], frame[5], frame[6] = qw, qx, qy, qz
    pose_errors(kind, g, frame, err)
    return pose_met(err, tp, tr, mode)


@njit(inline="always", **JIT)
def jacobian(seg_i, seg_f, seg, tip, px, py, pz, has_p, has_r, wp, wr, r0, Je):
    """Je ← Jacobian of the reduced residual (FK of the chain in seg, goal link at p):
    position rows wp·(a × (p − o)), rotation rows from r0 ½·wr·a per unit joint rate."""
    Je[:, :] = 0.0
    add_weighted_point_jacobian(seg_i, seg_f, seg, tip, px, py, pz, Je, 0, r0, wp, 0.5 * wr, has_p, has_r)


@njit(inline="always", **JIT)
def goal_rows(gi, gf, gw):
    """(kind, has_p, has_r, wp, wr, r0, R) of goal 0: which residual rows it has, their
    weights, the first rotation row and the number of reduced rows."""
    kind = gi[0, KIND]
    w = gw[0]
    has_p, has_r = kind != ORIENTATION, kind != POSITION
    wr = w * (gf[0, 7] if kind == POSE else 1.0)
    r0 = 3 if has_p else 0
    return kind, has_p, has_r, w, wr, r0, r0 + (3 if has_r else 0)


