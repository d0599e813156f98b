"""Wall time of a distributed `bioik bench run` against the same run in one process (issue 19).

Each round opens the same experiment (robot, test, solver, seed: so the workers keep their
solver ready from the warm-up round, as in a long run) in a fresh database twice, and times
the solving and storing of its targets: once here, target by target, once on a dask
LocalCluster of `--workers` processes in chunks (`bioik.bench.distributed.DaskPool`). The
experiment's opening (target generation, the warm-up solves here) is not timed: it is the
same for both. Prints each round's times and the median ratio cluster / one process.

Usage: python3 benchmarks/dask_ratio.py [--robot ur5] [--targets 2000] [--max-iterations 300]
                                        [--workers 2] [--chunk-size N] [--rounds 9]
(needs the `dist` extra: pip install -e ".[dist]").
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import bioik
from bioik.bench import ResultStore
from bioik.bench.distributed import DaskPool
from bioik.bench.runner import open_experiment, store_rows


def timed_run(robot: bioik.Robot, name: str, n: int, iterations: int, pool: DaskPool | None) -> float:
    """Seconds to solve and store the `n` fkik targets of `name` with `lm` (seed 0) in a new
    database, here (pool None) or on the cluster, after the experiment is opened."""
    with tempfile.TemporaryDirectory() as d, ResultStore(Path(d) / "r.db", create=True) as store:
        opened = open_experiment(store, robot, name, "fkik", "lm", n, 5.0, 0, {"max_iterations": iterations})
        t = time.perf_counter()
        if pool is None:
            batches = ([row] for row in opened.solving.rows(opened.chunk))
        else:
            batches = pool.map(opened.job, opened.chunk.split(pool.chunk_size(len(opened.chunk))))
        store_rows(store, opened, batches, progress=False)
        return time.perf_counter() - t


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robot", default="ur5")
    p.add_argument("--targets", type=int, default=2000)
    p.add_argument("--max-iterations", type=int, default=300)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--chunk-size", type=int)
    p.add_argument("--rounds", type=int, default=9)
    a = p.parse_args()
    robot = bioik.load_robot(a.robot)
    with DaskPool("local", a.workers, chunk_size=a.chunk_size) as pool:
        for warm in (None, pool):
            timed_run(robot, a.robot, a.targets, a.max_iterations, warm)
        ratios = []
        for _ in range(a.rounds):
            here = timed_run(robot, a.robot, a.targets, a.max_iterations, None)
            there = timed_run(robot, a.robot, a.targets, a.max_iterations, pool)
            ratios.append(there / here)
            print(f"one process {here:.3f} s, cluster of {a.workers} {there:.3f} s, ratio {there / here:.2f}", flush=True)
    print(f"{a.robot}, fkik, lm, {a.targets} targets, max_iterations {a.max_iterations}: median ratio "
          f"{statistics.median(ratios):.2f} (min {min(ratios):.2f}, max {max(ratios):.2f}) over {a.rounds} rounds")


if __name__ == "__main__":
    main()
