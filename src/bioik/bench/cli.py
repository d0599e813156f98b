"""`bioik bench run | report | plot | tune`: the benchmark's command line (registered in `bioik.cli`).

Every input is checked before the results DB is opened for writing, so bad input (unknown
robot, tip, test, solver, parameter or seed mode; a robot with several tips and no --tip; a
malformed experiment file; an unwritable DB; a file that is not an undamaged results DB; a
robot whose content differs from the one stored under its name) gives one error line (exit
status 2 from `bioik.cli.main`) and leaves nothing half-written.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bioik.bench.targets import FKIK_POSITION, GOAL_SETS, GoalSetRefused, SCALE_ROBOTS, SCENE_SOLVERS, SEED_MODES, TESTS, TIP_SEPARATOR, scene_test

TOML_KEYS = ("robots", "tip", "tests", "solvers", "params", "targets", "timeout", "seed", "seed_mode", "seed_config", "callback", "db")


def _param(text: str) -> tuple[str, object]:
    """NAME=VALUE, VALUE parsed as JSON when it is JSON (numbers, true/false), else a string."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value


@dataclass
class Plan:
    """One `bench run`, checked: tests × robots × solvers with their settings (params per solver)."""

    robots: list[str]
    tests: list[str]
    solvers: list[str]
    params: dict[str, dict[str, Any]]
    targets: int
    timeout: float
    seed: int
    seed_mode: str | None
    seed_config: list[float] | None
    db: str
    tip: str | None = None  # the link(s) posed on every given robot, several joined by TIP_SEPARATOR (default: its one tip)
    source: str | None = None  # the experiment file, named in errors
    callback: bool = True  # the runner's check is the solution callback (`runner`)

    def robots_for(self, test: str) -> list[str]:
        """The robots `test` runs on: the snakes SCALE_ROBOTS for `scale`, else the given robots."""
        return list(SCALE_ROBOTS) if test == "scale" else self.robots

    def tip_for(self, robot: str) -> str | None:
        """The tip asked for on `robot`: `tip` on the given robots, none on the `scale` snakes."""
        return self.tip if robot in self.robots else None


def cmd_run(args: argparse.Namespace) -> int:
    """Run robot × solver experiments of one test (or those of an experiment file) into the DB,
    then print the report.

    Ctrl-C stops cleanly (exit status 130): completed rows are kept, one line says how to
    resume (re-running the same command solves only the missing targets).
    """
    try:
        return _run(args)
    except KeyboardInterrupt:
        print("interrupted: completed rows are kept in the DB; re-run the same command to resume", file=sys.stderr)
        return 130


def _plan_from_args(args: argparse.Namespace) -> Plan:
    """The plan of a `bench run` given by options; ValueError naming a missing or bad option."""
    if args.test is None:
        raise ValueError(f"--test is required (one of {', '.join(TESTS)}), or give an experiment file")
    if args.db is None:
        raise ValueError("--db is required (the results DB, created if missing)")
    if args.test == "scale" and (args.robot or args.tip):
        raise ValueError(f"--test scale runs on {', '.join(SCALE_ROBOTS)} (tip 'tip'): drop --robot and --tip "
                         "(or use --robot snakeN with --test fkik)")
    if args.test != "scale" and not args.robot:
        raise ValueError("--robot is required (a bundled robot name, snakeN or a URDF path) except with --test scale")
    if (args.test == "scene") != bool(args.scene):
        raise ValueError("--test scene needs --scene NAME (repeatable), and --scene goes with --test scene")
    if args.goal_set and args.test != "scene":
        raise ValueError("--goal-set goes with --test scene (the goals it adds are built around a scenario's opening)")
    if args.goals and args.test != "fkik":
        raise ValueError(f"--goals goes with --test fkik (pose or position goals on its tips); got --test {args.test}")
    tests = ([scene_test(name, goal_set) for name in args.scene for goal_set in args.goal_set or ["generic"]]
             if args.test == "scene" else [FKIK_POSITION if args.goals == "position" else args.test])
    import bioik

    from bioik.bench.peers import is_peer

    solvers = args.solver or [bioik.solvers.DEFAULT_SOLVER]
    params = dict(args.param or [])
    if params and all(is_peer(s) for s in solvers):
        raise ValueError("--param sets bioik solver parameters; peer solvers (peer:NAME) take none")
    if args.max_iterations is not None:
        if args.max_iterations < 1:
            raise ValueError(f"--max-iterations must be ≥ 1; got {args.max_iterations}")
        if any(s in SCENE_SOLVERS for s in solvers) or all(is_peer(s) for s in solvers):
            raise ValueError("--max-iterations bounds bioik's solvers; peers have no iteration budget, and decoupled "
                             "takes --param max_attempts=N (passage no budget at all)")
        params["max_iterations"] = args.max_iterations
    return Plan(args.robot or [], tests, solvers, {s: {} if is_peer(s) else dict(params) for s in solvers},
                100 if args.targets is None else args.targets,
                0.005 if args.timeout is None else args.timeout, 0 if args.seed is None else args.seed, args.seed_mode,
                args.seed_config, args.db, TIP_SEPARATOR.join(args.tip) if args.tip else None, callback=args.callback is None)


def _read_toml(path: str) -> dict[str, Any]:
    """The TOML table in `path`; ValueError naming the file for an unreadable or malformed one."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise ValueError(f"{path}: cannot read the experiment file ({e.strerror or e})") from None
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{path}: not valid TOML ({e})") from None


def _names(path: str, data: dict[str, Any], key: str) -> list[str]:
    """data[key] as a list of names: a string or a list of strings (else ValueError naming file and key)."""
    value = data.get(key, [])
    value = [value] if isinstance(value, str) else value
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{path}: {key} must be a string or a list of strings; got {value!r}")
    return value


def _number(path: str, data: dict[str, Any], key: str, kind: type, default: Any) -> Any:
    """data[key] checked to be an int (kind=int) or a number (kind=float), else `default`."""
    value = data.get(key, default)
    ok = isinstance(value, int) if kind is int else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok:
        raise ValueError(f"{path}: {key} must be {'an integer' if kind is int else 'a number'}; got {value!r}")
    return kind(value)


def _params(path: str, data: dict[str, Any], solvers: list[str]) -> dict[str, dict[str, Any]]:
    """Per-solver parameters from `params`: plain values are common to every bioik solver (not
    to peers, which take none), and a table under a solver's name adds (or overrides) that
    solver's own."""
    from bioik.bench.peers import is_peer

    table = data.get("params", {})
    if not isinstance(table, dict):
        raise ValueError(f"{path}: params must be a table (NAME = VALUE, or [params.SOLVER] tables); got {table!r}")  # noqa: TRY004
    common = {k: v for k, v in table.items() if not isinstance(v, dict)}
    for name, value in table.items():
        if isinstance(value, dict) and name not in solvers:
            raise ValueError(f"{path}: [params.{name}] is not one of the solvers run ({', '.join(solvers)})")
    return {s: {**({} if is_peer(s) else common), **table.get(s, {})} for s in solvers}


def _plan_from_toml(path: str, db: str | None) -> Plan:
    """The plan in the experiment file `path` (`db` from --db overrides the file's; a relative
    `db` in the file is relative to the file's directory); ValueError naming the file."""
    import bioik

    data = _read_toml(path)
    unknown = sorted(set(data) - set(TOML_KEYS))
    if unknown:
        raise ValueError(f"{path}: unknown key {unknown[0]!r}; known: {', '.join(TOML_KEYS)}")
    tests = _names(path, data, "tests")
    if not tests:
        raise ValueError(f"{path}: tests is required (a list of {', '.join(TESTS)})")
    robots = _names(path, data, "robots")
    if not robots and any(t != "scale" for t in tests):
        raise ValueError(f"{path}: robots is required (a list of robot names) for tests other than scale")
    solvers = _names(path, data, "solvers") or [bioik.solvers.DEFAULT_SOLVER]
    tip = data.get("tip")
    if isinstance(tip, list) and tip and all(isinstance(t, str) for t in tip):
        tip = TIP_SEPARATOR.join(tip)
    if tip is not None and not isinstance(tip, str):
        raise ValueError(f"{path}: tip must be a link name (a string) or a list of them, posed on every robot of the file; "
                         f"got {tip!r}")
    seed_mode = data.get("seed_mode")
    if seed_mode is not None and not isinstance(seed_mode, str):
        raise ValueError(f"{path}: seed_mode must be a string (one of {', '.join(SEED_MODES)}); got {seed_mode!r}")
    seed_config = data.get("seed_config")
    if seed_config is not None and (not isinstance(seed_config, list) or not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) for x in seed_config)):
        raise ValueError(f"{path}: seed_config must be a list of numbers (joint values); got {seed_config!r}")
    callback = data.get("callback", True)
    if not isinstance(callback, bool):
        raise ValueError(f"{path}: callback must be true (the benchmark's check is the solution callback) or false; got {callback!r}")
    if db is None:
        if not isinstance(data.get("db"), str):
            raise ValueError(f"{path}: db (the results DB path) is required in the file or as --db")
        db = str(Path(path).parent / data["db"])
    return Plan(robots, tests, solvers, _params(path, data, solvers), _number(path, data, "targets", int, 100),
                _number(path, data, "timeout", float, 0.005), _number(path, data, "seed", int, 0), seed_mode,
                None if seed_config is None else [float(x) for x in seed_config], db, tip, path, callback)


def _plan(args: argparse.Namespace) -> Plan:
    """The plan of `bench run`: from the experiment file if given (then only --db may be added), else the options."""
    if args.experiment is None:
        return _plan_from_args(args)
    given = [opt for opt, value in (("--robot", args.robot), ("--tip", args.tip), ("--goals", args.goals), ("--test", args.test),
                                    ("--scene", args.scene),
                                    ("--goal-set", args.goal_set), ("--solver", args.solver),
                                    ("--param", args.param), ("--targets", args.targets), ("--timeout", args.timeout),
                                    ("--seed", args.seed), ("--seed-mode", args.seed_mode), ("--seed-config", args.seed_config),
                                    ("--no-callback", args.callback), ("--max-iterations", args.max_iterations))
             if value is not None]
    if given:
        raise ValueError(f"{args.experiment}: with an experiment file only --db may be given (and how to run it: "
                         f"--scheduler, --workers, --chunk-size); got {', '.join(given)}")
    return _plan_from_toml(args.experiment, args.db)


def _skip(message: str) -> None:
    """One line on stderr saying what is skipped and why (a peer that cannot run here)."""
    print(message, file=sys.stderr, flush=True)


def _check(plan: Plan) -> tuple[dict[str, Any], dict[str, str], dict[tuple[str, str, str | None], Any]]:
    """Check every input of `plan` before anything is written; returns the robots and their
    tips by name and the peer adapters by (robot name, solver). A peer whose package is
    missing is dropped from `plan.solvers` (one "skipping" line), one that cannot model a
    robot is left out for it."""
    import bioik
    from bioik.bench import peers
    from bioik._compile_progress import compile_step
    from bioik.bench.runner import fixed_seed, warm_up
    from bioik.bench.store import ResultStore
    from bioik.bench.targets import (benchmark_tip, check_seed_mode, check_test, check_tips, default_seed_mode, generate,
                                     load_bench_robot, scenario_of)

    for test in plan.tests:
        check_test(test)
        check_seed_mode(default_seed_mode(test) if plan.seed_mode is None else plan.seed_mode)
    if plan.targets < 1:
        raise ValueError(f"the number of targets must be ≥ 1; got {plan.targets}")
    if not plan.timeout > 0:
        raise ValueError(f"the timeout must be > 0 seconds; got {plan.timeout}")
    for s in plan.solvers:
        if peers.is_peer(s):
            peers.check_peer(s)
            if plan.params[s]:
                raise ValueError(f"{s} takes no solver parameters; got {', '.join(sorted(plan.params[s]))}")
        elif s not in bioik.solvers.names() and s not in SCENE_SOLVERS:
            raise ValueError(f"unknown solver {s!r}; known: {', '.join(bioik.solvers.names())}, decoupled (scene tests of the tanks), "
                             f"passage, default (scene tests), "
                             f"or a peer ({', '.join(peers.PREFIX + k for k in peers.PEERS)})")
    ResultStore.check_writable(plan.db)
    for s in [s for s in plan.solvers if peers.is_peer(s)]:
        try:
            peers.check_available(s)
        except peers.PeerSkipped as e:
            _skip(str(e))
            plan.solvers.remove(s)
    robots = {name: load_bench_robot(name) for test in plan.tests for name in plan.robots_for(test)}
    tips = {name: benchmark_tip(robot, plan.tip_for(name), name) for name, robot in robots.items()}
    # an edited robot is refused before any compilation or write
    ResultStore.check_robots(plan.db, {name: robot.fingerprint for name, robot in robots.items()})
    for test in plan.tests:
        for name in plan.robots_for(test):
            check_tips(test, tips[name])
            try:
                fixed_seed(robots[name], plan.seed_mode or default_seed_mode(test), plan.seed_config)
            except ValueError as e:
                raise ValueError(f"seed config for robot {name!r}: {e}") from None
            if scenario_of(test):  # the stored targets exist, and are for this robot
                generate(robots[name], test, plan.targets, plan.seed, tips[name])
    adapters: dict[tuple[str, str, str | None], Any] = {}
    own = [s for s in plan.solvers if not peers.is_peer(s) and s not in SCENE_SOLVERS]  # decoupling warms up in its scene run
    for name, robot in robots.items():
        for s in plan.solvers:
            if s in own:  # a first run compiles here, one solver after another: the notices say which
                with compile_step(f"solver {own.index(s) + 1} of {len(own)}"):  # an unknown parameter fails here, before writing
                    warm_up(robot, s, plan.timeout, plan.params[s], callback=plan.callback)
            elif not peers.is_peer(s):
                continue  # decoupled, passage, default: built and warmed up in their scene run
            elif TIP_SEPARATOR in tips[name]:
                _skip(f"skipping {s} on robot {name}: peers run pose goals on one tip; got {tips[name]}")
            else:
                for test in [t for t in plan.tests if peers.runs_test(s, t) and name in plan.robots_for(t)]:
                    key = _adapter_key(s, test)
                    if (name, s, key) in adapters:
                        continue
                    try:  # the model is built here, before the clock (a collision-aware peer's with the test's scene)
                        adapters[name, s, key] = peers.load_peer(s, robot, tips[name], name, None if key is None else collision_scene(key))
                    except peers.PeerSkipped as e:
                        _skip(str(e))
                        break
    return robots, tips, adapters


def _adapter_key(solver: str, test: str) -> str | None:
    """What a peer's model depends on besides robot and solver: the test of a
    collision-aware peer among obstacles (its scene), else nothing (free space)."""
    from bioik.bench import peers
    from bioik.bench.targets import collision_test

    return test if peers.scene_aware(solver) and collision_test(test) else None


def collision_scene(test: str) -> Any:
    """The obstacles of collision test `test` (a scene test's scenario, or the table's)."""
    from bioik import scenes
    from bioik.bench.table import table_scene
    from bioik.bench.targets import TABLE, scenario_of

    return table_scene() if test == TABLE else scenes.load(scenario_of(test)).scene


def _run(args: argparse.Namespace) -> int:
    from bioik.bench.report import markdown
    from bioik.bench.runner import run_experiment
    from bioik.bench.store import ResultStore
    from bioik.bench.targets import generate

    from bioik.bench.distributed import cluster_options
    from bioik.bench.peers import PEERS, PREFIX, is_peer, runs_test, solve_function

    cluster = cluster_options(args)
    plan = _plan(args)
    try:
        robots, tips, adapters = _check(plan)
    except (ValueError, KeyError) as e:
        if plan.source is None:
            raise
        raise ValueError(f"{plan.source}: {e.args[0] if isinstance(e, KeyError) and e.args else e}") from None
    with ExitStack() as stack:
        pool = None
        if cluster is not None:  # before the DB: a missing dask writes nothing
            from bioik.bench.distributed import DaskPool

            pool = stack.enter_context(DaskPool(**cluster))
        store = stack.enter_context(ResultStore(plan.db, create=True))
        for test in plan.tests:
            for name in plan.robots_for(test):
                targets = generate(robots[name], test, plan.targets, plan.seed, tips[name])
                for s in plan.solvers:
                    if is_peer(s) and (not runs_test(s, test) or (name, s, _adapter_key(s, test)) not in adapters):
                        if not runs_test(s, test) and name == plan.robots_for(test)[0]:
                            aware = ", ".join(PREFIX + k for k, c in PEERS.items() if c.collision_aware)
                            _skip(f"skipping {s} on test {test}: it runs pose goals on one tip in free space; among "
                                  f"obstacles (scene:NAME without a goal set, table) only {aware} run")
                        continue  # a robot the peer cannot model was reported by _check
                    # a peer's adapter is built here; a worker builds its own
                    extra = {"solve": solve_function(adapters[name, s, _adapter_key(s, test)])} if is_peer(s) and pool is None else {}
                    try:
                        summary = run_experiment(store, robots[name], name, test, s, plan.targets, plan.timeout, plan.seed,
                                                 plan.params[s], targets=targets, seed_mode=plan.seed_mode,
                                                 seed_config=plan.seed_config, callback=plan.callback, pool=pool, **extra)
                    except GoalSetRefused as e:  # skipped like a peer on a test it cannot run; the others go on
                        _skip(f"skipping {s} on test {test}: {e}")
                        continue
                    if summary.interrupted:
                        print(f"interrupted: {name}/{test}/{s} stopped after {summary.skipped + summary.ran}/{summary.n_targets}"
                              " targets; completed rows are kept in the DB; re-run the same command to resume", file=sys.stderr)
                        return 130
        print(markdown(store))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """Print the markdown report of a results DB."""
    from bioik.bench.report import markdown
    from bioik.bench.store import ResultStore

    with ResultStore(args.db) as store:
        print(markdown(store))
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    """Write the cumulative solve-rate plots of a results DB to --out (with --config: the
    figures a plot file describes, `bioik.bench.plot_config`)."""
    from bioik.bench.plot import plot
    from bioik.bench.plot_config import plot_configured
    from bioik.bench.store import ResultStore

    with ResultStore(args.db) as store:
        paths = plot(store, args.out) if args.config is None else plot_configured(store, args.config, args.out)
        for path in paths:
            print(path)
    return 0


def cmd_tune(args: argparse.Namespace) -> int:
    """Tune a solver's parameters with Optuna (`bioik.bench.tune`); resumes a study in --db.

    Ctrl-C stops cleanly (exit status 130): finished trials are kept; re-run the same command to resume.
    """
    from bioik.bench.distributed import cluster_options
    from bioik.bench.tune import parse_range, report, tune

    ranges = [parse_range(text) for text in args.space or []]
    cluster = cluster_options(args)
    try:
        with ExitStack() as stack:
            pool = None
            if cluster is not None:
                from bioik.bench.distributed import DaskPool

                pool = stack.enter_context(DaskPool(**cluster))
            result = tune(args.db, args.robot, args.test, args.solver, args.trials, args.targets, args.timeout, args.seed,
                          args.study, ranges, dict(args.param or []), tip=args.tip, pool=pool, storage=args.storage)
    except KeyboardInterrupt:
        print("interrupted: finished trials are kept in the DB; re-run the same command to resume", file=sys.stderr)
        return 130
    print(report(result, args.timeout))
    if result.interrupted:
        print("interrupted: finished trials are kept in the DB; re-run the same command to resume", file=sys.stderr)
        return 130
    return 0


def add_subcommands(bench: argparse.ArgumentParser) -> None:
    """Add the run / report / plot / tune subcommands to the parser of `bioik bench`."""
    from bioik.bench.distributed import add_arguments as add_cluster_arguments

    bsub = bench.add_subparsers(dest="bench_command", required=True)
    run = bsub.add_parser("run", help="run experiments (resumes an interrupted one)",
                          description="Run experiments given by options, or by an experiment file (TOML with keys "
                                      f"{', '.join(TOML_KEYS)}; a relative db is relative to the file).")
    run.add_argument("experiment", nargs="?", help="experiment file (TOML); then only --db may be given, overriding the file's db")
    run.add_argument("--robot", action="append", help="bundled robot name, snakeN (an N-joint snake) or URDF path, "
                                                        "with [GROUP] after it for a group other than its default "
                                                        "(dual_ur5[torso_both_arms]; repeatable; required except with "
                                                        "--test scale)")
    run.add_argument("--tip", action="append", help="the link whose poses are the targets, on every --robot (default: the "
                                                    "robot's one tip; needed for a robot with several); repeated with --test "
                                                    "fkik: every target poses all the tips, from one random configuration")
    run.add_argument("--goals", choices=("pose", "position"), help="with --test fkik: a pose goal per tip (default) or a "
                                                                   "position goal (the test is then fkik/position)")
    run.add_argument("--test", help=f"one of {', '.join(TESTS)} (scale: fkik targets on {', '.join(SCALE_ROBOTS)}; "
                                    "table: the robot 3 cm above a table with three posts, ur5's cell; "
                                    "scene: an EBIKE scenario's stored targets among its obstacles, with --scene and --goal-set)")
    run.add_argument("--scene", action="append", help="EBIKE scenario of --test scene (repeatable): one of "
                                                      "Random, Table, SmallTable, TableObjects, Shelf, Barrel, HydrogenTank, "
                                                      "HydrogenTankSmall (robot elise_ur10)")
    run.add_argument("--goal-set", action="append", help=f"goals added to every solve of --test scene (repeatable: every --scene "
                                                         f"runs with each): one of {', '.join(GOAL_SETS)} (default generic: none "
                                                         "added; rejection: the collision goal taken away, the exact check "
                                                         "rejects; the others, [E 8.5-8.9]'s goals around the opening, need a "
                                                         "scenario with one: the tanks); the test is then named scene:NAME/SET, "
                                                         "as in an experiment file's tests")
    run.add_argument("--solver", action="append", help="solver name, decoupled (kinematic decoupling, scene tests of the tanks), "
                     "passage (decoupling through the passage found in the scene, lm and decoupling with no opening, in "
                     "turns; scene tests), or peer:rtb, peer:klampt, peer:ikpy, peer:pinocchio (another IK library, pip "
                     "install -e '.[peers]'), peer:drake, peer:mink (collision-aware, also on scene tests without a goal set "
                     "and table; pip install -e '.[peers-clutter]') (repeatable; default: bioik's default solver)")
    run.add_argument("--param", action="append", type=_param, metavar="NAME=VALUE", help="solver parameter (repeatable)")
    run.add_argument("--targets", type=int, help="number of targets (default 100)")
    run.add_argument("--timeout", type=float, help="seconds per solve (default 0.005)")
    run.add_argument("--seed", type=int, help="target generation seed (default 0)")
    run.add_argument("--seed-mode", help="start of each solve: random (stored uniform draws), none (the solver's own), "
                                         "fixed (--seed-config, default the robot's centre), warm (the previous solution); "
                                         "default warm for track, else random")
    run.add_argument("--seed-config", type=float, nargs="+", metavar="V", help="joint values of the fixed seed (only with --seed-mode fixed)")
    run.add_argument("--no-callback", dest="callback", action="store_const", const=False,
                     help="solve without a solution callback (by default the benchmark's check of each answer is the "
                          "callback, and the report counts its calls as [E 6] does)")
    run.add_argument("--max-iterations", type=int, metavar="N",
                     help="iteration budget of every solve (a solver parameter, as --param max_iterations=N), each target "
                          "then solved with the solver seed SEED + its index: the same rows on any machine, in any split "
                          "(give a --timeout that no solve reaches)")
    run.add_argument("--db", help="results DB (created if missing; required without an experiment file)")
    add_cluster_arguments(run)
    run.set_defaults(func=cmd_run)
    rep = bsub.add_parser("report", help="print the markdown report of a results DB")
    rep.add_argument("db", help="results DB")
    rep.set_defaults(func=cmd_report)
    pl = bsub.add_parser("plot", help="write cumulative solve-rate plots (PNG + SVG)")
    pl.add_argument("db", help="results DB")
    pl.add_argument("--out", required=True, help="output directory")
    pl.add_argument("--config", help="a TOML plot file choosing robots, tests, solvers, labels, colours, styles, "
                                     "rows (rates, time, attempts), axis scale, trials and formats (see bioik.bench.plot_config)")
    pl.set_defaults(func=cmd_plot)
    tu = bsub.add_parser("tune", help="tune a solver's parameters with Optuna (resumable study in SQLite)",
                         description="Tune a solver's parameters with Optuna's TPE [E 5.2, 8.16]: each trial solves the same "
                                     "targets; score = mean solve time, a failure counting as the timeout. BioIK 2 solvers "
                                     "search the ranges of [E Table 8.10]. Re-running the same command resumes the study.")
    tu.add_argument("--robot", required=True, help="bundled robot name, snakeN or URDF path, optionally with [GROUP]")
    tu.add_argument("--tip", help="the link whose poses are the targets (default: the robot's one tip)")
    tu.add_argument("--test", required=True, help=f"target set, one of {', '.join(t for t in TESTS if t not in ('scale', 'scene'))}, "
                                                  "or a scene test scene:NAME or scene:NAME/SET (robot elise_ur10; see "
                                                  "bench run's --scene and --goal-set)")
    tu.add_argument("--solver", default="bio2_memetic", help="solver to tune (default bio2_memetic)")
    tu.add_argument("--trials", type=int, required=True, help="completed trials the study should have (resumed studies count theirs)")
    tu.add_argument("--targets", type=int, default=100, help="number of targets per trial (default 100)")
    tu.add_argument("--timeout", type=float, default=0.005, help="seconds per solve, also a failure's score (default 0.005)")
    tu.add_argument("--seed", type=int, default=0, help="target generation and sampler seed (default 0)")
    tu.add_argument("--study", help="study name (default ROBOT-TEST-SOLVER)")
    tu.add_argument("--param", action="append", type=_param, metavar="NAME=VALUE", help="fixed solver parameter, not tuned (repeatable)")
    tu.add_argument("--space", action="append", metavar="NAME=LO:HI[:log]", help="search range of a parameter, replacing or adding "
                                                                                 "to the default space (repeatable)")
    tu.add_argument("--db", required=True, help="SQLite file of the study and its per-trial results (created if missing)")
    tu.add_argument("--storage", metavar="URL", help="the Optuna study's database instead of --db, an SQLAlchemy URL (e.g. "
                                                     "postgresql://host/db, shared by several runs); the per-trial results "
                                                     "stay in --db")
    add_cluster_arguments(tu, chunks=False)
    tu.set_defaults(func=cmd_tune)
