"""The FK/IK test of [R 3.2]: success rate and time of `bioik.solve` per robot and solver.

Targets: FK of uniform random configurations; seeds: independent uniform draws; one pose
goal on the group's tip; success = within limits AND position error ≤ 1e-5 m AND rotation
angle ≤ 1e-5 rad, checked here from the returned q (not taken from the solver). Times
are of the plain `bioik.solve(...)` call, goal construction included, after a warm-up.
"success 95 % CI" is the Wilson interval of the success rate: on 1000 targets a solver
that solves 99.5 % of all targets misses 1 to 10 of them (95 % of sets), i.e. shows 99.0–
99.9 %, so compare rates near the top over more targets (--targets, or several --seed).
"overhead" is the median time of the same call when the seed already solves the goal (the
search evaluates a single configuration): everything a call costs that is not search.

Usage: python3 benchmarks/fkik.py [--robots ur5 panda iiwa14] [--solvers lm bio2_lm]
                                   [--targets 1000] [--timeout 0.005] [--seed 0]
                                   [--param threads=2 ...]
--param NAME=VALUE (repeatable) sets a solver parameter for every solver run.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import binomtest

import bioik


def check(robot: bioik.Robot, tip: str, T: np.ndarray, q: np.ndarray) -> bool:
    """The benchmark's own acceptance test."""
    if not robot.within_limits(q):
        return False
    A = robot.link_pose(q, tip)
    dp = np.linalg.norm(A[:3, 3] - T[:3, 3])
    c = np.clip((np.trace(A[:3, :3].T @ T[:3, :3]) - 1.0) / 2.0, -1.0, 1.0)
    angle = np.arccos(c)
    if angle < 1e-3:  # arccos is ill-conditioned near 0: use the skew part instead
        R = A[:3, :3].T @ T[:3, :3]
        angle = np.arcsin(min(1.0, np.linalg.norm([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]]) / 2.0))
    return bool(dp <= 1e-5 and angle <= 1e-5)


def fkik_targets(robot_name: str, targets: int, seed: int) -> tuple[bioik.Robot, str, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(robot, tip, target configurations, target poses, seed states, a warm-up configuration)."""
    robot = bioik.load_robot(robot_name)
    tip = robot.tips[0]
    rng = np.random.default_rng(seed)
    qs = robot.random_configuration(rng, targets)
    seeds = robot.random_configuration(rng, targets)
    return robot, tip, qs, robot.fk(qs, links=[tip])[:, 0], seeds, robot.random_configuration(rng)


def run(robot_name: str, solver: str, targets: int, timeout: float, seed: int, params: dict | None = None) -> dict:
    robot, tip, qs, poses, seeds, warm = fkik_targets(robot_name, targets, seed)
    params = params or {}
    for _ in range(20):  # load compiled code and fill the caches before timing
        bioik.solve(robot, [bioik.PoseGoal(tip, robot.link_pose(warm, tip))], seed=warm, timeout=timeout, solver=solver, **params)
    times, ok, restarts = [], [], []
    for T, s in zip(poses, seeds):
        t = time.perf_counter()
        res = bioik.solve(robot, [bioik.PoseGoal(tip, T)], seed=s, timeout=timeout, solver=solver, **params)
        times.append(time.perf_counter() - t)
        good = check(robot, tip, T, res.q)
        if res.success and not good:
            raise AssertionError(f"{solver} claimed success for a wrong answer on {robot_name}")
        ok.append(good)
        restarts.append(res.restarts)
    # overhead: the same call when the seed already solves the goal (the search evaluates
    # one configuration), so its time is everything that is not search
    overhead = []
    for q, T in zip(qs[:200], poses[:200]):
        t = time.perf_counter()
        bioik.solve(robot, [bioik.PoseGoal(tip, T)], seed=q, timeout=timeout, solver=solver, **params)
        overhead.append(time.perf_counter() - t)
    times_ms = np.array(times) * 1e3
    ok = np.array(ok)
    ci = binomtest(int(ok.sum()), len(ok)).proportion_ci(confidence_level=0.95, method="wilson")
    return {
        "robot": robot_name,
        "solver": solver,
        "success": 100.0 * ok.mean(),
        "success_ci": (100.0 * ci.low, 100.0 * ci.high),
        "within_1ms": 100.0 * (ok & (times_ms <= 1.0)).mean(),
        "median_ms": float(np.median(times_ms)),
        "mean_ms": float(times_ms.mean()),
        "median_restarts": float(np.median(restarts)),
        "overhead_us": float(np.median(overhead)) * 1e6,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description="FK/IK test (Ruppel 2017, section 3.2)")
    ap.add_argument("--robots", nargs="+", default=["ur5", "panda", "iiwa14"])
    ap.add_argument("--solvers", nargs="+", default=["lm", "bio2_lm", "bio2_memetic", "kdl"])
    ap.add_argument("--targets", type=int, default=1000)
    ap.add_argument("--timeout", type=float, default=0.005)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a solver parameter (repeatable)")
    args = ap.parse_args()
    params = {}
    for text in args.param:
        name, _, value = text.partition("=")
        params[name] = int(value) if value.lstrip("-").isdigit() else float(value)
    print(f"FK/IK test: {args.targets} targets, timeout {args.timeout * 1e3:g} ms, random seed states, tolerance 1e-5 m / 1e-5 rad"
          + "".join(f", {k}={v}" for k, v in params.items()))
    print("| robot | solver | success % | success 95 % CI | success ≤ 1 ms % | median ms | mean ms | median restarts "
          "| overhead µs |")
    print("|---|---|---|---|---|---|---|---|---|")
    for robot in args.robots:
        for solver in args.solvers:
            r = run(robot, solver, args.targets, args.timeout, args.seed, params)
            print(
                f"| {r['robot']} | {r['solver']} | {r['success']:.2f} | {r['success_ci'][0]:.2f}–{r['success_ci'][1]:.2f} | "
                f"{r['within_1ms']:.1f} | "
                f"{r['median_ms']:.3f} | {r['mean_ms']:.3f} | {r['median_restarts']:g} | {r['overhead_us']:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
