"""`neural` and `neural2`: BioIK 2's two neural-network approaches [R 3.6], compiled.

[R] Philipp Sebastian Ruppel. Performance optimization and implementation of evolutionary
inverse kinematics in ROS. Master's thesis, Universität Hamburg, 2017; section 3.6.

Both need a network trained for the robot (`bioik train ROBOT --mode neural2`, see
`bioik.solvers.neural.train`); it rides in the settings vector after the parameters
(`Network.flat`) and runs as compiled code (`mlp_forward`). Both take one primary
`PoseGoal` on the link the network was trained for.

- `neural2` — relative offsets, [R 3.6]'s second approach: the network takes the joint
  values and the goal difference Δx (position over `Network.length` and rotation vector,
  base frame; `features`) and gives joint offsets Δq. It is built linear in Δx: its
  perceptron maps the joint features to a 6 × dof matrix A(q) and Δq = A(q)·Δx (trained
  towards the damped J(q)⁺, `bioik.solvers.neural.train`, which says why). The search runs
  it in a feedback loop with FK: FK → Δx → Δq → q ← q + Δq (clipped to the limits,
  full-turn joints wrapped) → acceptance test, until the goal is met. [R 3.6] scales small
  goal offsets up for the network and its output down "to reduce the effect of constant
  errors"; for a network linear in Δx that scaling is exact and built in: each step
  removes the same share of the remaining error, down to any accuracy. A large difference
  is cut to the norm `max_step` first (our addition: a step of bounded size towards the
  goal rather than an extrapolation of the linear map). A step that does not shrink the
  cost is halved and retried from the previous q, a step that does lets the factor grow
  again by `step_growth` (at most 1), as `kdl`'s backtracking loop does
  (`bioik.solvers.local.twist`; our addition: an imperfect network's offset can overshoot);
  a factor below `min_step` or `attempt_iterations` steps restart from a random
  configuration until the deadline; the best configuration found is returned. No other
  solver refines the result: it is the network's own search.
- `neural` — [R 3.6]'s first approach: the network maps the goal pose to joint values.
  [R] found this inaccurate and wrong at discontinuities, so its guess only seeds the
  memetic step: here the LM iterations that are `bio2_lm`'s memetic step (`lm_search`,
  with `lm`'s parameters and its random restarts after the first attempt) — the cheapest
  faithful refinement available. A given seed is kept instead if it is already closer to
  the goal than the guess.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.goals.pose import reduced_pose_residual
from bioik.kinematics.frames import JIT
from bioik.problem.layout import BUDGET, DEADLINE, ITERATIONS, MODE, RANDOM_START, RESTARTS, unpack
from bioik.solvers.core.batch import batch_queries
from bioik.solvers.core.clock import now
from bioik.solvers.core.family import POSE_KINDS, Family, compiled
from bioik.solvers.core.pose_query import goal_rows, met, search_query, tip_frame
from bioik.solvers.core.rng import random_configuration
from bioik.solvers.core.settings import slots
from bioik.solvers.core.workspace import search_start
from bioik.solvers.local.gd import full_turns, into_limits
from bioik.solvers.local.lm import DEFAULTS as LM_DEFAULTS
from bioik.solvers.local.lm import lm_search
from bioik.solvers.neural.features import DIFFERENCE, PER_JOINT, goal_difference, joint_features, pose_features
from bioik.solvers.neural.network import length, mlp_forward, mlp_width

#: neural2's parameters (`max_step`: the largest scaled goal difference a step is for; the
#: defaults of `max_step` and `min_step` are measured ones, see docs/solvers.md).
DEFAULTS2 = {"attempt_iterations": 100, "min_step": 0.01, "step_growth": 2.0, "tolerance_scale": 0.5, "max_step": 1.0}
SETTING2 = slots(DEFAULTS2)
#: Where the network starts in each family's settings.
NET1, NET2 = len(LM_DEFAULTS), len(DEFAULTS2)


@njit(inline="always", **JIT)
def offset_step(net, q, g, px, py, pz, qw, qx, qy, qz, slo, shi, max_step, x, a, d, dq, h):
    """dq ← the network's joint offset A(q)·Δx towards goal row g from q (tip at the
    frame), Δx cut to the norm max_step (see the module); x, a, d, h: scratch."""
    n = q.shape[0]
    joint_features(q, slo, shi, x)
    goal_difference(g, px, py, pz, qw, qx, qy, qz, d, 0)
    inv_length = 1.0 / length(net)
    m = 0.0
    for k in range(DIFFERENCE):
        if k < 3:
            d[k] *= inv_length
        m += d[k] * d[k]
    m = np.sqrt(m)
    cut = max_step / m if m > max_step else 1.0
    mlp_forward(net, x, a, h)
    for i in range(n):
        s = 0.0
        for k in range(DIFFERENCE):
            s += a[i * DIFFERENCE + k] * d[k]
        dq[i] = cut * s


@njit(**JIT)
def neural2_search(ibuf, fbuf, q, settings, run, stats):
    """Feedback loop of the offset network with FK from q (overwritten with the best
    configuration found); True on success. settings: `DEFAULTS2`, then the flat network.
    run/stats: as `lm_search`."""
    prob = unpack(ibuf, fbuf)
    seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
    gi, gf, gw, gt, bounds = prob.gi, prob.gf, prob.gw, prob.gt, prob.bounds
    lo, hi, slo, shi = bounds[0], bounds[1], bounds[2], bounds[3]
    deadline, max_iterations, mode = run[DEADLINE], run[BUDGET], int(run[MODE])
    n = q.shape[0]
    rng = search_start(run, slo, shi, q)
    net = settings[NET2:]
    min_step, growth = settings[SETTING2.min_step], settings[SETTING2.step_growth]
    attempt_max, max_step = int(settings[SETTING2.attempt_iterations]), settings[SETTING2.max_step]
    tp, tr = gt[0, 0] * settings[SETTING2.tolerance_scale], gt[0, 1] * settings[SETTING2.tolerance_scale]
    kind, has_p, has_r, wp, wr, r0, _ = goal_rows(gi, gf, gw)
    g = gf[0]
    seg = np.empty((max(seg_i.shape[0], 1), 7))
    frame, err, e = np.empty(7), np.empty(6), np.empty(6)
    x, a, d, dq = np.empty(PER_JOINT * n), np.empty(DIFFERENCE * n), np.empty(DIFFERENCE), np.empty(n)
    h = np.empty(2 * mlp_width(net))
    free = full_turns(seg_i, lo, hi)
    best, q_prev = q.copy(), q.copy()
    best_E = E_prev = np.inf
    alpha = 1.0
    attempt = it = restarts = 0
    success = False
    while True:
        px, py, pz, qw, qx, qy, qz = tip_frame(seg_i, seg_f, q, seg, out_seg[0], out_tf[0])
        E = reduced_pose_residual(g, has_p, has_r, wp, wr, r0, px, py, pz, qw, qx, qy, qz, e)
        if E < best_E:
            best_E = E
            best[:] = q
        if met(kind, g, px, py, pz, qw, qx, qy, qz, frame, err, tp, tr, mode)[2]:
            best[:] = q
            success = True
            break
        if it >= max_iterations:  # the budget counts steps
            break
        it += 1
        if (it & 7) == 0 and now() > deadline:
            break
        if E >= E_prev and alpha > min_step:  # the step did not shrink the cost: half of it from the previous q
            alpha *= 0.5
            for v in range(n):
                q[v] = into_limits(q_prev[v] + alpha * dq[v], q_prev[v], free[v], lo[v], hi[v])
            continue
        if alpha <= min_step or attempt >= attempt_max:
            if now() > deadline:
                break
            random_configuration(rng, slo, shi, q)
            restarts += 1
            E_prev, alpha, attempt = np.inf, 1.0, 0
            continue
        offset_step(net, q, g, px, py, pz, qw, qx, qy, qz, slo, shi, max_step, x, a, d, dq, h)
        q_prev[:] = q
        E_prev = E
        alpha = min(1.0, growth * alpha)
        for v in range(n):
            q[v] = into_limits(q[v] + alpha * dq[v], q[v], free[v], lo[v], hi[v])
        attempt += 1
    q[:] = best
    stats[ITERATIONS] = it
    stats[RESTARTS] = restarts
    return success


@njit(**JIT)
def pose_guess(net, g, lo, hi, slo, shi, q, h):
    """q ← the pose network's joint values for goal row g, within the limits."""
    x = np.empty(9)
    pose_features(g, x)
    mlp_forward(net, x, q, h)
    for i in range(q.shape[0]):  # outputs are joint values scaled to [−1, 1] (`joint_features`)
        v = 0.5 * (slo[i] + shi[i] + q[i] * (shi[i] - slo[i]))
        q[i] = min(max(v, lo[i]), hi[i])


@njit(**JIT)
def neural_search(ibuf, fbuf, q, settings, run, stats):
    """The pose network's guess refined by LM (`lm_search`) from q (overwritten); True on
    success. settings: `lm`'s parameters, then the flat network. run/stats: as `lm_search`."""
    prob = unpack(ibuf, fbuf)
    seg_i, seg_f, out_seg, out_tf, gi, gf, gw, bounds = (prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf,
                                                         prob.gi, prob.gf, prob.gw, prob.bounds)
    net = settings[NET1:]
    guess = np.empty(q.shape[0])
    pose_guess(net, gf[0], bounds[0], bounds[1], bounds[2], bounds[3], guess, np.empty(2 * mlp_width(net)))
    _, has_p, has_r, wp, wr, r0, _ = goal_rows(gi, gf, gw)
    seg, e = np.empty((max(seg_i.shape[0], 1), 7)), np.empty(6)
    random_start = run[RANDOM_START]
    use_guess = random_start > 0.0
    if not use_guess:  # keep a seed that is closer to the goal than the guess
        px, py, pz, qw, qx, qy, qz = tip_frame(seg_i, seg_f, q, seg, out_seg[0], out_tf[0])
        E_seed = reduced_pose_residual(gf[0], has_p, has_r, wp, wr, r0, px, py, pz, qw, qx, qy, qz, e)
        px, py, pz, qw, qx, qy, qz = tip_frame(seg_i, seg_f, guess, seg, out_seg[0], out_tf[0])
        use_guess = reduced_pose_residual(gf[0], has_p, has_r, wp, wr, r0, px, py, pz, qw, qx, qy, qz, e) < E_seed
    if use_guess:
        q[:] = guess
    run[RANDOM_START] = 0.0  # LM starts from q; its later restarts are random
    found = lm_search(ibuf, fbuf, q, settings[:NET1], run, stats)
    run[RANDOM_START] = random_start
    return found


@njit(**JIT)
def neural_pose_query(ibuf, fbuf, row, q, io):
    """`neural_search` as a whole query (`bioik.solvers.core.pose_query`)."""
    return search_query(ibuf, fbuf, row, q, io, neural_search, ())


@njit(**JIT)
def neural_pose_batch(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base):
    """`neural_pose_query` over a chunk of a batch (`bioik.solvers.core.batch`)."""
    return batch_queries(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base, neural_pose_query, ())


@njit(**JIT)
def neural2_pose_query(ibuf, fbuf, row, q, io):
    """`neural2_search` as a whole query (`bioik.solvers.core.pose_query`)."""
    return search_query(ibuf, fbuf, row, q, io, neural2_search, ())


@njit(**JIT)
def neural2_pose_batch(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base):
    """`neural2_pose_query` over a chunk of a batch (`bioik.solvers.core.batch`)."""
    return batch_queries(ibuf, fbuf, rows, tols, Q, io, out, first, last, timeout, base, neural2_pose_query, ())


FAMILIES = (
    Family("neural", dict(LM_DEFAULTS), compiled(neural_search), kinds=POSE_KINDS, secondary_goals=False,
           single_pose=neural_pose_query, single_pose_batch=neural_pose_batch, network="neural",
           description="a network's goal pose → joint values guess, refined by LM as bio2_lm's memetic step [R 3.6]"),
    Family("neural2", DEFAULTS2, compiled(neural2_search), kinds=POSE_KINDS, secondary_goals=False,
           single_pose=neural2_pose_query, single_pose_batch=neural2_pose_batch, network="neural2",
           description="a network of joint offsets in a feedback loop with FK [R 3.6]"),
)
