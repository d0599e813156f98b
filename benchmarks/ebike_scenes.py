"""A first look at the eight EBIKE scenarios [E 4]: collision-aware solves on elise_ur10.

For each scenario (`bioik.scenes`), N tool poses are sampled on its target surfaces and
solved with a pose goal on endoscope_tip plus a `CollisionAvoidanceGoal`; an answer counts
only if it meets the pose (1e-5 m / 1e-5 rad) and coal's exact check finds it
collision-free (what `bioik.solve` checks anyway). Two rules, stated because they decide
the numbers:

* the tip touches its target, so the last endoscope segment (endoscope_link_3) may touch
  the target objects (every obstacle but the robot's pedestal and the floor); the rest of
  the robot must stay clear of everything;
* the endoscope (4 mm radius) gets a thin sphere cover (3 mm overshoot), the rest of the
  arm the default one: with the default cover the shaft's spheres are 17.5 mm and cannot
  pass a 3.5 cm opening.

The targets are not yet filtered for reachability (no stored witnesses): a miss may be a
pose no configuration reaches. Prints, per scenario and solver, the solve rate within
5/10/100 ms and within the timeout, the median time of the solved, and the median number
of exact checks (solution-callback calls) per query.

    PYTHONPATH=src python benchmarks/ebike_scenes.py [--targets 50] [--timeout 0.1] [--solver lm ...]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import bioik
from bioik import CollisionAvoidanceGoal, PoseGoal
from bioik.collision import sphere_model

TIP_LINK = "endoscope_link_3"
#: Per-link cover of the endoscope: (tolerance m, max spheres).
THIN_ENDOSCOPE = {"endoscope_link_1": (0.003, 40), "endoscope_link_2": (0.003, 12), "endoscope_link_3": (0.003, 12)}
SUPPORT = ("pedestal", "floor")


def run(name: str, solver: str, n: int, timeout: float, robot: bioik.Robot, spheres) -> str:
    scenario = bioik.scenes.load(name)
    scene = scenario.scene
    for obstacle in scene.names:
        if obstacle not in SUPPORT:
            scene.allow_contact(obstacle, TIP_LINK)
    goal = CollisionAvoidanceGoal(scene, spheres=spheres)
    checker = bioik.CollisionChecker(robot, scene)
    targets = scenario.sample_targets(n, rng=0)
    tip = bioik.scenes.TIP
    bioik.solve(robot, [PoseGoal(tip, targets[0]), goal], solver=solver, timeout=timeout)  # prepare, compile
    times, solved, calls = np.empty(n), np.zeros(n, dtype=bool), np.empty(n)
    for k, T in enumerate(targets):
        t = time.perf_counter()
        res = bioik.solve(robot, [PoseGoal(tip, T), goal], solver=solver, timeout=timeout, random_seed=k)
        times[k] = time.perf_counter() - t
        A = robot.link_pose(res.q, tip)
        near = np.linalg.norm(A[:3, 3] - T[:3, 3]) <= 1e-5 + 1e-9
        solved[k] = res.success and near and checker.is_free(res.q)
        calls[k] = res.callback_calls
        assert not (res.success and not solved[k]), f"{name} target {k}: a success that fails the check"
    within = [np.mean(solved & (times <= b)) * 100 for b in (0.005, 0.010, 0.100)]
    med = f"{np.median(times[solved]) * 1e3:.1f}" if solved.any() else "—"
    return (f"| {name} | {solver} | {within[0]:.0f} | {within[1]:.0f} | {within[2]:.0f} | {solved.mean() * 100:.0f} | "
            f"{med} | {np.median(calls):.0f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", type=int, default=50)
    ap.add_argument("--timeout", type=float, default=0.1)
    ap.add_argument("--solver", action="append")
    ap.add_argument("--scenario", action="append")
    a = ap.parse_args()
    robot = bioik.load_robot(bioik.scenes.ROBOT)
    spheres = sphere_model(robot, links=THIN_ENDOSCOPE)
    print(f"elise_ur10, {len(spheres)} spheres, {a.targets} sampled targets per scenario, timeout {a.timeout * 1e3:g} ms\n")
    print("| scenario | solver | ≤ 5 ms % | ≤ 10 ms % | ≤ 100 ms % | solved % | median ms (solved) | exact checks (median) |")
    print("|---|---|---|---|---|---|---|---|")
    for name in a.scenario or bioik.scenes.names():
        for solver in a.solver or ["lm"]:
            print(run(name, solver, a.targets, a.timeout, robot, spheres), flush=True)


if __name__ == "__main__":
    main()
