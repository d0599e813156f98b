"""Exact collision check speed: one `CollisionChecker` call (whole robot, self pairs
included) against a scene of a closed mesh solid and three primitives.

Usage: python3 benchmarks/collision_check.py [--robot elise_ur10] [--configs 5000] [--triangles 20480]

Prints the median and p90 µs per check over random configurations (single thread), the
fraction found colliding, and the time to build the allowed-collision matrix (uncached).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np
import trimesh

import bioik
from bioik.collision import CollisionChecker, acm
from bioik.scene import Box, Cylinder, Solid, Sphere


@dataclass
class Obstacle:
    name: str
    shape: object
    pose: np.ndarray


@dataclass
class Scene:
    """Stand-in with bioik.scene.Scene's interface (obstacles, layout/pose versions)."""

    obstacles: dict = field(default_factory=dict)
    layout_version: int = 1
    pose_version: int = 1


def pose(x, y, z):
    T = np.eye(4)
    T[:3, 3] = (x, y, z)
    return T


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--robot", default="elise_ur10")
    ap.add_argument("--configs", type=int, default=5000)
    ap.add_argument("--triangles", type=int, default=20480, help="icosphere faces: 1280, 5120 or 20480")
    a = ap.parse_args()
    robot = bioik.load_robot(a.robot)
    sub = {1280: 3, 5120: 4, 20480: 5}[a.triangles]
    blob = trimesh.creation.icosphere(subdivisions=sub, radius=1.0)
    blob.apply_scale([0.25, 0.15, 0.2])
    scene = Scene({
        "blob": Obstacle("blob", Solid(blob), pose(0.6, 0.3, 0.4)),
        "table": Obstacle("table", Box((1.5, 1.5, 0.05)), pose(0.0, 0.0, -0.06)),
        "post": Obstacle("post", Cylinder(0.05, 1.0), pose(-0.5, 0.5, 0.5)),
        "ball": Obstacle("ball", Sphere(0.1), pose(0.3, -0.6, 0.8)),
    })
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["BIOIK_CACHE_DIR"] = tmp
        acm._memory.clear()
        t = time.perf_counter()
        matrix = acm.allowed_collisions(robot)
        build = time.perf_counter() - t
    checker = CollisionChecker(robot, scene, acm=matrix, allowed=[("base_link", "table")])
    Q = robot.random_configuration(np.random.default_rng(0), a.configs)
    free = [checker(q) for q in Q[:50]]  # warm up (compilation)
    times = []
    for q in Q:
        t = time.perf_counter()
        free.append(checker(q))
        times.append(time.perf_counter() - t)
    us = np.array(times) * 1e6
    print(f"{robot.name}: {checker!r}")
    print(f"blob {len(blob.faces)} triangles + 3 primitives; {a.configs} random configurations")
    ok = np.array(free[50:], dtype=bool)
    print(f"per check: median {statistics.median(us):.1f} µs, p90 {np.percentile(us, 90):.1f} µs, "
          f"free {ok.mean():.0%} (many random configurations fold the arm onto itself)")
    if ok.any():
        print(f"free configurations only (every candidate pair checked): median {np.median(us[ok]):.1f} µs, "
              f"p90 {np.percentile(us[ok], 90):.1f} µs")
    print(f"allowed-collision matrix build (uncached, {matrix.samples} samples): {build:.2f} s")


if __name__ == "__main__":
    main()
