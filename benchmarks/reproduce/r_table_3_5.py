"""[R Table 3.5] (and the Jac columns of [R Table 3.4]): gradient descent variants, the
pseudo-inverse Jacobian solver, KDL and TRAC-IK on FK targets — success rate.

Protocol of [R 3.2]: 5 ms timeout, 1e-5 m / 1e-5 rad, every solve from an independent
random configuration. bioik's counterparts: `gd`, `gd_r`, `gd_c`, `gd_c_4` (4 chains
interleaved on one thread; [R] ran 4 threads), `jac` (one thread; and four `jac` searches
racing on threads for "Jac 4", on this 2-core machine),
`kdl`, `trac`. The PR2 is not bundled; `panda` (7 DoF) stands in for it, said so in its row.
bioik's compiled steps are some 20 times cheaper than the reference's (exact Jacobians
instead of numerical differences), so within 5 ms its chains take thousands of steps where
[R]'s took hundreds; a third row gives the gradient variants the reference's budget
(`BUDGET` steps per chain, no timeout) to separate the algorithm from the speed.

Usage: python3 benchmarks/reproduce/r_table_3_5.py [--targets 1000] [--db …] [--results …]
"""

from __future__ import annotations

from pathlib import Path

from common import DB, RESULTS, Protocol, arguments, publish, rate_cell, run

#: [R Table 3.5] columns and bioik's solver for each (None: no counterpart).
COLUMNS = [("GD", "gd"), ("GD R", "gd_r"), ("GD C", "gd_c"), ("GD C 4", "gd_c_4"), ("Jac 1", "jac"), ("Jac 4", "jac"),
           ("KDL", "kdl"), ("TRAC-IK", "trac")]
#: Columns whose searches race on threads ([R]: the first from the seed, the others random).
THREADS = {"Jac 4": 4}
#: [R Table 3.5] rows: bioik robot → (source robot, success % per column).
SOURCE = {
    "ur5": ("UR5", (1.4, 10.9, 83.8, 90.5, 87.9, 95.5, 41.8, 99.7)),
    "panda": ("PR2", (7.7, 36.9, 67.8, 85.0, 67.3, 82.5, 50.6, 99.9)),
}


#: Gradient steps per chain that [R]'s solvers made in 5 ms, roughly: a step of the reference
#: implementation evaluates the fitness 2n + 7 times (central differences, a three-point
#: line search, the acceptance comparisons), some 15–20 µs on a 6-joint arm.
BUDGET = 300


def main(targets: int = 1000, db: Path = DB, results: Path = RESULTS) -> str:
    rows = []
    for robot, (name, figs) in SOURCE.items():
        label = f"{robot}, bioik" if name.lower() == robot else f"{robot} (stand-in for the {name}), bioik"
        rows.append([f"{name} [R]"] + [f"{f:.1f} %" for f in figs])
        rows.append([label] + [rate_cell(run(Protocol(robot, solver, targets, threads=THREADS.get(column, 1)), db,
                                             f"R 3.5 {robot} {column}")) for column, solver in COLUMNS])
        rows.append([f"{label}, {BUDGET} steps per chain"] + [
            rate_cell(run(Protocol(robot, solver, targets, timeout=1.0, max_iterations=BUDGET * (4 if solver == "gd_c_4" else 1)),
                          db, f"R 3.5 {robot} {solver} budget")) if solver and solver.startswith("gd") else "—"
            for _, solver in COLUMNS])
    return publish("R-3.5", "[R Table 3.5] Gradient descent, Jacobian, KDL, TRAC-IK",
        "Success rate within 5 ms at 1e-5 m / 1e-5 rad, random start configurations; bioik's figure with "
        f"its 95 % interval under each source row, and below it the gradient variants with {BUDGET} steps per chain "
        "(about what [R]'s implementation made in 5 ms). Solvers: " + ", ".join(
            f"{c} → `{s}`" + (f" × {THREADS[c]} threads racing" if c in THREADS else "") for c, s in COLUMNS) +
        f". `python3 benchmarks/reproduce/r_table_3_5.py --targets {targets}`.",
        ["Robot"] + [c for c, _ in COLUMNS], rows, results)


if __name__ == "__main__":
    print(main(**vars(arguments(__doc__, 1000))))
