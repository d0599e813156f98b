"""Mesh robots in a real cell: public arms with their collision meshes in a bookshelf and on a cluttered table.

The arms come from `example-robot-data` (meshes and SRDFs nobody here wrote). Each scene is
sized from the arm's reach and drawn with a fixed seed:

* **shelf**: a bookcase in front of the arm (back, sides, top, bottom and three boards);
  targets have the tool inside the case;
* **table**: a table top 5 mm under the arm's foot with eight boxes and cylinders on it;
  targets have the tool within 25 % of the reach above the top.

Every target has a witness: a random configuration with the tool in that region that the
exact check (`bioik.CollisionChecker`, coal on the real triangles) finds free of the scene
and of itself. Its clearance (the exact distance of the closest checked pair) is recorded.
Each target is solved once from a random seed with `bioik.solve(robot, [PoseGoal], scene=…)`
and a 1 s timeout; an answer counts only if the exact check passes it (false successes are
counted apart and must be 0). Columns: targets solved within 5 / 100 / 1000 ms, the same
for the targets whose witness clears everything by ≥ 5 mm, the median time of the solved
ones, and the covers' overshoot per link (median / max, mm).

    pip install -e ".[test]"
    PYTHONPATH=src python benchmarks/mesh_cells.py [--targets 100] [--robots panda ur5 ...] [--scenes shelf table] [--leaf-size 0.004]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import bioik

sys.path.insert(0, str(Path(__file__).parent))
from corpus import CORPUS, cover_stats, load, robots_folder  # noqa: E402

ARMS = ("panda", "ur5", "ur10", "kinova", "xarm7")
LIMITS = (0.005, 0.1, 1.0)


def _box(scene: bioik.Scene, name: str, lo, hi) -> None:
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    T = np.eye(4)
    T[:3, 3] = 0.5 * (lo + hi)
    scene.add_box(name, tuple(hi - lo), T)


def reach(robot: bioik.Robot, tip: str, rng: np.random.Generator) -> float:
    """The 95th percentile of the tool's distance from the base over random configurations."""
    P = np.array([robot.link_pose(robot.random_configuration(rng), tip)[:3, 3] for _ in range(400)])
    return float(np.percentile(np.linalg.norm(P, axis=1), 95))


def shelf(R: float) -> tuple[bioik.Scene, np.ndarray, np.ndarray]:
    """A bookcase facing the arm, and the box (lo, hi) the tool must be in."""
    t = 0.02
    x0, x1 = 0.35 * R, 0.75 * R  # front and back
    y = 0.5 * R  # half width
    z0, z1 = -0.15 * R, 0.95 * R
    scene = bioik.Scene()
    _box(scene, "back", (x1, -y, z0), (x1 + t, y, z1))
    _box(scene, "left", (x0, y, z0), (x1, y + t, z1))
    _box(scene, "right", (x0, -y - t, z0), (x1, -y, z1))
    _box(scene, "bottom", (x0, -y, z0), (x1, y, z0 + t))
    _box(scene, "top", (x0, -y, z1 - t), (x1, y, z1))
    for k, z in enumerate(np.linspace(z0, z1, 5)[1:-1]):
        _box(scene, f"board{k}", (x0, -y, z - t / 2), (x1, y, z + t / 2))
    return scene, np.array([x0, -y, z0]), np.array([x1, y, z1])


def table(R: float, rng: np.random.Generator) -> tuple[bioik.Scene, np.ndarray, np.ndarray]:
    """A table top 5 mm under the foot with clutter on it, and the box the tool must be in."""
    top = -0.005
    scene = bioik.Scene()
    _box(scene, "table", (-0.6 * R, -1.2 * R, top - 0.04), (1.2 * R, 1.2 * R, top))
    for k in range(8):
        r = rng.uniform(0.35, 0.85) * R
        a = rng.uniform(-0.6 * np.pi, 0.6 * np.pi)
        h = rng.uniform(0.05, 0.3) * R
        T = np.eye(4)
        T[:3, 3] = (r * np.cos(a), r * np.sin(a), top + h / 2)
        if k % 2:
            scene.add_cylinder(f"can{k}", rng.uniform(0.03, 0.08) * R, h, T)
        else:
            c, s = np.cos(a), np.sin(a)
            T[:2, :2] = [[c, -s], [s, c]]
            scene.add_box(f"box{k}", (rng.uniform(0.06, 0.2) * R, rng.uniform(0.06, 0.2) * R, h), T)
    return scene, np.array([-R, -R, top]), np.array([R, R, top + 0.25 * R])


def clearance(robot, checker, q) -> float:
    """The exact distance of the closest checked pair that some active joint moves (the foot's
    gap to the table it stands on is the same for every configuration)."""
    moving = set(robot.moving_links)
    return min(c.distance for c in checker.closest(q, 1000) if c.a in moving or (c.kind == "self" and c.b in moving))


def witnesses(robot, checker, tip: str, lo, hi, n: int, rng, tries: int):
    """Up to n (pose, clearance) pairs from random free configurations with the tool in [lo, hi]."""
    out = []
    for _ in range(tries):
        q = robot.random_configuration(rng)
        T = robot.link_pose(q, tip)
        if np.all(T[:3, 3] >= lo) and np.all(T[:3, 3] <= hi) and checker.is_free(q):
            out.append((T, clearance(robot, checker, q)))
            if len(out) == n:
                break
    return out


def run(robot, scene, targets, rng, solver: str | None, leaf_size: float | None = None):
    """Per target: the time to a checked success (inf if none); and the false successes."""
    from bioik.collision.spheres import sphere_model

    checker = bioik.CollisionChecker(robot, scene)
    tip = robot.tips[0]
    extra = [] if leaf_size is None else [bioik.CollisionAvoidanceGoal(scene, spheres=sphere_model(robot, leaf_size=leaf_size))]
    times, false = [], 0
    for k, (T, _) in enumerate(targets):
        t0 = time.perf_counter()
        res = bioik.solve(robot, [bioik.PoseGoal(tip, T), *extra], seed=robot.random_configuration(rng), scene=scene,
                          timeout=LIMITS[-1], random_seed=k, solver=solver)
        elapsed = time.perf_counter() - t0
        if res.success and not checker.is_free(res.q):
            false += 1
        times.append(elapsed if res.success and checker.is_free(res.q) else np.inf)
    return np.array(times), false


def rates(times: np.ndarray) -> str:
    if len(times) == 0:
        return "–"
    return " / ".join(f"{100 * np.mean(times <= t):.0f}" for t in LIMITS)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", type=int, default=100)
    ap.add_argument("--robots", nargs="*", default=list(ARMS))
    ap.add_argument("--scenes", nargs="*", default=["shelf", "table"])
    ap.add_argument("--solver", default=None, help="a solver name (default: bioik.solve's own choice)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--leaf-size", type=float, default=None, help="the surface tree's leaf cell (m; default: sphere_model's)")
    args = ap.parse_args()
    root = robots_folder()
    if root is None:
        sys.exit("example-robot-data is not installed: pip install example-robot-data")
    from bioik.collision.spheres import sphere_model

    head = ["robot", "scene", "targets", "solved % within 5 / 100 / 1000 ms", "clearance ≥ 5 mm: targets, % within 5 / 100 / 1000 ms",
            "median ms", "false", "spheres", "overshoot med / max (mm)"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    entries = {e.name: e for e in CORPUS}
    for name in args.robots:
        robot = load(entries[name], root)
        if robot.semantics is not None and "arm" in robot.semantics.groups:
            robot = robot.with_group("arm")
        cover = sphere_model(robot)
        _, over_med, over_max, _ = cover_stats(robot, cover)
        for kind in args.scenes:
            rng = np.random.default_rng(args.seed)
            R = reach(robot, robot.tips[0], rng)
            scene, lo, hi = shelf(R) if kind == "shelf" else table(R, rng)
            checker = bioik.CollisionChecker(robot, scene)
            targets = witnesses(robot, checker, robot.tips[0], lo, hi, args.targets, rng, tries=400 * args.targets)
            times, false = run(robot, scene, targets, rng, args.solver, args.leaf_size)
            clear = np.array([c >= 0.005 for _, c in targets], dtype=bool)
            solved = times[np.isfinite(times)]
            median = f"{1000 * statistics.median(solved):.2f}" if len(solved) else "–"
            print(f"| {name} | {kind} | {len(targets)} | {rates(times)} | {int(clear.sum())}: {rates(times[clear])} | {median} | "
                  f"{false} | {len(cover)} | {over_med:.0f} / {over_max:.0f} |", flush=True)


if __name__ == "__main__":
    main()
