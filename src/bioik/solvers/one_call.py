"""The one-call path: a single pose, position or orientation goal solved by one compiled
call (seed check and clipping, search, turn wrapping, exact acceptance), alone or as
chunks of a batch, and rejection sampling [E 8.1] on top of it when a callback rejects."""

from __future__ import annotations

import functools
import struct
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from bioik._compile_progress import compile_notice
from bioik._kernel_cache import process_lock
from bioik.collision.cover_proof import CoverProof
from bioik.collision.guard import ExactChecks, ProofFirst
from bioik.goals.base import Goal
from bioik.goals.collision import CollisionAvoidanceGoal
from bioik.goals.joints import REFERENCE
from bioik.goals.pose import PoseGoal
from bioik.kinematics.robot import Robot
from bioik.problem import Problem
from bioik.solvers.batch import BatchResult, GoalBatch, run_chunks
from bioik.solvers.core.batch import (ACCEPTED, CLIPPED, COST, DP, DR, ITS, OUT_COLUMNS, RESTARTS, SEED_MODULUS, TIME,
                                      TOL_COLUMNS)
from bioik.solvers.core.clock import stoppable
from bioik.solvers.core import free_tries as tries
from bioik.solvers.core.pose_query import BUDGET, MODE, POSITION_TOL, RANDOM_START, ROTATION_TOL, WEIGHT
from bioik.solvers.registry import Family
from bioik.solvers.result import Result, verdict
from bioik.solvers.scene_goals import compiled_check
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
#: A scene batch on several threads comes in SCENE_CHUNKS chunks per thread (on one, in
#: one chunk): the whole solves of a chunk's open queries run in Python, and smaller
#: chunks let the other threads' compiled chunks overlap them.
SCENE_CHUNKS = 4

_F64 = np.dtype(np.float64)  # the native float64 dtype (a singleton)

#: The single-pose kernel's io slots 0–7 (arguments) and 8–15 (results) as raw doubles:
#: one struct call instead of a numpy slice assignment (≈ 0.3 against ≈ 1.2 µs).
_IO_IN = _IO_OUT = struct.Struct("8d")


def goal_io(g: Goal, position_tolerance: float, rotation_tolerance: float) -> tuple[float, float, float]:
    """(weight flag, position tolerance, rotation tolerance) of a pose-type goal as the
    one-call kernels read them (io's WEIGHT … ROTATION_TOL, a batch's `tols` row): 1 if its
    weight is positive, and its own tolerances, else the solve's."""
    if type(g) is PoseGoal:
        pt, rt = g.position_tolerance, g.rotation_tolerance
    else:
        pt = rt = g.tolerance
    return (1.0 if g.weight > 0.0 else 0.0, position_tolerance if pt is None else pt,
            rotation_tolerance if rt is None else rt)


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
    _tries_loaded: bool  # the family's compiled free tries are loaded (`_free_tries_ready`)
    solve: Callable[..., Result]

    def _solve_single_pose(self, ws, problem, goals, seed, t0, deadline, budget, base, position_tolerance, rotation_tolerance,
                           reference: np.ndarray | None = None) -> Result:
        """One pose-type goal: the whole query (seed check and clipping, search, turn
        wrapping, exact acceptance) is one compiled call. With no seed the search starts
        from a random configuration and wraps the turns near `reference` (None: the centre)."""
        robot = self.robot
        g = goals[0]
        row = g.params(robot)  # first: it validates fields reassigned since the goal was built
        w = g.weight  # one goal: the solver sees weight 1 (`Problem.update`), the cost is in the goal's units
        _IO_IN.pack_into(ws.io_bytes, 0, deadline, budget, base, self._mode, seed is None,
                         *goal_io(g, position_tolerance, rotation_tolerance))
        if seed is None:
            q = np.empty(robot.dof)
            problem.vdata[:, REFERENCE] = robot._center if reference is None else reference
        else:
            q = self._seed_array(seed)
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

    def _seed_array(self, seed: Any) -> np.ndarray:
        """A C-ordered float64 copy of the seed, of the robot's length (the compiled entries
        take no other); `copy` is half the time of `np.array(seed, dtype=np.float64)` on the
        common input. NaN and inf are left to the kernel's seed check."""
        robot = self.robot
        try:
            q = seed.copy() if type(seed) is np.ndarray and seed.dtype is _F64 else np.array(seed, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):  # not numbers
            q = robot.check(seed, "seed")  # raises, naming what a seed must be
        if q.shape != (robot.dof,):
            robot.check(seed, "seed")  # raises, naming the expected length
        return q

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
        one (its iterations, restarts and callback calls spent). With the family's compiled
        tries and a cover that proves (`_compiled_tries`), the tries, their proofs and the
        first proven answer's acceptance test are one compiled call."""
        cap = FREE_FIRST_ITERATIONS
        end = min(deadline, t0 + FREE_FIRST_TIME)
        check = self._compiled_tries(problem, callback)
        if check is not None:
            return self._free_first_compiled(ws, problem, polish, goals, seed, t0, end, check, callback.user, base,
                                             position_tolerance, rotation_tolerance)
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

    def _compiled_tries(self, problem: Problem, callback: Any) -> ProofFirst | None:
        """The proof-first exact check the compiled free tries run with (`free_tries`,
        `compiled_check`); None: the family has none, or the tries run from Python."""
        return None if self.family.single_pose_free is None else compiled_check(problem, callback)

    def _free_tries_ready(self, ws: Workspace, problem: Problem, polish: Any, callback: Any) -> None:
        """Load (or compile, once per machine) the compiled free tries before a solve's
        clock starts: one call with no time and no iterations."""
        kernel = self.family.single_pose_free
        if self._tries_loaded or kernel is None or not polish.problem.single_pose:
            return
        check = self._compiled_tries(problem, callback)
        if check is None:
            return
        with self._prepare_lock, compile_notice(f"the {self.family.name} free tries"), process_lock(f"prepare-{self.family.name}-free"):
            if not kernel.signatures:  # (a numba property that costs ~10 µs: asked once per solver)
                state = np.zeros(tries.STATE)
                state[tries.TRIES], state[tries.SEEDED] = 1, 1
                free = polish.problem
                kernel(free.ibuf, free.fbuf, polish.goals[0].params(self.robot), self.robot.center(), ws.io, state,
                       check.proof.arguments(), problem.ibuf, problem.fbuf, problem.report)
            self._tries_loaded = True

    def _free_first_compiled(self, ws, problem, polish, goals, seed, t0, end, check: ProofFirst, user, base,
                             position_tolerance, rotation_tolerance) -> Result:
        """`_free_first` as compiled calls (`bioik.solvers.core.free_tries`): each returns
        with an answer the pose goal accepts, proven clear (its acceptance test on all the
        goals done) or left to coal (`check.rest`), or with none; the user's callback
        (`user`) then has its say, and a rejected answer makes the next call go on with the
        next try."""
        robot, free = self.robot, polish.problem
        g = polish.goals[0]
        row = g.params(robot)
        io = ws.io
        io[MODE] = self._mode
        io[WEIGHT], io[POSITION_TOL], io[ROTATION_TOL] = goal_io(g, position_tolerance, rotation_tolerance)
        if seed is None:
            q = np.empty(robot.dof)
            free.vdata[:, REFERENCE] = robot._center
        else:
            q = self._seed_array(seed)
        free.goals[0] = g
        problem.update(goals, None, position_tolerance, rotation_tolerance, refresh=False)  # checked by the caller
        state = np.zeros(tries.STATE)
        state[tries.BASE], state[tries.END], state[tries.CAP] = base, end, FREE_FIRST_ITERATIONS
        state[tries.TRIES], state[tries.SEEDED] = FREE_TRIES, seed is not None
        kernel, proof, calls = self.family.single_pose_free, check.proof.arguments(), 0
        clipped = False
        while True:
            found = kernel(free.ibuf, free.fbuf, row, q, io, state, proof, problem.ibuf, problem.fbuf, problem.report)
            clipped = bool(state[tries.CLIP] == 1.0)
            if found == tries.NONE:
                break
            if found == tries.NOT_FINITE:
                robot.check(seed, "seed")  # raises: NaN or inf in the seed
                break
            calls += 1
            ok = found == tries.PROVEN or check.rest(q, int(state[tries.BITS]))
            if ok and user is not None:
                ok = verdict(user(q.copy()))
            if ok:
                _, errors, pc, sc = problem.reported() if found == tries.PROVEN else problem.accept(q, self._mode)
                return Result(q, True, pc + sc, errors, time.monotonic() - t0, calls, int(state[tries.N_RESTARTS]),
                              int(state[tries.ITS]), clipped, self.family.name, pc, sc)
        nan = float("nan")
        return Result(q, False, nan, np.full((len(goals), 2), nan), time.monotonic() - t0, calls, int(state[tries.N_RESTARTS]),
                      int(state[tries.ITS]), clipped, self.family.name, nan, nan)

    def _batch_scene(self, template, batch, scene, pt, rt, Q, timeout, base, threads) -> BatchResult | None:
        """Timed queries of one pose-type goal among obstacles (`solve_batch(..., scene=)`),
        each chunk of queries taken whole by one thread (`_SceneChunks.run`): one compiled
        call runs every query's free tries as a single solve with `random_seed + i` runs
        them (`free_tries_rows`), the cover's proof of each answer and a proven answer's
        acceptance test; the queries with no proven answer go on as `solve` calls (where
        coal decides what the proof leaves open). No thread waits for another until the last
        chunk: a whole solve in one thread overlaps compiled chunks in the others. None if
        the batch is not of that kind (goals of other weights or tolerances per query, a
        cover that cannot prove, a solver without compiled free tries)."""
        kernel = self.family.single_pose_free_rows
        goals, _ = self._collision_free(template, scene, None)  # the template and the scene's collision goal
        checked = [g for g in goals if type(g) is CollisionAvoidanceGoal and not g.is_secondary]
        pose_rows = self._pose_rows(batch, pt, rt)
        if kernel is None or len(goals) != 2 or len(checked) != 1 or pose_rows is None:
            return None
        rows, weights, tols = pose_rows
        if not (np.all(weights == weights[0]) and np.all(tols == tols[0])):
            return None
        g = checked[0]
        proof = self._exact.proof(g.scene, g.margin, g.allowed, g.self_collision)
        if proof is None:
            return None
        n = len(rows)
        out = BatchResult(q=np.empty((n, self.robot.dof)) if Q is None else Q.copy(), success=np.zeros(n, dtype=bool),
                          cost=np.zeros(n), goal_errors=np.zeros((n, len(goals), 2)), time=np.zeros(n),
                          iterations=np.zeros(n, dtype=np.int64), restarts=np.zeros(n, dtype=np.int64),
                          callback_calls=np.zeros(n, dtype=np.int64), seed_clipped=np.zeros(n, dtype=bool),
                          solver=self.family.name)
        query = batch.query if isinstance(batch, GoalBatch) else batch.__getitem__
        chunks = _SceneChunks(kernel, proof, rows, tols, Q is not None, min(timeout, FREE_FIRST_TIME), base, out,
                              np.zeros((n, tries.STATE)), np.zeros((n, 3 + 3 * len(goals))), [None] * n,
                              lambda i: self.solve(query(i), None if Q is None else Q[i], timeout=timeout,
                                                   random_seed=(base + i) % SEED_MODULUS, position_tolerance=pt,
                                                   rotation_tolerance=rt, scene=scene))
        taken: list[Workspace] = []
        try:
            workers: list[Callable[[int, int], None]] = []
            for _ in range(threads):
                free_ws, accept_ws = self._workspace(), self._workspace()
                taken += [free_ws, accept_ws]
                free, accept = free_ws.problem(template), accept_ws.problem(goals)
                accept.update(goals, None, pt, rt)
                free_ws.io[MODE] = self._mode
                if Q is None:
                    free.vdata[:, REFERENCE] = self.robot._center  # random starts wrap their turns near the centre
                if not kernel.signatures:
                    # compiled (or loaded) once, before any query's clock starts
                    with self._prepare_lock, compile_notice(f"the {self.family.name} batch kernels"), \
                            process_lock(f"prepare-{self.family.name}-free"):
                        chunks.run(0, 0, free, free_ws.io, accept)
                workers.append(functools.partial(chunks.run, free=free, io=free_ws.io, accept=accept))
            run_chunks(n, workers, n if threads == 1 else max(1, n // (SCENE_CHUNKS * threads)))
            return chunks.result(accept)  # before another solve may take the workspace
        finally:
            self._idle.extend(taken)

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
        if isinstance(batch, GoalBatch):  # one goal, N targets: one weight and one row of tolerances
            g = batch.goals[0]
            rows = g.target_rows(self.robot, batch.targets[0])
            return rows, np.full(len(rows), g.weight), np.tile(goal_io(g, pt, rt), (len(rows), 1))
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
        return rows, np.array([h.weight for h in goals]), np.array([goal_io(h, pt, rt) for h in goals]).reshape(-1, TOL_COLUMNS)

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


@dataclass
class _SceneChunks:
    """`solve_batch(..., scene=)`'s work on one chunk of queries at a time (`run`, on any
    thread, with that thread's free-space problem and io and its acceptance problem), and
    the batch's result once every chunk is done (`result`)."""

    kernel: Any  # the family's `single_pose_free_rows`
    proof: CoverProof  # the scene's
    rows: np.ndarray  # the pose goals' rows
    tols: np.ndarray  # their weight flags and tolerances
    seeded: bool  # out.q holds the queries' seeds (else: random starts)
    timeout: float  # each query's free tries'
    base: int  # the batch's random seed
    out: BatchResult  # the proven answers (success: proven)
    states: np.ndarray  # each query's free-tries state (`free_tries_rows`)
    reports: np.ndarray  # the proven answers' acceptance reports (`Problem.report_arrays` reads them)
    results: list[Result | None]  # the whole solves' results
    whole: Callable[[int], Result]  # the whole solve of query i

    def run(self, first: int, last: int, free: Problem, io: np.ndarray, accept: Problem) -> None:
        """Queries first … last − 1: their free tries, proofs and proven answers'
        acceptance tests in one compiled call, then whole solves of the rest."""
        out, states = self.out, self.states
        stoppable(self.kernel, time.monotonic() + (last - first) * self.timeout, free.ibuf, free.fbuf, self.rows, self.tols,
                  out.q, self.seeded, io, states, self.proof.arguments(), accept.ibuf, accept.fbuf, self.reports, first,
                  last, self.timeout, FREE_FIRST_ITERATIONS, FREE_TRIES, self.base)
        out.success[first:last] = states[first:last, tries.FOUND] == tries.PROVEN
        for i in range(first, last):
            if not out.success[i]:
                self.results[i] = self.whole(i)

    def result(self, accept: Problem) -> BatchResult:
        """The batch's result: the proven answers' counters from their states, goal errors
        and costs from their reports (`accept`: any of the chunks' acceptance problems), the
        whole solves' results."""
        out, states = self.out, self.states
        proven = out.success.copy()
        _, errors, pc, sc = accept.report_arrays(self.reports)
        out.goal_errors[proven], out.cost[proven] = errors[proven], (pc + sc)[proven]
        out.iterations[:] = states[:, tries.ITS]
        out.restarts[:] = states[:, tries.N_RESTARTS]
        out.seed_clipped[:] = states[:, tries.CLIP] == 1.0
        out.time[:] = states[:, tries.TIME]
        out.callback_calls[:] = states[:, tries.CALLS]
        open_ = np.flatnonzero(~proven)
        if len(open_):  # the whole solves' results, field by field
            whole = BatchResult.of([self.results[i] for i in open_])
            for f in fields(BatchResult):
                if f.name != "solver":
                    getattr(out, f.name)[open_] = getattr(whole, f.name)
        return out
