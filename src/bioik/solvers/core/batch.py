"""Many whole queries in one compiled call: the inner loop of `Solver.solve_batch`.

A solver's batch kernel runs its whole-query kernel (`bioik.solvers.core.pose_query`) on
queries first … last−1 of a batch — each with its own goal row, tolerances, seed and
random seed — and reads the clock itself, so one thread solves a chunk of queries with the
GIL released and no Python between them. Each solver module that has a whole-query kernel
declares its batch kernel in three lines with `batch_queries` (numba caches a kernel only
if the search it calls is a global, not an argument).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.kinematics.frames import JIT
from bioik.solvers.core.clock import now
from bioik.solvers.core.pose_query import DEADLINE, ITERATIONS, POSITION_TOL, ROTATION_TOL, SEED, WEIGHT

#: Columns of the per-query input `tols`: the goal's weight flag (1: weight > 0), and its
#: position and rotation tolerances.
TOL_COLUMNS = 3
#: Columns of the per-query output: io's eight result slots (iterations, restarts, clipped,
#: accepted, cost, secondary cost, position error, rotation error), then the search's own
#: verdict (1 found, 0 not, −1 seed not finite) and the query's time in seconds.
ITS, RESTARTS, CLIPPED, ACCEPTED, COST, _SECONDARY, DP, DR, FOUND, TIME = range(10)
OUT_COLUMNS = 10

#: Random seeds are taken modulo this, as `bioik.solve` takes them.
SEED_MODULUS = 2**31


@njit(inline="always", **JIT)
def batch_queries(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base, kernel, extra):
    """Queries first … last−1 with `kernel(ibuf, fbuf, row, q, io, *extra)`: query i solves
    goal row rows[i] from Q[i] (its seed, or room for a random start) with random seed
    (base + i) mod 2³¹ and its own deadline, timeout seconds after it starts; Q[i] ← the
    answer, out[i] ← its results. The budget, mode and random-start flag are io's, set once
    per batch. Returns the index after the last query run: less than `last` only if the
    clock says stop (Ctrl-C in the main thread, `bioik.solvers.core.clock`)."""
    for i in range(first, last):
        io[SEED] = float((base + i) % SEED_MODULUS)
        io[WEIGHT], io[POSITION_TOL], io[ROTATION_TOL] = tols[i, 0], tols[i, 1], tols[i, 2]
        t0 = now()
        if not t0 < np.inf:
            return i
        io[DEADLINE] = t0 + timeout
        found = kernel(ibuf, fbuf, rows[i], Q[i], io, *extra)
        o = out[i]
        o[TIME] = now() - t0
        o[FOUND] = found
        for k in range(8):
            o[k] = io[ITERATIONS + k]
    return last
