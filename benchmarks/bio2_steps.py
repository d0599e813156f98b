"""How many BioIK 2 steps a query needs, independent of the speed of a step.

Usage: python3 benchmarks/bio2_steps.py [--robot ur5] [--solver bio2_memetic] [--targets 150] [--steps 300]

FK/IK targets (random seed states) solved with a step budget instead of a timeout;
prints the success rate within the budget, the median and 90th percentile of the steps of
the successful queries, and the measured time per step.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import bioik


def main() -> None:
    ap = argparse.ArgumentParser(description="steps per query of the BioIK 2 solvers")
    ap.add_argument("--robot", default="ur5")
    ap.add_argument("--solver", default="bio2_memetic")
    ap.add_argument("--targets", type=int, default=150)
    ap.add_argument("--steps", type=int, default=300)
    args = ap.parse_args()
    robot = bioik.load_robot(args.robot)
    tip = robot.tips[0]
    rng = np.random.default_rng(0)
    poses = robot.fk(robot.random_configuration(rng, args.targets), links=[tip])[:, 0]
    seeds = robot.random_configuration(rng, args.targets)
    bioik.solve(robot, [bioik.PoseGoal(tip, poses[0])], seed=seeds[0], solver=args.solver, max_iterations=1)  # warm-up
    steps, ok_steps, spent = [], [], 0.0
    for k, (T, seed) in enumerate(zip(poses, seeds)):
        t = time.perf_counter()
        res = bioik.solve(robot, [bioik.PoseGoal(tip, T)], seed=seed, solver=args.solver, timeout=3600.0,
                          max_iterations=args.steps, random_seed=k)
        spent += time.perf_counter() - t
        steps.append(res.iterations)
        if res.success:
            ok_steps.append(res.iterations)
    solved = len(ok_steps)
    print(f"{args.solver} on {args.robot}: {100 * solved / args.targets:.1f} % solved within {args.steps} steps; "
          f"steps median {np.median(ok_steps):g}, 90th percentile {np.percentile(ok_steps, 90):g}; "
          f"{spent / sum(steps) * 1e6:.0f} µs per step")


if __name__ == "__main__":
    main()
