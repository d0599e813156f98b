"""A collision-aware query's free tries in one compiled call: the pose goal searched alone
(a whole-query kernel, `bioik.solvers.core.pose_query`) from the seed and then from random
starts, each answer the goal accepts proved clear by the cover (`bioik.collision.cover_proof`),
and the first proven answer's acceptance test on every goal of the solve.

The call returns at the first answer the goal accepts: PROVEN (its report written) or
UNPROVEN (the cover left SCENE or SELF to the exact check, `state[BITS]`), or NONE once the
tries, their iteration cap or their time are spent. The caller asks coal and the user's
callback about an answer, and calls again to go on with the next try (`state[K]`): in the
common case — the first proven answer, no callback — the whole query is this one call.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.collision.cover_proof import unproven_at
from bioik.kinematics.frames import JIT
from bioik.problem.acceptance import evaluate
from bioik.solvers.core.batch import SEED_MODULUS
from bioik.solvers.core.clock import now
from bioik.solvers.core.pose_query import (CLIPPED, DEADLINE, ITERATIONS, MODE, RANDOM_START, REPORT, RESTARTS, SEED,
                                           BUDGET)

#: The `state` array: in and out, the next try and the iterations and restarts so far;
#: out, the first try's clip flag and an unproven answer's bits; in, the tries' random
#: seed, end (monotonic s), iteration cap, count, and whether q holds a seed.
K, ITS, N_RESTARTS, CLIP, BITS, BASE, END, CAP, TRIES, SEEDED = range(10)
STATE = 10
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
