"""Secondary goals choosing among bio2's islands: the secondary cost of the answers on a
redundant arm with minimal displacement (issue 43, item 3).

panda, a pose goal near the seed plus `MinimalDisplacementGoal`, `bio2_lm` on 4 islands:
the median and mean secondary cost of the successful answers, and how often more than
one island succeeded (only then can the choice differ). Run it before and after a change
to the island selection, on the same machine.

Run:  python benchmarks/island_choice.py [--targets 200] [--solver bio2_lm] [--threads 4]
"""

from __future__ import annotations

import argparse

import numpy as np

import bioik
from bioik.solvers.evolutionary.bio2 import search


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", type=int, default=200)
    ap.add_argument("--solver", default="bio2_lm")
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=1.0)
    args = ap.parse_args()
    robot = bioik.load_robot("panda")
    tip = robot.tips[0]
    rng = np.random.default_rng(43)
    several = 0
    run_islands = search.run_islands

    def counting(calls, stop):  # how many islands succeeded in each search
        nonlocal several
        outcomes = run_islands(calls, stop)
        several += sum(bool(o[0]) for o in outcomes) > 1
        return outcomes

    search.run_islands = counting
    solver = bioik.Solver(robot, args.solver, threads=args.threads)
    costs = []
    for k in range(args.targets):
        seed = robot.random_configuration(rng)
        T = robot.link_pose(np.clip(seed + rng.normal(scale=0.3, size=robot.dof), robot.lower, robot.upper), tip)
        res = solver.solve([bioik.PoseGoal(tip, T), bioik.MinimalDisplacementGoal()], seed=seed, timeout=args.timeout,
                           random_seed=k)
        if res.success:
            costs.append(res.secondary_cost)
    c = np.array(costs)
    print(f"{args.solver}, {args.threads} islands, panda: {len(c)}/{args.targets} solved; secondary cost of the answers "
          f"median {np.median(c):.3e}, mean {c.mean():.3e}; searches where several islands succeeded: {several}")


if __name__ == "__main__":
    main()
