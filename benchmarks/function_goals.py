"""Your own goal on both paths: a `LinkFunctionGoal` written as plain Python and the same
function under numba's `@njit`, with an orientation goal, solved by several solvers
(issue 43, item 4).

ur5; each target's function is the squared distance of the tool from a reachable point
(one scalar residual), the orientation that of the same configuration; random seeds. The
first solve of each goal (its callback is built then: a cfunc takes about a second) is
not timed.

Run:  python benchmarks/function_goals.py [--targets 30] [--timeout 0.1] [--solvers lm bio2_lm optlib_lbfgsb]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

import bioik


def squared_distance(point: np.ndarray, compiled: bool):
    x, y, z = (float(v) for v in point)

    def f(T):
        return (T[0, 3] - x) ** 2 + (T[1, 3] - y) ** 2 + (T[2, 3] - z) ** 2

    return njit(f) if compiled else f


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", type=int, default=30)
    ap.add_argument("--timeout", type=float, default=0.1)
    ap.add_argument("--solvers", nargs="+", default=["lm", "bio2_lm", "optlib_lbfgsb"])
    args = ap.parse_args()
    robot = bioik.load_robot("ur5")
    tip = robot.tips[0]
    rng = np.random.default_rng(5)
    targets = robot.fk(robot.random_configuration(rng, args.targets), [tip])[:, 0]
    seeds = robot.random_configuration(rng, args.targets)
    print(f"| function | solver | solved within {args.timeout * 1e3:g} ms | median ms |\n|---|---|---|---|")
    for compiled in (True, False):
        functions = [squared_distance(T[:3, 3], compiled) for T in targets]
        for solver in args.solvers:
            solved, times = 0, []
            for k, T in enumerate(targets):
                goals = [bioik.LinkFunctionGoal(tip, functions[k]), bioik.OrientationGoal(tip, T[:3, :3])]
                bioik.solve(robot, goals, seeds[k], solver=solver, max_iterations=1, random_seed=k)  # builds the callback
                t0 = time.perf_counter()
                res = bioik.solve(robot, goals, seeds[k], solver=solver, timeout=args.timeout, random_seed=k)
                times.append(time.perf_counter() - t0)
                solved += res.success
            print(f"| {'@njit' if compiled else 'Python'} | {solver} | {solved}/{args.targets} | {np.median(times) * 1e3:.2f} |",
                  flush=True)


if __name__ == "__main__":
    main()
