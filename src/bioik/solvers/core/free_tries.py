"""A collision-aware query's free tries in one compiled call: the pose goal searched alone
(a whole-query kernel, `bioik.solvers.core.pose_query`) from the seed and then from random
starts, each answer the goal accepts proved clear by the cover (`bioik.collision.cover_proof`),
and the first proven answer's acceptance test on every goal of the solve.

The call returns at the first answer the goal accepts: PROVEN (its report written) or
UNPROVEN (the cover left SCENE or SELF to the exact check, `state[BITS]`), or NONE once the
tries, their iteration cap or their time are spent. The caller asks coal and the user's
callback about an answer, and calls again to go on with the next try (`state[K]`): in the
common case — the first proven answer, no callback — the whole query is this one call.
`free_tries_rows` runs a batch's queries so, one call a chunk.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.collision.cover_proof import unproven_at
from bioik.kinematics.frames import JIT
from bioik.problem.acceptance import evaluate
from bioik.solvers.core.batch import SEED_MODULUS
from bioik.solvers.core.clock import now
from bioik.problem.layout import unpack
from bioik.solvers.core.pose_query import (BUDGET, CLIPPED, DEADLINE, ITERATIONS, MODE, POSITION_TOL, RANDOM_START, REPORT,
                                           RESTARTS, ROTATION_TOL, SEED, WEIGHT)

#: The `state` array: in and out, the next try and the iterations and restarts so far;
#: out, the first try's clip flag and an unproven answer's bits; in, the tries' random
#: seed, end (monotonic s), iteration cap, count, and whether q holds a seed; out of
#: `free_tries_rows` alone, what the query's tries found, its time (s) and the answers
#: the proof was asked about.
K, ITS, N_RESTARTS, CLIP, BITS, BASE, END, CAP, TRIES, SEEDED, FOUND, TIME, CALLS = range(13)
STATE = 13
#: What a call found.
NOT_FINITE, NONE, PROVEN, UNPROVEN = -1, 0, 1, 2
#: Random seed of try k: base + SEED_STEP·k (as the Python tries draw them).
SEED_STEP = 7919


@njit(inline="always", **JIT)
def free_tries(ibuf, fbuf, row, q, io, state, proof, full_ibuf, full_fbuf, report, kernel, extra):
    """Tries from state[K] on of goal row `row` on the free-space problem (ibuf, fbuf) with
    `kernel(ibuf, fbuf, row, q, io, *extra)`; io holds the mode, the goal's weight flag and
    tolerances. q: the seed (if state[SEEDED]) in, the answer out. proof: `CoverProof.arguments()`.
    A proven answer's acceptance test on the whole problem (full_ibuf, full_fbuf: the pose
    goal and the collision goal, updated) goes to `report` (`evaluate`'s layout)."""
    k = int(state[K])
    its, restarts = state[ITS], state[N_RESTARTS]
    end, cap, tries, base = state[END], state[CAP], int(state[TRIES]), int(state[BASE])
    seeded = state[SEEDED] != 0.0
    qk = q.copy()
    found = NONE
    while k == 0 or (k < tries and its < cap and now() < end):
        first = k == 0 and seeded
        io[DEADLINE], io[BUDGET] = end, cap - its
        io[SEED] = float((base + SEED_STEP * k) % SEED_MODULUS)
        io[RANDOM_START] = 0.0 if first else 1.0
        if kernel(ibuf, fbuf, row, qk, io, *extra) < 0:
            found = NOT_FINITE
            break
        its += io[ITERATIONS]
        restarts += io[RESTARTS] + (0.0 if k == 0 else 1.0)
        if k == 0:
            state[CLIP] = io[CLIPPED]
        k += 1
        if io[REPORT] == 1.0:  # the goal met: does the cover prove the answer clear?
            q[:] = qk
            bits = unproven_at(proof[0], proof[1], proof[2], proof[3], q, proof[4], proof[5], proof[6], proof[7], proof[8],
                               proof[9], proof[10], proof[11], proof[12], proof[13], proof[14], proof[15])
            state[BITS] = bits
            if bits == 0:
                evaluate(full_ibuf, full_fbuf, q, int(io[MODE]), report)
                found = PROVEN
            else:
                found = UNPROVEN
            break
    state[K], state[ITS], state[N_RESTARTS] = k, its, restarts
    return found


@njit(inline="always", **JIT)
def free_tries_rows(ibuf, fbuf, rows, tols, Q, seeded, io, states, proof, full_ibuf, full_fbuf, reports, first, last,
                    timeout, cap, tries, base, kernel, extra):
    """Queries first … last − 1 of a batch, each its free tries as `free_tries` runs them:
    query i's goal row rows[i] (weight flag and tolerances tols[i]), seed Q[i] if `seeded`,
    random seed (base + i) mod 2³¹, at most `tries` tries in `cap` iterations and `timeout`
    s from its start, as a single solve with `random_seed + i` tries them. An answer the
    proof leaves open goes the way a colliding one goes (in a single solve coal decides
    it, and most collide): the next try; a query with no proven answer is the caller's
    to solve whole. The full problem's goal 0 takes rows[i] too. Q[i] ← the answer,
    states[i] ← its state with FOUND (PROVEN or NONE), TIME (s) and CALLS; reports[i] ←
    a proven answer's acceptance report. Returns the index after the last query run:
    less than `last` only if the clock says stop (Ctrl-C in the main thread)."""
    gf = unpack(full_ibuf, full_fbuf).gf
    width = rows.shape[1]
    for i in range(first, last):
        t0 = now()
        if not t0 < np.inf:
            return i
        state = states[i]
        state[:] = 0.0
        state[BASE], state[END], state[CAP] = (base + i) % SEED_MODULUS, t0 + timeout, cap
        state[TRIES], state[SEEDED] = tries, 1.0 if seeded else 0.0
        io[WEIGHT], io[POSITION_TOL], io[ROTATION_TOL] = tols[i, 0], tols[i, 1], tols[i, 2]
        for k in range(width):  # element loop: a slice assignment needs reference counting
            gf[0, k] = rows[i, k]
        found, calls = UNPROVEN, 0
        while found == UNPROVEN:
            found = free_tries(ibuf, fbuf, rows[i], Q[i], io, state, proof, full_ibuf, full_fbuf, reports[i], kernel, extra)
            calls += found > NONE
        state[FOUND], state[TIME], state[CALLS] = found, now() - t0, calls
    return last
