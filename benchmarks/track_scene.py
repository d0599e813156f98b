"""Collision-aware tracking: `bioik.track(..., scene=)` along a path through ur5's table cell.

The cell is the `table` test's (`bioik.bench.table`): ur5 3 cm above a table with three
posts. The path is a smooth closed joint curve around a collision-free configuration (a
sum of sines, each joint within ±`--amplitude` rad), drawn with a fixed seed until every
one of its `--poses` configurations is collision-free by the exact check; its tool poses
are the targets. `track` follows them from the path's first configuration, each step
warm-started from the last answer, with `max_step` and the scene, `--runs` times.

Reported: steps solved, steps collision-free by the exact check (must be all: a failed
step holds the last configuration), the largest joint step (must be ≤ max_step), and the
median and p90 time per step of the runs.

    PYTHONPATH=src python benchmarks/track_scene.py [--poses 1000] [--runs 3] [--max-step 0.3] [--timeout 0.005]
"""

from __future__ import annotations

import argparse

import numpy as np

import bioik
from bioik.bench.table import table_scene, table_witnesses
from bioik.collision import CollisionChecker


def clear_path(robot: bioik.Robot, checker: CollisionChecker, n: int, amplitude: float, seed: int) -> np.ndarray:
    """A closed joint path of n configurations, all collision-free and within limits."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)[:, None]
    for centre in table_witnesses(robot, rng, 200):
        phase = rng.uniform(0.0, 2.0 * np.pi, robot.dof)
        freq = rng.integers(1, 3, robot.dof)
        path = centre + amplitude * np.sin(freq * t + phase) - amplitude * np.sin(phase)
        if all(robot.within_limits(q) for q in path) and all(checker.is_free(q) for q in path):
            return path
    raise SystemExit("no collision-free path found around 200 witnesses; lower --amplitude")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--poses", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--max-step", type=float, default=0.3)
    ap.add_argument("--timeout", type=float, default=0.005)
    ap.add_argument("--amplitude", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    robot = bioik.load_robot("ur5")
    scene = table_scene()
    checker = CollisionChecker(robot, scene)
    path = clear_path(robot, checker, args.poses, args.amplitude, args.seed)
    poses = [robot.link_pose(q, "tool0") for q in path]
    bioik.track(robot, poses[:5], path[0], scene=scene, max_step=args.max_step, timeout=args.timeout)  # loads the kernels
    times = []
    for run in range(args.runs):
        res = bioik.track(robot, poses, path[0], scene=scene, max_step=args.max_step, timeout=args.timeout)
        free = sum(checker.is_free(q) for q in res.q)
        times.append(res.time)
        print(f"run {run}: {int(res.success.sum())}/{len(poses)} steps solved, {free} collision-free, "
              f"largest joint step {res.max_joint_step:.3f} rad (max_step {args.max_step}), "
              f"median {1e3 * np.median(res.time):.3f} ms per step")
    every = np.concatenate(times)
    print(f"all runs: median {1e3 * np.median(every):.3f} ms, p90 {1e3 * np.percentile(every, 90):.3f} ms per step")


if __name__ == "__main__":
    main()
