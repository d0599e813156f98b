"""Forward-kinematics speed: batched FK, the single-link kernel, and the Python-level call.

Usage: python3 benchmarks/fk_speed.py [--robot ur5] [--repeat 20000]

Prints median per-call times (µs) over several rounds and the time to import bioik
(in a fresh interpreter, numba cache warm after the first run).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

import numpy as np

import bioik
from bioik.kinematics.fk import fk_batch, fk_link


def per_call(fn, repeat: int, rounds: int = 7) -> float:
    """Median over rounds of the mean time per call, in µs."""
    fn()
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(repeat):
            fn()
        times.append((time.perf_counter() - t) / repeat * 1e6)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robot", default="ur5")
    ap.add_argument("--repeat", type=int, default=20000)
    args = ap.parse_args()

    robot = bioik.load_robot(args.robot)
    tip = robot.tips[0]
    rng = np.random.default_rng(0)
    q = robot.random_configuration(rng)
    Q = robot.random_configuration(rng, 16)
    prog = robot.program_for([tip])
    seg = np.empty((prog.n_segments, 7))
    chain = np.empty(prog.n_segments, dtype=np.int64)
    out = np.empty((4, 4))
    outs = np.zeros(1, dtype=np.int64)
    batch = np.empty((16, 1, 4, 4))

    kernel = per_call(lambda: fk_link(prog.seg_i, prog.seg_f, prog.out_seg, prog.out_tf, q, 0, seg, chain, out), args.repeat)
    batched = per_call(lambda: fk_batch(prog.seg_i, prog.seg_f, prog.out_seg, prog.out_tf, Q, outs, seg, batch), args.repeat // 4) / 16
    python = per_call(lambda: robot.link_pose(q, tip), args.repeat)
    jac = per_call(lambda: robot.jacobian(q, tip), args.repeat)

    imports = []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import bioik"], check=True)
        imports.append(time.perf_counter() - t)

    print(f"robot {args.robot}, link {tip}, {robot.dof} DoF (median of 7 rounds)")
    print("| measure | time |\n|---|---|")
    print(f"| FK per configuration, batch of 16 (kernel) | {batched:.3f} µs |")
    print(f"| FK single link_pose kernel | {kernel:.3f} µs |")
    print(f"| robot.link_pose (Python call) | {python:.3f} µs |")
    print(f"| robot.jacobian (Python call) | {jac:.3f} µs |")
    print(f"| import bioik (fresh interpreter, cached numba) | {statistics.median(imports):.3f} s |")


if __name__ == "__main__":
    main()
