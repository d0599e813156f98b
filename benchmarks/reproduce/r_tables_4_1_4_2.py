"""[R Tables 4.1, 4.2] (and 3.7): the FK/IK benchmark — BioIK 2, BioIK 1, TRAC-IK and KDL,
success rate and average solve time.

Protocol of [R 4.1, 3.2]: FK targets, random start configurations, 5 ms, 1e-5 m /
1e-5 rad; the average solve time counts failures too. bioik's counterparts: BioIK 2 →
`bio2_memetic` (BioIK 2's default mode), BioIK 1 → `bio1`, TRAC_IK → `trac`, KDL → `kdl`.
Robots: ur5 and iiwa14 are [R]'s UR5 and iiwa; `panda` stands in for the PR2; the
Valkyrie columns have no counterpart.

Usage: python3 benchmarks/reproduce/r_tables_4_1_4_2.py [--targets 1000] [--db …] [--results …]
"""

from __future__ import annotations

from pathlib import Path

from common import DB, RESULTS, arguments, publish, rate_time_cell, solver_table

#: [R Tables 4.1, 4.2]: method → (bioik solver, {robot: (success %, average ms)}).
SOURCE = {
    "BioIK 2": ("bio2_memetic", {"ur5": (99.93, 0.50), "iiwa14": (99.93, 0.47), "panda": (100.0, 0.45)}),
    "BioIK 1": ("bio1", {"ur5": (51.20, 4.12), "iiwa14": (66.84, 3.49), "panda": (75.69, 3.93)}),
    "TRAC_IK": ("trac", {"ur5": (99.29, 0.52), "iiwa14": (99.88, 0.41), "panda": (99.91, 0.77)}),
    "KDL": ("kdl", {"ur5": (41.70, 4.59), "iiwa14": (51.62, 3.17), "panda": (53.10, 4.68)}),
}
#: bioik robot → [R]'s column.
ROBOTS = {"ur5": "UR5", "iiwa14": "iiwa", "panda": "PR2 (panda stands in)"}


def main(targets: int = 1000, db: Path = DB, results: Path = RESULTS) -> str:
    header, rows = solver_table(SOURCE, ROBOTS, targets, db, "R 4.1", lambda fig: f"{fig[0]:.2f} % ({fig[1]:.2f} ms)",
                                rate_time_cell)
    return publish("R-4.1", "[R Tables 4.1, 4.2] The FK/IK benchmark",
        "Success rate [95 % interval] (average time of all solves) within 5 ms at 1e-5 m / 1e-5 rad, random "
        f"starts. `python3 benchmarks/reproduce/r_tables_4_1_4_2.py --targets {targets}`.",
        header, rows, results)


if __name__ == "__main__":
    print(main(**vars(arguments(__doc__, 1000))))
