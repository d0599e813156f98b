"""One API for every solver: `solve(robot, goals, ...)` and `Solver` for repeated solves.

Shared here, so each solver family only searches: input checks, the prepared-problem
cache, the scene's collision goal and exact checks in front of the solution callback, and
the choice between the one-call path (`bioik.solvers.one_call`) and the general search
with rejection sampling [E 8.1] (`bioik.solvers.search`); both end in the acceptance test
on exact FK and a `Result` (`bioik.solvers.result`).
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from bioik.collision.guard import ExactChecks
from bioik.goals.acceptance import MODES
from bioik.goals.base import Goal
from bioik.goals.collision import CollisionAvoidanceGoal
from bioik.kinematics.robot import Robot
from bioik.problem import Problem
from bioik.scene import Scene
from bioik.solvers.batch import BatchResult, GoalBatch, as_batch, batch_seeds, run_chunks, thread_count
from bioik.solvers.core.batch import SEED_MODULUS
from bioik.solvers.core.params import MAX_ITERATIONS, RANDOM_SEED, TOLERANCE, UNLIMITED
from bioik.solvers.one_call import OneCallPath
from bioik.solvers.prepared import PreparedProblems
from bioik.solvers.registry import PYTHON_GOALS_SOLVER
from bioik.solvers.result import Result, check_timeout, family
from bioik.solvers.scene_goals import SceneGoals
from bioik.solvers.search import GeneralPath, Polish
from bioik.solvers.workspace import Workspace

__all__ = ["Result", "Solver", "check_timeout", "solve", "solve_batch"]

#: How the default solver solves a tool tip's pose among obstacles: a function of the robot
#: that returns its `bioik.passage_solver.PassageRoutes`. Decoupling and the passage search
#: are built on these solvers, a layer above them, so the `bioik` package sets this when
#: it is imported (None: every solve takes the general search).
passage_routes: Callable[[Robot], Any] | None = None


class Solver(PreparedProblems, OneCallPath, GeneralPath, SceneGoals):
    """A solver bound to a robot, for repeated solves without re-preparing.

    A named solver runs as named: goals it would not honour (goals that call Python,
    secondary goals it ignores) are refused with an `UnsupportedGoalsError` that names the
    solvers that take them. `Result.solver` is the solver that ran.

    Args:
        robot: the robot (from `bioik.load_robot`).
        solver: a name from `bioik.solvers.names()` (None: `lm`, and for goals that call
            Python `optlib_lbfgsb` unless parameters are given; with a scene, one pose
            goal of a tip past a tool goes to a `bioik.PassageSolver`, see `bioik.solve`).
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
        self.family = family(solver)
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
        #: With no solver named, a scene and one pose goal of a tip past a tool go to a
        #: `bioik.PassageSolver` (`_passage`); made on first use.
        self._default = solver is None and not params
        self._routes: Any = None
        self._single = self.family.single_pose  # its compiled entry once it is loaded
        #: A single pose goal is solved by the whole-query kernel (one compiled call in this
        #: thread), unless the settings run the search on threads of its own.
        self._one_call = self.family.single_pose is not None and self.family.threads(self.settings) == 1
        #: Prepared problems by goal structure, never solved in: each workspace solves in
        #: its own copy (`Problem.copy`), so concurrent solves share no buffer.
        self._prepared: dict[tuple, Problem] = {}
        self._prepare_lock = threading.Lock()
        #: Idle workspaces; a solve takes one (or makes one) and gives it back.
        self._idle: list[Workspace] = []
        self._tries_loaded = False
        self._scene_loaded = False
        #: Exact collision checkers by collision goal settings, and the goals `scene=` adds.
        self._exact = ExactChecks(robot)
        self._scene_goals: dict[int, CollisionAvoidanceGoal] = {}

    def problem(self, goals: Sequence[Goal]) -> Problem:
        """The prepared problem for this goal structure (cached; a template that solves
        copy, so it stays unchanged by them).

        Args:
            goals: the goals whose structure (types, links, primary or secondary) is prepared.

        Returns:
            The cached `Problem`.
        """
        return self._prepare(goals)

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
            max_iterations: at most this many iterations (None: the timeout alone ends the search);
                an iteration is one move of a local solver to a new configuration (a step, or
                a restart from a random one), one generation of an evolutionary solver, one
                iteration of a scipy one; `Result.iterations` counts them.
            position_tolerance: position error (m) of a pose-type goal that counts as met.
            rotation_tolerance: rotation angle (rad) of a pose-type goal that counts as met.
            scene: obstacles to stay out of (see `bioik.solve`).

        Returns:
            The `Result`.
        """
        entry = time.monotonic()  # Result.time is the whole call; the timeout starts after the preparation
        if callback is not None and not callable(callback):
            raise TypeError(f"callback must be a function q -> True (accept) or False (reject), or None; got {type(callback).__name__}")
        if scene is not None and self._default and max_iterations is None and self.acceptance == "norm":
            res = self._passage(goals, seed, scene, entry, timeout, callback, random_seed, position_tolerance, rotation_tolerance)
            if res is not None:
                return res
        polish_goals = None
        checked = False  # goals checked in this call (`check_goals`): no second check below
        if scene is not None or (isinstance(goals, (list, tuple)) and any(type(g) is CollisionAvoidanceGoal for g in goals)):
            goals, callback = self._collision_free(goals, scene, callback)
            polish_goals = self._polish_goals(goals)
            checked = True
        idle = self._idle
        try:
            ws = idle.pop()  # atomic: two threads never get the same workspace
        except IndexError:
            ws = Workspace(self.robot, self.settings, self._prepare)
        try:
            problem = ws.problem(goals, checked)  # one-time preparation is not part of the timeout
            one_call = problem.single_pose and self._one_call
            if not one_call and not problem.template.general_ready:
                self._general_ready(problem)
            polish = None
            if polish_goals is not None and not one_call:
                polish = Polish(ws.problem(polish_goals[0], True), *polish_goals)
                if not polish.problem.template.general_ready:
                    self._general_ready(polish.problem)
                self._free_tries_ready(ws, problem, polish, callback)
                self._scene_search_ready(problem, polish, callback)
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
                first = None
                if polish is not None and polish.problem.single_pose and self._one_call and budget >= UNLIMITED:
                    first = self._free_first(ws, problem, polish, goals, seed, t0, deadline, base, callback, position_tolerance,
                                             rotation_tolerance)
                if first is not None and first.success:
                    res = first
                else:
                    res = self._search(problem, goals, seed, t0, deadline, budget, base, callback, position_tolerance,
                                       rotation_tolerance, polish)
                    if first is not None:
                        res.iterations += first.iterations
                        res.restarts += first.restarts
                        res.callback_calls += first.callback_calls
            else:
                res = self._solve_single_pose(ws, problem, goals, seed, t0, deadline, budget, base, position_tolerance,
                                              rotation_tolerance)
                if callback is not None and res.success:
                    res = self._rejection_sampling(ws, problem, goals, res, t0, deadline, budget, base, callback,
                                                   position_tolerance, rotation_tolerance)
        finally:
            idle.append(ws)  # at most as many as ever ran at once
        res.time += t0 - entry  # the scene's exact-check setup, the goals' update, a first preparation
        return res

    def _passage(self, goals, seed, scene, entry, timeout, callback, random_seed, position_tolerance,
                 rotation_tolerance) -> Result | None:
        """The default solver's solve of one pose goal of a tip past a tool among obstacles:
        `bioik.PassageSolver`'s turns of decoupling through the passage it finds and the
        whole robot's search, for the tool that enters an opening (a tank's hole), with
        nothing annotated (`bioik.passage_solver.PassageRoutes`); None for other goals,
        which take the general search."""
        if self._routes is None:
            if passage_routes is None:
                return None
            with self._prepare_lock:
                if self._routes is None:
                    self._routes = passage_routes(self.robot)
        found = self._routes.route(goals, scene)
        if found is None:
            return None
        goal, passage = found
        self._collision_free(goals, scene, None)  # refuses a fixed link in an obstacle, warns of self-collision
        timeout = self.timeout if timeout is None else check_timeout(timeout)
        pt = TOLERANCE.check("position_tolerance", position_tolerance)
        rt = TOLERANCE.check("rotation_tolerance", rotation_tolerance)
        if random_seed is not None:
            RANDOM_SEED.check("random_seed", random_seed)
        ready = time.monotonic()
        res = passage.solve(goal.pose, timeout=timeout, seed=seed, random_seed=random_seed, callback=callback,
                            position_tolerance=pt if goal.position_tolerance is None else goal.position_tolerance,
                            rotation_tolerance=rt if goal.rotation_tolerance is None else goal.rotation_tolerance)
        res.time += ready - entry  # the first use's preparation
        return res

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
        `bioik.solve_batch`. Queries of one pose-type goal without callback run in compiled
        chunks with the GIL released (with a scene and no iteration budget: their free
        tries and the cover's proof, the queries it cannot clear then as `solve` calls);
        the rest as `solve` calls on the threads.

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
        if callback is None and self.family.single_pose_batch is not None and self._prepare(template).single_pose:
            if scene is None:
                rows = self._pose_rows(batch, pt, rt)
                if rows is not None:
                    return self._batch_single_pose(template, *rows, Q, timeout, budget, base, threads)
            elif max_iterations is None and self._one_call:
                out = self._batch_scene(template, batch, scene, pt, rt, Q, timeout, base, threads)
                if out is not None:
                    return out
        query = batch.query if isinstance(batch, GoalBatch) else batch.__getitem__
        results: list[Result | None] = [None] * n

        def work(first: int, last: int) -> None:
            for i in range(first, last):
                results[i] = self.solve(query(i), None if Q is None else Q[i], timeout=timeout, callback=callback,
                                        random_seed=(base + i) % SEED_MODULUS, max_iterations=max_iterations,
                                        position_tolerance=pt, rotation_tolerance=rt, scene=scene)

        run_chunks(n, [work] * threads)
        return BatchResult.of(results)

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
        max_iterations: at most this many iterations (None: the timeout alone ends the search);
                an iteration is one move of a local solver to a new configuration (a step, or
                a restart from a random one), one generation of an evolutionary solver, one
                iteration of a scipy one; `Result.iterations` counts them.
        position_tolerance: position error (m) of a pose-type goal that counts as met.
        rotation_tolerance: rotation angle (rad) of a pose-type goal that counts as met.
        solver: a solver name (see `Solver`; None: the default); the one that ran is
            `Result.solver`. With none named, a scene and one pose goal of a tip past a
            tool (two active joints or more past the first six of its chain, `bioik.decoupling.tool_split`)
            go to a `bioik.PassageSolver`: the tool's passage found in the scene, decoupling
            through it and the whole robot's search in turns (no iteration budget: with
            `max_iterations`, the general search).
        acceptance: the success test: "norm" (default), "trac" or "kdl".
        scene: obstacles to stay out of: a `CollisionAvoidanceGoal(scene)` joins the goals
            (unless one for this scene is there; solvers that do not take it — kdl, trac,
            jac, nullspace — go without it) and every answer is checked exactly before it
            counts as a success: a fine sphere cover proves it clear
            (`bioik.collision.CoverProof`), or coal checks the robot's collision geometry
            where the cover cannot; so is any answer to goals with a primary
            `CollisionAvoidanceGoal`. One pose-type goal (and no iteration budget) is first
            tried without the collision costs, from the seed and then from random starts,
            for at most 0.25 ms: an answer the exact check clears is returned (in an open
            cell most are, several times sooner than the search with the costs).
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
    orientation goal without callback run as compiled chunks with the GIL released; with
    a scene (and no `max_iterations`), their free tries and the sphere cover's proof that
    an answer is clear run so, and only the queries with no proven answer go on as
    `solve` calls. The others (several goals, a callback — called from the worker threads
    —, collision goals, a scene with an iteration budget) run as `solve` calls on the
    threads, releasing the GIL only inside their compiled searches. The other arguments
    are `solve`'s.
    """
    return _shared_solver(robot, solver, timeout, acceptance, params).solve_batch(
        goals_batch, seeds, timeout=timeout, callback=callback, random_seed=random_seed, max_iterations=max_iterations,
        position_tolerance=position_tolerance, rotation_tolerance=rotation_tolerance, scene=scene, threads=threads)
