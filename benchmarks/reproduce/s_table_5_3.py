"""[S Table 5.3]: HGSA on hyper-redundant chains of 30, 90 and 180 joints — mean time.

[S 5.5.5] builds the chains from consecutive spherical joints and solves a pose objective
at 1e-3 m / 1e-2 rad; bioik's `snakeN` chains have N revolute joints (three per spherical
joint), targets are FK of random configurations, each solve starts from a random
configuration, with a 10 s cap. PASO's figures [S Table 5.3] are shown for context; bioik
has no PASO. `lm` runs the same targets as the gradient-based reference.

Usage: python3 benchmarks/reproduce/s_table_5_3.py [--targets 20] [--db …] [--results …]
"""

from __future__ import annotations

from pathlib import Path

from common import DB, RESULTS, Outcome, Protocol, arguments, publish, rate_cell, run

#: [S Table 5.3]: degrees of freedom → (PASO s, HGSA s).
SOURCE = {30: (1.57, 0.066), 90: (7.46, 0.233), 180: (37.03, 0.717)}


def cell(o: Outcome) -> str:
    return f"{1e3 * o.time.mean():.2f} ms, {rate_cell(o)}"


def main(targets: int = 20, db: Path = DB, results: Path = RESULTS) -> str:
    rows = []
    for dof, (paso, hgsa) in SOURCE.items():
        ours = [run(Protocol(f"snake{dof}", solver, targets, timeout=10.0, position_tolerance=1e-3, rotation_tolerance=1e-2),
                    db, f"S 5.3 snake{dof} {solver}") for solver in ("bio1", "lm")]
        rows.append([str(dof), f"{1e3 * paso:.0f} ms", f"{1e3 * hgsa:.0f} ms", cell(ours[0]), cell(ours[1])])
    return publish("S-5.3", "[S Table 5.3] PASO and HGSA on hyper-redundant chains",
        "Mean time of all solves and success rate [95 % interval], pose at 1e-3 m / 1e-2 rad within 10 s, "
        f"random starts. `python3 benchmarks/reproduce/s_table_5_3.py --targets {targets}`.",
        ["DoF", "PASO [S]", "HGSA [S]", "bio1", "lm"], rows, results)


if __name__ == "__main__":
    print(main(**vars(arguments(__doc__, 20))))
