"""The general path: any goal set searched by the solver family's compiled search, with
rejection sampling when a callback rejects an answer [E 8.1] and the acceptance test on
exact FK at the end; and loading that search (compiled on first use) before a clock starts.

Near an obstacle the collision goal's covers reach a few millimetres past the real geometry
(`bioik.goals.collision`), so a target whose every solution lies that close cannot meet the
pose and the covers at once: the search settles on a compromise a millimetre off the pose.
With a scene, the search therefore runs in slices that double (1, 2, 4 … ms of the
timeout, or 64, 128, 256 … iterations of a budget); after a slice without success, its best
configuration, if the covers reach at most NEAR into anything there, is *polished* —
searched from there on the other goals alone, with a small budget — and the polished answer
counts if it meets them and the exact check (coal) finds it free, the definition of success
with a scene. Otherwise the search goes on from that best configuration. (Deeper in, a pose
met without the collision costs would collide: in the EBIKE tanks, polishing every slice
cost a third of the targets solved within 5 ms.) No polish at the deadline itself: it would
overrun the timeout.

Where the family has it (`lm`), that sliced search is one compiled call
(`bioik.solvers.core.scene_search`), which comes back to Python only for coal, on answers
the cover cannot prove clear, and for the user's callback; the Python loop here runs the
other families, goals that call Python, and several exact-checked collision goals."""

from __future__ import annotations

import functools
import threading
import time
from typing import Any, NamedTuple

import numpy as np

from bioik._compile_progress import compile_notice
from bioik._kernel_cache import process_lock
from bioik.collision.guard import ProofFirst
from bioik.goals.acceptance import MODES
from bioik.kinematics.limits import clip_into, wrap_near
from bioik.kinematics.robot import Robot
from bioik.problem import Problem
from bioik.solvers.core import scene_search as scene
from bioik.solvers.core.clock import stoppable
from bioik.solvers.core.params import UNLIMITED
from bioik.solvers.registry import SOLVERS, Family
from bioik.solvers.result import Result, verdict
from bioik.solvers.scene_goals import compiled_check


#: The first slice of a search with a polish (s, or iterations of a budget), each next one
#: twice as long; the polish's iteration budget, a local search from a configuration a
#: millimetre off; a slice's best answer is polished when the covers' penetration (√Σ
#: depth², m) of each exact-checked collision goal is at most NEAR. The compiled search
#: (`bioik.solvers.core.scene_search`) holds them; the slices are read here at each solve.
FIRST_SLICE, FIRST_SLICE_ITERATIONS, POLISH_ITERATIONS, NEAR = scene.FIRST_SLICE, scene.FIRST_SLICE_ITERATIONS, \
    scene.POLISH_ITERATIONS, scene.NEAR


class Polish(NamedTuple):
    """What a search near obstacles polishes on: the prepared problem of `goals` (the solve's
    goals without its exact-checked collision goals), and those left-out goals' indices
    among the solve's goals with their ε (residual × ε: the covers' penetration depth)."""

    problem: Problem
    goals: list
    checked: list[tuple[int, float]]


class GeneralPath:
    """`Solver`'s general path (a mixin: `Solver` holds the attributes named here)."""

    robot: Robot
    family: Family
    settings: np.ndarray
    acceptance: str
    _python_name: str
    _prepare_lock: threading.Lock
    network: Any  # a neural solver's trained network (None for the others)
    _network_flat: np.ndarray
    _scene_loaded: bool  # the family's compiled search among obstacles is loaded (`_scene_search_ready`)

    def _with_network(self, family: Family, settings: np.ndarray) -> np.ndarray:
        """The settings of `family` followed by this solver's network if the family runs it."""
        if family is self.family and self.network is not None:
            return np.concatenate([settings, self._network_flat])
        return settings

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

    def _search(self, problem, goals, seed, t0, deadline, budget, base, callback, position_tolerance, rotation_tolerance,
                polish: Polish | None = None) -> Result:
        """The general search: the family's search, with rejection sampling when a callback
        rejects an answer [E 8.1]; with `polish`, in slices, each slice's best answer near
        contact polished (see the module docstring); as one compiled call where the
        family has it (`_search_compiled`)."""
        robot = self.robot
        clipped = False
        random_start = seed is None
        if random_start:
            q = np.empty(robot.dof)  # the kernel draws the start
        else:
            q = robot.check(seed, "seed").copy()
            clipped = clip_into(q, robot.lower, robot.upper)
        reference = robot._center.copy() if random_start else q.copy()  # writable: the compiled search takes no other
        problem.update(goals, reference, position_tolerance, rotation_tolerance, refresh=False)  # checked by the caller
        if polish is not None and self.family.scene_search is not None and self._scene_loaded:
            check = compiled_check(problem, callback)
            if check is not None:
                return self._search_compiled(problem, q, random_start, clipped, reference, t0, deadline, budget, base,
                                             check, callback.user, polish, position_tolerance, rotation_tolerance)
        polish_ready = False  # the polish problem is updated when first needed
        mode = MODES[self.acceptance]
        calls = restarts = iterations = 0
        ok = polished = False
        rejected: Any = None  # the last answer the callback rejected
        call = 0
        timed = budget >= UNLIMITED
        mark = (FIRST_SLICE if timed else FIRST_SLICE_ITERATIONS) if polish is not None else 0  # the next slice's end
        family, settings = self._run_for(problem)
        search = family.search
        while True:
            seed_k = (base + 7919 * call) % 2**31
            end, cap = deadline, budget - iterations
            if mark:  # a slice: to the next doubling of the time or iterations spent
                while mark <= (time.monotonic() - t0 if timed else iterations):
                    mark *= 2
                if timed:
                    end = min(deadline, t0 + mark)
                else:
                    cap = min(cap, mark - iterations)
                mark *= 2
            sliced = end < deadline or cap < budget - iterations
            found, its, rs = search(problem, q, end, cap, seed_k, mode, settings, random_start)
            call += 1
            iterations += its
            restarts += rs
            if not found:
                if not sliced or time.monotonic() >= deadline or iterations >= budget:
                    break
                if self._near(problem, q, mode, polish.checked):
                    if not polish_ready:
                        polish.problem.update(polish.goals, reference, position_tolerance, rotation_tolerance, refresh=False)
                        polish_ready = True
                    polished, its, tried = self._polish(polish, q, deadline, budget - iterations, seed_k, mode, callback)
                    iterations += its
                    calls += tried
                    if polished:
                        ok = True
                        break
                random_start = False  # the search goes on from the slice's best configuration
                continue
            ok = True
            if callback is None:
                break
            wrap_near(q, reference, robot.lower, robot.upper, robot.multiturn)  # the callback sees what is returned
            calls += 1
            if verdict(callback(q.copy())):
                break
            ok = False  # rejected: keep searching from a random configuration [E 8.1]
            rejected = q.copy()
            restarts += 1
            random_start = True
            if time.monotonic() >= deadline or iterations >= budget:
                break
        wrap_near(q, reference, robot.lower, robot.upper, robot.multiturn)  # as BioIK: the turn nearest the seed
        accepted, errors, pc, sc = problem.accept(q, self.acceptance)
        if polished:  # the other goals met and the exact check found it free; the covers may still touch
            accepted = polish.problem.accept(q, self.acceptance)[0]
        elif accepted and not ok and callback is not None:
            # the search gave up on an answer that passes the acceptance test: the callback
            # has the last word on it, unless it already rejected this very answer
            if rejected is None or not np.array_equal(q, rejected):
                calls += 1
                ok = verdict(callback(q.copy()))
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

    def _scene_search_ready(self, problem: Problem, polish: Polish, callback: Any) -> None:
        """Load (or compile, once per machine) the compiled search among obstacles before a
        solve's clock starts: one call with no time and no iterations, on this structure's
        first solve that would run it."""
        kernel = self.family.scene_search
        check = None if kernel is None or self._scene_loaded else compiled_check(problem, callback)
        if check is None:
            return
        with self._prepare_lock, compile_notice(f"the {self.family.name} search among obstacles"), \
                process_lock(f"prepare-{self.family.name}-scene"):
            if not kernel.signatures:  # (a numba property that costs ~10 µs: asked once per solver)
                state = np.zeros(scene.STATE)
                state[scene.MARK] = 1.0
                dof = self.robot.dof
                args = self._scene_args(problem, polish, self.robot.center(), np.empty(dof), np.empty(dof), state,
                                        self.robot.center(), check)
                kernel(*args)
            self._scene_loaded = True

    def _scene_args(self, problem: Problem, polish: Polish, q: np.ndarray, qp: np.ndarray, rejected: np.ndarray,
                    state: np.ndarray, reference: np.ndarray, check: ProofFirst) -> tuple:
        """The arguments of the family's compiled search among obstacles (`scene_search`)."""
        robot, rest = self.robot, polish.problem
        return (problem.ibuf, problem.fbuf, q, self.settings, problem.run, problem.stats, state, rest.ibuf, rest.fbuf, qp,
                rejected, reference, robot.lower, robot.upper, robot.multiturn, check.proof.arguments(), problem.report,
                rest.report)

    def _search_compiled(self, problem, q, random_start, clipped, reference, t0, deadline, budget, base,
                         check: ProofFirst, user, polish: Polish, position_tolerance, rotation_tolerance) -> Result:
        """`_search` with a polish as the family's compiled search among obstacles
        (`bioik.solvers.core.scene_search`), step for step, from q (or a random start),
        `problem` updated: it returns to Python only for coal, on what the cover cannot
        prove clear, for the user's callback (`user`), and to have the polish problem
        updated before its first polish."""
        robot = self.robot
        timed = budget >= UNLIMITED
        state = np.zeros(scene.STATE)
        state[scene.T0], state[scene.END], state[scene.CAP], state[scene.BASE] = t0, deadline, budget, base
        state[scene.TIMED], state[scene.MODE_], state[scene.USER] = timed, self._mode, user is not None
        (state[scene.CHECKED], state[scene.EPSILON]), = polish.checked
        state[scene.RANDOM] = random_start
        state[scene.MARK] = FIRST_SLICE if timed else FIRST_SLICE_ITERATIONS
        qp, rejected = np.empty(robot.dof), np.empty(robot.dof)  # the kernel's, kept between its calls
        kernel, args = self.family.scene_search, self._scene_args(problem, polish, q, qp, rejected, state, reference, check)
        while True:
            phase = stoppable(kernel, deadline, *args)
            if phase == scene.DONE:
                break
            if phase == scene.NEED_POLISH:
                polish.problem.update(polish.goals, reference, position_tolerance, rotation_tolerance, refresh=False)
                continue
            answer = qp if phase == scene.ASK_POLISH else q
            bits = int(state[scene.BITS])
            ok = bits == 0 or check.rest(answer, bits)
            if ok and user is not None:
                ok = verdict(user(answer.copy()))
            state[scene.VERDICT] = ok
        _, errors, pc, sc = problem.reported()
        return Result(q=q, success=bool(state[scene.OK] == 1.0 and state[scene.ACCEPTED] == 1.0), cost=pc + sc,
                      goal_errors=errors, time=time.monotonic() - t0, callback_calls=int(state[scene.CALLS]),
                      restarts=int(state[scene.N_RESTARTS]), iterations=int(state[scene.ITS]), seed_clipped=clipped,
                      solver=self.family.name, primary_cost=pc, secondary_cost=sc)

    @staticmethod
    def _near(problem: Problem, q: np.ndarray, mode: int, checked: list[tuple[int, float]]) -> bool:
        """Do the covers reach at most NEAR into anything at q, for every exact-checked
        collision goal (its residual times its ε: √Σ depth²)?"""
        errors = problem.accept(q, mode)[1]
        return all(errors[k, 0] * eps <= NEAR for k, eps in checked)

    def _polish(self, polish: Polish, q, deadline, budget, seed_k, mode, callback) -> tuple[bool, int, int]:
        """Search from q (a slice's best answer) on the polish problem alone, with at most
        POLISH_ITERATIONS of the `budget` left; if that succeeds, ask the callback (the exact
        check first). Returns (accepted, iterations, callback calls), q overwritten with the
        polished answer if accepted."""
        rest = polish.problem
        family, settings = self._run_for(rest)
        qp = q.copy()
        found, its, _ = family.search(rest, qp, deadline, min(POLISH_ITERATIONS, budget), (seed_k + 1) % 2**31, mode,
                                      settings, False)
        if not found:
            return False, its, 0
        robot = self.robot
        wrap_near(qp, q, robot.lower, robot.upper, robot.multiturn)
        if not verdict(callback(qp.copy())):
            return False, its, 1
        q[:] = qp
        return True, its, 1
