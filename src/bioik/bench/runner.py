"""Run an experiment: warm up, then time one plain `bioik.solve` call per target and check it.

The time is of the whole call, goal construction included (as in benchmarks/fkik.py); the
warm-up solves (compilation, caches) before it are not timed.

The answer is checked here on exact FK (within limits, position error ≤ 1e-5 m, rotation
angle ≤ 1e-5 rad, [R 3.2]; the `scale` test: 1e-3 m / 1e-2 rad, see
`targets.tolerances`), never taken from `Result.success`. By default that check is also
the solves' solution callback, as in [E 6]: a solver that offers an answer the check
rejects searches on (rejection sampling), and each row stores how many answers the
callback was asked about (`callback_calls`, the benchmark's "iterations" of [E Table 6.1])
beside the solver's own iterations. `callback=False` solves without one (the one-call
path of a plain pose query; callback_calls 0). Each target's row is
committed on its own, so Ctrl-C (KeyboardInterrupt) keeps what is done and a re-run of
the same experiment solves only the missing targets.

With a `pool` (`bioik bench run --scheduler`, see `bioik.bench.distributed`) the missing
targets are solved elsewhere in chunks (`Chunk`; a `warm` mode run is one chunk, each start
being the previous answer), each chunk by a `Job` made ready once per process (`Solving`);
a chunk's rows come back whole and are committed here, in one transaction, as they come.
With `max_iterations` among the parameters (`--max-iterations`), target i is solved with
the solver seed `seed + i` (`Job.random_seed`), so its row, all but `time_s`, is the same
on any machine and in any split, as long as no solve reaches the timeout.

The seed mode (see `targets`) picks each solve's start; targets are solved in index order,
so in `warm` mode a resumed run continues from the last stored solution. In `none` mode the
stored seed states are drawn as in `random` but not used.

A scene test (`scene:NAME`, see `bioik.bench.scenes`) adds the scenario's obstacles to
every solve: the collision goal (solvers that take it) and `scene=`, whose exact check is
the first acceptance test; the runner's own check then asks the exact check too. Goal set
rejection passes no scene: the exact check is the callback's first test (rejection sampling). A goal
set (`scene:NAME/SET`) adds its goals to every solve as well; a solver that does not take
them is refused (`scenes.GoalSetRefused`, before anything is written).

A peer solver (`peer:NAME`, see `peers`) goes through the same loop: its adapter is built
before the clock (model construction is not timed; a collision-aware peer's with the
test's scene), wrapped as a `bioik.solve`-shaped function, and its answers are checked
here like every solver's. Every row also keeps the solver's own claim (`Result.success`)
beside the check's verdict, so the report counts false successes; a peer's notes (what
its model cannot represent) go into its experiment.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

import bioik
from bioik.bench import peers
from bioik.bench.progress import progress_bar
from bioik.bench.store import ResultRow, ResultStore
from bioik.bench.targets import (DECOUPLED, DEFAULT, DEFAULT_TOLERANCES, PASSAGE, SCENE_SOLVERS, TABLE, Targets, benchmark_tip, check_seed_mode, default_seed_mode, generate,
                                 position_only, scenario_of, tip_errors, tips_of, tolerances)
from bioik.kinematics.robot import Robot

if TYPE_CHECKING:
    from bioik.bench.scenes import SceneProblem

WARMUP_SOLVES = 5
#: Most seconds of committed rows that live only in the store's write-ahead log while a run
#: goes on (also bounded by `store.WAL_AUTOCHECKPOINT`): what a copy of the .db without its
#: -wal may lack after a SIGKILL. A checkpoint costs ~10 ms (an fsync), between timed solves:
#: ~1 % of a run's wall time.
CHECKPOINT_INTERVAL_S = 1.0

SolveFn = Callable[..., Any]


@dataclass
class RunSummary:
    """What one `run_experiment` call did: the experiment id, targets solved now, interrupted?"""

    experiment: int
    n_targets: int
    ran: int = 0
    solved: int = 0
    skipped: int = 0
    interrupted: bool = False


def warm_up(robot: Robot, solver: str, timeout: float, params: dict[str, Any], solve: SolveFn = bioik.solve,
            callback: bool = True, scene: SceneProblem | None = None, tip: str | None = None, test: str = "fkik") -> None:
    """Compile and cache the solver (with a solution callback if the run has one, and the
    goals of `test` on `tip`: a scene test's, several tips, position goals) before timing;
    raises on an unknown solver or parameter."""
    tip = robot.tips[0] if tip is None else tip
    tips = tips_of(tip)
    rng = np.random.default_rng(12345)
    witnesses = None if scene is None else scene.witnesses()[-WARMUP_SOLVES:]  # reachable, clear
    for k in range(WARMUP_SOLVES):
        q, start = robot.random_configuration(rng, 2).reshape(2, robot.dof)
        T = robot.fk(q if witnesses is None else witnesses[k], links=tips)
        T = T[0] if len(tips) == 1 else T
        accept = acceptance_callback(robot, tip, T, test=test) if callback else None
        accept, extra = (accept, {}) if scene is None else scene.solve_arguments(accept)
        solve(robot, [*target_goals(tip, T, test), *(scene.goals if scene else ())], seed=start, timeout=timeout, solver=solver,
              callback=accept, **extra, **params)


def target_goals(tip: str, T: np.ndarray, test: str) -> list[bioik.Goal]:
    """The goals of one target: a pose goal per tip (T (4, 4) for one tip, (k, 4, 4) for k),
    or a position goal per tip for `fkik/position`."""
    tips = tips_of(tip)
    poses = [T] if len(tips) == 1 else list(T)
    if position_only(test):
        return [bioik.PositionGoal(t, P[:3, 3]) for t, P in zip(tips, poses, strict=True)]
    return [bioik.PoseGoal(t, P) for t, P in zip(tips, poses, strict=True)]


def acceptance_callback(robot: Robot, tip: str, T: np.ndarray, tol: tuple[float, float] = DEFAULT_TOLERANCES,
                        test: str = "fkik") -> Callable[[np.ndarray], bool]:
    """The benchmark's check of an answer for target `T` of `test`, as a solution callback."""
    return lambda q: check(robot, tip, T, q, tol, test)[0]


def check(robot: Robot, tip: str, T: np.ndarray, q: np.ndarray, tol: tuple[float, float] = DEFAULT_TOLERANCES,
          test: str = "fkik") -> tuple[bool, float, float]:
    """(accepted?, position error, rotation error) of `q` for target `T` (the largest over
    several tips): the benchmark's own test, at tol = (position m, rotation rad); the
    rotation is not checked for `fkik/position`."""
    dp, angle = tip_errors(robot, tip, T, q)
    ok = bool(robot.within_limits(q)) and dp <= tol[0] and (angle <= tol[1] or position_only(test))
    return ok, dp, angle


def fixed_seed(robot: Robot, seed_mode: str, seed_config: Any = None) -> np.ndarray | None:
    """The `fixed` mode's start configuration (the robot's centre unless `seed_config` is given),
    None for the other modes; ValueError for a config in another mode or of the wrong length."""
    if seed_mode != "fixed":
        if seed_config is not None:
            raise ValueError(f"a seed configuration is only used with seed mode 'fixed'; got seed mode {seed_mode!r}")
        return None
    return robot.center() if seed_config is None else robot.check(seed_config, "the seed configuration")


@dataclass(frozen=True)
class Job:
    """The solves of one experiment (without its targets), picklable: what a process needs to
    solve any of its targets (a dask worker gets it with each chunk, see `bioik.bench.distributed`)."""

    robot: Robot
    robot_name: str
    test: str
    solver: str
    tip: str
    timeout: float
    params: dict[str, Any]
    seed: int
    callback: bool = True
    solve: SolveFn = bioik.solve

    @property
    def key(self) -> tuple:
        """What tells two jobs apart (a worker keeps one `Solving` per key)."""
        return (self.robot.fingerprint, self.robot_name, self.test, self.solver, self.tip, self.timeout,
                json.dumps(self.params, sort_keys=True), self.seed, self.callback, self.solve.__module__, self.solve.__qualname__)

    def random_seed(self, i: int) -> dict[str, int]:
        """Target i's solver RNG seed (`seed + i`) when the solves have an iteration budget
        (`max_iterations` in the params, no `random_seed`): such a run gives the same rows on
        any machine and in any split. Otherwise none (the solver draws its own)."""
        return {"random_seed": self.seed + i} if "max_iterations" in self.params and "random_seed" not in self.params else {}

    def ready(self) -> Solving:
        """This job made ready in this process, warmed up."""
        solving = Solving(self)
        solving.warm_up()
        return solving


@dataclass(frozen=True)
class Chunk:
    """Targets of one experiment to solve in index order: their indices, poses and stored seed
    states, the seed mode, and in `warm` mode the stored solutions the first ones start from."""

    indices: list[int]
    poses: np.ndarray
    seeds: np.ndarray
    seed_mode: str
    solutions: dict[int, list[float]]

    @classmethod
    def of(cls, targets: Targets, indices: list[int], seed_mode: str, solutions: dict[int, list[float]]) -> Chunk:
        """The targets `indices` of `targets` (with the solutions warm mode starts from)."""
        return cls(indices, targets.poses[indices], targets.seeds[indices], seed_mode,
                   {i - 1: solutions[i - 1] for i in indices if i - 1 in solutions})

    def __len__(self) -> int:
        return len(self.indices)

    def split(self, size: int) -> list[Chunk]:
        """Chunks of at most `size` targets (none for no target); one in `warm` mode (each
        solve starts from the previous answer, so the targets are solved one after the other)."""
        if not self.indices:
            return []
        if self.seed_mode == "warm" or len(self) <= size:
            return [self]
        return [Chunk(self.indices[k:k + size], self.poses[k:k + size], self.seeds[k:k + size], self.seed_mode, {})
                for k in range(0, len(self), size)]


class Solving:
    """A `Job` ready in this process: its solve function (a peer's adapter, kinematic
    decoupling or the job's), its scene problem and tolerances. Raises PeerSkipped or
    GoalSetRefused for a pair that cannot run."""

    def __init__(self, job: Job):
        solve = job.solve
        self.scene: SceneProblem | None = None
        if scenario_of(job.test) or job.test == TABLE or job.solver in SCENE_SOLVERS:
            # the scene benchmark checks its answers with coal; a free-space run imports no collision library
            from bioik.bench import scenes
            if job.solver == DECOUPLED and solve is bioik.solve:  # GoalSetRefused off the tanks
                solve = scenes.decoupled_function(job.robot, job.test)
            if job.solver == PASSAGE and solve is bioik.solve:  # GoalSetRefused off the scene tests
                solve = scenes.passage_function(job.robot, job.test)
            if job.solver == DEFAULT and solve is bioik.solve:  # GoalSetRefused off the scene tests
                solve = scenes.default_function(job.test)
            if scenario_of(job.test) or job.test == TABLE:
                self.scene = scenes.SceneProblem.of(job.robot, job.test, job.solver)
        if peers.is_peer(job.solver) and solve is bioik.solve:
            scene = self.scene.scenario.scene if self.scene is not None and peers.scene_aware(job.solver) else None
            solve = peers.solve_function(peers.load_peer(job.solver, job.robot, job.tip, job.robot_name, scene))
        self.job = job
        self.solve = solve
        self.tol = tolerances(job.test)

    def warm_up(self) -> None:
        """Compile and cache the solver before timing (see `warm_up`)."""
        job = self.job
        warm_up(job.robot, job.solver, job.timeout, job.params, self.solve, job.callback, self.scene, job.tip, job.test)

    def target(self, i: int, T: np.ndarray, start: np.ndarray | None) -> ResultRow:
        """Solve target i (pose `T`) from `start`, timed, and check the answer."""
        job, scene, tol = self.job, self.scene, self.tol
        accept = acceptance_callback(job.robot, job.tip, T, tol, job.test) if job.callback else None
        accept, extra = (accept, {}) if scene is None else scene.solve_arguments(accept)
        goals = [*target_goals(job.tip, T, job.test), *(scene.goals if scene else ())]
        t0 = time.perf_counter()
        res = self.solve(job.robot, goals, seed=start, timeout=job.timeout, solver=job.solver, callback=accept,
                         position_tolerance=tol[0], rotation_tolerance=tol[1], **extra, **job.random_seed(i), **job.params)
        elapsed = time.perf_counter() - t0
        ok, dp, angle = check(job.robot, job.tip, T, res.q, tol, job.test)
        ok = ok and (scene is None or scene.check.checker.is_free(res.q))
        return ResultRow(i, ok, elapsed, int(res.callback_calls), int(res.iterations), int(res.restarts), dp, angle,
                         [float(x) for x in res.q], bool(res.success))

    def rows(self, chunk: Chunk) -> Iterator[ResultRow]:
        """The rows of `chunk`'s targets, in order, each as it is solved. The seed of each: none
        in `none` mode, the previous target's solution in `warm` mode when there is one, else
        the stored seed state (the fixed config in `fixed` mode); chosen before the clock."""
        solutions = dict(chunk.solutions)
        for k, i in enumerate(chunk.indices):
            if chunk.seed_mode == "none":
                start = None
            elif chunk.seed_mode == "warm" and i - 1 in solutions:
                start = np.asarray(solutions[i - 1], dtype=float)
            else:
                start = chunk.seeds[k]
            row = self.target(i, chunk.poses[k], start)
            solutions[i] = row.solution
            yield row

    def __call__(self, chunk: Chunk) -> list[ResultRow]:
        """Every row of `chunk` (a worker's task)."""
        return list(self.rows(chunk))


class Pool(Protocol):
    """Where chunks of targets are solved instead of in this process (`bioik.bench.distributed.DaskPool`)."""

    def chunk_size(self, n: int) -> int:
        """Targets per chunk for `n` targets."""

    def map(self, job: Any, chunks: list[Any]) -> Iterator[Any]:
        """`job.ready()(chunk)` of each chunk, run elsewhere, in the order they finish."""


def run_experiment(
    store: ResultStore,
    robot: Robot,
    robot_name: str,
    test: str,
    solver: str,
    n_targets: int,
    timeout: float,
    seed: int = 0,
    params: dict[str, Any] | None = None,
    solve: SolveFn = bioik.solve,
    targets: Targets | None = None,
    seed_mode: str | None = None,
    seed_config: Any = None,
    tip: str | None = None,
    callback: bool = True,
    pool: Pool | None = None,
    progress: bool = True,
) -> RunSummary:
    """Solve the targets of (robot_name, tip, test, n_targets, seed) missing from the store with `solver`.

    The robot's `fingerprint` goes into the experiment: BenchError if `robot_name` is
    stored with other content. KeyboardInterrupt stops the run after the last whole row
    (summary.interrupted). The store is checkpointed every CHECKPOINT_INTERVAL_S and when
    the run ends either way.

    Args:
        store: the results database.
        robot: the robot.
        robot_name: its name in the store.
        test: the test name.
        solver: the solver name.
        n_targets: how many targets.
        timeout: seconds per solve.
        seed: the targets' RNG seed (and, with `max_iterations` in `params`, target i's
            solver seed is seed + i: see `Job.random_seed`).
        params: the solver's parameters.
        solve: the function timed (default `bioik.solve`; with a `pool`, one that pickles by name).
        targets: targets already generated (None: generate them).
        seed_mode: the seed mode (None: the test's, `default_seed_mode`).
        seed_config: the `fixed` mode's start (default: the robot's centre), stored as
            every target's seed state.
        tip: the link posed (default: the robot's one tip, `targets.benchmark_tip`, or
            `targets.tip` when `targets` are passed).
        callback: the check is the solves' solution callback (see the module docstring).
        pool: solve chunks of the missing targets there (`bioik.bench.distributed.DaskPool`),
            each chunk's rows stored in one transaction as it comes back; None: one by one here.
        progress: show a progress bar (on a terminal).

    Returns:
        A `RunSummary`: the experiment id, targets solved now, interrupted or not.
    """
    opened = open_experiment(store, robot, robot_name, test, solver, n_targets, timeout, seed, params, solve, targets,
                             seed_mode, seed_config, tip, callback)
    chunk = opened.chunk
    if pool is None:
        batches: Iterator[list[ResultRow]] = ([row] for row in opened.solving.rows(chunk))
    else:
        batches = pool.map(opened.job, chunk.split(pool.chunk_size(len(chunk))))
    return store_rows(store, opened, batches, progress)


@dataclass(frozen=True)
class Opened:
    """An experiment opened in the store: its summary so far (id, targets, those already
    stored), its job made ready here, and the chunk of its missing targets."""

    summary: RunSummary
    job: Job
    solving: Solving
    chunk: Chunk


def open_experiment(
    store: ResultStore,
    robot: Robot,
    robot_name: str,
    test: str,
    solver: str,
    n_targets: int,
    timeout: float,
    seed: int = 0,
    params: dict[str, Any] | None = None,
    solve: SolveFn = bioik.solve,
    targets: Targets | None = None,
    seed_mode: str | None = None,
    seed_config: Any = None,
    tip: str | None = None,
    callback: bool = True,
) -> Opened:
    """The experiment of these arguments (those of `run_experiment`) in the store, created if
    new, with its job checked and warmed up here; nothing solved yet."""
    params = dict(params or {})
    if targets is not None:
        if tip not in (None, targets.tip):
            raise ValueError(f"the targets are for tip {targets.tip!r}, not {tip!r}")
        tip = targets.tip
    tip = benchmark_tip(robot, tip, robot_name)
    if peers.is_peer(solver) and solve is bioik.solve:  # raises PeerSkipped if it cannot run here
        if params:
            raise ValueError(f"{solver} takes no solver parameters; got {', '.join(sorted(params))}")
        peers.check_test(solver, test)
    seed_mode = check_seed_mode(default_seed_mode(test) if seed_mode is None else seed_mode)
    fixed = fixed_seed(robot, seed_mode, seed_config)
    targets = generate(robot, test, n_targets, seed, tip) if targets is None else targets
    if fixed is not None:
        targets = replace(targets, seeds=np.tile(fixed, (len(targets), 1)))
    job = Job(robot, robot_name, test, solver, tip, timeout, params, seed, callback, solve)
    solving = Solving(job)
    store.check_robot(robot_name, robot.fingerprint)  # before the warm-up: a refusal costs no compilation
    solving.warm_up()
    adapter = getattr(solving.solve, "adapter", None)  # a peer's: what its model leaves out goes beside its results
    eid = store.experiment(robot_name, test, solver, params, timeout, targets, seed, seed_mode, fixed, robot_hash=robot.fingerprint,
                           callback=callback, notes=adapter.notes if adapter is not None else ())
    targets = store.targets(eid)
    done = store.done(eid)
    solutions = {r.target_index: r.solution for r in store.results(eid)} if seed_mode == "warm" else {}
    chunk = Chunk.of(targets, [i for i in range(len(targets)) if i not in done], seed_mode, solutions)
    return Opened(RunSummary(eid, len(targets), skipped=len(done)), job, solving, chunk)


def store_rows(store: ResultStore, opened: Opened, batches: Iterable[list[ResultRow]], progress: bool = True) -> RunSummary:
    """Store the rows of `opened`'s experiment, each batch in one transaction as it comes
    (a progress bar on a terminal); KeyboardInterrupt stops after the last whole batch
    (summary.interrupted). The store is checkpointed every CHECKPOINT_INTERVAL_S and at the end."""
    summary = replace(opened.summary)
    job = opened.job
    bar = progress_bar(f"{job.robot_name}/{job.test}/{job.solver}", summary.n_targets, summary.skipped, disable=not progress)
    checkpointed = time.monotonic()
    try:
        for rows in batches:
            store.add_results(summary.experiment, rows)
            summary.ran += len(rows)
            summary.solved += sum(row.solved for row in rows)
            bar.set_postfix_str(f"{summary.solved}/{summary.ran} solved", refresh=False)
            bar.update(len(rows))
            if time.monotonic() - checkpointed >= CHECKPOINT_INTERVAL_S:
                store.checkpoint(wait=False)
                checkpointed = time.monotonic()
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        bar.close()
        store.checkpoint()  # the .db alone now holds every row of this run
    return summary
