"""`bioik bench run | report | plot`: the benchmark's command line (registered in `bioik.cli`).

Every input is checked before the results DB is opened for writing, so bad input (unknown
robot, test, solver or parameter; an unwritable DB; a file that is not a results DB) gives
one error line (exit status 2 from `bioik.cli.main`) and leaves nothing half-written.
"""

from __future__ import annotations

import argparse
import json
import sys

from bioik.bench.targets import TESTS


def _param(text: str) -> tuple[str, object]:
    """NAME=VALUE, VALUE parsed as JSON when it is JSON (numbers, true/false), else a string."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value


def cmd_run(args: argparse.Namespace) -> int:
    """Run robot × solver experiments of one test into the DB, then print the report.

    Ctrl-C stops cleanly (exit status 130): completed rows are kept, and re-running the same
    command resumes with the missing targets.
    """
    try:
        return _run(args)
    except KeyboardInterrupt:
        print("interrupted: completed rows are kept; re-run the same command to resume", file=sys.stderr)
        return 130


def _run(args: argparse.Namespace) -> int:
    import bioik
    from bioik.bench.report import markdown
    from bioik.bench.runner import run_experiment, warm_up
    from bioik.bench.store import ResultStore
    from bioik.bench.targets import check_test, generate

    check_test(args.test)
    if args.targets < 1:
        raise ValueError(f"--targets must be ≥ 1; got {args.targets}")
    if not args.timeout > 0:
        raise ValueError(f"--timeout must be > 0 seconds; got {args.timeout}")
    solvers = args.solver or [bioik.solvers.DEFAULT_SOLVER]
    for s in solvers:
        if s not in bioik.solvers.names():
            raise ValueError(f"unknown solver {s!r}; known: {', '.join(bioik.solvers.names())}")
    ResultStore.check_writable(args.db)
    params = dict(args.param or [])
    robots = {name: bioik.load_robot(name) for name in args.robot}
    for robot in robots.values():
        for s in solvers:
            warm_up(robot, s, args.timeout, params)  # an unknown parameter fails here, before any write
    with ResultStore(args.db, create=True) as store:
        for name, robot in robots.items():
            targets = generate(robot, args.test, args.targets, args.seed)
            for s in solvers:
                summary = run_experiment(store, robot, name, args.test, s, args.targets, args.timeout, args.seed,
                                         params, targets=targets)
                if summary.interrupted:
                    print(f"{name}/{args.test}/{s}: stopped after {summary.skipped + summary.ran}/{summary.n_targets} targets",
                          file=sys.stderr)
                    raise KeyboardInterrupt
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
    """Write the cumulative solve-rate plots of a results DB to --out."""
    from bioik.bench.plot import plot
    from bioik.bench.store import ResultStore

    with ResultStore(args.db) as store:
        for path in plot(store, args.out):
            print(path)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add `bench` with its run / report / plot subcommands to the `bioik` parser."""
    bench = sub.add_parser("bench", help="benchmark solvers: run experiments, report, plot",
                           description="Benchmark solvers (SPEC §2.6): results in SQLite, markdown report, plots.")
    bsub = bench.add_subparsers(dest="bench_command", required=True)
    run = bsub.add_parser("run", help="run experiments (resumes an interrupted one)")
    run.add_argument("--robot", action="append", required=True, help="bundled robot name or URDF path (repeatable)")
    run.add_argument("--test", required=True, help=f"one of {', '.join(TESTS)}")
    run.add_argument("--solver", action="append", help="solver name (repeatable; default: bioik's default solver)")
    run.add_argument("--param", action="append", type=_param, metavar="NAME=VALUE", help="solver parameter (repeatable)")
    run.add_argument("--targets", type=int, default=100, help="number of targets (default 100)")
    run.add_argument("--timeout", type=float, default=0.005, help="seconds per solve (default 0.005)")
    run.add_argument("--seed", type=int, default=0, help="target generation seed (default 0)")
    run.add_argument("--db", required=True, help="results DB (created if missing)")
    run.set_defaults(func=cmd_run)
    rep = bsub.add_parser("report", help="print the markdown report of a results DB")
    rep.add_argument("db", help="results DB")
    rep.set_defaults(func=cmd_report)
    pl = bsub.add_parser("plot", help="write cumulative solve-rate plots (PNG + SVG)")
    pl.add_argument("db", help="results DB")
    pl.add_argument("--out", required=True, help="output directory")
    pl.set_defaults(func=cmd_plot)
