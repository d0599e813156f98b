"""`bioik bench tune`: solver parameter tuning with Optuna [E 5.2, 8.16].

As in [E 5.2], the search is Optuna's Tree-structured Parzen Estimator (`TPESampler`,
seeded with --seed, so a study is reproducible up to timing noise). Each trial runs the
solver with the trial's parameters on one fixed target set — the `bioik bench run` targets
of (robot, test, --targets, --seed), solved and checked by `bioik.bench.runner` (exact FK,
the benchmark's own acceptance test, never the solver's word) — and is scored as in [E 8.16]:

    score = mean over the targets of (the solve time if the answer was accepted, else the timeout)

which is minimised. Trial 0 of a new study is the solver's default parameters (enqueued),
so the report can compare the best found with the defaults.

A scene test (`scene:NAME`, `scene:NAME/SET`, e.g. `scene:HydrogenTank/line`) is tuned on
its stored targets among the scenario's obstacles exactly as `bioik bench run --test scene`
solves them (the runner's `Solving`: the collision goal, the goal set's goals, the exact
check as the first acceptance test and again on the answer), as [E 8.16] tuned BioIK on
Random, TableObjects and the LineGoal on HydrogenTank. A solver that does not take the goal
set's goals is refused (`GoalSetRefused`) before anything is written.

Storage: one SQLite file (--db) holds both the Optuna study (its RDB storage,
`sqlite:///PATH`, `load_if_exists=True`) and, in the results-DB tables of
`bioik.bench.store`, every trial's per-target results (one experiment per parameter set;
`bioik bench report PATH` lists them). Re-running the same command resumes: completed
trials are kept and new ones are added until the study has --trials completed trials; a
trial interrupted by Ctrl-C is marked failed (not counted), its finished targets stay in
the results tables and are reused if the same parameters come up again. The study name is
ROBOT-TEST-SOLVER unless --study is given; the study remembers its settings (tip, targets,
timeout, seed, fixed parameters, search space) and refuses to be resumed with others. The
tip is --tip, or the robot's one tip (`targets.benchmark_tip`). `--storage URL` puts the
study in another database (any SQLAlchemy URL, e.g. a PostgreSQL server several runs share);
the per-trial results stay in --db.

On a dask cluster (`--scheduler`, `bioik.bench.distributed`) as many trials run at once as
the cluster has workers: this process asks the study for a trial whenever a worker is free
(TPE's constant liar keeps trials running together apart), a worker solves the trial's
targets, and this process stores the rows and tells the study the score. A progress bar
counts the completed trials (on a terminal), above it a line per trial.

Search space. For the BioIK 2 solvers (`bio2`, `bio2_memetic`, `bio2_memetic_l`,
`bio2_lm`) it is [E Table 8.10], whose parameter names are bioik's own (`bio2.DEFAULTS`,
after [E Table 7.1]), all integers:

    [E Table 8.10]          bioik parameter           range
    population_size         population_size           1 … 20
    child_count             child_count               0 … 100
    elite_count             elite_count               0 … population_size (of the trial)
    threads                 threads                   1 … 8   (islands, each on a thread of its own)
    species_count           species_count             1 … 20
    memetic_evolution_gens  memetic_evolution_gens    1 … 50
    memetic_opt_gens        memetic_opt_gens          1 … 50

Their other parameters (wipeout_probability, momentum_mix, memetic_step, lm_damping,
lm_stall_ratio; not in the table) stay at their defaults unless given a range. Note
bioik's default `threads` is 1, not BioIK 2's 4 (see `bio2.DEFAULTS`), so trial 0 uses 1.
Other solvers tune all their DEFAULTS with ranges derived from the default d: an integer
d > 0 → d//4 … 4d (at least 1), 0 → 0 … 10, a switch (1 on, 0 off) → 0 … 1; a float d > 0 → log-uniform d/10 … 10d,
capped at 1 when d < 1 (ratios, scales, dampings); anything else needs an explicit range.
`--space NAME=LO:HI[:log]` sets or adds a range (integers when LO and HI are), and
`--param NAME=VALUE` fixes a parameter (not tuned, used by every trial, the defaults'
trial included).
"""

from __future__ import annotations

import json
import math
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import bioik
from bioik.bench.progress import progress_bar
from bioik.bench.runner import SolveFn
from bioik.bench.store import ResultRow
from bioik.solvers.core.params import SPECS, SWITCH

if TYPE_CHECKING:
    from bioik.bench.distributed import DaskPool

#: [E Table 8.10]: (name, lower, upper); an upper bound given as a name is that parameter's
#: value in the same trial (elite_count ≤ population_size).
TABLE_8_10: tuple[tuple[str, int, int | str], ...] = (
    ("population_size", 1, 20),
    ("child_count", 0, 100),
    ("elite_count", 0, "population_size"),
    ("threads", 1, 8),
    ("species_count", 1, 20),
    ("memetic_evolution_gens", 1, 50),
    ("memetic_opt_gens", 1, 50),
)

INSTALL_HINT = "pip install -e '.[tune]'"


@dataclass(frozen=True)
class Range:
    """One tuned parameter: integers or floats in [low, high] (log scale if `log`); `high_of`
    names a parameter whose value in the trial is the upper bound instead of `high`."""

    name: str
    low: float
    high: float
    integer: bool = False
    log: bool = False
    high_of: str | None = None

    def describe(self) -> str:
        high = self.high_of or (int(self.high) if self.integer else self.high)
        low = int(self.low) if self.integer else self.low
        return f"{self.name}={low}:{high}{':log' if self.log else ''}"


def _optuna():
    try:
        import optuna
    except ImportError:
        raise ValueError(f"parameter tuning needs optuna: {INSTALL_HINT}") from None
    return optuna


def _family(solver: str):
    from bioik.solvers.registry import SOLVERS

    if solver not in SOLVERS:
        raise ValueError(f"unknown solver {solver!r}; known: {', '.join(bioik.solvers.names())}")
    return SOLVERS[solver]


def is_table_8_10(solver: str) -> bool:
    """Whether `solver` has every parameter of [E Table 8.10] (the BioIK 2 solvers)."""
    defaults = _family(solver).defaults
    return all(name in defaults for name, _, _ in TABLE_8_10)


def default_range(name: str, default: Any) -> Range:
    """The range tuned for a parameter with this default (rules in the module docstring);
    ValueError when none can be derived."""
    if isinstance(default, bool) or not isinstance(default, (int, float)) or not math.isfinite(default):
        raise ValueError(f"no range can be derived for parameter {name!r} (default {default!r}); "
                         f"give --space {name}=LO:HI or fix it with --param {name}=VALUE")
    if SPECS.get(name) is SWITCH:
        return Range(name, 0, 1, integer=True)
    if isinstance(default, int):
        if default < 0:
            raise ValueError(f"no range can be derived for parameter {name!r} (default {default}); give --space {name}=LO:HI")
        return Range(name, 0, 10, integer=True) if default == 0 else Range(name, max(1, default // 4), 4 * default, integer=True)
    if default <= 0:
        raise ValueError(f"no range can be derived for parameter {name!r} (default {default}); give --space {name}=LO:HI")
    high = min(10 * default, 1.0) if default < 1 else 10 * default
    return Range(name, default / 10, high, log=True)


def parse_range(text: str) -> Range:
    """`NAME=LO:HI` or `NAME=LO:HI:log` (integers when LO and HI both are); ValueError if malformed."""
    name, sep, spec = text.partition("=")
    parts = spec.split(":")
    log = len(parts) == 3 and parts[2] == "log"
    if not sep or not name or len(parts) not in (2, 3) or (len(parts) == 3 and not log):
        raise ValueError(f"expected --space NAME=LO:HI or NAME=LO:HI:log; got {text!r}")
    try:
        low, high = (json.loads(p) for p in parts[:2])
    except json.JSONDecodeError:
        low = high = None
    # finite as floats: an int past the float range is not (math.isfinite raised OverflowError on it)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) <= sys.float_info.max for v in (low, high)):
        raise ValueError(f"--space {text!r}: LO and HI must be numbers")
    if low > high:
        raise ValueError(f"--space {text!r}: LO must be ≤ HI")
    if log and low <= 0:
        raise ValueError(f"--space {text!r}: a log range needs LO > 0")
    return Range(name, low, high, integer=isinstance(low, int) and isinstance(high, int), log=log)


def search_space(solver: str, ranges: Iterable[Range] = (), fixed: Mapping[str, Any] | None = None) -> list[Range]:
    """The ranges tuned for `solver`: [E Table 8.10] for the BioIK 2 solvers, else every
    default parameter's derived range; `ranges` replace or add, `fixed` names are removed.
    ValueError for a name the solver does not have, or one both fixed and given a range."""
    defaults = _family(solver).defaults
    fixed = dict(fixed or {})
    given = {r.name: r for r in ranges}
    for name in [*given, *fixed]:
        if name not in defaults:
            raise ValueError(f"unknown parameter {name!r} for solver {solver!r}; known: {', '.join(defaults)}")
    both = sorted(set(given) & set(fixed))
    if both:
        raise ValueError(f"parameter {both[0]!r} is both fixed (--param) and tuned (--space)")
    if is_table_8_10(solver):
        space = {name: Range(name, low, high if isinstance(high, int) else 0, integer=True,
                             high_of=high if isinstance(high, str) and high not in fixed else None)
                 for name, low, high in TABLE_8_10}
        for name, low, high in TABLE_8_10:  # an upper bound fixed by --param is that value
            if isinstance(high, str) and high in fixed:
                space[name] = Range(name, low, max(low, int(fixed[high])), integer=True)
    else:
        space = {}
        for name, default in defaults.items():
            if name not in fixed and name not in given:
                space[name] = default_range(name, default)
    space.update(given)
    out = [r for name, r in space.items() if name not in fixed]
    return sorted(out, key=lambda r: r.high_of is not None)  # a bound's parameter is suggested first


def study_name(robot: str, test: str, solver: str) -> str:
    """The default study name."""
    return f"{robot}-{test}-{solver}"


def score(rows: Iterable[ResultRow], timeout: float) -> float:
    """[E 8.16]: the mean over the results of (time if accepted, else `timeout`), seconds."""
    values = [r.time_s if r.solved else timeout for r in rows]
    return math.fsum(values) / len(values)


@dataclass
class TuneResult:
    """What a `tune` call left in the study: trial counts, the best and the defaults' trial."""

    study: str
    completed: int
    ran: int
    best_number: int | None
    best_score: float | None
    best_params: dict[str, Any]
    default_number: int | None
    default_score: float | None
    default_params: dict[str, Any]
    interrupted: bool = False


def _suggest(trial: Any, r: Range) -> Any:
    high = trial.params[r.high_of] if r.high_of is not None else r.high
    if r.integer:
        return trial.suggest_int(r.name, int(r.low), int(high), log=r.log)
    return trial.suggest_float(r.name, float(r.low), float(high), log=r.log)


def _ms(seconds: float | None) -> str:
    return "–" if seconds is None else f"{seconds * 1e3:.4g} ms"


def tune(
    db: str,
    robot_name: str,
    test: str,
    solver: str,
    trials: int,
    n_targets: int = 100,
    timeout: float = 0.005,
    seed: int = 0,
    study: str | None = None,
    ranges: Iterable[Range] = (),
    fixed: Mapping[str, Any] | None = None,
    solve: SolveFn = bioik.solve,
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
    tip: str | None = None,
    pool: DaskPool | None = None,
    storage: str | None = None,
) -> TuneResult:
    """Run (or resume) the study until it has `trials` completed trials; see the module docstring.

    Every input is checked before anything is written (ValueError naming it). `solve` is the
    function timed (as in `runner.run_experiment`; tests pass one with an iteration budget).
    A progress bar counts the trials on a terminal; `log` gets a line per trial. With a
    `pool` (`bioik.bench.distributed.DaskPool`) trials run on its workers, as many at once as
    they have threads. `storage` is the study's SQLAlchemy URL (default: the SQLite file `db`).
    Ctrl-C stops after marking the running trials failed: result.interrupted.
    """
    from bioik.bench.runner import Job, fixed_seed, open_experiment, store_rows
    from bioik.bench.store import ResultStore
    from bioik.bench.targets import benchmark_tip, check_test, default_seed_mode, generate, load_bench_robot

    optuna = _optuna()
    check_test(test)
    if test == "scale":
        raise ValueError("tune one robot at a time: use --test fkik --robot snakeN instead of --test scale")
    family = _family(solver)
    if trials < 1:
        raise ValueError(f"the number of trials must be ≥ 1; got {trials}")
    if n_targets < 1:
        raise ValueError(f"the number of targets must be ≥ 1; got {n_targets}")
    if not timeout > 0:
        raise ValueError(f"the timeout must be > 0 seconds; got {timeout}")
    fixed = dict(fixed or {})
    space = search_space(solver, ranges, fixed)
    if not space:
        raise ValueError(f"nothing to tune for solver {solver!r}: every parameter is fixed")
    defaults = {**{r.name: family.defaults[r.name] for r in space}, **fixed}
    family.settings(defaults)  # non-numeric fixed values fail here
    ResultStore.check_writable(db)
    robot = load_bench_robot(robot_name)
    tip = benchmark_tip(robot, tip, robot_name)
    ResultStore.check_robots(db, {robot_name: robot.fingerprint})  # before the warm-up and the study
    seed_mode = default_seed_mode(test)
    fixed_seed(robot, seed_mode)
    Job(robot, robot_name, test, solver, tip, timeout, defaults, seed, solve=solve).ready()  # warm-up; GoalSetRefused here
    targets = generate(robot, test, n_targets, seed, tip)
    name = study or study_name(robot_name, test, solver)
    settings = {"robot": robot_name, "tip": tip, "test": test, "solver": solver, "targets": n_targets, "timeout": timeout,
                "seed": seed, "seed_mode": seed_mode, "fixed": fixed, "space": [r.describe() for r in space]}

    verbosity = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.ERROR)  # progress is ours; a failed trial's error propagates
    store = ResultStore(db, create=True)  # first, so a new file gets the results tables and an alien one is refused
    rdb = None
    bar = None
    try:
        rdb = optuna.storages.RDBStorage(storage or f"sqlite:///{Path(db).resolve()}")
        # trials run at once (on a cluster) are told apart by TPE's constant liar
        sampler = optuna.samplers.TPESampler(seed=seed, constant_liar=True) if pool else optuna.samplers.TPESampler(seed=seed)
        st = optuna.create_study(storage=rdb, study_name=name, direction="minimize", sampler=sampler, load_if_exists=True)
        old = st.user_attrs.get("bioik")
        if old is None:
            st.set_user_attr("bioik", settings)
        elif old != settings:
            diff = [f"{k}={old.get(k)!r} (now {settings[k]!r})" for k in settings if old.get(k) != settings[k]]
            raise ValueError(f"study {name!r} in {storage or db} was run with {', '.join(diff)}; "
                             "give the same settings to resume, or another --study")
        states = optuna.trial.TrialState
        done = st.get_trials(deepcopy=False, states=(states.COMPLETE,))
        waiting = st.get_trials(deepcopy=False, states=(states.WAITING,))
        if not any(t.user_attrs.get("default") for t in [*done, *waiting]):
            st.enqueue_trial(defaults, user_attrs={"default": True})
        todo = trials - len(done)
        bar = progress_bar(f"tune {name}", trials, min(len(done), trials), unit="trial")

        def say(line: str) -> None:  # above the bar
            with bar.external_write_mode(file=sys.stderr):
                log(line)

        say(f"study {name!r} in {storage or db}: {len(done)} completed trial(s), running {max(todo, 0)} more "
            f"({robot_name}/{test}/{solver}, {n_targets} targets, timeout {_ms(timeout)}, seed {seed})")

        def open_trial(trial: Any) -> Any:
            params = {**{r.name: _suggest(trial, r) for r in space}, **fixed}
            return open_experiment(store, robot, robot_name, test, solver, n_targets, timeout, seed, params,
                                   solve=solve, targets=targets, seed_mode=seed_mode)

        def finish(trial: Any, opened: Any, batches: Iterable[list[ResultRow]]) -> float:
            summary = store_rows(store, opened, batches, progress=False)
            if summary.interrupted:
                raise KeyboardInterrupt
            rows = store.results(summary.experiment)
            trial.set_user_attr("experiment", summary.experiment)
            trial.set_user_attr("solved", sum(r.solved for r in rows))
            return score(rows, timeout)

        def objective(trial: Any) -> float:
            opened = open_trial(trial)
            return finish(trial, opened, ([row] for row in opened.solving.rows(opened.chunk)))

        def progress(s: Any, t: Any) -> None:
            if t.state != states.COMPLETE:
                return
            n = len(s.get_trials(deepcopy=False, states=(states.COMPLETE,)))
            best = s.best_trial
            tag = " (defaults)" if t.user_attrs.get("default") else ""
            bar.set_postfix_str(f"best {_ms(best.value)}", refresh=False)
            bar.update(1)
            say(f"trial {t.number}{tag} [{n}/{trials}]: {_ms(t.value)}, {t.user_attrs.get('solved')}/{n_targets} solved; "
                f"best {_ms(best.value)} (trial {best.number})")

        interrupted = False
        if todo > 0:
            try:
                with warnings.catch_warnings():  # the defaults' trial may lie outside a given --space
                    warnings.filterwarnings("ignore", message="Fixed parameter .* out of range", category=UserWarning)
                    if pool is None:
                        st.optimize(objective, n_trials=todo, callbacks=[progress])
                    else:
                        _optimize_on(pool, st, todo, open_trial, finish, progress)
            except KeyboardInterrupt:
                interrupted = True
        before = len(done)
        done = st.get_trials(deepcopy=False, states=(states.COMPLETE,))
        best = min(done, key=lambda t: t.value) if done else None
        default = next((t for t in done if t.user_attrs.get("default")), None)
        return TuneResult(name, len(done), len(done) - before,
                          None if best is None else best.number, None if best is None else best.value,
                          {} if best is None else {**best.params, **fixed},
                          None if default is None else default.number, None if default is None else default.value,
                          defaults, interrupted)
    finally:
        if bar is not None:
            bar.close()
        optuna.logging.set_verbosity(verbosity)
        if rdb is not None:
            rdb.engine.dispose()
        store.close()


def _optimize_on(pool: DaskPool, st: Any, n: int, open_trial: Callable[[Any], Any],
                 finish: Callable[[Any, Any, Iterable[list[ResultRow]]], float], progress: Callable[[Any, Any], None]) -> None:
    """Run `n` trials of study `st` on the pool's workers, as many at once as it has slots:
    each trial is asked here when a worker is free (`open_trial` opens its experiment), its
    missing targets are solved as one chunk on a worker, and `finish` stores its rows here and
    scores them for the study. An error or Ctrl-C marks the trials still running failed."""
    import optuna

    running: dict[int, Any] = {}

    def tasks() -> Iterator[tuple[Any, Any, Any]]:
        for _ in range(n):
            trial = st.ask()
            running[trial.number] = trial
            opened = open_trial(trial)
            yield opened.job, opened.chunk, (trial, opened)

    try:
        for (trial, opened), rows in pool.unordered(tasks(), width=pool.slots):
            value = finish(trial, opened, [rows])
            del running[trial.number]
            progress(st, st.tell(trial, value))
    finally:
        for trial in running.values():
            st.tell(trial, state=optuna.trial.TrialState.FAIL)


def report(result: TuneResult, timeout: float) -> str:
    """The end-of-study summary: the defaults' score, the best score and parameters."""
    lines = [f"study {result.study!r}: {result.completed} completed trial(s)"]
    if result.default_score is not None:
        lines.append(f"defaults (trial {result.default_number}): score {_ms(result.default_score)}")
    if result.best_score is not None:
        change = ""
        if result.default_score:
            change = f" ({100 * (result.best_score / result.default_score - 1):+.1f}% vs the defaults)"
        lines.append(f"best (trial {result.best_number}): score {_ms(result.best_score)}{change}")
        lines.append("best parameters: " + " ".join(f"--param {k}={json.dumps(v)}" for k, v in result.best_params.items()))
    lines.append(f"(score: mean solve time, a failure counting as the timeout {_ms(timeout)} [E 8.16])")
    return "\n".join(lines)

