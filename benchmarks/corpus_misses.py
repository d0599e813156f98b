"""Why a corpus robot's group misses witness targets: each miss, traced.

Draws the group's scene and witnesses as `corpus.py` does (one box beside the workspace,
collision-free witnesses found by rejection sampling), solves each target once from a
random seed (100 ms), and for every miss reports: solved when seeded at its own witness,
with the scene and with no obstacle at all (a miss there with no obstacle is the
self-collision cost: the witness is free on the real meshes), with 1 s from a random seed,
and the sphere pairs whose overlap at the witness passes the slack sampled for them
(`bioik.collision.sphere_pairs`).

    pip install -e ".[test]"
    PYTHONPATH=src python benchmarks/corpus_misses.py talos r_leg [--targets 100]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import bioik
from bioik.collision.acm import allowed_collisions
from bioik.collision.sphere_pairs import sphere_pairs
from bioik.collision.spheres import sphere_model

sys.path.insert(0, str(Path(__file__).parent))
from corpus import CORPUS, load, robots_folder, scene_for  # noqa: E402


def pair_overlaps(arm: bioik.Robot, q: np.ndarray, top: int = 3) -> list[str]:
    """The sphere pairs whose overlap at q passes their slack, deepest first."""
    model = sphere_model(arm)
    sp = sphere_pairs(arm, model, allowed_collisions(arm))
    W = model.world(np.array([arm.link_pose(q, link) for link in model.links]))
    i, j = sp.index[:, 0], sp.index[:, 1]
    over = model.radii[i] + model.radii[j] - np.linalg.norm(W[i] - W[j], axis=1) - sp.slack
    name = lambda s: model.links[model.link_of[s]]  # noqa: E731
    return [f"{name(i[b])}–{name(j[b])} {1000 * over[b]:.1f} mm past slack {1000 * sp.slack[b]:.1f} mm"
            for b in np.argsort(-over)[:top] if over[b] > 0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("robot", choices=[e.name for e in CORPUS])
    ap.add_argument("group")
    ap.add_argument("--targets", type=int, default=100)
    args = ap.parse_args()
    entry = next(e for e in CORPUS if e.name == args.robot)
    arm = load(entry, robots_folder()).with_group(args.group)
    rng = np.random.default_rng(0)
    scene = scene_for(arm, arm.tips, rng)
    checker = bioik.CollisionChecker(arm, scene)
    witnesses: list[np.ndarray] = []
    while len(witnesses) < args.targets:
        q = arm.random_configuration(rng)
        if checker.is_free(q):
            witnesses.append(q)
    misses = []
    for k, qw in enumerate(witnesses):
        goals = [bioik.PoseGoal(t, arm.link_pose(qw, t)) for t in arm.tips]
        res = bioik.solve(arm, goals, seed=arm.random_configuration(rng), scene=scene, timeout=0.1, random_seed=k)
        if not (res.success and checker.is_free(res.q)):
            misses.append((k, qw, goals))
    print(f"{args.robot} {args.group}: {args.targets - len(misses)}/{args.targets} solved within 100 ms")
    for k, qw, goals in misses:
        at_witness = bioik.solve(arm, goals, seed=qw, scene=scene, timeout=0.1, random_seed=k)
        no_obstacle = bioik.solve(arm, goals, seed=qw, scene=bioik.Scene(), timeout=0.1, random_seed=k)
        longer = bioik.solve(arm, goals, seed=arm.random_configuration(rng), scene=scene, timeout=1.0, random_seed=k)
        print(f"target {k}: seeded at the witness {at_witness.success} (cost {at_witness.cost:.2g}), "
              f"with no obstacle {no_obstacle.success} (cost {no_obstacle.cost:.2g}); 1 s: {longer.success}")
        for line in pair_overlaps(arm, qw):
            print(f"    {line}")


if __name__ == "__main__":
    main()
