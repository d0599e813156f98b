"""Do solvers return on time? Wall time of `bioik.solve` on unreachable targets.

An unreachable target keeps every solver searching until its timeout, so the wall time of
the call is the timeout plus whatever the solver overshoots by (its last iteration, the
final acceptance test, Python overhead). Each solver is prepared (compiled and warmed up)
before it is timed. Prints the median, p99 and maximum wall time per solver and timeout,
and the p99 overshoot; the target is p99 ≤ timeout + 0.5 ms.

With --scenes, the same for the searches among obstacles instead: `bioik.PassageSolver`
(the bench's `passage`, the passage search included) and `bioik.solve(..., scene=)` on
the stored targets of the EBIKE scenes (reachable: a solve that answers early returns
early, so the p99 shows the overshoot of the slowest).

Usage: python3 benchmarks/timeouts.py [--robot ur5] [--timeouts 0.005 0.05] [--queries 200]
                                      [--solvers lm kdl …] [--scenes Shelf HydrogenTank …]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import bioik
from bioik.solvers import registry


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robot", default="ur5")
    ap.add_argument("--timeouts", type=float, nargs="+", default=[0.005, 0.05])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--solvers", nargs="+", default=registry.names())
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scenes", nargs="*", default=None, help="EBIKE scenes: time the searches among obstacles")
    args = ap.parse_args()
    if args.scenes is not None:
        return scene_timeouts(args.scenes or bioik.scenes.names(), args.timeouts, args.queries)
    robot = bioik.load_robot(args.robot)
    tip = robot.tips[0]
    rng = np.random.default_rng(args.seed)
    targets = []
    for _ in range(args.queries):
        T = robot.link_pose(robot.random_configuration(rng), tip)
        v = rng.normal(size=3)
        T[:3, 3] = 20.0 * v / np.linalg.norm(v)  # 20 m away: out of reach
        targets.append((T, robot.random_configuration(rng)))
    print(f"{args.robot}, {args.queries} unreachable targets per solver and timeout")
    print("| solver | timeout ms | median ms | p99 ms | max ms | p99 overshoot ms |")
    print("|---|---|---|---|---|---|")
    for solver in args.solvers:
        for timeout in args.timeouts:
            bioik.solve(robot, [bioik.PoseGoal(tip, targets[0][0])], seed=targets[0][1], solver=solver, timeout=timeout)
            times = []
            for T, seed in targets:
                t = time.perf_counter()
                bioik.solve(robot, [bioik.PoseGoal(tip, T)], seed=seed, solver=solver, timeout=timeout)
                times.append(time.perf_counter() - t)
            ms = 1e3 * np.array(times)
            p99 = np.percentile(ms, 99)
            print(f"| {solver} | {1e3 * timeout:g} | {np.median(ms):.2f} | {p99:.2f} | {ms.max():.2f} | "
                  f"{p99 - 1e3 * timeout:+.2f} |", flush=True)


def scene_timeouts(names: list[str], timeouts: list[float], queries: int) -> None:
    """Wall time of PassageSolver.solve and solve(..., scene=) on each scene's stored targets."""
    from bioik import scenes
    from bioik.collision import sphere_model
    from bioik.passage_solver import PassageSolver

    robot = bioik.load_robot(scenes.ROBOT)
    cover = sphere_model(robot, links=scenes.ENDOSCOPE_COVER)
    print(f"{scenes.ROBOT}, the first {queries} stored targets per scene, search and timeout")
    print("| scene | search | timeout ms | median ms | p99 ms | max ms | p99 overshoot ms |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        scenario = scenes.load(name)
        stored = scenario.targets()
        passage = PassageSolver(robot, scenes.TIP, "endoscope_mount", scenario.scene, spheres=cover, tool_radius=0.004)
        passage.warm_up(stored.poses[0])
        searches = {
            "PassageSolver": lambda T, k, t: passage.solve(T, timeout=t, random_seed=k),
            "solve(scene=)": lambda T, k, t: bioik.solve(robot, [bioik.PoseGoal(scenes.TIP, T)], scene=scenario.scene,
                                                         timeout=t, random_seed=k),
        }
        for search, call in searches.items():
            for timeout in timeouts:
                call(stored.poses[0], 0, timeout)
                times = []
                for k, T in enumerate(stored.poses[:queries]):
                    t = time.perf_counter()
                    call(T, k, timeout)
                    times.append(time.perf_counter() - t)
                ms = 1e3 * np.array(times)
                p99 = np.percentile(ms, 99)
                print(f"| {name} | {search} | {1e3 * timeout:g} | {np.median(ms):.2f} | {p99:.2f} | {ms.max():.2f} | "
                      f"{p99 - 1e3 * timeout:+.2f} |", flush=True)


if __name__ == "__main__":
    main()
