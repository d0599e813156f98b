"""`kdl`: Newton–Raphson with the Jacobian pseudo-inverse, as KDL's solver [E Alg. 3.1].

Each iteration computes the twist error of every pose-type goal — position difference and
the axis-angle vector of R_goal·R_currentᵀ, both in the base frame — stacks the goal
Jacobians, and steps q ← clip(q + α·J⁺·Δtwist). As in KDL since 2019, the step factor α is
halved (and the step retried) when the error grows, and grows back after a success. A
stuck attempt (α below `min_step`, or `attempt_iterations` steps) restarts from a random
configuration until the deadline (the loop `nullspace` shares: `bioik.solvers.local.twist`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.goals.kernels import POSE_ONLY
from bioik.problem.layout import BUDGET, DEADLINE, ITERATIONS, MODE, RESTARTS, unpack
from bioik.kinematics.frames import JIT, NO
from bioik.solvers.core.batch import batch_queries
from bioik.solvers.core.islands import raise_flag
from bioik.solvers.core.pose_query import search_query
from bioik.solvers.core.workspace import kinematic_buffers, search_start
from bioik.solvers.core.settings import slots
from bioik.solvers.core.family import POSE_KINDS, Family, compiled
from bioik.solvers.local.twist import Limits, Walk, backtracking_search

DEFAULTS = {"attempt_iterations": 100, "min_step": 1e-3, "tolerance_scale": 0.5}
SETTING = slots(DEFAULTS)


@njit(inline="always", **JIT)
def pinv_direction(prob, kin, qc, rows, e, Je, step, extra):
    """KDL's step: J⁺·Δtwist."""
    step[:] = np.linalg.pinv(Je[:rows]) @ e[:rows]


@njit(**JIT)
def kdl_search(ibuf, fbuf, q, settings, run, stats):
    """Search from q (overwritten with the best configuration); True on success.

    settings: attempt_iterations, min_step, tolerance_scale. run/stats: as `lm_search`.
    """
    return kdl_race(ibuf, fbuf, q, settings, run, stats, np.zeros(1, dtype=np.int64), NO)


@njit(**JIT)
def kdl_race(ibuf, fbuf, q, settings, run, stats, stop, announce):
    """`kdl_search` that another thread can end by raising the stop flag `stop` (read with
    the clock, every 8 iterations), and that raises it on success if `announce` (`trac`'s
    race: the first valid answer ends the other search at once, without waiting for the GIL)."""
    prob = unpack(ibuf, fbuf)
    gi, gt, bounds = prob.gi, prob.gt, prob.bounds
    deadline, max_iterations, mode = run[DEADLINE], run[BUDGET], int(run[MODE])
    n = q.shape[0]
    rng = search_start(run, bounds[2], bounds[3], q)
    kin = kinematic_buffers(prob.seg_i, prob.out_seg, gi, n)
    G = gi.shape[0]
    R = 6 * G
    e = np.empty(R)
    Je = np.empty((R, n))
    gt_inner = gt * settings[SETTING.tolerance_scale]
    attempt_max, min_step = int(settings[SETTING.attempt_iterations]), settings[SETTING.min_step]

    walk = Walk(q.copy(), q.copy(), np.zeros(n), q.copy(), e, Je)
    limits = Limits(deadline, max_iterations, attempt_max, min_step, 2.0, stop)
    success, it, restarts, _ = backtracking_search(prob, kin, walk, limits, gt_inner, mode, rng, pinv_direction, (), POSE_ONLY)
    if success and announce:
        raise_flag(stop)
    q[:] = walk.best
    stats[ITERATIONS] = it
    stats[RESTARTS] = restarts
    return success


@njit(**JIT)
def kdl_pose_query(ibuf, fbuf, row, q, io):
    """`kdl_search` as a whole query for one pose-type goal (`bioik.solvers.core.pose_query`)."""
    return search_query(ibuf, fbuf, row, q, io, kdl_search, ())


@njit(**JIT)
def kdl_pose_batch(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base):
    """`kdl_pose_query` over a chunk of a batch (`bioik.solvers.core.batch`)."""
    return batch_queries(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base, kdl_pose_query, ())


FAMILIES = (
    Family("kdl", DEFAULTS, compiled(kdl_search), kinds=POSE_KINDS, secondary_goals=False, single_pose=kdl_pose_query,
           single_pose_batch=kdl_pose_batch,
           description="KDL-style Newton–Raphson, pseudo-inverse, restarts"),
)
