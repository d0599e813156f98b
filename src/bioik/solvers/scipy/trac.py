"""`trac`: a TRAC-IK-style race of the `kdl` solver and SQP, with TRAC-IK's modes [E 3.1.2].

TRAC-IK runs two solvers concurrently and returns whichever finds a valid answer first:
KDL's Newton–Raphson with random restarts [E Alg. 3.1], and an SQP solver (SLSQP) on the
sum-of-squares Cartesian error Φ = p_err·p_errᵀ with the joint limits as bounds, also
restarted from random configurations [E 3.1.2]. SQP handles the cases where the Jacobian
method stalls against joint limits; the Jacobian method is the faster one on most queries.

Here too they race (`concurrent`, the default): SLSQP (scipy) in the calling thread, and
on a worker thread the compiled `kdl` search with its restarts, one kernel call without
the GIL until it finds a valid answer. The race has a stop flag: the winner raises it
(kdl's kernel itself, so SLSQP, which holds the GIL, stops at once instead of at Python's
next thread switch, up to 5 ms later), and the other reads it (SLSQP at each evaluation,
kdl's kernel every 8 iterations). Which one wins depends on the threads' timing, so a
race is not reproducible. With `concurrent=0`, or
with an iteration budget (`max_iterations`, which asks for a reproducible run and counts
both searches' iterations exactly), the two take turns on one thread, deterministically
(a run is reproducible from its random seed and iteration budget): kdl first runs one whole attempt from the seed — most queries end
there, sooner than scipy's SLSQP even sets up — then SLSQP runs `sqp_slice` iterations,
kdl `kdl_slice`, and so on (50 kdl iterations take about as long as one scipy SLSQP
iteration here). To keep SLSQP's state (its quasi-Newton Hessian and line search) across
turns — restarting SLSQP every few iterations from its last x roughly halves its success —
SLSQP is the outer loop and the kdl turns run inside its per-iteration callback. In both
modes the two start from the seed, then from random configurations: kdl after
`attempt_iterations` steps or a stall (as `kdl` itself), SLSQP when it converges to a
non-solution, fails, or after `sqp_attempt_iterations`.
The SQP objective is the weighted sum of squared pose residuals with its exact gradient
(`scipy_objective.compiled_cost`). Every candidate passes the one acceptance test
(`Problem.accept`, exact FK); iterations of both solvers count against the budget.

Modes (separate solver names, as TRAC-IK's SolveType [E 3.1.2]):
  `trac`          Speed: the first valid solution wins.
  `trac_distance` Distance: search until the deadline or the iteration budget, return the
                  valid solution nearest the seed (‖q − seed‖ after turn wrapping; with no
                  seed, the first valid solution, as in speed mode).
  `trac_manip1`   Manip1: ... the valid solution with the largest manipulability
                  μ = √det(J Jᵀ).
  `trac_manip2`   Manip2: ... the valid solution with the smallest condition number
                  κ = σ_max/σ_min of J.
J is the 6×n geometric Jacobian of the goal link (of all primary pose-type goal links,
stacked). In the non-speed modes each solver restarts from a random configuration after
each valid solution, to collect different ones; they stop early only when a solution is
the seed itself (distance 0). Without a budget they use the whole timeout, as TRAC-IK.
If nothing valid is found, q is the configuration of lowest primary cost seen.
"""

from __future__ import annotations

import threading
import time
import weakref

import numpy as np

from bioik.goals.base import ORIENTATION, POSE, POSITION
from bioik.goals.joints import REFERENCE
from bioik.goals.kernels import KIND, OUT1, SECONDARY
from bioik.problem.layout import BUDGET, DEADLINE, ITERATIONS, MODE, RANDOM_START, RESTARTS, SEED, unpack
from bioik.problem import Problem
from bioik.kinematics.jacobian import fk_jacobians
from bioik.kinematics.limits import wrap_near
from bioik.solvers.local import kdl
from bioik.solvers.scipy.objective import compiled_cost, make_buffers, scipy_bounds, single_threaded_blas
from bioik.solvers.core.islands import run_islands
from bioik.solvers.core.params import UNLIMITED
from bioik.solvers.core.settings import slots
from bioik.solvers.core.family import POSE_KINDS, Family

#: kdl's parameters first (passed to its kernel as they are), then the race's.
DEFAULTS = {
    **kdl.DEFAULTS,
    "kdl_slice": 50,  # kdl iterations per turn (≈ the time of one scipy SLSQP iteration here)
    "sqp_slice": 1,  # SLSQP iterations per turn
    "sqp_attempt_iterations": 100,  # SLSQP iterations before a random restart
    "concurrent": 1,  # 1: the two race on two threads; 0: they take turns on one (reproducible)
}

SPEED, DISTANCE, MANIP1, MANIP2 = 0, 1, 2, 3
#: Longest wait (s) of SLSQP for kdl's thread to enter its kernel (a thread wakes in ~0.1 ms).
KDL_START_WAIT = 0.002
#: Positions in the settings: the parameters, then the registry's mode.
SETTING = slots(DEFAULTS, "mode")
MODE_NAMES = {SPEED: "speed", DISTANCE: "distance", MANIP1: "manip1", MANIP2: "manip2"}


#: Per prepared problem: scratch buffers and scipy bounds (built once, not per solve).
_SCRATCH: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _scratch(problem: Problem) -> tuple:
    s = _SCRATCH.get(problem)
    if s is None:
        s = _SCRATCH[problem] = (make_buffers(problem), scipy_bounds(problem), np.empty(problem.robot.dof))
        seg, frames, J, r, Jr, scratch, e, Je = s[0]
        compiled_cost(problem.ibuf, problem.fbuf, problem.robot.center(), seg, frames, J, r, Jr, scratch, e, Je, s[2])  # load it now
    return s


class _Stop(Exception):
    """The race is over (speed mode found a solution, or the budget or deadline is spent)."""


class _Valid(Exception):
    """SLSQP reached a valid solution in a non-speed mode: restart it from a random start."""


def manipulability(J: np.ndarray) -> float:
    """μ = √det(J Jᵀ) (the product of the singular values of J)."""
    return float(np.prod(np.linalg.svd(J, compute_uv=False)))


def condition_number(J: np.ndarray) -> float:
    """κ = σ_max/σ_min of J (inf at a singularity)."""
    s = np.linalg.svd(J, compute_uv=False)
    return float(s[0] / s[-1]) if s[-1] > 0.0 else np.inf


def goal_jacobian(problem: Problem, q: np.ndarray, buffers: tuple) -> np.ndarray:
    """The 6×n Jacobians of the links of the primary pose-type goals at q, stacked."""
    prob = unpack(problem.ibuf, problem.fbuf)
    seg_i, seg_f, out_seg, out_tf, gi = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf, prob.gi
    seg, frames, J = np.empty_like(buffers[0]), np.empty_like(buffers[1]), np.empty_like(buffers[2])  # SLSQP may be using those
    fk_jacobians(seg_i, seg_f, out_seg, out_tf, q, seg, frames, J)
    links = []
    for g in range(gi.shape[0]):
        o = int(gi[g, OUT1])
        if not gi[g, SECONDARY] and gi[g, KIND] in (POSE, POSITION, ORIENTATION) and o not in links:
            links.append(o)
    return np.vstack([J[6 * o : 6 * o + 6] for o in links])


class _Race:
    """State of one race: both solvers' progress, the budget, and the solutions found."""

    def __init__(self, problem, q, deadline, budget, seed, accept_mode, settings, random_start):
        robot = problem.robot
        self.problem, self.robot = problem, robot
        self.deadline, self.budget, self.accept_mode = deadline, budget, accept_mode
        self.kdl_settings = np.ascontiguousarray(settings[: len(kdl.DEFAULTS)])
        self.attempt_iterations = max(1, int(settings[SETTING.attempt_iterations]))
        self.kdl_slice = max(1, int(settings[SETTING.kdl_slice]))
        self.sqp_slice = max(1, int(settings[SETTING.sqp_slice]))
        self.sqp_attempt = max(1, int(settings[SETTING.sqp_attempt_iterations]))
        self.trac_mode = int(settings[SETTING.mode])
        # an iteration budget asks for a reproducible run: turns (see the module docstring)
        self.concurrent = settings[SETTING.concurrent] != 0.0 and budget >= UNLIMITED
        self.seed = int(seed)
        self.kdl_turns = 0
        self._rng: np.random.Generator | None = None
        self.buffers, self.bounds, self.grad = _scratch(problem)
        self.iterations = 0
        self.restarts = 0
        # distance is measured to the seed; with no seed the first valid solution wins
        self.first_wins = self.trac_mode == SPEED or (self.trac_mode == DISTANCE and random_start)
        self.reference = problem.vdata[:, REFERENCE].copy()
        self.chosen: np.ndarray | None = None
        self.chosen_score = np.inf
        self.best = np.clip(q, robot.lower, robot.upper) if not random_start else robot.center()
        self.best_cost = np.inf
        #: Raised when the race is over: by the winner in speed mode, by the search that
        #: reaches the deadline or budget, or by SLSQP's end; kdl's kernel reads it itself.
        self.stop = np.zeros(1, dtype=np.int64)
        self.kdl_started = threading.Event()
        # kdl: continue from kdl_q unless a restart is due
        self.kdl_q = q.copy() if not random_start else np.empty(robot.dof)
        self.kdl_random = random_start
        self.kdl_attempt = 0
        # SLSQP: iterations of the current attempt and of the current turn
        self.sqp_its = 0
        self.sqp_turn = 0
        # racing on two threads: kdl gets buffers of its own, and the shared record
        # (iterations, acceptance buffers, the answers) is changed under a lock
        self.lock = threading.Lock()
        if self.concurrent:
            self.kdl_fbuf, self.kdl_run, self.kdl_stats = problem.fbuf.copy(), problem.run.copy(), problem.stats.copy()
        else:
            self.kdl_fbuf, self.kdl_run, self.kdl_stats = problem.fbuf, problem.run, problem.stats

    # -- shared --------------------------------------------------------------------------
    @property
    def rng(self) -> np.random.Generator:
        """For SLSQP's random starts (made on first use: most speed-mode races never need it)."""
        if self._rng is None:
            self._rng = np.random.default_rng(self.seed)
        return self._rng

    @property
    def done(self) -> bool:
        return bool(self.stop[0])

    def finish(self) -> None:
        self.stop[0] = 1

    def spent(self) -> bool:
        return self.done or self.iterations >= self.budget or time.monotonic() >= self.deadline

    def count(self, iterations: int, restarts: int = 0) -> None:
        with self.lock:
            self.iterations += iterations
            self.restarts += restarts

    def score(self, x: np.ndarray) -> float:
        """Lower is better: the mode's criterion at a valid solution x."""
        if self.trac_mode == DISTANCE:
            w = x.copy()
            r = self.robot
            wrap_near(w, self.reference, r.lower, r.upper, r.multiturn)
            return float(np.linalg.norm(w - self.reference))
        if self.trac_mode == MANIP1:
            return -manipulability(goal_jacobian(self.problem, x, self.buffers))
        if self.trac_mode == MANIP2:
            return condition_number(goal_jacobian(self.problem, x, self.buffers))
        return 0.0

    def check(self, x: np.ndarray) -> bool:
        """Run x through the acceptance test; record it; True if valid (raises _Stop when
        the race is won)."""
        with self.lock:
            if self.first_wins and self.chosen is not None:
                raise _Stop  # the other search has won meanwhile
            ok, _, pc, _ = self.problem.accept(x, self.accept_mode)
            if pc < self.best_cost:
                self.best_cost, self.best = pc, x.copy()
            if not ok:
                return False
            if self.first_wins:
                self.chosen = x.copy()
                self.finish()
                raise _Stop
            s = self.score(x)
            if self.chosen is None or s < self.chosen_score:
                self.chosen, self.chosen_score = x.copy(), s
            if self.trac_mode == DISTANCE and s <= 1e-12:
                self.finish()  # the seed itself is a solution: nothing can be nearer
                raise _Stop
            return True

    # -- kdl turn --------------------------------------------------------------------------
    def kdl_turn(self, slice_: int = 0) -> None:
        """kdl_slice (or slice_) iterations of the kdl kernel, continuing its current attempt."""
        if self.spent():
            self.finish()
            raise _Stop
        budget = min(slice_ or self.kdl_slice, self.attempt_iterations - self.kdl_attempt, self.budget - self.iterations)
        run, stats = self.kdl_run, self.kdl_stats
        run[DEADLINE], run[BUDGET], run[SEED], run[MODE], run[RANDOM_START] = self.deadline, budget, (self.seed + 104729 * self.kdl_turns) % 2**31, self.accept_mode, self.kdl_random
        self.kdl_turns += 1
        kdl.kdl_search(self.problem.ibuf, self.kdl_fbuf, self.kdl_q, self.kdl_settings, run, stats)
        its, inner_restarts = int(stats[ITERATIONS]), int(stats[RESTARTS])
        self.count(max(its, 1), inner_restarts)
        self.kdl_attempt += max(its, 1)
        valid = self.check(self.kdl_q)  # valid, or at least the best approximation so far
        # the next turn continues from the best point of this one, unless this attempt is
        # over: a valid solution (non-speed modes), kdl restarted inside (stalled), or
        # attempt_iterations used
        self.kdl_random = valid or inner_restarts > 0 or self.kdl_attempt >= self.attempt_iterations
        if self.kdl_random:
            self.kdl_attempt = 0
            self.count(0, 1)

    # -- SLSQP -------------------------------------------------------------------------------
    def kdl_side(self) -> None:
        """kdl's side of a concurrent race, on a worker thread: one compiled search with
        restarts until a valid answer, the deadline or the other side's win (the stop flag,
        which the kernel reads, and in speed mode raises when it wins: SLSQP stops without
        waiting for this thread to get the GIL back); in the other modes, again from a
        random configuration after each answer."""
        run, stats = self.kdl_run, self.kdl_stats
        try:
            while not self.spent():
                run[DEADLINE], run[BUDGET], run[SEED], run[MODE], run[RANDOM_START] = (
                    self.deadline, UNLIMITED, (self.seed + 104729 * self.kdl_turns) % 2**31, self.accept_mode, self.kdl_random)
                self.kdl_turns += 1
                self.kdl_started.set()  # SLSQP may take the GIL now: the kernel below runs without it
                kdl.kdl_race(self.problem.ibuf, self.kdl_fbuf, self.kdl_q, self.kdl_settings, run, stats, self.stop,
                             self.first_wins)
                self.count(max(int(stats[ITERATIONS]), 1), int(stats[RESTARTS]))
                self.check(self.kdl_q)  # a valid answer, or the best approximation so far
                self.kdl_random = True
        except _Stop:
            pass

    def sqp_fun(self, x: np.ndarray):
        if self.done or time.monotonic() >= self.deadline:
            self.finish()
            raise _Stop
        x = np.clip(x, self.robot.lower, self.robot.upper)
        p, (seg, frames, J, r, Jr, scratch, e, Je) = self.problem, self.buffers
        value = compiled_cost(p.ibuf, p.fbuf, x, seg, frames, J, r, Jr, scratch, e, Je, self.grad)
        if self.check(x):
            raise _Valid
        return value, self.grad.copy()

    def sqp_callback(self, xk) -> None:
        """After each SLSQP iteration: count it, and give kdl its turn every sqp_slice."""
        self.count(1)
        self.sqp_its += 1
        self.sqp_turn += 1
        if not self.concurrent and self.sqp_turn >= self.sqp_slice:
            self.sqp_turn = 0
            self.kdl_turn()
        if self.spent():
            self.finish()
            raise _Stop

    def sqp_attempt_run(self, start: np.ndarray) -> None:
        """One SLSQP attempt from start (kdl turns interleaved); returns when it ends."""
        from scipy.optimize import minimize  # on use: importing scipy.optimize takes ≈ 0.4 s
        self.sqp_its = 0
        try:
            res = minimize(self.sqp_fun, start, jac=True, method="SLSQP", bounds=self.bounds, callback=self.sqp_callback,
                           options={"maxiter": self.sqp_attempt, "ftol": 1e-20})
        except _Valid:
            self.count(1)  # the unfinished iteration that reached the solution
            return
        extra = int(res.nit) - self.sqp_its  # iterations the callback did not see
        if extra > 0:
            self.count(extra)
        elif self.sqp_its == 0:
            self.count(1)  # every attempt costs at least one iteration
        self.check(np.clip(res.x, self.robot.lower, self.robot.upper))

    def sqp_race(self, q: np.ndarray, random_start: bool) -> None:
        """SLSQP attempts (with kdl's turns inside them when not concurrent) until the race is over."""
        try:
            start = self.robot.random_configuration(self.rng) if random_start else np.clip(q, self.robot.lower, self.robot.upper)
            while not self.spent():
                self.sqp_attempt_run(start)
                if self.spent():
                    break
                start = self.robot.random_configuration(self.rng)
                self.count(0, 1)
        except _Stop:
            pass
        finally:
            self.finish()  # over for kdl too (its kernel reads the flag)

    def run(self, q: np.ndarray, random_start: bool) -> None:
        if self.concurrent:
            def sqp_side() -> None:
                # SLSQP holds the GIL most of the time: let kdl's thread reach its kernel first,
                # or it could wait for Python's thread switch (5 ms) before it even starts
                self.kdl_started.wait(min(KDL_START_WAIT, max(self.deadline - time.monotonic(), 0.0)))
                self.sqp_race(q, random_start)

            run_islands([sqp_side, self.kdl_side], self.stop)
            return
        try:
            # kdl first, one whole attempt from the seed: it solves most queries in less time
            # than SLSQP takes to set up (as with TRAC-IK's threads, the first to finish wins)
            self.kdl_turn(self.attempt_iterations)
        except _Stop:
            return
        self.sqp_race(q, random_start)


def trac_search(problem: Problem, q, deadline, budget, seed, mode, settings, random_start=False):
    """Family.search protocol: (found, iterations, restarts); q gets the answer (or the
    lowest-cost configuration seen if no valid one was found)."""
    race = _Race(problem, q, deadline, budget, seed, int(mode), settings, bool(random_start))
    with single_threaded_blas():
        race.run(q.copy(), bool(random_start))
    if race.chosen is not None:
        q[:] = race.chosen
        return True, race.iterations, race.restarts
    q[:] = race.best
    return False, race.iterations, race.restarts


FAMILIES = (
    Family("trac", DEFAULTS, trac_search, kinds=POSE_KINDS, secondary_goals=False, fixed=(SPEED,),
           description="TRAC-IK-style race of kdl and SLSQP, first valid wins (speed mode) [E 3.1.2]"),
    Family("trac_distance", DEFAULTS, trac_search, kinds=POSE_KINDS, secondary_goals=False, fixed=(DISTANCE,),
           description="TRAC-IK race, distance mode: the solution nearest the seed [E 3.1.2]"),
    Family("trac_manip1", DEFAULTS, trac_search, kinds=POSE_KINDS, secondary_goals=False, fixed=(MANIP1,),
           description="TRAC-IK race, manip1 mode: maximal sqrt(det(J Jᵀ)) [E 3.1.2]"),
    Family("trac_manip2", DEFAULTS, trac_search, kinds=POSE_KINDS, secondary_goals=False, fixed=(MANIP2,),
           description="TRAC-IK race, manip2 mode: minimal condition number of J [E 3.1.2]"),
)
