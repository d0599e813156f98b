"""[R Table 3.6]: generic optimisers (CppNumericalSolvers in [R]) minimising BioIK 2's
fitness — success rate on the UR5 and PR2.

Protocol of [R 3.2]: 5 ms, 1e-5 m / 1e-5 rad, random start configurations. bioik's
counterparts are the `optlib_*` solvers (scipy's optimisers on the same fitness); plain
L-BFGS (without bounds) has none. The PR2 is not bundled; `panda` stands in for it.

Usage: python3 benchmarks/reproduce/r_table_3_6.py [--targets 1000] [--db …] [--results …]
"""

from __future__ import annotations

from pathlib import Path

from common import DB, RESULTS, Protocol, arguments, publish, rate_cell, run

#: [R Table 3.6]: method → (bioik solver, UR5 %, PR2 %).
SOURCE = {
    "BFGS": ("optlib_bfgs", 92.5, 13.9),
    "Conjugate GD": ("optlib_cg", 35.4, 13.5),
    "Gradient Descent": ("optlib_gd", 35.6, 6.9),
    "L-BFGS-B": ("optlib_lbfgsb", 0.4, 1.7),
    "L-BFGS": (None, 0.0, 0.1),
    "Nelder-Mead / Simplex": ("optlib_nelder_mead", 30.7, 15.8),
    "Newton Descent": ("optlib_newton", 18.1, 3.1),
}


def main(targets: int = 1000, db: Path = DB, results: Path = RESULTS) -> str:
    rows = []
    for method, (solver, ur5, pr2) in SOURCE.items():
        ours = ["—", "—"] if solver is None else [rate_cell(run(Protocol(robot, solver, targets), db, f"R 3.6 {robot} {solver}"))
                                                  for robot in ("ur5", "panda")]
        rows.append([method, f"`{solver}`" if solver else "—", f"{ur5:.1f} %", ours[0], f"{pr2:.1f} %", ours[1]])
    return publish("R-3.6", "[R Table 3.6] Generic optimisers on BioIK 2's fitness",
        "Success rate within 5 ms at 1e-5 m / 1e-5 rad, random start configurations, with bioik's 95 % interval; "
        f"`panda` stands in for the PR2. `python3 benchmarks/reproduce/r_table_3_6.py --targets {targets}`.",
        ["Method [R]", "bioik", "UR5 [R]", "ur5", "PR2 [R]", "panda"], rows, results)


if __name__ == "__main__":
    print(main(**vars(arguments(__doc__, 1000))))
