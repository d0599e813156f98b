"""The acceptance test of a whole compiled problem: exact FK, then every goal's test and cost."""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.goals.acceptance import goal_errors_costs
from bioik.goals.kernels import MAX_LINK_ROWS
from bioik.kinematics.frames import JIT
from bioik.kinematics.jacobian import fk_jacobians
from bioik.problem.layout import unpack


@njit(**JIT)
def evaluate(ibuf, fbuf, q, mode, report):
    """Exact FK at q, then acceptance, per-goal errors and costs, in one call.

    report (3 + 3G,): all primary goals met (1/0), primary cost, secondary cost,
    errors (G×2, row-major), costs (G). Returns whether all primary goals are met.
    """
    prob = unpack(ibuf, fbuf)
    seg_i, out_seg, gi = prob.seg_i, prob.out_seg, prob.gi
    n = q.shape[0]
    G = gi.shape[0]
    O = max(out_seg.shape[0], 1)
    seg = np.empty((max(seg_i.shape[0], 1), 7))
    frames = np.empty((O, 7))
    J = np.empty((6 * O, n))
    r = np.empty(max(MAX_LINK_ROWS, n))
    Jr = np.empty((max(MAX_LINK_ROWS, n), n))
    scratch = np.empty((4 * MAX_LINK_ROWS, 3))
    fk_jacobians(seg_i, prob.seg_f, out_seg, prob.out_tf, q, seg, frames, J)
    errors = report[3 : 3 + 2 * G].reshape((G, 2))
    costs = report[3 + 2 * G : 3 + 3 * G]
    ok, primary, secondary = goal_errors_costs(gi, prob.gf, prob.gw, prob.gt, frames, J, q, prob.vdata, prob.aux, r, Jr, scratch,
                                               mode, errors, costs)
    report[0] = 1.0 if ok else 0.0
    report[1] = primary
    report[2] = secondary
    return ok

