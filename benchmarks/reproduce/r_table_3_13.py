"""[R Table 3.13]: BioIK 2's memetics — quadratic, linear, L-BFGS-B, none.

Protocol of [R 3.2]: FK targets, random starts, 5 ms, 1e-5 m / 1e-5 rad. bioik's
counterparts: `bio2_memetic` (quadratic), `bio2_memetic_l` (linear), `bio2_memetic_lbfgs`
(scipy's L-BFGS-B; [R] used CppNumericalSolvers), `bio2` (no memetics). Robots: ur5 and
iiwa14; `panda` stands in for the PR2; the Valkyrie columns have no counterpart.

Usage: python3 benchmarks/reproduce/r_table_3_13.py [--targets 1000] [--db …] [--results …]
"""

from __future__ import annotations

from pathlib import Path

from common import DB, RESULTS, arguments, publish, rate_cell, solver_table

#: [R Table 3.13]: row → (bioik solver, {robot: success %}).
SOURCE = {
    "BioIK 2, quadratic memetics": ("bio2_memetic", {"ur5": 99.93, "iiwa14": 99.93, "panda": 100.00}),
    "BioIK 2, linear memetics": ("bio2_memetic_l", {"ur5": 99.90, "iiwa14": 99.91, "panda": 99.99}),
    "BioIK 2, LBFGS-B memetics": ("bio2_memetic_lbfgs", {"ur5": 99.90, "iiwa14": 99.92, "panda": 99.99}),
    "BioIK 2, no memetics": ("bio2", {"ur5": 99.75, "iiwa14": 99.71, "panda": 99.98}),
}
ROBOTS = {"ur5": "UR5", "iiwa14": "iiwa", "panda": "PR2 (panda stands in)"}


def main(targets: int = 1000, db: Path = DB, results: Path = RESULTS) -> str:
    header, rows = solver_table(SOURCE, ROBOTS, targets, db, "R 3.13", lambda rate: f"{rate:.2f} %", rate_cell)
    return publish("R-3.13", "[R Table 3.13] BioIK 2's memetics",
        "Success rate [95 % interval] within 5 ms at 1e-5 m / 1e-5 rad, random starts. "
        f"`python3 benchmarks/reproduce/r_table_3_13.py --targets {targets}`.",
        header, rows, results)


if __name__ == "__main__":
    print(main(**vars(arguments(__doc__, 1000))))
