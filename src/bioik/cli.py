"""The `bioik` command line: inspect robots, run forward and inverse kinematics, benchmark solvers."""

from __future__ import annotations

import argparse
import atexit
import gc
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import numpy as np


def _robot(args):
    import bioik

    return bioik.load_robot(args.robot, group=args.group)


def cmd_info(args) -> None:
    """Print the robot's active joints with limits, its tips and its groups."""
    robot = _robot(args)
    print(f"robot {robot.name!r} ({args.robot}), group {robot.group.name!r}: {robot.dof} DoF, {len(robot.link_names)} links")
    print(f"tips: {', '.join(robot.tips)}")
    if robot.groups:
        marks = {g: " (default)" if g == robot.default_group else "" for g in robot.groups}
        print("groups: " + ", ".join(g + marks[g] for g in robot.groups))
    print(f"{'variable':<32} {'lower':>9} {'upper':>9} {'velocity':>9}")
    for name, lo, hi, v in zip(robot.variable_names, robot.lower, robot.upper, robot.velocity):
        print(f"{name:<32} {lo:>9.4f} {hi:>9.4f} {v:>9.3f}")
    if getattr(args, "collision", False):
        _print_collision(robot)


def _print_collision(robot) -> None:
    """Spheres per link of the default sphere cover, then the allowed pairs with reasons."""
    from bioik.collision import allowed_collisions, sphere_model

    spheres = sphere_model(robot)
    acm = allowed_collisions(robot)
    print(f"collision spheres: {len(spheres)} on {len(spheres.links)} links")
    for link, n in spheres.per_link().items():
        print(f"  {link:<30} {n:>3}")
    print(f"allowed collision pairs: {len(acm.pairs)} ({len(acm.checked)} pairs checked; "
          f"always/never from {acm.samples} random configurations)")
    order = {n: i for i, n in enumerate(acm.links)}
    for (a, b), reason in sorted(acm.pairs.items(), key=lambda kv: (order[kv[0][0]], order[kv[0][1]])):
        print(f"  {a:<30} {b:<30} {reason}")


def cmd_fk(args) -> None:
    """Print the 4×4 pose of each requested link (default: the tips)."""
    robot = _robot(args)
    q = np.zeros(robot.dof) if args.q is None else robot.check(args.q, "--q")
    np.set_printoptions(precision=6, suppress=True)
    for link in args.link or robot.tips:
        T = robot.link_pose(q, link)
        print(f"{link}:\n{T}")


def cmd_solve(args) -> None:
    """Solve for one link pose and print the solution, its errors and the time."""
    import bioik

    robot = _robot(args)
    link = args.link or robot.tips[0]
    T = _pose_matrix(args.pose)
    seed = None if args.seed_config is None else robot.check(args.seed_config, "--seed-config")
    goals = [bioik.PoseGoal(link, T)]
    if args.scene is not None:
        allowed = [_allowed_pair(text) for text in args.allow or ()]
        goals.append(bioik.CollisionAvoidanceGoal(bioik.Scene.from_file(args.scene), allowed=allowed))
    elif args.allow:
        raise ValueError("--allow needs --scene")
    res = bioik.solve(robot, goals, seed=seed, timeout=args.timeout, solver=args.solver, random_seed=args.random_seed)
    np.set_printoptions(precision=6, suppress=True)
    print(f"{'success' if res.success else 'FAILED'}: solver {res.solver}, {res.time * 1e3:.3f} ms, "
          f"{res.iterations} iterations, {res.restarts} restarts")
    print(f"position error {res.goal_errors[0, 0]:.3g} m, rotation error {res.goal_errors[0, 1]:.3g} rad")
    if args.scene is not None:
        verdict = "collision-free by the exact check" if res.success else "no collision-free answer found"
        print(f"{verdict} ({len(goals[1].scene)} obstacles, {res.callback_calls} exact checks)")
    for name, value in zip(robot.variable_names, res.q):
        print(f"  {name:<32} {value: .6f}")
    if not res.success:
        raise SystemExit(1)


def cmd_warmup(args) -> None:
    """Compile the kernels of the named solvers for this CPU (or load them from numba's
    cache), and bioik's modules to bytecode, so that a first solve is fast: for container
    images and CI (where PYTHONDONTWRITEBYTECODE is often set, every start would compile
    the package's Python source again: ~75 ms of each `bioik solve`)."""
    import compileall
    import time
    from pathlib import Path

    import bioik
    from bioik._compile_progress import compile_step

    compileall.compile_dir(Path(bioik.__file__).parent, quiet=2)  # a read-only install: nothing written, no harm

    names = args.solver or bioik.solvers.registry.untrained_names()  # the neural solvers need a trained network
    robot = _robot(args)
    tip = robot.tips[0]
    T = robot.link_pose(robot.center(), tip)
    # the one-call path (one pose goal), the general path (several goals), and a pose among
    # obstacles (a box far off: the free tries and the search with the collision costs)
    structures = ([bioik.PoseGoal(tip, T)], [bioik.PositionGoal(tip, T[:3, 3]), bioik.OrientationGoal(tip, T[:3, :3])])
    far = bioik.Scene()
    far.add_box("far", (0.1, 0.1, 0.1), np.array([[1.0, 0, 0, 100.0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]))
    start = time.monotonic()
    for k, name in enumerate(names):
        t0 = time.monotonic()
        solver = bioik.Solver(robot, name)
        with compile_step(f"solver {k + 1} of {len(names)}"):
            for goals in structures:
                solver.solve(goals, seed=robot.center(), max_iterations=1, random_seed=0)
            solver.solve(structures[0], seed=robot.center(), max_iterations=1, random_seed=0, scene=far)
        print(f"{name:<20} ready in {time.monotonic() - t0:6.1f} s", flush=True)
    print(f"{len(names)} solvers ready in {time.monotonic() - start:.1f} s")


def cmd_view(args) -> None:
    """Open the web viewer (needs the `[viz]` extra) and serve it until Ctrl-C."""
    from bioik.viewer import show

    robot = _robot(args)
    scene = None if args.scene is None else _scene(args.scene)
    show(robot, solver=args.solver, timeout=args.timeout, scene=scene, host=args.host, port=args.port, block=True)


def _scene(text: str):
    """A bundled scene (`bioik.scenes.names()`) or a scene file, else a ValueError naming both forms."""
    from pathlib import Path

    import bioik

    if text in bioik.scenes.names():
        return bioik.scenes.load(text).scene
    if Path(text).is_file():
        return bioik.Scene.from_file(text)
    raise ValueError(f"--scene {text!r} is neither a bundled scene ({', '.join(bioik.scenes.names())}) nor a scene file (TOML)")


def cmd_reach(args) -> int:
    """A reachability study of an object's surface: solve, store, report, picture."""
    from pathlib import Path

    import bioik
    from bioik.bench import reach
    from bioik.bench.distributed import cluster_options
    from bioik.bench.progress import progress_bar

    robot = _robot(args)
    tip = args.tip or robot.tips[0]
    robot.model.link_index(tip)  # an unknown link: one error line naming the closest
    if Path(args.object).suffix.lower() == ".toml":
        scene = bioik.Scene.from_file(args.object)
        if args.pose is not None:
            raise ValueError("--pose places a mesh object; a scene file's obstacles carry their own poses")
    else:
        scene = bioik.Scene()
        scene.add_mesh("object", args.object, None if args.pose is None else _pose_matrix(args.pose))
    on = tuple(args.on or scene.names)
    unknown = [n for n in on if n not in scene]
    if unknown:
        raise ValueError(f"--on {unknown[0]!r}: no such obstacle in {args.object} (it has {', '.join(scene.names)})")
    if args.samples < 1 or not args.timeout > 0 or not args.standoff >= 0:
        raise ValueError(f"--samples must be ≥ 1, --timeout > 0 and --standoff ≥ 0; got {args.samples}, {args.timeout}, {args.standoff}")
    cluster = cluster_options(args)
    study = reach.Study(args.robot, robot.fingerprint, tip, str(args.object), on, args.samples, args.seed,
                        args.solver or bioik.solvers.DEFAULT_SOLVER, args.timeout, args.standoff)
    with ExitStack() as stack:
        pool = None
        if cluster is not None:  # before the study file: a missing dask writes nothing
            from bioik.bench.distributed import DaskPool

            pool = stack.enter_context(DaskPool(**cluster))
        store = reach.ReachStore(args.db, study)
        bar = progress_bar("reach", study.samples, len(store.done()), unit="point")
        try:
            reach.run(store, robot, study, scene, lambda done, total: bar.update(done - bar.n), pool)
        except KeyboardInterrupt:
            print("\ninterrupted: solved points are kept; run the same command again to resume", file=sys.stderr)
            return 130
        finally:
            bar.close()
            print(reach.report(study, reach.coverage(store)))
            out = reach.picture(store, study, args.out or Path(args.db).with_suffix(".png"))
            store.close()
    print(f"picture: {out}")
    return 0


def _pose_matrix(pose) -> np.ndarray:
    """The 4×4 pose of x y z qw qx qy qz (the quaternion normalised)."""
    from bioik.kinematics.frames import matrix_from_quat

    x, y, z, qw, qx, qy, qz = pose
    if not np.isfinite(pose).all() or not np.linalg.norm([qw, qx, qy, qz]) > 0:
        raise ValueError(f"--pose needs finite numbers and a nonzero quaternion (x y z qw qx qy qz); got {' '.join(map(str, pose))}")
    T = np.eye(4)
    T[:3, :3] = matrix_from_quat(np.array([qw, qx, qy, qz]))
    T[:3, 3] = (x, y, z)
    return T


def cmd_train(args) -> None:
    """Train a network for the neural solvers [R 3.6], save it (default: beside the URDF, or
    ROBOT.MODE.npz in the current directory for a bundled robot), and report the solver's
    success on held-out FK targets at 5 ms."""
    from pathlib import Path

    import bioik
    from bioik.solvers.neural.network import default_paths
    from bioik.solvers.neural.train import train

    robot = _robot(args)
    out = Path(args.out) if args.out else default_paths(robot, args.mode)[0]
    tip = args.tip or robot.tips[0]
    print(f"training a {args.mode} network for {robot.name} ({robot.dof} DoF, tip {tip}) → {out}", flush=True)
    net = train(robot, args.mode, tip=args.tip, samples=args.samples, epochs=args.epochs, hidden=args.hidden,
                seconds=60.0 * args.minutes, learning_rate=args.learning_rate, seed=args.seed,
                progress=lambda line: print(line, flush=True))
    net.save(out)
    print(f"saved {out} after {net.training['seconds']:.0f} s", flush=True)
    if args.check < 1:
        return
    rng = np.random.default_rng(args.seed + 1)
    targets = robot.fk(robot.random_configuration(rng, args.check), [net.tip])[:, 0]
    seeds = robot.random_configuration(rng, args.check)
    solver = bioik.Solver(robot, args.mode, network=net)
    solver.solve([bioik.PoseGoal(net.tip, robot.link_pose(robot.center(), net.tip))])  # load the kernel before timing
    results = [solver.solve([bioik.PoseGoal(net.tip, T)], seed=s, timeout=0.005) for T, s in zip(targets, seeds)]
    ok = [r.time for r in results if r.success]
    print(f"held-out check: {args.mode} solved {len(ok)}/{args.check} FK targets ({100.0 * len(ok) / max(args.check, 1):.0f} %) "
          f"at 5 ms, 1e-5 m / 1e-5 rad, random seeds; median time {1e3 * np.median([r.time for r in results]):.2f} ms "
          f"(of the solved: {1e3 * np.median(ok) if ok else float('nan'):.2f} ms)")


def cmd_robots(args) -> None:
    """List the bundled robots."""
    from bioik import robots

    for name in robots.names():
        print(f"{name:<14} {robots.ROBOTS[name].get('description', '')}")


def build_parser(bench: bool = True) -> argparse.ArgumentParser:
    """The `bioik` parser. bench=False leaves out the arguments of `bioik bench …`: they come
    from the benchmark's modules (`bioik.bench.cli`), which `main` imports only for that command."""
    from bioik.bench.distributed import add_arguments as add_cluster_arguments

    p = argparse.ArgumentParser(prog="bioik", description="Inverse kinematics toolkit.")
    sub = p.add_subparsers(dest="command", required=True)

    def robot_command(name: str, func, help: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help, description=help)
        sp.add_argument("robot", help="bundled robot name (see `bioik robots`) or URDF path")
        sp.add_argument("--group", help="joint group (default: the robot's default group)")
        sp.set_defaults(func=func)
        return sp

    sub.add_parser("robots", help="list the bundled robots").set_defaults(func=cmd_robots)
    info = robot_command("info", cmd_info, "show a robot's joints, limits, tips and groups")
    info.add_argument("--collision", action="store_true",
                      help="also show the collision spheres per link and the allowed collision pairs with reasons")
    fk = robot_command("fk", cmd_fk, "forward kinematics: poses of links for a configuration")
    fk.add_argument("--q", type=float, nargs="+", help="joint values in variable order (default: zeros)")
    fk.add_argument("--link", action="append", help="link to report (repeatable; default: the tips)")
    sv = robot_command("solve", cmd_solve, "inverse kinematics for one link pose")
    sv.add_argument("--link", help="link to place (default: the group's first tip)")
    sv.add_argument("--pose", type=float, nargs=7, required=True, metavar=("X", "Y", "Z", "QW", "QX", "QY", "QZ"),
                    help="goal position (m) and unit quaternion, base frame")
    sv.add_argument("--solver", help="solver name (default: bioik's default solver)")
    sv.add_argument("--timeout", type=float, default=0.005, help="seconds (default 0.005)")
    sv.add_argument("--seed-config", type=float, nargs="+", help="start configuration (default: random)")
    sv.add_argument("--random-seed", type=int, help="RNG seed for a reproducible run")
    sv.add_argument("--scene", help="scene file (TOML, see docs/scene-format.md): stay out of its obstacles")
    sv.add_argument("--allow", action="append", metavar="LINK:OBSTACLE",
                    help="a link that may touch an obstacle, e.g. base_link:table (repeatable)")
    vw = robot_command("view", cmd_view, "open a web viewer: drag goal handles, the robot follows (needs bioik[viz])")
    vw.add_argument("--solver", default="lm", help="solver name (default lm)")
    vw.add_argument("--timeout", type=float, default=0.01, help="seconds per solve (default 0.01)")
    vw.add_argument("--scene", help="obstacles to draw: a bundled scene name (see bioik.scenes.names()) or a scene file (TOML)")
    vw.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    vw.add_argument("--port", type=int, default=8080, help="port (default 8080; 0 picks a free one)")
    rc = robot_command("reach", cmd_reach, "reachability study: tool poses on an object's surface, solved collision-free; "
                                            "coverage report and picture (resumable)")
    rc.add_argument("--object", required=True, help="the object: a mesh file (placed by --pose) or a scene file (TOML)")
    rc.add_argument("--pose", type=float, nargs=7, metavar=("X", "Y", "Z", "QW", "QX", "QY", "QZ"),
                    help="where a mesh object sits in the base frame (default: at the origin)")
    rc.add_argument("--on", action="append", metavar="OBSTACLE", help="sample only this obstacle of a scene file (repeatable)")
    rc.add_argument("--samples", type=int, default=1000, help="tool poses to sample (default 1000)")
    rc.add_argument("--db", required=True, help="the study's SQLite file (created; an existing one is resumed)")
    rc.add_argument("--out", help="the picture (PNG; default: the --db path with .png)")
    rc.add_argument("--tip", help="the tool link (default: the group's first tip)")
    rc.add_argument("--solver", help="solver name (default: bioik's default solver)")
    rc.add_argument("--timeout", type=float, default=0.01, help="seconds per pose (default 0.01)")
    rc.add_argument("--standoff", type=float, default=0.01, help="tool distance from the surface, m (default 0.01)")
    rc.add_argument("--seed", type=int, default=0, help="sampling and solving seed (default 0)")
    add_cluster_arguments(rc)
    tr = robot_command("train", cmd_train, "train the network of a neural solver (neural, neural2) for a robot "
                                            "[R 3.6]; needs bioik[neural]")
    tr.add_argument("--mode", choices=("neural", "neural2"), default="neural2", help="the solver to train for (default neural2)")
    tr.add_argument("--out", help="the network file (.npz; default: beside the URDF, or ROBOT.MODE.npz in the current "
                                  "directory for a bundled robot: where the solver looks for it)")
    tr.add_argument("--tip", help="the link to place (default: the group's first tip)")
    tr.add_argument("--samples", type=int, default=100_000, help="training configurations (default 100000)")
    tr.add_argument("--epochs", type=int, default=1000,
                    help="most passes over the examples (default 1000; --minutes ends it sooner)")
    tr.add_argument("--minutes", type=float, default=5.0, help="stop after the epoch that passes this time (default 5)")
    tr.add_argument("--hidden", type=int, nargs="+", default=[128, 128], help="hidden layer widths (default 128 128)")
    tr.add_argument("--learning-rate", type=float, default=1e-3, help="Adam's step size (default 0.001)")
    tr.add_argument("--check", type=int, default=200, help="held-out FK targets solved afterwards (default 200)")
    tr.add_argument("--seed", type=int, default=0, help="seed of the data and the initial weights (default 0)")
    wu = sub.add_parser("warmup", help="compile the solvers' kernels ahead of time (once per machine)",
                        description="Compile the solvers' kernels for this CPU ahead of time (once per machine; for images and CI).")
    wu.add_argument("robot", nargs="?", default="ur5", help="robot to prepare on (default ur5; kernels serve every robot)")
    wu.add_argument("--group", help="joint group (default: the robot's default group)")
    wu.add_argument("--solver", action="append",
                    help="solver to prepare (repeatable; default: every solver but the neural ones, "
                         "which need a trained network)")
    wu.set_defaults(func=cmd_warmup)
    bp = sub.add_parser("bench", help="benchmark solvers: run experiments, report, plot",
                        description="Benchmark solvers (EBIKE-style, [E 5]): results in SQLite, markdown report, plots.")
    if bench:
        from bioik.bench.cli import add_subcommands

        add_subcommands(bp)
    return p


def _allowed_pair(text: str) -> tuple[str, str]:
    link, sep, obstacle = text.partition(":")
    if not sep or not link or not obstacle:
        raise ValueError(f"--allow takes LINK:OBSTACLE (a link that may touch an obstacle of the scene); got {text!r}")
    return link, obstacle


@contextmanager
def _loaded_frozen() -> Iterator[None]:
    """Run a command with what is loaded by now frozen (`gc.freeze`), and freeze everything
    at exit. bioik and numba are ~120,000 objects that live until the process ends: the
    cyclic collector would traverse them in each full collection, and once more at exit,
    to free nothing (≈ 0.2 s of a 1 s `bioik solve`). Reference counting still frees what
    it can; at exit the OS reclaims the rest (Python promises no finalizers there)."""
    gc.freeze()
    atexit.unregister(gc.freeze)  # registered once, however often main runs
    atexit.register(gc.freeze)
    try:
        yield
    finally:
        gc.unfreeze()  # an in-process caller (a test) does not keep the freeze


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (errors print one line, status 2)."""
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(bench="bench" in argv[:1]).parse_args(argv)
    with _loaded_frozen():
        try:
            status = args.func(args)
        except (ValueError, KeyError, OSError, ImportError) as e:  # ImportError: an optional extra is missing
            print(f"bioik {args.command}: error: {e}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:  # Ctrl-C, also inside a compiled solve: one line, the shell's status
            print(f"bioik {args.command}: interrupted", file=sys.stderr)
            return 130
    return status or 0


if __name__ == "__main__":
    sys.exit(main())
