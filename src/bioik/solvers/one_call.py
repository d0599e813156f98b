"""The one-call path: a single pose, position or orientation goal solved by one compiled
call (seed check and clipping, search, turn wrapping, exact acceptance), alone or as
chunks of a batch, and rejection sampling [E 8.1] on top of it when a callback rejects."""

from __future__ import annotations

import struct
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any

import numpy as np

from bioik._compile_progress import compile_notice
from bioik._kernel_cache import process_lock
from bioik.collision.guard import ExactChecks
from bioik.goals.base import Goal
from bioik.goals.collision import CollisionAvoidanceGoal
from bioik.goals.joints import REFERENCE
from bioik.goals.pose import PoseGoal
from bioik.kinematics.robot import Robot
from bioik.problem import Problem
from bioik.problem.acceptance import evaluate_rows
from bioik.solvers.batch import BatchResult, GoalBatch, run_chunks
from bioik.solvers.core.batch import (ACCEPTED, CLIPPED, COST, DP, DR, ITS, OUT_COLUMNS, RESTARTS, SEED_MODULUS, TIME,
                                      TOL_COLUMNS)
from bioik.solvers.core.clock import stoppable
from bioik.solvers.core.pose_query import BUDGET, MODE, RANDOM_START
from bioik.solvers.registry import Family
from bioik.solvers.result import Result, verdict
from bioik.solvers.workspace import Workspace

#: The free-space tries among obstacles (`_free_first`, timed solves only): at most
#: FREE_TRIES searches (the seed's, then random starts) in FREE_FIRST_ITERATIONS iterations
#: and FREE_FIRST_TIME seconds in all. A ur5 pose takes a median of 14 iterations; in the
#: table cell 76 % of first answers are clear. The mean query there took 0.144 ms with one
#: try in 64 iterations, 0.090 ms with up to 8 in 128, 0.075–0.082 ms with up to 16 in 256
#: (p90 0.40, 0.13, 0.12 ms); the time bounds what a cell where every free answer collides
#: (a tool inside a tank) loses. A solve with an iteration budget skips the tries: its
#: budget goes where the caller means it (decoupling's many small budgeted searches spent
#: theirs on free answers that collide inside a tank, and HydrogenTankSmall within 5 ms
#: fell from 96 % to 73.5 %), and its seeded answers stay those of earlier versions.
FREE_FIRST_ITERATIONS = 256
FREE_FIRST_TIME = 0.00025
FREE_TRIES = 16
#: `solve_batch`'s free tries come in rounds of compiled chunks (`_batch_scene`): 8 rounds
#: of 32 iterations left ~20 of 1000 ur5 table-cell queries to whole solves, 4 of 64 ~60
#: (31,000 against 27,000 queries/s on one thread).
FREE_ROUNDS = 8

_F64 = np.dtype(np.float64)  # the native float64 dtype (a singleton)

#: The single-pose kernel's io slots 0–7 (arguments) and 8–15 (results) as raw doubles:
#: one struct call instead of a numpy slice assignment (≈ 0.3 against ≈ 1.2 µs).
_IO_IN = _IO_OUT = struct.Struct("8d")


class OneCallPath:
    """`Solver`'s one-call path (a mixin: `Solver` holds the attributes named here)."""

    robot: Robot
    family: Family
    _mode: int
    _single: Any  # the family's compiled single-pose entry
    _idle: list[Workspace]
    _prepare_lock: threading.Lock
    _workspace: Callable[[], Workspace]  # an idle workspace, or a new one
    _exact: ExactChecks
    _collision_free: Callable[..., Any]  # `SceneGoals._collision_free`
    solve: Callable[..., Result]

    def _solve_single_pose(self, ws, problem, goals, seed, t0, deadline, budget, base, position_tolerance, rotation_tolerance,
                           reference: np.ndarray | None = None) -> Result:
        """One pose-type goal: the whole query (seed check and clipping, search, turn
        wrapping, exact acceptance) is one compiled call. With no seed the search starts
        from a random configuration and wraps the turns near `reference` (None: the centre)."""
        robot = self.robot
        g = goals[0]
        row = g.params(robot)  # first: it validates fields reassigned since the goal was built
        if type(g) is PoseGoal:
            pt, rt = g.position_tolerance, g.rotation_tolerance
        else:
            pt = rt = g.tolerance
        w = g.weight  # one goal: the solver sees weight 1 (`Problem.update`), the cost is in the goal's units
        _IO_IN.pack_into(ws.io_bytes, 0, deadline, budget, base, self._mode, seed is None, 1.0 if w > 0.0 else 0.0,
                         position_tolerance if pt is None else pt, rotation_tolerance if rt is None else rt)
        if seed is None:
            q = np.empty(robot.dof)
            problem.vdata[:, REFERENCE] = robot._center if reference is None else reference
        else:
            # a C-ordered float64 copy (the compiled entry takes no other); `copy` is half
            # the time of `np.array(seed, dtype=np.float64)` on the common input
            try:
                q = seed.copy() if type(seed) is np.ndarray and seed.dtype is _F64 else np.array(seed, dtype=np.float64)
            except (TypeError, ValueError, OverflowError):  # not numbers
                q = robot.check(seed, "seed")  # raises, naming what a seed must be
            if q.shape != (robot.dof,):
                robot.check(seed, "seed")  # raises, naming the expected length
        found = stoppable(self._single, deadline, problem.ibuf, problem.fbuf, row, q, ws.io, *self.family.single_pose_extra)
        if found < 0:
            robot.check(seed, "seed")  # raises: NaN or inf in the seed
        problem.goals[0] = g
        its, restarts, clipped, accepted, cost, _, dp, dr = _IO_OUT.unpack_from(ws.io_bytes, 8 * 8)
        errors = np.empty((1, 2))  # half the time of np.array([[dp, dr]])
        errors[0, 0] = dp
        errors[0, 1] = dr
        cost *= w * w
        return Result(q, accepted == 1.0, cost, errors, time.monotonic() - t0, 0,
                      int(restarts), int(its), clipped == 1.0, self.family.name, cost, 0.0)

    def _free_first(self, ws, problem, polish, goals, seed, t0, deadline, base, callback, position_tolerance,
                    rotation_tolerance) -> Result:
        """Among obstacles, a timed solve tries the pose goal alone first: compiled calls of
        the free-space search (`polish.problem`, the goals without the exact-checked
        collision goals), from the seed and then from random starts (seeds `base + 7919·k`,
        turns wrapped near the first start), at most FREE_TRIES of them within
        FREE_FIRST_ITERATIONS and FREE_FIRST_TIME; an answer counts if `callback` (the exact
        collision check, then the user's) accepts it. Most answers of an open cell are
        clear, and the free search is several times faster than the one with the collision
        costs. Returns the Result — its errors and costs those of all `goals` — or a failed
        one (its iterations, restarts and callback calls spent)."""
        cap = FREE_FIRST_ITERATIONS
        end = min(deadline, t0 + FREE_FIRST_TIME)
        res = self._solve_single_pose(ws, polish.problem, polish.goals, seed, t0, end, cap, base, position_tolerance,
                                      rotation_tolerance)
        reference = polish.problem.vdata[:, REFERENCE].copy()  # the first try's (clipped) start, or the centre
        its, restarts, calls, clipped = res.iterations, res.restarts, 0, res.seed_clipped
        k = 0
        while True:
            if res.success:
                calls += 1
                if verdict(callback(res.q.copy())):
                    break
                res.success = False
            k += 1
            if k >= FREE_TRIES or its >= cap or time.monotonic() >= end:
                break
            res = self._solve_single_pose(ws, polish.problem, polish.goals, None, t0, end, cap - its, (base + 7919 * k) % 2**31,
                                          position_tolerance, rotation_tolerance, reference)
            its += res.iterations
            restarts += res.restarts + 1
        res.iterations, res.restarts, res.callback_calls, res.seed_clipped = its, restarts, calls, clipped
        if res.success:
            problem.update(goals, None, position_tolerance, rotation_tolerance, refresh=False)  # checked by the caller
            _, res.goal_errors, res.primary_cost, res.secondary_cost = problem.accept(res.q, self._mode)
            res.cost = res.primary_cost + res.secondary_cost
        res.time = time.monotonic() - t0
        return res

    def _batch_scene(self, template, batch, scene, pt, rt, Q, timeout, base, threads) -> BatchResult | None:
        """Timed queries of one pose-type goal among obstacles (`solve_batch(..., scene=)`):
        free tries (`_free_first`) in up to FREE_ROUNDS rounds of compiled chunks on the
        threads, the GIL released — the seed's first (or a random start), then random
        starts for the queries still open, at most FREE_FIRST_ITERATIONS // FREE_ROUNDS
        iterations and FREE_FIRST_TIME / FREE_ROUNDS s a query each —, every answer checked
        by the cover's proof in compiled chunks too. A query the proof clears is done (its
        goals' errors from the acceptance test, `Problem.accept_rows`, compiled chunks as
        well); the others go on as `solve` calls on the threads. None if the batch is not of that kind (goals of other weights or
        tolerances per query, a cover that cannot prove)."""
        goals, _ = self._collision_free(template, scene, None)  # the template and the scene's collision goal
        checked = [g for g in goals if type(g) is CollisionAvoidanceGoal and not g.is_secondary]
        pose_rows = self._pose_rows(batch, pt, rt)
        if len(goals) != 2 or len(checked) != 1 or pose_rows is None:
            return None
        rows, weights, tols = pose_rows
        if not (np.all(weights == weights[0]) and np.all(tols == tols[0])):
            return None
        g = checked[0]
        proof = self._exact.proof(g.scene, g.margin, g.allowed, g.self_collision)
        if proof is None:
            return None
        n = len(rows)
        seeds = None if Q is None else Q.copy()  # the free tries write their answers into Q
        q = np.empty((n, self.robot.dof))
        its, spent, restarts = np.zeros(n, dtype=np.int64), np.zeros(n), np.zeros(n, dtype=np.int64)
        clipped = np.zeros(n, dtype=bool)
        clear = np.zeros(n, dtype=bool)
        open_ = np.arange(n)
        for k in range(FREE_ROUNDS):
            m = len(open_)
            tried = self._batch_single_pose(template, rows[open_], weights[open_], tols[open_], Q if k == 0 else None,
                                            min(timeout, FREE_FIRST_TIME / FREE_ROUNDS), FREE_FIRST_ITERATIONS // FREE_ROUNDS,
                                            (base + 7919 * k) % SEED_MODULUS, threads)
            bits = np.full(m, -1, dtype=np.int64)
            run_chunks(m, [lambda a, b: proof.unproven_rows(tried.q, tried.success, bits, a, b)] * threads)
            its[open_] += tried.iterations
            spent[open_] += tried.time
            restarts[open_] += tried.restarts + (k > 0)
            if k == 0:
                clipped[:] = tried.seed_clipped
            done = bits == 0
            q[open_[done]] = tried.q[done]
            clear[open_[done]] = True
            open_ = open_[~done]
            if not len(open_):
                break
        query = batch.query if isinstance(batch, GoalBatch) else batch.__getitem__
        results: list[Result | None] = [None] * n

        def work(a: int, b: int) -> None:  # the queries left open: whole solves, on the threads
            for i in open_[a:b]:
                results[i] = self.solve(query(i), None if seeds is None else seeds[i], timeout=timeout,
                                        random_seed=(base + i) % SEED_MODULUS, position_tolerance=pt, rotation_tolerance=rt,
                                        scene=scene)

        if len(open_):
            run_chunks(len(open_), [work] * min(threads, len(open_)))
        # the proven answers' acceptance tests (their goals' errors and costs): compiled chunks on the threads
        proven = np.flatnonzero(clear)
        reports = np.zeros((n, 3 + 3 * len(goals)))
        taken: list[Workspace] = []
        try:
            workers: list[Callable[[int, int], None]] = []
            for _ in range(min(threads, max(len(proven), 1))):
                ws = self._workspace()
                taken.append(ws)
                problem = ws.problem(goals)
                problem.update(goals, None, pt, rt)
                if not evaluate_rows.signatures:  # compiled (or loaded) once, the first time
                    with self._prepare_lock, compile_notice("the batch acceptance test"), process_lock("prepare-accept-rows"):
                        problem.accept_rows(rows, q, proven[:0], self._mode, reports)
                workers.append(lambda a, b, p=problem: p.accept_rows(rows, q, proven[a:b], self._mode, reports))
            if len(proven):
                run_chunks(len(proven), workers)
        finally:
            self._idle.extend(taken)
        _, errors, pc, sc = problem.report_arrays(reports)
        out = BatchResult(q=q, success=clear, cost=pc + sc, goal_errors=errors, time=spent, iterations=its, restarts=restarts,
                          callback_calls=clear.astype(np.int64), seed_clipped=clipped, solver=self.family.name)
        if len(open_):  # the whole solves' results, field by field
            whole = BatchResult.of([results[i] for i in open_])
            for f in fields(BatchResult):
                if f.name != "solver":
                    getattr(out, f.name)[open_] = getattr(whole, f.name)
        return out

    def _rejection_sampling(self, ws, problem, goals, res: Result, t0, deadline, budget, base, callback,
                            position_tolerance, rotation_tolerance) -> Result:
        """Rejection sampling [E 8.1] on the one-call path: the one-call kernel's answer `res`
        (accepted by the exact test) goes to the callback; each rejection makes the kernel
        search again from a random configuration (seed `base + 7919·k` for the k-th search,
        the turns wrapped near the first search's start) until the callback accepts, the
        deadline or the iteration budget. A callback so costs no second compiled search."""
        reference = problem.vdata[:, REFERENCE].copy()  # the first search's (clipped) start, or the centre
        clipped, calls, its, restarts, k = res.seed_clipped, 0, res.iterations, res.restarts, 0
        while res.success:
            calls += 1
            if verdict(callback(res.q.copy())):
                break
            res.success = False  # rejected: a random restart
            restarts += 1
            k += 1
            if time.monotonic() >= deadline or its >= budget:
                break
            res = self._solve_single_pose(ws, problem, goals, None, t0, deadline, budget - its, (base + 7919 * k) % 2**31,
                                          position_tolerance, rotation_tolerance, reference)
            its += res.iterations
            restarts += res.restarts
        res.callback_calls, res.iterations, res.restarts, res.seed_clipped = calls, its, restarts, clipped
        res.time = time.monotonic() - t0
        return res

    def _pose_rows(self, batch: GoalBatch | Sequence[Sequence[Goal]], pt: float, rt: float
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(goal rows (N, width), weights (N,), weight flags and tolerances (N, 3)) of a batch of
        single pose-type goals, as `_solve_single_pose` passes them; None if the queries
        are not all of the first one's structure."""
        if isinstance(batch, GoalBatch):
            g = batch.goals[0]
            rows = g.target_rows(self.robot, batch.targets[0])
            goals = [g] * len(rows)
        else:
            g = batch[0][0]
            goals = [q[0] for q in batch]
            key = (type(g), g.link, g.secondary)
            for h in goals:
                if not isinstance(h, Goal):
                    raise TypeError(f"goals_batch holds a {type(h).__name__}, not a bioik goal")
                h.refresh()
                if (type(h), h.link, h.secondary) != key:
                    return None
            rows = np.array([h.params(self.robot) for h in goals])
        weights = np.array([h.weight for h in goals])
        tols = np.empty((len(goals), TOL_COLUMNS))
        for i, h in enumerate(goals):
            if type(h) is PoseGoal:
                hp, hr = h.position_tolerance, h.rotation_tolerance
            else:
                hp = hr = h.tolerance
            tols[i] = 1.0 if h.weight > 0.0 else 0.0, pt if hp is None else hp, rt if hr is None else hr
        return rows, weights, tols

    def _batch_single_pose(self, template, rows, weights, tols, Q, timeout, budget, base, threads) -> BatchResult:
        """Single pose-type goals in compiled chunks: one workspace per thread, its io set up
        once (budget, mode, random start); each query's deadline starts with its search."""
        robot, n, kernel, extra = self.robot, len(rows), self.family.single_pose_batch, self.family.single_pose_extra
        random_start = Q is None
        if random_start:
            Q = np.empty((n, robot.dof))
        out = np.zeros((n, OUT_COLUMNS))
        taken: list[Workspace] = []
        try:
            workers: list[Callable[[int, int], None]] = []
            for _ in range(threads):
                ws = self._workspace()
                taken.append(ws)
                problem: Problem = ws.problem(template)
                if random_start:
                    problem.vdata[:, REFERENCE] = robot._center
                ws.io[BUDGET], ws.io[MODE], ws.io[RANDOM_START] = budget, self._mode, random_start
                args = (problem.ibuf, problem.fbuf, rows, tols, Q, ws.io, out)
                if not kernel.signatures:  # compiled (or loaded) before any query's clock starts
                    with self._prepare_lock, compile_notice(f"the {self.family.name} kernels"), process_lock(f"prepare-{self.family.name}"):
                        kernel(*args, 0, 0, timeout, base, *extra)

                def work(first: int, last: int, args=args) -> None:
                    stoppable(kernel, time.monotonic() + (last - first) * timeout, *args, first, last, timeout, base, *extra)

                workers.append(work)
            run_chunks(n, workers)
        finally:
            self._idle.extend(taken)
        return BatchResult(
            q=Q,
            success=out[:, ACCEPTED] == 1.0,
            cost=out[:, COST] * (weights * weights),
            goal_errors=out[:, [DP, DR]].reshape(n, 1, 2),
            time=out[:, TIME].copy(),
            iterations=out[:, ITS].astype(np.int64),
            restarts=out[:, RESTARTS].astype(np.int64),
            callback_calls=np.zeros(n, dtype=np.int64),
            seed_clipped=out[:, CLIPPED] == 1.0,
            solver=self.family.name,
        )
