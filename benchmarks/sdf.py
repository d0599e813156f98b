"""Speed of the scene SDF kernel and of building a mesh grid.

Prints ns per `scene_distance` query (median of repeats, one thread, millions of random
points in a compiled loop) for one analytic primitive of each kind and for one grid
obstacle (the default grid of a ~1 m hollow tank: 17 MB, so random points all over it
miss the caches on every query; points in a 10 cm cube, like a robot working at one
spot, stay in cache), then the tank grid's build time. Timings on a shared machine are
noisy: run it twice.

    PYTHONPATH=src python benchmarks/sdf.py
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

from bioik._kernel_cache import ensure_fresh
from bioik.kinematics.frames import JIT
from bioik.scene import Cylinder, Scene, difference
from bioik.scene.grid import build_grid, default_resolution
from bioik.scene.sdf import scene_distance

# the timing loops below inline bioik's kernels: drop their cache when those change
ensure_fresh(cached=Path(__file__).parent)

N = 2_000_000
REPEATS = 7


@njit(**JIT)
def _loop(data, pts, cutoff):
    acc = 0.0
    for i in range(pts.shape[0]):
        d, gx, gy, gz = scene_distance(data, pts[i, 0], pts[i, 1], pts[i, 2], cutoff, 0)
        acc += d + gx + gy + gz  # keep every output live
    return acc


def ns_per_query(blob: np.ndarray, pts: np.ndarray, cutoff: float = np.inf) -> float:
    _loop(blob, pts[:10], cutoff)
    times = []
    for _ in range(REPEATS):
        t = time.perf_counter()
        _loop(blob, pts, cutoff)
        times.append(time.perf_counter() - t)
    return float(np.median(times)) / len(pts) * 1e9


def tank():
    return difference(
        Cylinder(0.5, 1.0), Cylinder(0.47, 0.94), (Cylinder(0.035, 0.2), np.array([[1, 0, 0, 0.2], [0, 1, 0, 0], [0, 0, 1, 0.5], [0, 0, 0, 1.0]]))
    )


def main() -> None:
    os.environ.setdefault("BIOIK_CACHE_DIR", tempfile.mkdtemp(prefix="bioik-sdf-bench-"))
    rng = np.random.default_rng(0)
    pts = rng.uniform(-0.7, 0.7, (N, 3))
    pose = np.eye(4)
    pose[:3, 3] = (0.05, -0.02, 0.01)
    for kind, add in [
        ("box", lambda s: s.add_box("o", (0.6, 0.4, 0.3), pose)),
        ("sphere", lambda s: s.add_sphere("o", 0.3, pose)),
        ("cylinder", lambda s: s.add_cylinder("o", 0.3, 0.6, pose)),
        ("capsule", lambda s: s.add_capsule("o", 0.2, 0.5, pose)),
    ]:
        s = Scene()
        add(s)
        print(f"{kind:10s} {ns_per_query(s.pack(), pts):6.1f} ns/query")
    solid = tank()
    build_grid(solid.mesh, 0.05)  # compile
    t = time.perf_counter()
    grid = build_grid(solid.mesh, default_resolution(solid.mesh))
    build = time.perf_counter() - t
    s = Scene()
    s.add("tank", solid, pose)
    s._grids["tank"] = (solid, grid)  # the grid just timed
    blob = s.pack()
    print(f"{'grid':10s} {ns_per_query(blob, pts):6.1f} ns/query (tank, {'×'.join(map(str, grid.values.shape))} nodes, points all over it: DRAM-bound)")
    local = rng.uniform(-0.05, 0.05, (N, 3)) + (0.45, 0.0, 0.2)  # a 10 cm cube at the wall
    print(f"{'grid':10s} {ns_per_query(blob, local):6.1f} ns/query (the same, points in a 10 cm cube at the wall: cache-resident)")
    print(f"grid build: {build:.2f} s for the ~1 m hollow tank ({len(solid.mesh.faces)} faces, h = {grid.spacing * 1000:.2f} mm)")


if __name__ == "__main__":
    main()
