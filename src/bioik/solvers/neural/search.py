"""`neural` and `neural2`: BioIK 2's two neural-network approaches [R 3.6], compiled.

Both need a network trained for the robot (`bioik train ROBOT --mode neural2`, see
`bioik.solvers.neural.train`); it rides in the settings vector after the parameters
(`Network.flat`) and runs as compiled code (`mlp_forward`). Both take one primary
`PoseGoal` on the link the network was trained for.

- `neural2` — relative offsets, [R 3.6]'s second approach. Inputs: the joint values and
  the goal difference (position and rotation vector, base frame; `features`); outputs:
  joint offsets Δq. The search runs the network in a feedback loop with FK: FK → goal
  difference → Δq → q ← q + Δq (clipped to the limits, full-turn joints wrapped) →
  acceptance test. The difference is always handed to the network at the size it was
  trained around (`near_norm`, in standardised units): a smaller one is scaled up by s
  and the offset scaled down by s, as [R 3.6] does "if the goal offsets are very small
  ... to reduce the effect of constant errors" (so each step removes a fixed share of the
  remaining error, down to any accuracy); a larger one is scaled down and the offset
  kept (our addition: a step of the trained size towards the goal rather than an
  extrapolation). An attempt restarts from a random configuration when the cost stalls
  (`stall_ratio`, twice in a row) or after `attempt_iterations` steps, as `lm` does.
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
from bioik.solvers.core.family import POSE_KINDS, Family, compiled
from bioik.solvers.core.pose_query import goal_rows, met, search_query, tip_frame
from bioik.solvers.core.rng import random_configuration
from bioik.solvers.core.settings import slots
from bioik.solvers.core.workspace import search_start
from bioik.solvers.local.gd import full_turns, into_limits
from bioik.solvers.local.lm import DEFAULTS as LM_DEFAULTS
from bioik.solvers.local.lm import RESTART, STOP, lm_search, next_move
from bioik.solvers.neural.features import DIFFERENCE, PER_JOINT, goal_difference, joint_features, pose_features
from bioik.solvers.neural.network import mlp_forward, mlp_width, near_norm

#: neural2's parameters (measured on ur5, panda and iiwa14 at 5 ms: the network's steps do
#: not cut the cost as steadily as LM's, so a stall is judged more leniently).
DEFAULTS2 = {"stall_ratio": 0.95, "attempt_iterations": 60, "tolerance_scale": 0.5}
SETTING2 = slots(DEFAULTS2)
#: Where the network starts in each family's settings.
NET1, NET2 = len(LM_DEFAULTS), len(DEFAULTS2)


@njit(inline="always", **JIT)
def offset_step(net, q, g, px, py, pz, qw, qx, qy, qz, slo, shi, x, dq, h):
    """dq ← the network's joint offset towards goal row g from q (tip at the frame),
    with the goal difference scaled to the network's trained size (see the module)."""
    n = q.shape[0]
    d = PER_JOINT * n  # first difference input
    joint_features(q, slo, shi, x)
    goal_difference(g, px, py, pz, qw, qx, qy, qz, x, d)
    L = int(net[1])
    scale = 4 + L + int(net[2])  # x_scale of the first input
    m = 0.0
    for k in range(d, d + DIFFERENCE):
        z = x[k] / net[scale + k]
        m += z * z
    m = np.sqrt(m)
    s = near_norm(net) / m if m > 0.0 else 1.0
    for k in range(d, d + DIFFERENCE):
        x[k] *= s
    mlp_forward(net, x, dq, h)
    if s > 1.0:
        for i in range(n):
            dq[i] /= s


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
    stall_ratio, attempt_max = settings[SETTING2.stall_ratio], int(settings[SETTING2.attempt_iterations])
    tp, tr = gt[0, 0] * settings[SETTING2.tolerance_scale], gt[0, 1] * settings[SETTING2.tolerance_scale]
    kind, has_p, has_r, wp, wr, r0, _ = goal_rows(gi, gf, gw)
    g = gf[0]
    seg = np.empty((max(seg_i.shape[0], 1), 7))
    frame, err, e = np.empty(7), np.empty(6), np.empty(6)
    x, dq, h = np.empty(PER_JOINT * n + DIFFERENCE), np.empty(n), np.empty(2 * mlp_width(net))
    free = full_turns(seg_i, lo, hi)
    best = q.copy()
    best_E = E_prev = np.inf
    stalls = attempt = it = restarts = 0
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
        it += 1
        attempt += 1
        move, stalls = next_move(it, E, E_prev, stalls, attempt, max_iterations, stall_ratio, attempt_max, deadline)
        if move == STOP:
            break
        if move == RESTART:
            random_configuration(rng, slo, shi, q)
            restarts += 1
            E_prev, stalls, attempt = np.inf, 0, 0
            continue
        E_prev = E
        offset_step(net, q, g, px, py, pz, qw, qx, qy, qz, slo, shi, x, dq, h)
        for v in range(n):
            q[v] = into_limits(q[v] + dq[v], q[v], free[v], lo[v], hi[v])
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
