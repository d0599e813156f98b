"""The general search among obstacles in one compiled call: the family's search with the
collision costs in doubling slices, each slice's best answer near contact polished on the
other goals alone, every answer proved clear by the cover, turn wrapping and the
acceptance test — `bioik.solvers.search.GeneralPath._search` with a `Polish`, step for
step, so that a seeded run with an iteration budget gives the same answer bit for bit.

The call returns to its caller only for what compiled code cannot decide: an answer the
cover leaves to the exact check (coal) or one the user's callback must judge. It then
stops with ASK_POLISH (the polished answer in qp), ASK_ANSWER or ASK_LAST (the answer in
q; the last is the answer the search gave up on but that passes the acceptance test) and
the proof's SCENE | SELF bits in `state[BITS]`; the caller writes the verdict into
`state[VERDICT]` and calls again, which goes on where it stopped. NEED_POLISH: the first
polish needs the polish problem updated (most searches never polish, so the caller
updates it only then, and calls again). DONE: q holds the answer, `report` its
acceptance test on every goal, `state` the counters.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.collision.cover_proof import unproven_at
from bioik.kinematics.frames import JIT
from bioik.kinematics.limits import wrap_near
from bioik.problem.acceptance import evaluate
from bioik.problem.layout import BUDGET, DEADLINE, ITERATIONS, MODE, RANDOM_START, RESTARTS, SEED
from bioik.solvers.core.batch import SEED_MODULUS
from bioik.solvers.core.clock import now
from bioik.solvers.core.free_tries import SEED_STEP  # search k's seed: base + SEED_STEP·k, as `_search` draws them

#: The `state` array. In: the solve's start and deadline (monotonic s), iteration budget,
#: random seed, whether the budget is time (1) or iterations (0), the acceptance mode, whether a
#: user callback judges answers, the exact-checked collision goal's index and ε; in and out:
#: the first search's random start, the searches run, iterations, restarts, callback calls,
#: the next slice's end, whether the answer is found (OK), polished, a rejected answer is
#: kept, where the call stopped (PHASE), the caller's verdict, whether the polish problem
#: is updated (READY) and the seed of the search whose best answer is polished; out: the
#: proof's bits of the answer asked about, and the acceptance test's verdict.
(T0, END, CAP, BASE, TIMED, MODE_, USER, CHECKED, EPSILON, RANDOM, CALL, ITS, N_RESTARTS, CALLS, MARK, OK, POLISHED,
 REJECTED, PHASE, VERDICT, BITS, ACCEPTED, READY, POLISH_SEED) = range(24)
STATE = 24
#: Where a call stopped (`PHASE`, and its return value).
DONE, ASK_POLISH, ASK_ANSWER, ASK_LAST, NEED_POLISH = range(5)
#: What a polish did (`_polish`; or ASK_POLISH).
MISSED, POLISHED_ = -1, -2
#: The first slice (s, or iterations of a budget), each next twice as long; the polish's
#: iteration budget; the covers' penetration (m) below which a slice's best answer is
#: polished. `bioik.solvers.search` documents them.
FIRST_SLICE = 0.001
FIRST_SLICE_ITERATIONS = 64
POLISH_ITERATIONS = 30
NEAR = 0.005


@njit(inline="always", **JIT)
def _proof_bits(proof, q):
    """The cover's SCENE | SELF bits of what it leaves unproven at q (0: proved clear)."""
    return unproven_at(proof[0], proof[1], proof[2], proof[3], q, proof[4], proof[5], proof[6], proof[7], proof[8], proof[9],
                       proof[10], proof[11], proof[12], proof[13], proof[14], proof[15])


@njit(inline="always", **JIT)
def _asks(state, proof, q, phase):
    """Does the answer q need the caller (the cover cannot prove it, or a user callback
    judges)? If so, state records where to go on and the proof's bits."""
    bits = _proof_bits(proof, q)
    if bits == 0 and state[USER] == 0.0:
        return False
    state[BITS], state[PHASE] = bits, phase
    return True


@njit(inline="always", **JIT)
def _run(run, end, cap, seed, mode, random_start):
    run[DEADLINE], run[BUDGET], run[SEED], run[MODE], run[RANDOM_START] = end, cap, seed, mode, random_start


@njit(inline="always", **JIT)
def _polish(polish_ibuf, polish_fbuf, q, qp, settings, run, stats, state, proof, lower, upper, multiturn, search):
    """Search from q (a slice's best answer) on the polish problem, at most
    POLISH_ITERATIONS of the budget left, and offer a success to the exact check (and the
    user's callback): POLISHED_ (q ← the polished answer), ASK_POLISH (the caller decides
    about qp) or MISSED."""
    qp[:] = q
    _run(run, state[END], min(float(POLISH_ITERATIONS), state[CAP] - state[ITS]), (int(state[POLISH_SEED]) + 1) % SEED_MODULUS,
         int(state[MODE_]), 0.0)
    found = search(polish_ibuf, polish_fbuf, qp, settings, run, stats)
    state[ITS] += stats[ITERATIONS]
    if not found:
        return MISSED
    wrap_near(qp, q, lower, upper, multiturn)
    state[CALLS] += 1.0
    if _asks(state, proof, qp, ASK_POLISH):
        return ASK_POLISH
    q[:] = qp
    state[POLISHED] = state[OK] = 1.0
    return POLISHED_


@njit(inline="always", **JIT)
def scene_search(ibuf, fbuf, q, settings, run, stats, state, polish_ibuf, polish_fbuf, qp, rejected, reference, lower,
                 upper, multiturn, proof, report, polish_report, search):
    """Go on with the search among obstacles where `state[PHASE]` says (DONE: from the
    start), `search(ibuf, fbuf, q, settings, run, stats)` being the family's compiled search;
    (ibuf, fbuf): every goal of the solve, updated; (polish_ibuf, polish_fbuf): all but
    the exact-checked collision goal, updated (with the solve's reference) once a call
    has returned NEED_POLISH, or before the first call with state[READY] set. q: the
    start (unless state[RANDOM]) in, the answer out; qp, rejected: scratch of q's length
    kept between calls; reference: where turns are wrapped to; proof:
    `CoverProof.arguments()`. Returns where it stopped (see the module)."""
    mode, deadline, budget, t0 = int(state[MODE_]), state[END], state[CAP], state[T0]
    timed = state[TIMED] != 0.0
    phase = int(state[PHASE])
    state[PHASE] = DONE
    finish = False
    if phase == ASK_POLISH:
        if state[VERDICT] != 0.0:
            q[:] = qp
            state[POLISHED] = state[OK] = 1.0
            finish = True
        else:
            state[RANDOM] = 0.0
    elif phase == ASK_ANSWER:
        if state[VERDICT] != 0.0:
            finish = True
        else:  # rejected: keep searching from a random configuration [E 8.1]
            state[OK] = 0.0
            rejected[:] = q
            state[REJECTED] = 1.0
            state[N_RESTARTS] += 1.0
            state[RANDOM] = 1.0
            finish = now() >= deadline or state[ITS] >= budget
    elif phase == ASK_LAST:
        state[OK] = state[VERDICT]
        return DONE
    elif phase == NEED_POLISH:
        state[READY] = 1.0
        polished = _polish(polish_ibuf, polish_fbuf, q, qp, settings, run, stats, state, proof, lower, upper, multiturn,
                           search)
        if polished == ASK_POLISH:
            return ASK_POLISH
        finish = polished == POLISHED_
        state[RANDOM] = 0.0
    while not finish:
        its = state[ITS]
        seed = (int(state[BASE]) + SEED_STEP * int(state[CALL])) % SEED_MODULUS
        end, cap = deadline, budget - its
        spent = now() - t0 if timed else its
        if not spent < np.inf:  # the clock says stop (Ctrl-C in the main thread)
            break
        mark = state[MARK]  # a slice: to the next doubling of the time or iterations spent
        while mark <= spent:
            mark *= 2.0
        if timed:
            end = min(deadline, t0 + mark)
        else:
            cap = min(cap, mark - its)
        state[MARK] = 2.0 * mark
        sliced = end < deadline or cap < budget - its
        _run(run, end, cap, seed, mode, state[RANDOM])
        found = search(ibuf, fbuf, q, settings, run, stats)
        state[CALL] += 1.0
        its += stats[ITERATIONS]
        state[ITS] = its
        state[N_RESTARTS] += stats[RESTARTS]
        if found:
            state[OK] = 1.0
            wrap_near(q, reference, lower, upper, multiturn)  # the callback sees what is returned
            state[CALLS] += 1.0
            if _asks(state, proof, q, ASK_ANSWER):
                return ASK_ANSWER
            break
        if not sliced or now() >= deadline or its >= budget:
            break
        evaluate(ibuf, fbuf, q, mode, report)  # near: the covers reach at most NEAR into anything
        if report[3 + 2 * int(state[CHECKED])] * state[EPSILON] <= NEAR:
            state[POLISH_SEED] = seed
            if state[READY] == 0.0:
                state[PHASE] = NEED_POLISH
                return NEED_POLISH
            polished = _polish(polish_ibuf, polish_fbuf, q, qp, settings, run, stats, state, proof, lower, upper, multiturn,
                               search)
            if polished == ASK_POLISH:
                return ASK_POLISH
            if polished == POLISHED_:
                break
        state[RANDOM] = 0.0  # the search goes on from the slice's best configuration
    wrap_near(q, reference, lower, upper, multiturn)  # as BioIK: the turn nearest the seed
    accepted = evaluate(ibuf, fbuf, q, mode, report)
    by_polish = state[POLISHED] != 0.0
    if by_polish:  # the other goals met and the exact check found it free; the covers may still touch
        accepted = evaluate(polish_ibuf, polish_fbuf, q, mode, polish_report)
    state[ACCEPTED] = 1.0 if accepted else 0.0
    if accepted and not by_polish and state[OK] == 0.0:
        # the search gave up on an answer that passes the acceptance test: the callback
        # has the last word on it, unless it already rejected this very answer
        same = state[REJECTED] != 0.0
        for i in range(q.shape[0]):
            same = same and q[i] == rejected[i]
        if not same:
            state[CALLS] += 1.0
            if _asks(state, proof, q, ASK_LAST):
                return ASK_LAST
            state[OK] = 1.0
    return DONE
