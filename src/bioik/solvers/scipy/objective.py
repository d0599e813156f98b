"""What the Python-level (scipy) searches share: scratch buffers, the weighted cost with its
exact gradient, the stacked residual and its Jacobian, per-goal residual blocks, and the
restart loop around one scipy run.

Every quantity comes from the compiled goal kernels (`fk_jacobians`, `stack_residuals`,
`goal_residual`); the Python goals of `LinkFunctionGoal`/`JointFunctionGoal` enter the cost
with central-difference gradients. Used by `relaxed` and `optlib`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
from numba import njit
from threadpoolctl import ThreadpoolController

from bioik.goals.base import ORIENTATION, POSE, POSITION, PYTHON
from bioik.goals.kernels import KIND, MAX_LINK_ROWS, OUT1, SIZE, goal_residual
from bioik.problem.layout import unpack
from bioik.problem import Problem
from bioik.kinematics.frames import JIT
from bioik.kinematics.jacobian import fk_jacobians
from bioik.solvers.core.linalg import stack_residuals

#: Central-difference step for the gradient of user callables.
FD_STEP = 1e-7


def make_buffers(problem: Problem) -> tuple:
    """Scratch arrays for `objective`, `residuals` and `goal_blocks` (reuse across calls)."""
    n = problem.robot.dof
    O, S = max(len(problem.links), 1), max(problem.program.n_segments, 1)
    R = int(problem.gi[:, SIZE].sum()) + 1
    m = max(MAX_LINK_ROWS, n)
    return (np.empty((S, 7)), np.empty((O, 7)), np.empty((6 * O, n)), np.empty(m), np.empty((m, n)),
            np.empty((4 * MAX_LINK_ROWS, 3)), np.empty(R), np.empty((R, n)))


def kinematics(q: np.ndarray, problem: Problem, buffers: tuple):
    """FK and link Jacobians at q into the buffers; returns the unpacked problem views."""
    prob = unpack(problem.ibuf, problem.fbuf)
    seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
    gi, gf, gw, vdata, aux = prob.gi, prob.gf, prob.gw, prob.vdata, prob.aux
    seg, frames, J = buffers[0], buffers[1], buffers[2]
    fk_jacobians(seg_i, seg_f, out_seg, out_tf, q, seg, frames, J)
    return gi, gf, gw, vdata, aux


def residuals(q: np.ndarray, problem: Problem, buffers: tuple, secondary: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(e, Je): the stacked weighted residual of the primary (or secondary) compiled goals at
    q and its Jacobian ∂e/∂q (views into the buffers; ½‖e‖² is that part of the cost)."""
    gi, gf, gw, vdata, aux = kinematics(q, problem, buffers)
    _, frames, J, r, Jr, scratch, e, Je = buffers
    rows, _ = stack_residuals(gi, gf, gw, frames, J, q, vdata, aux, r, Jr, scratch, e, Je, secondary)
    return e[:rows], Je[:rows]


def goal_blocks(q: np.ndarray, problem: Problem, buffers: tuple):
    """Per compiled goal at q: (goal index, kind, r, ∂r/∂q) with the *unweighted* residual
    (copies). Pose goals give their position rows (3) and quaternion rows (4) as in
    `stack_residuals` (quaternion difference q_E − ±q_G, sign-aligned, without the
    rotation scale); the caller splits them."""
    gi, gf, gw, vdata, aux = kinematics(q, problem, buffers)
    _, frames, J, r, Jr, scratch, e, Je = buffers
    out = []
    for g in range(gi.shape[0]):
        kind = int(gi[g, KIND])
        if kind == PYTHON:
            continue
        if kind in (POSITION, ORIENTATION, POSE):
            o = int(gi[g, OUT1])
            Jv, Jw = J[6 * o : 6 * o + 3], J[6 * o + 3 : 6 * o + 6]
            parts_r, parts_J = [], []
            if kind != ORIENTATION:
                parts_r.append(frames[o, :3] - gf[g, :3])
                parts_J.append(Jv.copy())
            if kind != POSITION:
                qe, qg = frames[o, 3:7], gf[g, 3:7]
                sg = 1.0 if qe @ qg >= 0.0 else -1.0
                qw, qx, qy, qz = qe
                ax, ay, az = Jw
                parts_r.append(qe - sg * qg)  # ∂q_E/∂q_v = ½ (0, ω_v) ⊗ q_E
                parts_J.append(0.5 * np.array([-ax * qx - ay * qy - az * qz, ax * qw + ay * qz - az * qy,
                                               ay * qw + az * qx - ax * qz, az * qw + ax * qy - ay * qx]))
            out.append((g, kind, np.concatenate(parts_r), np.vstack(parts_J)))
            continue
        d = goal_residual(gi, gf, g, frames, J, q, vdata, aux, r, Jr, True, scratch)
        out.append((g, kind, r[:d].copy(), Jr[:d].copy()))
    return out


def python_weights(problem: Problem) -> np.ndarray:
    return np.array([problem.weight(k) ** 2 for k in problem.python_goals])


def python_cost_and_gradient(q: np.ndarray, problem: Problem, weights: np.ndarray) -> tuple[float, np.ndarray]:
    """Weighted cost of the Python goals at q and its central-difference gradient."""
    grad = np.zeros(q.shape[0])
    if not problem.python_goals:
        return 0.0, grad
    value = float(weights @ problem.python_costs(q))
    for v in range(q.shape[0]):
        qp, qm = q.copy(), q.copy()
        qp[v] += FD_STEP
        qm[v] -= FD_STEP
        grad[v] = float(weights @ (np.array(problem.python_costs(qp)) - np.array(problem.python_costs(qm)))) / (2 * FD_STEP)
    return value, grad


@njit(**JIT)
def compiled_cost(ibuf, fbuf, q, seg, frames, J, r, Jr, scratch, e, Je, grad):
    """Σ ‖w·r‖² over the compiled goals at q, primary plus secondary, with its exact
    gradient into grad — in one compiled call (a tenth of the cost of the same sum
    assembled from Python, which matters at millisecond timeouts)."""
    prob = unpack(ibuf, fbuf)
    seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
    gi, gf, gw, vdata, aux = prob.gi, prob.gf, prob.gw, prob.vdata, prob.aux
    fk_jacobians(seg_i, seg_f, out_seg, out_tf, q, seg, frames, J)
    n = q.shape[0]
    grad[:] = 0.0
    value = 0.0
    for secondary in (False, True):
        rows, E = stack_residuals(gi, gf, gw, frames, J, q, vdata, aux, r, Jr, scratch, e, Je, secondary)
        value += 2.0 * E
        for i in range(rows):
            for v in range(n):
                grad[v] += 2.0 * Je[i, v] * e[i]
    return value


def objective(q: np.ndarray, problem: Problem, buffers: tuple) -> tuple[float, np.ndarray]:
    """Total weighted cost at q (primary + secondary, ‖r‖²·w² per goal) and its gradient."""
    grad = np.empty(q.shape[0])
    value = compiled_cost(problem.ibuf, problem.fbuf, q, *buffers, grad)
    if problem.python_goals:
        pv, pg = python_cost_and_gradient(q, problem, python_weights(problem))
        value, grad = value + pv, grad + pg
    return value, grad


def scipy_bounds(problem: Problem) -> list[tuple[float | None, float | None]]:
    """Joint limits as scipy bounds (None for an unbounded side)."""
    robot = problem.robot
    return [(float(lo) if np.isfinite(lo) else None, float(hi) if np.isfinite(hi) else None) for lo, hi in zip(robot.lower, robot.upper)]


_blas: list[ThreadpoolController] = []


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """BLAS limited to one thread while a scipy search runs. scipy's minimisers call BLAS on
    vectors of a few entries; OpenBLAS's threads then cost more than the work (measured
    here: L-BFGS-B 2.4 ms per iteration with 2 threads on a busy 2-core machine, 0.12 ms
    with one). The searches are single-threaded by design; the limit is lifted after."""
    if not _blas:
        _blas.append(ThreadpoolController())  # inspects the loaded libraries once
    with _blas[0].limit(limits=1, user_api="blas"):
        yield


class DeadlineReached(Exception):
    """Raised by a `timed` objective past the deadline; args: (best x, its value, evaluations)."""


def timed(fun: Callable, deadline: float) -> Callable:
    """fun wrapped to stop a scipy run at the deadline: after each evaluation past it,
    raise DeadlineReached with the best point evaluated in this run (scipy's minimisers
    cannot be told a wall-clock limit). The same best-so-far rule as at the end of a run."""
    best = [None, np.inf, 0]

    def wrapped(x, *args):
        out = fun(x, *args)
        value = out[0] if isinstance(out, tuple) else out
        best[2] += 1
        if value < best[1]:
            best[0], best[1] = np.array(x, dtype=float), float(value)
        if time.monotonic() >= deadline:
            raise DeadlineReached(best[0] if best[0] is not None else np.array(x, dtype=float), best[1], best[2])
        return out

    def raise_if_late() -> None:
        """The same stop, for a run's other callbacks (a Hessian) once fun has been evaluated."""
        if best[0] is not None and time.monotonic() >= deadline:
            raise DeadlineReached(best[0], best[1], best[2])

    wrapped.raise_if_late = raise_if_late
    return wrapped


def restart_search(problem: Problem, q: np.ndarray, deadline: float, budget: int, seed: int, mode: int, random_start: bool,
                   run: Callable[[np.ndarray, int], tuple[np.ndarray, float, int]]) -> tuple[bool, int, int]:
    """The restart loop every scipy search uses (Family.search protocol's result).

    run(start, maxiter) → (x, value, iterations) is one local minimisation. Each run starts
    from the seed (first, unless random_start) or a uniform random configuration
    (rng = default_rng(seed)); its result, clipped into the limits, is checked with the one
    acceptance test (`Problem.accept`, exact FK). Stops at success, the deadline or the
    iteration budget; otherwise q gets the run result with the lowest objective value.
    A run whose objective is wrapped with `timed` ends at the deadline with its best point
    so far (its evaluations then count as its iterations).
    """
    with single_threaded_blas():
        return _restarts(problem, q, deadline, budget, seed, mode, random_start, run)


def _restarts(problem, q, deadline, budget, seed, mode, random_start, run) -> tuple[bool, int, int]:
    robot = problem.robot
    rng = np.random.default_rng(seed)
    start = robot.random_configuration(rng) if random_start else np.clip(q, robot.lower, robot.upper)
    best, best_value = start.copy(), np.inf
    iterations = restarts = 0
    while True:
        try:
            x, value, its = run(start, max(1, budget - iterations))
        except DeadlineReached as stop:
            x, value, its = stop.args
        iterations += max(int(its), 1)
        x = np.clip(x, robot.lower, robot.upper)
        if value < best_value:
            best, best_value = x, float(value)
        if problem.accept(x, mode)[0]:
            q[:] = x
            return True, iterations, restarts
        if iterations >= budget or time.monotonic() >= deadline:
            break
        start = robot.random_configuration(rng)
        restarts += 1
    q[:] = best
    return False, iterations, restarts
