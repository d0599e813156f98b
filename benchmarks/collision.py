"""Speed of collision-aware IK: the compiled collision cost, the exact check, and lm with obstacles.

1. cost: `CollisionAvoidanceGoal` on elise_ur10 (its default sphere cover) against a hollow
   tank with a round opening (a boolean solid: an SDF grid) plus a table, a post and a
   ball, self-collision pairs included: µs per evaluation of residual + Jacobian from given
   link frames and Jacobians (what a solver step adds), and with the FK + Jacobians of
   the covered links; medians over random configurations, compiled loops, one thread.
2. check: one exact `CollisionChecker` call (coal) on the same scene; median and p90 over
   random configurations, and over the collision-free ones (every pair checked).
3. solve: `bioik.solve(robot, [pose], scene=scene)` (the default solver) on ur5 3 cm above
   a table (`--gap`; 0: standing on it, the contact allowed) with three posts; targets 5
   cm and more above the table with a collision-free witness, random seeds, 5 ms timeout:
   solve rate (and within 5 ms), successes coal finds colliding (must be 0), median and
   p90 time per query, queries per second on one thread; the same targets in free space
   (the ratio of medians); and `solve_batch(..., scene=)` on `--threads` threads (queries
   per second, the speed-up over the first count): the medians of `--rounds` runs each,
   the thread counts taken in turn.

    PYTHONPATH=src python benchmarks/collision.py [--configs 2000] [--targets 1000] [--gap 0.03] [--parts solve]

Timings on a shared machine are noisy: run it twice.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

import bioik
from bioik import CollisionAvoidanceGoal, PoseGoal
from bioik._kernel_cache import ensure_fresh
from bioik.goals.kernels import MAX_LINK_ROWS, goal_residual
from bioik.kinematics.frames import JIT
from bioik.kinematics.jacobian import fk_jacobians
from bioik.problem.layout import unpack
from bioik.scene import Cylinder, difference

# the timing loops below inline bioik's kernels: drop their cache when those change
ensure_fresh(cached=Path(__file__).parent)


def pose(x, y, z):
    T = np.eye(4)
    T[:3, 3] = (x, y, z)
    return T


#: elise_ur10 stands on the table: its base and shoulder touch it.
ELISE_ALLOWED = [("base_link", "table"), ("shoulder_link", "table")]


def tank_scene() -> bioik.Scene:
    """A 1 m hollow tank (3 cm wall, a 7 cm round opening in its lid) beside elise_ur10, and three primitives."""
    scene = bioik.Scene()
    tank = difference(Cylinder(0.5, 1.0), Cylinder(0.47, 0.94), (Cylinder(0.035, 0.2), pose(0.2, 0, 0.5)))
    scene.add("tank", tank, pose(0.9, 0.0, 0.5))
    scene.add_box("table", (1.5, 1.5, 0.05), pose(0.0, 0.0, -0.025))
    scene.add_cylinder("post", 0.05, 1.0, pose(-0.5, 0.5, 0.5))
    scene.add_sphere("ball", 0.1, pose(0.3, -0.6, 0.8))
    return scene


@njit(**JIT)
def _cost_loop(gi, gf, frames, J, Q, vdata, aux, r, Jr, scratch, repeats):
    acc = 0.0
    for _ in range(repeats):
        for k in range(Q.shape[0]):
            Jr[:] = 0.0
            goal_residual(gi, gf, 0, frames[k], J[k], Q[k], vdata, aux, r, Jr, True, scratch)
            acc += r[0] + r[1]
    return acc


@njit(**JIT)
def _fk_loop(seg_i, seg_f, out_seg, out_tf, Q, seg, frames, J, repeats):
    for _ in range(repeats):
        for k in range(Q.shape[0]):
            fk_jacobians(seg_i, seg_f, out_seg, out_tf, Q[k], seg, frames[k], J[k])


def cost(configs: int) -> None:
    robot = bioik.load_robot("elise_ur10")
    scene = tank_scene()
    goal = CollisionAvoidanceGoal(scene, allowed=ELISE_ALLOWED)
    problem = bioik.Problem(robot, [goal])
    p = unpack(problem.ibuf, problem.fbuf)
    Q = robot.random_configuration(np.random.default_rng(0), configs)
    n, O = robot.dof, max(len(p.out_seg), 1)
    frames, J = np.zeros((configs, O, 7)), np.zeros((configs, 6 * O, n))
    seg = np.zeros((max(len(p.seg_i), 1), 7))
    rows = max(MAX_LINK_ROWS, n)
    r, Jr, scratch = np.zeros(rows), np.zeros((rows, n)), np.zeros((4 * MAX_LINK_ROWS, 3))
    fk = (p.seg_i, p.seg_f, p.out_seg, p.out_tf)
    _fk_loop(*fk, Q[:2], seg, frames[:2], J[:2], 1)
    _cost_loop(p.gi, p.gf, frames[:2], J[:2], Q[:2], p.vdata, p.aux, r, Jr, scratch, 1)
    times_fk, times_cost = [], []
    for _ in range(7):
        t = time.perf_counter()
        _fk_loop(*fk, Q, seg, frames, J, 5)
        times_fk.append((time.perf_counter() - t) / (5 * configs))
        t = time.perf_counter()
        _cost_loop(p.gi, p.gf, frames, J, Q, p.vdata, p.aux, r, Jr, scratch, 5)
        times_cost.append((time.perf_counter() - t) / (5 * configs))
    layout = goal.data(robot)
    S, P, G = int(layout[0]), int(layout[1]), int(layout[5])
    c, f = np.median(times_cost) * 1e6, np.median(times_fk) * 1e6
    print(f"cost: elise_ur10, {S} spheres, {P} self pairs on {G} link pairs, tank grid + 3 primitives, {configs} random configurations")
    print(f"  residual + Jacobian: {c:.2f} µs per evaluation ({c * 1e3 / S:.0f} ns per sphere incl. pairs); "
          f"with FK + Jacobians of the {len(p.out_seg)} covered links: {c + f:.2f} µs")


def check(configs: int) -> None:
    robot = bioik.load_robot("elise_ur10")
    checker = bioik.CollisionChecker(robot, tank_scene(), allowed=ELISE_ALLOWED)
    Q = robot.random_configuration(np.random.default_rng(1), configs)
    for q in Q[:20]:
        checker.is_free(q)
    times, free = np.empty(configs), np.empty(configs, dtype=bool)
    for k, q in enumerate(Q):
        t = time.perf_counter()
        free[k] = checker.is_free(q)
        times[k] = time.perf_counter() - t
    us = times * 1e6
    print(f"check: elise_ur10 vs the same scene (coal), {configs} random configurations, {free.mean():.0%} free")
    print(f"  median {np.median(us):.1f} µs, p90 {np.percentile(us, 90):.1f} µs; "
          f"free ones (every pair checked): median {np.median(us[free]):.1f} µs")


def solve(rounds: int, targets: int, timeout: float, gap: float, threads: list[int]) -> None:
    robot = bioik.load_robot("ur5")
    tip = robot.tips[0]
    scene = bioik.Scene()
    scene.add_box("table", (1.6, 1.6, 0.04), pose(0, 0, -gap - 0.02))
    scene.add_box("b1", (0.1, 0.1, 0.3), pose(0.45, 0.2, 0.15))
    scene.add_box("b2", (0.1, 0.1, 0.3), pose(-0.3, 0.45, 0.15))
    scene.add_box("b3", (0.1, 0.1, 0.3), pose(0.1, -0.5, 0.15))
    # standing on the table (gap 0) needs the contact allowed; `gap` under the foot needs nothing
    allowed = [("base_link", "table"), ("shoulder_link", "table")] if gap <= 0 else []
    for link, obstacle in allowed:
        scene.allow_contact(obstacle, link)
    checker = bioik.CollisionChecker(robot, scene)
    rng = np.random.default_rng(1)
    poses = []
    while len(poses) < targets:
        q = robot.random_configuration(rng)
        T = robot.link_pose(q, tip)
        if T[2, 3] > 0.05 and checker.is_free(q):
            poses.append(T)
    bioik.solve(robot, [PoseGoal(tip, poses[0])], scene=scene, timeout=timeout)  # prepare the problems, compile
    bioik.solve(robot, [PoseGoal(tip, poses[0])], timeout=timeout)

    def loop(with_scene: bool) -> tuple[np.ndarray, float, int, int]:
        """(ms per query, seconds of all the solves, solved, colliding successes)."""
        solved = colliding = 0
        times = np.empty(targets)
        for k, T in enumerate(poses):
            t = time.perf_counter()
            res = bioik.solve(robot, [PoseGoal(tip, T)], timeout=timeout, random_seed=k, scene=scene if with_scene else None)
            times[k] = time.perf_counter() - t
            solved += res.success
            colliding += with_scene and res.success and not checker.is_free(res.q)
        return times * 1e3, times.sum(), solved, colliding  # the solves' own time (the check after each left out)

    ms, wall, solved, colliding = loop(True)
    free_ms, _, free_solved, _ = loop(False)
    print(f"solve: default solver, ur5 {gap * 100:g} cm above a table with 3 posts, {targets} targets, random seeds, "
          f"timeout {timeout * 1e3:g} ms, scene=")
    print(f"  solved collision-free {solved / targets:.1%} (within 5 ms {np.mean(ms <= 5.0):.1%}), colliding successes "
          f"{colliding}; median {np.median(ms):.3f} ms, p90 {np.percentile(ms, 90):.3f} ms; "
          f"{targets / wall:,.0f} queries/s on one thread")
    print(f"  free space, the same targets: solved {free_solved / targets:.1%}, median {np.median(free_ms):.3f} ms; "
          f"ratio of medians {np.median(ms) / np.median(free_ms):.1f}")
    template = [PoseGoal(tip, poses[0])]
    batch = bioik.GoalBatch(template, {0: poses})
    for n in threads:
        bioik.solve_batch(robot, batch, scene=scene, timeout=timeout, threads=n, random_seed=0)  # warm
    walls: dict[int, list[float]] = {n: [] for n in threads}
    solved: dict[int, float] = {}
    for r in range(rounds):  # the thread counts taken in turn: a neighbour's load falls on all of them alike
        for n in threads:
            t = time.perf_counter()
            out = bioik.solve_batch(robot, batch, scene=scene, timeout=timeout, threads=n, random_seed=r)
            walls[n].append(time.perf_counter() - t)
            solved[n] = min(solved.get(n, 1.0), out.success.mean())
    first = np.median(walls[threads[0]])
    for n in threads:
        m = np.median(walls[n])
        print(f"  solve_batch(scene=, threads={n}): {targets / m:,.0f} queries/s (median of {rounds}; best "
              f"{targets / min(walls[n]):,.0f}), solved ≥ {solved[n]:.1%}, speed-up over {threads[0]} thread(s) {first / m:.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--configs", type=int, default=2000)
    ap.add_argument("--targets", type=int, default=1000)
    ap.add_argument("--timeout", type=float, default=0.005)
    ap.add_argument("--gap", type=float, default=0.03, help="table top this far under ur5's foot (m; 0: it stands on it)")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="thread counts of the solve_batch rows")
    ap.add_argument("--rounds", type=int, default=15, help="solve_batch runs per thread count, taken in turn")
    ap.add_argument("--parts", nargs="+", choices=("cost", "check", "solve"), default=("cost", "check", "solve"))
    a = ap.parse_args()
    os.environ.setdefault("BIOIK_CACHE_DIR", tempfile.mkdtemp(prefix="bioik-collision-bench-"))
    if "cost" in a.parts:
        cost(a.configs)
    if "check" in a.parts:
        check(a.configs)
    if "solve" in a.parts:
        solve(a.rounds, a.targets, a.timeout, a.gap, a.threads)


if __name__ == "__main__":
    main()
