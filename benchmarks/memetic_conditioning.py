"""Why the faithful BioIK 2 (`bio2_memetic`) is slow on a hand's five fingertip goals: the
conditioning of the problem its memetic step descends.

[R 3.7.9]'s memetics is gradient descent with a quadratic step-size estimate along the
gradient: a first-order method, whose progress per step on a quadratic bowl shrinks with
the condition number κ of its Hessian (about 1 − 2/κ per exactly sized step along the
steepest direction). Near a solution the cost's Hessian is JᵀJ (Gauss–Newton), J the
stacked goal Jacobians. This script prints, per problem, the median κ(JᵀJ) at the
targets' witness configurations (singular values below 1e-9 of the largest — directions
that move no goal — left out) and the share solved by `bio2_memetic` and by `bio2_lm`
(the same evolution with Levenberg–Marquardt memetics, which is immune to κ) from seeds
near the answer (each joint off by N(0, σ²), clipped into its limits) and from random
seeds, within the given timeouts.

Usage:
  python benchmarks/memetic_conditioning.py [--targets 50] [--sigma 0.05]
"""

from __future__ import annotations

import argparse

import numpy as np

import bioik
from bioik.bench.runner import target_goals
from bioik.bench.targets import FKIK_POSITION, generate, tips_of

FINGERTIPS = "thumb_tip,index_tip,middle_tip,ring_tip,little_tip"
PROBLEMS = [("ur5", "tool0", "fkik"), ("iiwa14_hand", FINGERTIPS, FKIK_POSITION), ("iiwa14_hand", FINGERTIPS, "fkik")]
SOLVERS = ("bio2_memetic", "bio2_lm")
#: (seed kind, timeout s) of each success column.
COLUMNS = (("near", 0.005), ("near", 0.05), ("random", 0.05), ("random", 0.5))


def condition(robot: bioik.Robot, tips: list[str], q: np.ndarray, position_only: bool) -> float:
    """κ(JᵀJ) of the stacked goal Jacobians at q, null directions left out."""
    rows = slice(0, 3) if position_only else slice(0, 6)
    s = np.linalg.svd(np.vstack([robot.jacobian(q, t)[rows] for t in tips]), compute_uv=False)
    s = s[s > 1e-9 * s[0]]
    return float((s[0] / s[-1]) ** 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--targets", type=int, default=50)
    ap.add_argument("--sigma", type=float, default=0.05, help="joint offset (rad) of the near seeds")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    head = " | ".join(f"{kind} seed ≤ {1e3 * t:g} ms" for kind, t in COLUMNS)
    print(f"| robot | goals | κ(JᵀJ) median | solver | {head} |")
    print("|---|---|---|---|" + "---|" * len(COLUMNS))
    for name, tip, test in PROBLEMS:
        robot = bioik.load_robot(name)
        tips = tips_of(tip)
        targets = generate(robot, test, args.targets, 0, tip)
        kappa = np.median([condition(robot, tips, q, test == FKIK_POSITION) for q in targets.witnesses])
        near = robot.clip(targets.witnesses + rng.normal(scale=args.sigma, size=targets.witnesses.shape))
        goals = [target_goals(tip, T, test) for T in targets.poses]
        kind = "position" if test == FKIK_POSITION else "pose"
        for solver in SOLVERS:
            bioik.solve(robot, goals[0], seed=near[0], solver=solver)  # compiled before the clock
            rates = []
            for seeds_kind, timeout in COLUMNS:
                seeds = near if seeds_kind == "near" else targets.seeds
                solved = sum(bioik.solve(robot, g, seed=s, solver=solver, timeout=timeout).success for g, s in zip(goals, seeds))
                rates.append(f"{100.0 * solved / len(goals):.0f} %")
            print(f"| {name} | {len(tips)} {kind} | {kappa:.2g} | {solver} | {' | '.join(rates)} |", flush=True)


if __name__ == "__main__":
    main()
