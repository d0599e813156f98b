"""One API for every solver: `solve(robot, goals, ...)` and `Solver` for repeated solves.

Shared here, so each solver family only searches: input checks, seed handling, the
prepared-problem cache, rejection sampling with the solution callback [E 8.1], the final
acceptance test from exact FK, and the `Result`.
"""

from __future__ import annotations

import functools
import logging
import math
import random
import struct
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bioik._compile_progress import compile_notice
from bioik._kernel_cache import compiled_entry, process_lock
from bioik.goals.acceptance import MODES
from bioik.goals.base import PYTHON, Goal
from bioik.goals.collision import CollisionAvoidanceGoal
from bioik.goals.joints import REFERENCE
from bioik.goals.pose import OrientationGoal, PoseGoal, PositionGoal
from bioik.problem import Problem, structure_key
from bioik.kinematics.robot import Robot
from bioik.model.names import UnknownNameError, suggest
from bioik.kinematics.limits import clip_into, wrap_near
from bioik.scene import Scene, SceneError
from bioik.solvers.batch import BatchResult, GoalBatch, as_batch, batch_seeds, run_chunks, thread_count
from bioik.solvers.core.batch import ACCEPTED, CLIPPED, COST, DP, DR, ITS, OUT_COLUMNS, RESTARTS, SEED_MODULUS, TIME, TOL_COLUMNS
from bioik.solvers.core.clock import stoppable
from bioik.solvers.core.params import MAX_ITERATIONS, RANDOM_SEED, TIMEOUT, TOLERANCE
from bioik.solvers.core.pose_query import BUDGET, MODE, RANDOM_START, new_io
from bioik.solvers.registry import DEFAULT_SOLVER, PYTHON_GOALS_SOLVER, SOLVERS, Family

#: Goal types whose structure is fixed by (type, link, secondary) alone.
_POSE_TYPES = (PoseGoal, PositionGoal, OrientationGoal)

_F64 = np.dtype(np.float64)  # the native float64 dtype (a singleton)

#: Iteration budget standing for "no budget" (the timeout ends the search).
UNLIMITED = 2**62

#: The single-pose kernel's io slots 0–7 (arguments) and 8–15 (results) as raw doubles:
#: one struct call instead of a numpy slice assignment (≈ 0.3 against ≈ 1.2 µs).
_IO_IN = _IO_OUT = struct.Struct("8d")

log = logging.getLogger("bioik")

#: Goal structures a solver keeps prepared.
_MAX_STRUCTURES = 32


@dataclass(slots=True)
class Result:
    """Outcome of a solve.

    Attributes:
        q: the configuration (always within limits).
        success: every primary goal passed its acceptance test on exact FK (and the callback,
            if any, accepted q).
        cost: weighted primary + secondary cost.
        goal_errors: per goal (position error m, rotation angle rad) for pose-type goals,
            (largest criterion / its wall, 0) for scan goals, (‖residual‖, 0) otherwise.
        time: seconds spent in the call.
        callback_calls: calls of the solution callback.
        restarts: random restarts.
        iterations: solver iterations.
        seed_clipped: the seed was outside limits and clipped.
        solver: the name of the solver that ran.
        primary_cost: the weighted cost of the primary goals.
        secondary_cost: the weighted cost of the secondary goals.
    """

    q: np.ndarray
    success: bool
    cost: float
    goal_errors: np.ndarray
    time: float
    callback_calls: int = 0
    restarts: int = 0
    iterations: int = 0
    seed_clipped: bool = False
    solver: str = ""
    primary_cost: float = field(default=0.0, repr=False)
    secondary_cost: float = field(default=0.0, repr=False)


def check_timeout(timeout: Any) -> float:
    """The timeout in seconds as a float, or a ParameterError/ParameterTypeError naming it."""
    return TIMEOUT.check("timeout", timeout)


def _verdict(verdict: Any) -> bool:
    """A solution callback's answer, which must be a bool (True: accept)."""
    if not isinstance(verdict, (bool, np.bool_)):
        raise TypeError(f"the solution callback must return True (accept) or False (reject); got {verdict!r}")
    return bool(verdict)


def _check_goals(goals: Any) -> None:
    """goals must be a non-empty list of goals; a goal whose fields were reassigned since it
    was built is validated again here, before anything (the problem's key) reads them."""
    if isinstance(goals, Goal):
        raise TypeError(f"goals must be a list of goals, e.g. [bioik.PoseGoal(link, pose)]; got one {type(goals).__name__}")
    if not isinstance(goals, Sequence) or isinstance(goals, (str, bytes)):
        raise TypeError(f"goals must be a list of goals, e.g. [bioik.PoseGoal(link, pose)]; got {type(goals).__name__}")
    if not goals:
        raise ValueError("no goals given: pass at least one goal, e.g. bioik.PoseGoal(link, pose)")
    for k, g in enumerate(goals):
        if not isinstance(g, Goal):
            raise TypeError(f"goals[{k}] is a {type(g).__name__}, not a bioik goal (expected e.g. bioik.PoseGoal(link, pose))")
        g.refresh()


def _family(name: str | None) -> Family:
    name = DEFAULT_SOLVER if name is None else name
    try:
        return SOLVERS[name]
    except (KeyError, TypeError):
        raise UnknownNameError(f"unknown solver {name!r}; {suggest(str(name), SOLVERS, n=8)}") from None


class _Workspace:
    """Everything a solve writes: the one-call kernel's `io` array and this workspace's own
    copies of the prepared problems. A solve holds one workspace for its whole duration,
    so threads and nested solves (a solve inside a callback) never share a buffer."""

    __slots__ = ("solver", "io", "io_bytes", "problems", "last", "last_problem")

    def __init__(self, solver: Solver, settings: np.ndarray | None = None):
        self.solver = solver
        robot = solver.robot
        # arguments and results of the single-pose kernel (see `bioik.solvers.core.pose_query`)
        self.io = new_io(solver.settings if settings is None else settings, robot.multiturn, robot.program.n_segments)
        self.io_bytes = memoryview(self.io).cast("B")  # struct packs 8 slots in one call
        self.problems: dict[tuple, Problem] = {}
        self.last: tuple | None = None  # (type, link, secondary) of the last single pose-type goal
        self.last_problem: Problem | None = None

    def problem(self, goals: Sequence[Goal]) -> Problem:
        """This workspace's copy of the prepared problem for the goals' structure."""
        if type(goals) is list and len(goals) == 1 and type(goals[0]) in _POSE_TYPES:  # the common case, in a loop: a cheaper key
            g = goals[0]
            g.refresh()  # a link or secondary reassigned since the goal was built is checked before the key reads it
            last = (type(g), g.link, g.secondary)
            if last == self.last:
                return self.last_problem
            self.last, self.last_problem = last, self._problem(goals)
            return self.last_problem
        return self._problem(goals)

    def _problem(self, goals: Sequence[Goal]) -> Problem:
        prepared = self.solver._prepare(goals)
        p = self.problems.get(prepared.key)
        if p is None or p.template is not prepared:
            if len(self.problems) >= _MAX_STRUCTURES:
                self.problems.pop(next(iter(self.problems)))
            p = self.problems[prepared.key] = prepared.copy()
        return p


class Solver:
    """A solver bound to a robot, for repeated solves without re-preparing.

    A named solver runs as named: goals it would not honour (goals that call Python,
    secondary goals it ignores) are refused with an `UnsupportedGoalsError` that names the
    solvers that take them. `Result.solver` is the solver that ran.

    Args:
        robot: the robot (from `bioik.load_robot`).
        solver: a name from `bioik.solvers.names()` (None: `lm`, and for goals that call
            Python `optlib_lbfgsb` unless parameters are given).
        timeout: default seconds per solve.
        acceptance: the success test: "norm" (default), "trac" or "kdl".
        network: for the neural solvers (`neural`, `neural2`) only: the trained network, a
            `bioik.solvers.neural.network.Network` or its .npz file (None: the file
            `bioik train` writes by default, beside the URDF or in the current directory;
            a `MissingNetworkError` says how to train one if there is none).
        **params: that solver's parameters (unknown names and values outside their ranges
            are an error).
    """

    def __init__(self, robot: Robot, solver: str | None = None, timeout: float = 0.005, acceptance: str = "norm",
                 network: Any = None, **params: Any):
        if not isinstance(robot, Robot):
            raise TypeError(f"robot must be a bioik.Robot (from bioik.load_robot); got {type(robot).__name__}")
        self.robot = robot
        self.family = _family(solver)
        self.timeout = check_timeout(timeout)
        if acceptance not in MODES:
            raise ValueError(f"acceptance must be one of {', '.join(MODES)}; got {acceptance!r}")
        self.acceptance = acceptance
        self._mode = MODES[acceptance]
        #: The trained network of a neural solver (None for the others), appended to every
        #: settings vector of its family (`_with_network`).
        self.network = None
        if self.family.network is not None:
            from bioik.solvers.neural.network import find_network

            self.network = find_network(robot, self.family.network, network)
            self._network_flat = self.network.flat()
        elif network is not None:
            raise ValueError(f"network= is for the neural solvers (neural, neural2); solver {self.family.name!r} takes none")
        self.settings = self._with_network(self.family, self.family.settings(params))
        #: The solver that runs goals that call Python: the solver as named, or with none
        #: named (and no parameters for the default), the one that can call them.
        self._python_name = PYTHON_GOALS_SOLVER if solver is None and not params else self.family.name
        self._single = self.family.single_pose  # its compiled entry once it is loaded
        #: A single pose goal is solved by the whole-query kernel (one compiled call in this
        #: thread), unless the settings run the search on threads of its own.
        self._one_call = self.family.single_pose is not None and self.family.threads(self.settings) == 1
        #: Prepared problems by goal structure, never solved in: each workspace solves in
        #: its own copy (`Problem.copy`), so concurrent solves share no buffer.
        self._prepared: dict[tuple, Problem] = {}
        self._prepare_lock = threading.Lock()
        #: Idle workspaces; a solve takes one (or makes one) and gives it back.
        self._idle: list[_Workspace] = []
        #: Exact collision checkers by collision goal settings, and the goal `scene=` adds.
        self._checkers: dict[tuple, Callable[[np.ndarray], bool]] = {}
        self._scene_goals: dict[int, CollisionAvoidanceGoal] = {}
        #: Per exact checker, the scene layout and poses whose fixed links were last found clear.
        self._fixed_checked: dict[int, tuple] = {}

    def _with_network(self, family: Family, settings: np.ndarray) -> np.ndarray:
        """The settings of `family` followed by this solver's network if the family runs it."""
        if family is self.family and self.network is not None:
            return np.concatenate([settings, self._network_flat])
        return settings

    def problem(self, goals: Sequence[Goal]) -> Problem:
        """The prepared problem for this goal structure (cached; a template that solves
        copy, so it stays unchanged by them).

        Args:
            goals: the goals whose structure (types, links, primary or secondary) is prepared.

        Returns:
            The cached `Problem`.
        """
        return self._prepare(goals)

    def _prepare(self, goals: Sequence[Goal]) -> Problem:
        _check_goals(goals)
        key = structure_key(goals)
        p = self._prepared.get(key)
        if p is not None:
            return p
        with self._prepare_lock:  # one thread prepares (and compiles); the others wait for it
            p = self._prepared.get(key)
            if p is not None:
                return p
            name = self._python_name if any(g.kind == PYTHON for g in goals) else self.family.name
            # another process preparing the same solver finishes first; this one then loads its kernels
            with compile_notice(f"the {name} kernels"), process_lock(f"prepare-{name}"):
                p = self._new_problem(goals)
            if len(self._prepared) >= _MAX_STRUCTURES:
                self._prepared.pop(next(iter(self._prepared)))
            self._prepared[key] = p
        return p

    def _new_problem(self, goals: Sequence[Goal]) -> Problem:
        """A prepared problem whose kernels are loaded (compiled on first use), so that the
        first solve's timeout is spent searching. A single pose-type goal loads only its
        one-call kernel: the general search is loaded when a solve first needs it."""
        p = Problem(self.robot, goals)
        self._run_for(p)[0].check(p, SOLVERS.values())
        if self.network is not None:
            self.network.check_goals(p.goals)
        p.general_ready = False
        if p.single_pose and self._one_call:
            defaults = self._with_network(self.family, self.family.settings({}))  # see `_load_general` on the defaults
            ws = _Workspace(self, defaults)
            self._solve_single_pose(ws, p, goals, self.robot.center(), time.monotonic(), time.monotonic() + 3600.0, 1, 0, 1e-5, 1e-5)
            self._single = compiled_entry(self.family.single_pose)
        else:
            self._load_general(p)
        return p

    def _run_for(self, problem: Problem) -> tuple[Family, np.ndarray]:
        """The family (and its settings) whose search runs this problem."""
        return self._python_run if problem.python_goals else (self.family, self.settings)

    @functools.cached_property
    def _python_run(self) -> tuple[Family, np.ndarray]:
        """The family and settings that run goals that call Python, looked up (and its module
        imported) when such goals first come."""
        if self._python_name == self.family.name:
            return self.family, self.settings
        python = SOLVERS[self._python_name]
        return python, python.settings({})

    def _load_general(self, p: Problem) -> None:
        """Load the general search and the acceptance test for prepared problem p (one tiny
        search on it). The search runs one step with the family's default parameters (but
        the user's thread count, `Family.warm_settings`): the same compiled code, while the
        user's (say 10,000 generations a step) could make that one step outlast any
        sensible wait."""
        family, settings = self._run_for(p)
        warm = self._with_network(family, family.warm_settings(settings))
        family.search(p, self.robot.center(), time.monotonic() + 3600.0, 1, 0, 0, warm, False)
        p.accept(self.robot.center(), self.acceptance)
        c = self.robot.center()  # the limit helpers the general path calls (the one-call kernel has its own)
        clip_into(c, self.robot.lower, self.robot.upper)
        wrap_near(c, c, self.robot.lower, self.robot.upper, self.robot.multiturn)
        p.general_ready = True

    def _general_ready(self, problem: Problem) -> None:
        """Make sure the general path of this problem's structure is loaded (before a solve's
        clock starts): a one-goal structure first solved on the one-call path has not."""
        template = problem.template
        if not template.general_ready:
            with self._prepare_lock, compile_notice(f"the {self.family.name} kernels"), process_lock(f"prepare-{self.family.name}"):
                if not template.general_ready:
                    self._load_general(template.copy())
                    template.general_ready = True

    def solve(
        self,
        goals: Sequence[Goal],
        seed: Any = None,
        *,
        timeout: float | None = None,
        callback: Callable[[np.ndarray], bool] | None = None,
        random_seed: int | None = None,
        max_iterations: int | None = None,
        position_tolerance: float = 1e-5,
        rotation_tolerance: float = 1e-5,
        scene: Scene | None = None,
    ) -> Result:
        """Solve for `goals` starting from `seed`; see `bioik.solve`.

        Safe to call from several threads at once and from inside a callback: each call
        solves in a workspace of its own.

        Args:
            goals: the goals, a non-empty list (`bioik.PoseGoal(...)`, ...).
            seed: start configuration (clipped into limits if outside; None: random start).
            timeout: seconds for the search (None: the solver's timeout).
            callback: `callback(q) -> bool`; rejecting a solution makes the search go on from a
                random restart until the timeout.
            random_seed: RNG seed; with `max_iterations`, a run is reproducible.
            max_iterations: iteration budget (None: the timeout alone ends the search).
            position_tolerance: position error (m) of a pose-type goal that counts as met.
            rotation_tolerance: rotation angle (rad) of a pose-type goal that counts as met.
            scene: obstacles to stay out of (see `bioik.solve`).

        Returns:
            The `Result`.
        """
        if callback is not None and not callable(callback):
            raise TypeError(f"callback must be a function q -> True (accept) or False (reject), or None; got {type(callback).__name__}")
        if scene is not None or (isinstance(goals, (list, tuple)) and any(type(g) is CollisionAvoidanceGoal for g in goals)):
            goals, callback = self._collision_free(goals, scene, callback)
        idle = self._idle
        try:
            ws = idle.pop()  # atomic: two threads never get the same workspace
        except IndexError:
            ws = _Workspace(self)
        try:
            problem = ws.problem(goals)  # one-time preparation is not part of the timeout
            one_call = problem.single_pose and self._one_call
            if not one_call and not problem.template.general_ready:
                self._general_ready(problem)
            t0 = time.monotonic()
            if timeout is None:
                timeout = self.timeout
            elif not (type(timeout) is float and 0.0 < timeout < math.inf):
                timeout = check_timeout(timeout)
            if max_iterations is None:
                budget = UNLIMITED
            else:
                if not (type(max_iterations) is int and 1 <= max_iterations <= UNLIMITED):
                    MAX_ITERATIONS.check("max_iterations", max_iterations)  # refuses an int past the float range too
                budget = int(max_iterations)
            if not (type(position_tolerance) is float and 0.0 <= position_tolerance < math.inf):
                TOLERANCE.check("position_tolerance", position_tolerance)
            if not (type(rotation_tolerance) is float and 0.0 <= rotation_tolerance < math.inf):
                TOLERANCE.check("rotation_tolerance", rotation_tolerance)
            if random_seed is None:
                base = random.getrandbits(31)
            else:
                if type(random_seed) is not int:
                    RANDOM_SEED.check("random_seed", random_seed)
                base = int(random_seed) % 2**31
            deadline = t0 + timeout
            if not one_call:
                return self._search(problem, goals, seed, t0, deadline, budget, base, callback, position_tolerance, rotation_tolerance)
            res = self._solve_single_pose(ws, problem, goals, seed, t0, deadline, budget, base, position_tolerance, rotation_tolerance)
            if callback is None or not res.success:
                return res
            return self._rejection_sampling(ws, problem, goals, res, t0, deadline, budget, base, callback,
                                            position_tolerance, rotation_tolerance)
        finally:
            idle.append(ws)  # at most as many as ever ran at once

    def solve_batch(
        self,
        goals_batch: GoalBatch | Sequence[Sequence[Goal]],
        seeds: Any = None,
        *,
        timeout: float | None = None,
        callback: Callable[[np.ndarray], bool] | None = None,
        random_seed: int | None = None,
        max_iterations: int | None = None,
        position_tolerance: float = 1e-5,
        rotation_tolerance: float = 1e-5,
        scene: Scene | None = None,
        threads: int | None = None,
    ) -> BatchResult:
        """Solve N independent queries of one goal structure on `threads` threads; see
        `bioik.solve_batch`. Queries of one pose-type goal without callback or scene run in
        compiled chunks with the GIL released; the rest as `solve` calls on the threads.

        Args:
            goals_batch: a `GoalBatch` (a goal list and N targets for some of its goals) or a
                list of N goal lists of one structure.
            seeds: (N, dof) start configurations, one configuration for all, or None (random starts).
            timeout: seconds per query, from that query's start (None: the solver's timeout).
            callback: `callback(q) -> bool`, called from the worker threads; a rejection makes
                that query's search go on.
            random_seed: query i gets seed `random_seed + i` (None: random).
            max_iterations: iteration budget per query (None: the timeout alone).
            position_tolerance: position error (m) of a pose-type goal that counts as met.
            rotation_tolerance: rotation angle (rad) of a pose-type goal that counts as met.
            scene: obstacles to stay out of (see `bioik.solve`).
            threads: worker threads (None: every core this process may use).

        Returns:
            The `BatchResult`, its arrays in query order.
        """
        batch = as_batch(goals_batch)
        n = len(batch)
        if callback is not None and not callable(callback):
            raise TypeError(f"callback must be a function q -> True (accept) or False (reject), or None; got {type(callback).__name__}")
        timeout = self.timeout if timeout is None else check_timeout(timeout)
        budget = UNLIMITED
        if max_iterations is not None:
            budget = int(MAX_ITERATIONS.check("max_iterations", max_iterations))
        pt = TOLERANCE.check("position_tolerance", position_tolerance)
        rt = TOLERANCE.check("rotation_tolerance", rotation_tolerance)
        threads = min(thread_count(threads), n)
        Q = batch_seeds(self.robot, seeds, n)
        if random_seed is None:
            base = random.getrandbits(31)
        else:
            RANDOM_SEED.check("random_seed", random_seed)
            base = int(random_seed) % SEED_MODULUS
        template = batch.goals if isinstance(batch, GoalBatch) else batch[0]
        if callback is None and scene is None and self.family.single_pose_batch is not None and self._prepare(template).single_pose:
            rows = self._pose_rows(batch, pt, rt)
            if rows is not None:
                return self._batch_single_pose(template, *rows, Q, timeout, budget, base, threads)
        query = batch.query if isinstance(batch, GoalBatch) else batch.__getitem__
        results: list[Result | None] = [None] * n

        def work(first: int, last: int) -> None:
            for i in range(first, last):
                results[i] = self.solve(query(i), None if Q is None else Q[i], timeout=timeout, callback=callback,
                                        random_seed=(base + i) % SEED_MODULUS, max_iterations=max_iterations,
                                        position_tolerance=pt, rotation_tolerance=rt, scene=scene)

        run_chunks(n, [work] * threads)
        return BatchResult.of(results)

    def _pose_rows(self, batch: GoalBatch | list[list[Goal]], pt: float, rt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
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
        taken: list[_Workspace] = []
        try:
            workers = []
            for _ in range(threads):
                try:
                    ws = self._idle.pop()
                except IndexError:
                    ws = _Workspace(self)
                taken.append(ws)
                problem = ws.problem(template)
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
            if _verdict(callback(res.q.copy())):
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

    def _search(self, problem, goals, seed, t0, deadline, budget, base, callback, position_tolerance, rotation_tolerance) -> Result:
        """The general search: the family's search, with rejection sampling when a callback
        rejects an answer [E 8.1]."""
        robot = self.robot
        clipped = False
        random_start = seed is None
        if random_start:
            q = np.empty(robot.dof)  # the kernel draws the start
        else:
            q = robot.check(seed, "seed").copy()
            clipped = clip_into(q, robot.lower, robot.upper)
        reference = robot._center if random_start else q.copy()
        problem.update(goals, reference, position_tolerance, rotation_tolerance)
        mode = MODES[self.acceptance]
        calls = restarts = iterations = 0
        ok = False
        rejected = None  # the last answer the callback rejected
        call = 0
        family, settings = self._run_for(problem)
        search = family.search
        while True:
            seed_k = (base + 7919 * call) % 2**31
            found, its, rs = search(problem, q, deadline, budget - iterations, seed_k, mode, settings, random_start)
            call += 1
            iterations += its
            restarts += rs
            if not found:
                break
            ok = True
            if callback is None:
                break
            wrap_near(q, reference, robot.lower, robot.upper, robot.multiturn)  # the callback sees what is returned
            calls += 1
            if _verdict(callback(q.copy())):
                break
            ok = False  # rejected: keep searching from a random configuration [E 8.1]
            rejected = q.copy()
            restarts += 1
            random_start = True
            if time.monotonic() >= deadline or iterations >= budget:
                break
        wrap_near(q, reference, robot.lower, robot.upper, robot.multiturn)  # as BioIK: the turn nearest the seed
        accepted, errors, pc, sc = problem.accept(q, self.acceptance)
        if accepted and not ok and callback is not None:
            # the search gave up on an answer that passes the acceptance test: the callback
            # has the last word on it, unless it already rejected this very answer
            if rejected is None or not np.array_equal(q, rejected):
                calls += 1
                ok = _verdict(callback(q.copy()))
        elif callback is None:
            ok = True  # success is the acceptance test, whatever the search thought
        return Result(
            q=q,
            success=ok and accepted,
            cost=pc + sc,
            goal_errors=errors,
            time=time.monotonic() - t0,
            callback_calls=calls,
            restarts=restarts,
            iterations=iterations,
            seed_clipped=clipped,
            solver=family.name,
            primary_cost=pc,
            secondary_cost=sc,
        )

    def _collision_free(self, goals: Sequence[Goal], scene: Scene | None, callback):
        """The goals with a collision goal for `scene` (unless one is there), and the
        callback with the exact check of every primary collision goal in front of it: an
        answer the spheres pass but the exact geometry does not is rejected, and the search
        goes on (rejection sampling [E 8.1])."""
        _check_goals(goals)
        goals = list(goals)
        checks = [self._checker(g) for g in goals if type(g) is CollisionAvoidanceGoal and not g.is_secondary]
        if scene is not None:
            if not isinstance(scene, Scene):
                raise TypeError(f"scene must be a bioik.Scene; got {type(scene).__name__}")
            if not any(isinstance(g, CollisionAvoidanceGoal) and g.scene is scene for g in goals):
                goal = self._scene_goals.get(id(scene))
                if goal is None or goal.scene is not scene:
                    goal = self._scene_goals[id(scene)] = CollisionAvoidanceGoal(scene)
                kinds = self.family.kinds
                if kinds is None or goal.kind in kinds:
                    goals.append(goal)
                # a solver without the goal (kdl, trac …) cannot steer clear: it only has the exact
                # check, i.e. rejection sampling as MoveIt does it [E 8.1]
                checks.append(self._checker(goal))

        def collision_free(q: np.ndarray):
            for check in checks:
                if not check(q):
                    return False
            return True if callback is None else callback(q)

        return goals, collision_free

    def _checker(self, goal: CollisionAvoidanceGoal) -> Callable[[np.ndarray], bool]:
        """The exact checker (coal) matching a collision goal's scene, margin, allowed pairs
        and self-collision setting; built once per setting. A scene that a fixed link is in
        is refused here (`_check_fixed_links`)."""
        key = (id(goal.scene), goal.margin, goal.allowed, goal.self_collision)
        hit = self._checkers.get(key)
        if hit is not None and hit[0] is goal.scene:
            checker = hit[1]
        else:
            from bioik.collision.acm import allowed_collisions
            from bioik.collision.checker import CollisionChecker  # coal: pip install bioik[collision]

            acm = allowed_collisions(self.robot)
            if not goal.self_collision:
                links = acm.links
                acm = acm.with_allowed([(a, b) for i, a in enumerate(links) for b in links[i + 1 :]])
            checker = CollisionChecker(self.robot, goal.scene, margin=goal.margin, acm=acm, allowed=goal.allowed)
            with self._prepare_lock:
                self._checkers[key] = (goal.scene, checker)
        self._check_fixed_links(goal, checker)
        return checker

    def _check_fixed_links(self, goal: CollisionAvoidanceGoal, checker: Any) -> None:
        """Refuse, once per obstacle layout and poses, a scene that a link no active variable
        moves is truly in (by the exact check): every configuration would collide. Such links
        cost nothing in the collision goal (`CollisionAvoidanceGoal`), so a cover sphere
        fatter than the base never blocks a search."""
        scene = goal.scene
        if scene is None:
            return
        versions = (scene.layout_version, scene.pose_version)
        if self._fixed_checked.get(id(checker)) == versions:
            return
        hits = checker.fixed_contacts()
        if hits:
            c = hits[0]
            where = f"is {-c.distance * 1000:.1f} mm into" if c.distance < -5e-5 else "touches"
            raise SceneError(
                f"link {c.a!r} of robot {self.robot.name!r} {where} obstacle {c.b!r} (signed distance {c.distance:.4f} m,"
                f" margin {goal.margin} m), and no active joint moves it: every configuration collides. If it stands on"
                f" or touches it, allow the contact: scene.allow_contact({c.b!r}, {c.a!r})")
        self._fixed_checked[id(checker)] = versions

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


#: The solvers `solve` keeps, by robot, solver name, acceptance mode and parameters.
_solvers: dict[tuple, Solver] = {}
_solvers_lock = threading.Lock()

def solve(
    robot: Robot,
    goals: Sequence[Goal],
    seed: Any = None,
    *,
    timeout: float = 0.005,
    solver: str | None = None,
    callback: Callable[[np.ndarray], bool] | None = None,
    random_seed: int | None = None,
    max_iterations: int | None = None,
    position_tolerance: float = 1e-5,
    rotation_tolerance: float = 1e-5,
    acceptance: str = "norm",
    scene: Scene | None = None,
    **params: Any,
) -> Result:
    """Joint values for `robot` that meet `goals`, within limits, within `timeout` seconds.

    Repeated calls with the same robot and goal structure reuse the prepared problem; the
    one-time preparation of a new structure (and compiling on first use) is not counted
    in the timeout.

    Args:
        robot: the robot (from `bioik.load_robot`).
        goals: the goals, a non-empty list (`bioik.PoseGoal(...)`, ...).
        seed: start configuration (clipped into limits if outside; None: random start).
        timeout: seconds for the search.
        callback: `callback(q) -> bool`; rejecting a solution makes the search go on from a
            random restart until the timeout.
        random_seed: RNG seed; with `max_iterations`, a run is reproducible.
        max_iterations: iteration budget (None: the timeout alone ends the search).
        position_tolerance: position error (m) of a pose-type goal that counts as met.
        rotation_tolerance: rotation angle (rad) of a pose-type goal that counts as met.
        solver: a solver name (see `Solver`; None: the default); the one that ran is
            `Result.solver`.
        acceptance: the success test: "norm" (default), "trac" or "kdl".
        scene: obstacles to stay out of: a `CollisionAvoidanceGoal(scene)` joins the goals
            (unless one for this scene is there; solvers that do not take it — kdl, trac,
            jac, nullspace — go without it) and every answer is checked exactly against the
            robot's collision geometry (coal) before it counts as a success; so is any
            answer to goals with a primary `CollisionAvoidanceGoal`.
        **params: the solver's parameters, each checked against its range
            (`bioik.solvers.core.params`).

    Returns:
        The `Result`: `q` within limits, `success` from the exact acceptance test.
    """
    return _shared_solver(robot, solver, timeout, acceptance, params).solve(
        goals, seed, timeout=timeout, callback=callback, random_seed=random_seed, max_iterations=max_iterations,
        position_tolerance=position_tolerance, rotation_tolerance=rotation_tolerance, scene=scene)


def _shared_solver(robot: Robot, solver: str | None, timeout: float, acceptance: str, params: dict[str, Any]) -> Solver:
    """The `Solver` that `solve` and `solve_batch` keep for these arguments (made on first use)."""
    key = (id(robot), solver, acceptance, tuple(sorted(params.items()))) if params else (id(robot), solver, acceptance)
    try:
        s = _solvers.get(key)
    except TypeError:  # an unhashable name or value (a list …): the Solver refuses it by name
        return Solver(robot, solver, timeout, acceptance, **params)
    if s is None or s.robot is not robot:
        s = Solver(robot, solver, timeout, acceptance, **params)
        with _solvers_lock:
            if len(_solvers) >= 16:
                _solvers.pop(next(iter(_solvers)))
            _solvers[key] = s
    return s


def solve_batch(
    robot: Robot,
    goals_batch: GoalBatch | Sequence[Sequence[Goal]],
    seeds: Any = None,
    *,
    timeout: float = 0.005,
    solver: str | None = None,
    threads: int | None = None,
    callback: Callable[[np.ndarray], bool] | None = None,
    random_seed: int | None = None,
    max_iterations: int | None = None,
    position_tolerance: float = 1e-5,
    rotation_tolerance: float = 1e-5,
    acceptance: str = "norm",
    scene: Scene | None = None,
    **params: Any,
) -> BatchResult:
    """N independent queries of one goal structure, solved on `threads` threads (None:
    every core): the same answers as N `solve` calls, as arrays (`BatchResult`).

    goals_batch: a `GoalBatch` (a goal list and N targets for some of its goals — the fast
    way to give N poses for one tip) or a list of N goal lists. seeds: (N, dof), one
    configuration for all, or None (random starts). timeout: seconds per query, counted
    from that query's start. random_seed=s gives query i the seed s + i, so with
    `max_iterations` the answers are bit-identical to `solve(..., random_seed=s + i,
    max_iterations=...)` whatever the thread count. Queries of one pose, position or
    orientation goal without callback or scene run as compiled chunks with the GIL
    released; the others (several goals, a callback — called from the worker threads —,
    a scene or collision goals) as `solve` calls on the threads, releasing the GIL only
    inside their compiled searches. The other arguments are `solve`'s.
    """
    return _shared_solver(robot, solver, timeout, acceptance, params).solve_batch(
        goals_batch, seeds, timeout=timeout, callback=callback, random_seed=random_seed, max_iterations=max_iterations,
        position_tolerance=position_tolerance, rotation_tolerance=rotation_tolerance, scene=scene, threads=threads)
