"""Throughput of `bioik.solve_batch` against a loop of `bioik.solve` calls (issue 19).

N FK targets of the robot's tip (FK of uniform random configurations) from random seed
states, one pose goal each, `--solver` with `--timeout`; per query µs (wall time of the
whole batch / N), the median of `--repeats` rounds — each round runs every variant once,
so a drift of the machine's speed (shared VMs drift by 2× within minutes) hits all alike:

- loop: `bioik.solve(robot, [PoseGoal(tip, T)], seed=s, ...)` for each target, goals built
  in the loop (as a user would), and the same loop's "overhead" (the calls when the seed
  already solves the goal: everything that is not search) — "loop − overhead" is what the
  searches cost, the bound a batch must get near with one thread;
- `solve_batch` of a `GoalBatch` (the template and the N poses) with threads = 1, 2 …

Usage: python3 benchmarks/batch.py [--robot ur5] [--solver lm] [--targets 10000]
                                    [--timeout 0.005] [--repeats 7] [--threads 1 2]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

import bioik


def per_query_us(variants: dict[str, Callable[[], object]], n: int, repeats: int) -> dict[str, tuple[float, float]]:
    """(median wall time / n in µs, median cores busy) of each variant over `repeats` rounds
    of all variants; cores busy = the process's CPU time / wall time (below the thread
    count when other jobs hold the cores, whatever the code does)."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
    for _ in range(repeats):
        for name, run in variants.items():
            t, c = time.perf_counter(), time.process_time()
            run()
            wall = time.perf_counter() - t
            times[name].append((wall, (time.process_time() - c) / wall))
    return {name: (statistics.median(w for w, _ in ts) / n * 1e6, statistics.median(c for _, c in ts))
            for name, ts in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robot", default="ur5")
    ap.add_argument("--solver", default="lm")
    ap.add_argument("--targets", type=int, default=10_000)
    ap.add_argument("--timeout", type=float, default=0.005)
    ap.add_argument("--repeats", type=int, default=7)
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
          f"µs per query, median of {a.repeats} rounds")
    solved = {}

    def batch_run(t: int) -> Callable[[], None]:
        def run() -> None:
            solved[t] = bioik.solve_batch(robot, batch, seeds, threads=t, **kw)
        return run

    variants = {"loop of solve": lambda: loop(seeds), "loop overhead (seed solves)": lambda: loop(solutions)}
    variants.update({f"solve_batch threads={t}": batch_run(t) for t in a.threads})
    measured = per_query_us(variants, a.targets, a.repeats)
    print("| variant | µs per query | cores busy |\n|---|---|---|")
    for name, (value, busy) in measured.items():
        print(f"| {name} | {value:.2f} | {busy:.2f} |")
    us = {name: value for name, (value, _) in measured.items()}
    print(f"| loop − overhead | {us['loop of solve'] - us['loop overhead (seed solves)']:.2f} | |")
    one = us.get("solve_batch threads=1")
    for t in a.threads:
        r = solved[t]
        speedup = f", {one / us[f'solve_batch threads={t}']:.2f}× threads=1" if one and t != 1 else ""
        print(f"threads={t}: success {r.success.mean() * 100:.2f} %, median query {np.median(r.time) * 1e6:.1f} µs{speedup}")


if __name__ == "__main__":
    main()
