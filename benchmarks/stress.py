"""No false success, at scale: random queries over every solver, bundled robot and goal
type, serial and threaded, each answer re-checked outside the solver.

Every query builds goals on a random configuration of a bundled robot (reachable targets)
or far outside its reach (unreachable ones), solves from a random seed with a short
timeout, and checks the answer after the solve, in the main thread:

  * out of limits: `robot.within_limits(q)` fails (must never happen);
  * false success: `success` is True but the answer fails the acceptance test — pose-type
    goals re-checked from `robot.link_pose` (position error and rotation angle against
    the goal's tolerances), every other goal from a fresh `bioik.Problem` built for the
    check alone (must never happen);
  * false failure: `success` is False but the answer passes that test (must never happen
    either: success is the acceptance test, whatever the search thought).

A solver that refuses a goal set up front (UnsupportedGoalsError: e.g. `kdl` and
secondary goals) counts as refused, not as a failure. Threaded runs solve the same
queries from a thread pool and are held to the same checks.

Usage: python3 benchmarks/stress.py [--queries 1000000] [--threads 0 8] [--timeout 0.002]
                                    [--solvers lm bio2_lm …] [--robots ur5 humanoid/arms …] [--seed 0]
Exit status 1 if any false success, false failure or out-of-limit answer was seen.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

import numpy as np

import bioik
from bioik.errors import BioikError
from bioik.robots.catalog import ROBOTS
from bioik.solvers import registry

POSE_TYPES = (bioik.PoseGoal, bioik.PositionGoal, bioik.OrientationGoal)


#: The robots run by default: every bundled one in its default group, and the humanoid with
#: its floating base joint moving too (no default group moves a floating joint).
ROBOT_SPECS = [*ROBOTS, "humanoid/floating_whole_body"]


@lru_cache(maxsize=None)
def robot(spec: str) -> bioik.Robot:
    """A bundled robot by name, or NAME/GROUP for one of its groups."""
    name, _, group = spec.partition("/")
    return bioik.load_robot(name, group or None)


def _unit(rng: np.random.Generator) -> np.ndarray:
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


def _far(rng: np.random.Generator) -> np.ndarray:
    return _unit(rng) * 20.0  # 20 m away: beyond every bundled robot's reach


#: Goal sets by name: (robot, rng, tip, configuration to aim at, reachable?) → goals.
CASES: dict[str, Callable] = {
    "pose": lambda r, g, tip, q, ok: [bioik.PoseGoal(tip, r.link_pose(q, tip) if ok else _moved(r.link_pose(q, tip), g))],
    "position": lambda r, g, tip, q, ok: [bioik.PositionGoal(tip, r.link_pose(q, tip)[:3, 3] if ok else _far(g))],
    "orientation": lambda r, g, tip, q, ok: [bioik.OrientationGoal(tip, r.link_pose(q, tip)[:3, :3])],
    "pose+secondary": lambda r, g, tip, q, ok: [bioik.PoseGoal(tip, r.link_pose(q, tip) if ok else _moved(r.link_pose(q, tip), g)),
                                                bioik.CenterJointsGoal(weight=0.05, secondary=True)],
    "look_at": lambda r, g, tip, q, ok: [bioik.LookAtGoal(tip, r.link_pose(q, tip)[:3, 3] + 2.0 * _unit(g))],
    "direction": lambda r, g, tip, q, ok: [bioik.DirectionGoal(tip, _unit(g))],
    "line": lambda r, g, tip, q, ok: [bioik.LineGoal(tip, r.link_pose(q, tip)[:3, 3] if ok else _far(g), _unit(g))],
    "min_distance": lambda r, g, tip, q, ok: [bioik.MinDistanceGoal(tip, r.link_pose(q, tip)[:3, 3], 0.05 if ok else 40.0)],
    "max_distance": lambda r, g, tip, q, ok: [bioik.MaxDistanceGoal(tip, r.link_pose(q, tip)[:3, 3] if ok else _far(g), 0.1)],
    "position+joint": lambda r, g, tip, q, ok: [bioik.PositionGoal(tip, r.link_pose(q, tip)[:3, 3] if ok else _far(g)),
                                                bioik.MinimalDisplacementGoal(weight=0.1, secondary=True)],
}


def _moved(T: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    T = T.copy()
    T[:3, 3] = _far(rng)
    return T


def queries(n: int, seed: int, solvers: list[str], robots: list[str]) -> list[tuple]:
    """n queries (robot, solver, case, goals, seed state, reachable), cycling over robots,
    solvers and cases so that every combination comes up."""
    rng = np.random.default_rng(seed)
    cases = list(CASES)
    out = []
    for k in range(n):
        name = robots[k % len(robots)]
        solver = solvers[(k // len(robots)) % len(solvers)]
        case = cases[(k // (len(robots) * len(solvers))) % len(cases)]
        r = robot(name)
        tip = r.tips[k % len(r.tips)]
        reachable = rng.uniform() < 0.8
        goals = CASES[case](r, rng, tip, r.random_configuration(rng), reachable)
        out.append((name, solver, case, goals, r.random_configuration(rng), reachable))
    return out


def solve(query: tuple, timeout: float, max_iterations: int | None = None) -> bioik.Result | str:
    """The query's answer, or "refused"; with `max_iterations` a seeded, reproducible solve."""
    name, solver, _, goals, seed, _ = query
    budget = {} if max_iterations is None else {"max_iterations": max_iterations, "random_seed": 0}
    try:
        return bioik.solve(robot(name), goals, seed=seed, solver=solver, timeout=timeout, **budget)
    except bioik.UnsupportedGoalsError:
        return "refused"


def _angle(A: np.ndarray, B: np.ndarray) -> float:
    """Rotation angle between two rotation matrices (stable near 0)."""
    R = A.T @ B
    angle = float(np.arccos(np.clip((np.trace(R) - 1.0) / 2.0, -1.0, 1.0)))
    if angle < 1e-3:  # arccos is ill-conditioned near 0: use the skew part instead
        angle = float(np.arcsin(min(1.0, np.linalg.norm([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]]) / 2.0)))
    return angle


def passes(query: tuple, q: np.ndarray, tolerance: float = 1e-5) -> bool:
    """The acceptance test, redone outside the solver: pose-type goals from `link_pose`,
    the others by a Problem built for the check."""
    name, _, _, goals, _, _ = query
    r = robot(name)
    for goal in goals:
        if goal.secondary:
            continue
        if isinstance(goal, POSE_TYPES):
            A = r.link_pose(q, goal.link)
            if isinstance(goal, bioik.PoseGoal):
                target_p, target_R = goal.pose[:3, 3], goal.pose[:3, :3]
                tp, tr = goal.position_tolerance, goal.rotation_tolerance
            elif isinstance(goal, bioik.PositionGoal):
                target_p, target_R, tp, tr = goal.position, None, goal.tolerance, None
            else:
                target_p, target_R, tp, tr = None, goal.rotation, None, goal.tolerance
            if target_p is not None and np.linalg.norm(A[:3, 3] - target_p) > (tolerance if tp is None else tp):
                return False
            if target_R is not None and _angle(A[:3, :3], target_R) > (tolerance if tr is None else tr):
                return False
        else:
            check = bioik.Problem(r, [goal])
            check.update([goal], q)
            if not check.accept(q)[0]:
                return False
    return True


def run(qs: list[tuple], timeout: float, threads: int, max_iterations: int | None = None) -> Counter:
    """Counts by (solver, what): answers, refused, success, false_success, false_failure, out_of_limits."""
    if threads > 0:
        with ThreadPoolExecutor(threads) as pool:
            results = list(pool.map(lambda q: solve(q, timeout, max_iterations), qs))
    else:
        results = [solve(q, timeout, max_iterations) for q in qs]
    counts: Counter = Counter()
    for query, res in zip(qs, results):
        key = query[1]
        if res == "refused":
            counts[key, "refused"] += 1
            continue
        counts[key, "answers"] += 1
        if not robot(query[0]).within_limits(res.q):
            counts[key, "out_of_limits"] += 1
        if res.success:
            counts[key, "success"] += 1
            if not passes(query, res.q):
                counts[key, "false_success"] += 1
        elif passes(query, res.q):
            counts[key, "false_failure"] += 1
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=1_000_000)
    ap.add_argument("--threads", type=int, nargs="+", default=[0, 8], help="0: serial")
    ap.add_argument("--timeout", type=float, default=0.002)
    ap.add_argument("--solvers", nargs="+", default=registry.names())
    ap.add_argument("--robots", nargs="+", default=ROBOT_SPECS, help="bundled robot names, or NAME/GROUP")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chunk", type=int, default=2000, help="queries built and checked at a time")
    args = ap.parse_args()
    total: Counter = Counter()
    start = time.perf_counter()
    for threads in args.threads:
        done = 0
        while done < args.queries:
            n = min(args.chunk, args.queries - done)
            try:
                qs = queries(n, args.seed + done + 7919 * threads, args.solvers, args.robots)
            except BioikError as e:
                raise SystemExit(f"building queries: {e}") from e
            total.update(run(qs, args.timeout, threads))
            done += n
            print(f"threads={threads}: {done}/{args.queries} queries, {time.perf_counter() - start:.0f} s, "
                  f"false successes {sum(v for (_, k), v in total.items() if k == 'false_success')}, "
                  f"false failures {sum(v for (_, k), v in total.items() if k == 'false_failure')}, "
                  f"out of limits {sum(v for (_, k), v in total.items() if k == 'out_of_limits')}", flush=True)
    print("| solver | answers | refused | success | false success | false failure | out of limits |")
    print("|---|---|---|---|---|---|---|")
    for s in args.solvers:
        c = {k: total[s, k] for k in ("answers", "refused", "success", "false_success", "false_failure", "out_of_limits")}
        print(f"| {s} | {c['answers']} | {c['refused']} | {c['success']} | {c['false_success']} | {c['false_failure']} "
              f"| {c['out_of_limits']} |")
    bad = sum(v for (_, k), v in total.items() if k in ("false_success", "false_failure", "out_of_limits"))
    print(f"total: {sum(total[s, 'answers'] for s in args.solvers)} answers, {bad} false successes, false failures "
          "or out-of-limit answers")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
