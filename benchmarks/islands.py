"""BioIK 2 islands on threads: the FK/IK test ([R 3.2]) with `threads` = 1, 2, … on the same
targets, paired and taken in turns, so that a busy or drifting machine hits every setting
alike ([R Table 3.9] compares 1, 2 and 4 islands this way, on one machine).

The targets and seed states are `fkik.py`'s (same --seed, same targets). For each target
every setting solves it once (the order rotating from target to target), from the same
seed state, with a 5 ms timeout; success is `fkik.check`'s, from the returned q. Per setting: the success rate with its 95 % Wilson interval, the median time,
and "cores": the process's CPU time over the wall time of that setting's solves that took
1 ms or more (the hard targets, where the islands run long enough to matter) — how much
of the machine its islands really got (2 islands on a machine whose second core is busy
get about 1). Last, per setting beyond the first, the targets only it solved and only
the first solved, and the exact McNemar p-value of that split (paired test of equal rates).

Usage: python3 benchmarks/islands.py [--robots ur5 panda iiwa14] [--solver bio2_memetic]
                                      [--threads 1 2] [--targets 10000] [--timeout 0.005] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from fkik import check, fkik_targets
from scipy.stats import binomtest

import bioik


def run(robot_name: str, solver: str, threads: list[int], targets: int, timeout: float, seed: int) -> None:
    """Solve the targets with every thread count in turn; print one row per thread count."""
    robot, tip, _, poses, seeds, warm = fkik_targets(robot_name, targets, seed)
    solvers = [bioik.Solver(robot, solver, timeout=timeout, threads=t) for t in threads]
    for s in solvers:  # load compiled code, start the island threads
        for _ in range(20):
            s.solve([bioik.PoseGoal(tip, robot.link_pose(warm, tip))], seed=warm)
    k = len(threads)
    ok = np.zeros((k, targets), dtype=bool)
    wall = np.zeros((k, targets))
    cpu = np.zeros((k, targets))
    for i, (T, q0) in enumerate(zip(poses, seeds)):
        goals = [bioik.PoseGoal(tip, T)]
        for j in np.roll(np.arange(k), i):
            c, t = time.process_time(), time.perf_counter()
            res = solvers[j].solve(goals, seed=q0)
            wall[j, i] = time.perf_counter() - t
            cpu[j, i] = time.process_time() - c
            ok[j, i] = check(robot, tip, T, res.q)
            if res.success and not ok[j, i]:
                raise AssertionError(f"{solver} threads={threads[j]} claimed success for a wrong answer on {robot_name}")
    for j, t in enumerate(threads):
        hard = wall[j] >= 1e-3
        cores = cpu[j, hard].sum() / wall[j, hard].sum() if hard.any() else float("nan")
        ci = binomtest(int(ok[j].sum()), targets).proportion_ci(confidence_level=0.95, method="wilson")
        row = (f"| {robot_name} | {solver} | {t} | {100 * ok[j].mean():.2f} | {100 * ci.low:.2f}–{100 * ci.high:.2f} | "
               f"{1e3 * np.median(wall[j]):.3f} | {cores:.2f} |")
        if j:
            only, only_first = int((ok[j] & ~ok[0]).sum()), int((ok[0] & ~ok[j]).sum())
            p = binomtest(only, only + only_first).pvalue if only + only_first else 1.0
            row += f" {only} / {only_first}, p = {p:.2g} |"
        else:
            row += " |"
        print(row, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description="BioIK 2 islands on threads: FK/IK success per thread count, paired")
    ap.add_argument("--robots", nargs="+", default=["ur5", "panda", "iiwa14"])
    ap.add_argument("--solver", default="bio2_memetic")
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--targets", type=int, default=10000)
    ap.add_argument("--timeout", type=float, default=0.005)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"FK/IK test, {args.targets} targets, timeout {args.timeout * 1e3:g} ms, thread counts {args.threads} in turns")
    print("| robot | solver | threads | success % | 95 % CI | median ms | cores (solves ≥ 1 ms) | only this / only the first |")
    print("|---|---|---|---|---|---|---|---|")
    for robot in args.robots:
        run(robot, args.solver, args.threads, args.targets, args.timeout, args.seed)


if __name__ == "__main__":
    main()
