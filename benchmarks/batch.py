"""Throughput of `bioik.solve_batch` against a loop of `bioik.solve` calls (issue 19).

N FK targets of the robot's tip (FK of uniform random configurations) from random seed
states, one pose goal each, `--solver` with `--timeout`; per query µs (wall time of the
whole batch / N), the median of `--repeats` runs of:

- loop: `bioik.solve(robot, [PoseGoal(tip, T)], seed=s, ...)` for each target, goals built
  in the loop (as a user would), and the same loop's "overhead" (the calls when the seed
  already solves the goal: everything that is not search) — "loop − overhead" is what the
  searches cost, the bound a batch must get near with one thread;
- `solve_batch` of a `GoalBatch` (the template and the N poses) with threads = 1, 2 …

Usage: python3 benchmarks/batch.py [--robot ur5] [--solver lm] [--targets 10000]
                                    [--timeout 0.005] [--repeats 5] [--threads 1 2]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import bioik


def per_query_us(run, n: int, repeats: int) -> float:
    """Median over repeats of run()'s wall time / n, in µs."""
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return statistics.median(times) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robot", default="ur5")
    ap.add_argument("--solver", default="lm")
    ap.add_argument("--targets", type=int, default=10_000)
    ap.add_argument("--timeout", type=float, default=0.005)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()

    robot = bioik.load_robot(a.robot)
    tip = robot.tips[0]
    rng = np.random.default_rng(a.seed)
    solutions = robot.random_configuration(rng, a.targets)
    seeds = robot.random_configuration(rng, a.targets)
    poses = robot.fk(solutions, links=[tip])[:, 0]
    batch = bioik.GoalBatch([bioik.PoseGoal(tip, poses[0])], poses)
    kw = dict(timeout=a.timeout, solver=a.solver)
    for k in range(20):  # load the kernels and fill the caches before timing
        bioik.solve(robot, [bioik.PoseGoal(tip, poses[k])], seed=seeds[k], **kw)
    bioik.solve_batch(robot, bioik.GoalBatch([bioik.PoseGoal(tip, poses[0])], poses[:20]), seeds[:20], threads=1, **kw)

    def loop(start: np.ndarray) -> None:
        for T, s in zip(poses, start):
            bioik.solve(robot, [bioik.PoseGoal(tip, T)], seed=s, **kw)

    print(f"{a.robot}, {a.solver}, {a.targets} FK targets, random seed states, timeout {a.timeout * 1e3:g} ms; "
          f"µs per query, median of {a.repeats}")
    rows = [
        ("loop of solve", per_query_us(lambda: loop(seeds), a.targets, a.repeats)),
        ("loop overhead (seed solves)", per_query_us(lambda: loop(solutions), a.targets, a.repeats)),
    ]
    rows.append(("loop − overhead", rows[0][1] - rows[1][1]))
    solved = {}
    for t in a.threads:
        def run(t=t) -> None:
            solved[t] = bioik.solve_batch(robot, batch, seeds, threads=t, **kw)
        rows.append((f"solve_batch threads={t}", per_query_us(run, a.targets, a.repeats)))
    for name, us in rows:
        print(f"| {name} | {us:.2f} |")
    one = dict(rows)["solve_batch threads=1"] if 1 in a.threads else None
    for t in a.threads:
        r = solved[t]
        speedup = f", {one / dict(rows)[f'solve_batch threads={t}']:.2f}× threads=1" if one and t != 1 else ""
        print(f"threads={t}: success {r.success.mean() * 100:.2f} %, median query {np.median(r.time) * 1e6:.1f} µs{speedup}")


if __name__ == "__main__":
    main()
