"""Make the stored targets of the eight EBIKE scenarios: 1000 per scenario, each with a
collision-free witness configuration of elise_ur10 (how: `bioik.bench.scenes`).

Deterministic: fixed candidate seed, an iteration budget per search and each candidate's
index as its solver seed, so a re-run writes the same targets (up to floating-point
differences between machines). A scenario whose file exists is skipped unless --force.
The longest are the tanks (tens of minutes on one core; --jobs spreads the searches over
processes without changing the result).

    PYTHONPATH=src python benchmarks/scene_targets.py [--scenario HydrogenTank ...] [--n 1000] [--jobs 2] [--force]
"""

from __future__ import annotations

import argparse
import json
import time

import bioik
from bioik.bench.scenes import make_targets, save_targets


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", action="append", choices=bioik.scenes.names())
    ap.add_argument("--n", type=int, default=1000, help="targets to keep per scenario")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--out", default=str(bioik.scenes.TARGET_DIR), help="folder of the .npz files")
    ap.add_argument("--force", action="store_true", help="remake files that exist")
    a = ap.parse_args()
    for name in a.scenario or bioik.scenes.names():
        path = f"{a.out}/{name}.npz"
        if not a.force and bioik.scenes.TARGET_DIR.joinpath(f"{name}.npz").exists() and a.out == str(bioik.scenes.TARGET_DIR):
            print(f"{name}: {path} exists (--force remakes it)")
            continue
        t0 = time.monotonic()
        targets = make_targets(name, a.n, a.jobs)
        save_targets(targets, path)
        print(f"{name}: {json.dumps(targets.info)} in {time.monotonic() - t0:.0f} s → {path}", flush=True)


if __name__ == "__main__":
    main()
