"""[R Table 3.3] (with Tables 3.1, 3.2): the original BioIK, the modified evolution on one
island and on 4 islands (4 threads), KDL and TRAC-IK — success rate.

Protocol of [R 3.2]: FK targets, each solve from an independent random configuration, 5 ms,
1e-5 m / 1e-5 rad. [R] does not give the number of targets; 3000 per cell here, the five
columns of a robot run interleaved (target by target) so that the machine's load falls on
them alike.

bioik's counterparts:
  * Original → `bio1`: the Hybrid Genetic Swarm Algorithm of [S 4.3], which [R 3.3] ported
    to C++ with "only minor changes" (double precision, MoveIt's robot model) — the same
    algorithm, not [R]'s port.
  * Modified, 1 thread → `bio2` with `threads` 1, a stand-in: [R]'s "modified evolution" at
    this stage is the port with a quadratic fitness [R 3.4.1] and islands [R 3.4.2]; bioik
    has no solver frozen at that stage, and `bio2` is where the modifications led, BioIK 2's
    evolution [R 3.7] without its memetics (quadratic fitness, one island of 2 species).
  * Modified, 4 threads → `bio2` with `threads` 4: four such islands, each on a thread of its
    own, stopping when one succeeds, as [R 3.4.2] describes. This machine has 2 cores.
  * KDL → `kdl`, TRAC-IK → `trac` (see [R Tables 4.1, 4.2]'s section).
Robots: `ur5` is [R]'s UR5; the PR2 is not bundled, `panda` (7 joints) stands in for it.

Usage: python3 benchmarks/reproduce/r_table_3_3.py [--targets 3000] [--db …] [--results …]
"""

from __future__ import annotations

from pathlib import Path

from common import DB, RESULTS, Arm, Outcome, Protocol, arguments, compare, publish, rate_time_cell, run_together, verdict

#: [R Table 3.3]: a column per method — bioik solver and parameters, [R]'s success % per
#: bioik robot, and the column it is tested against (the evolution's modifications in turn).
COLUMNS = [
    Arm("Original", "bio1", (), {"panda": 51.5, "ur5": 24.1}, None),
    Arm("Modified, 1 thread", "bio2", (("threads", 1),), {"panda": 57.0, "ur5": 43.2}, 0),
    Arm("Modified, 4 threads", "bio2", (("threads", 4),), {"panda": 77.4, "ur5": 53.4}, 1),
    Arm("KDL", "kdl", (), {"panda": 50.6, "ur5": 41.8}, None),
    Arm("TRAC-IK", "trac", (), {"panda": 99.9, "ur5": 99.7}, None),
]
#: bioik robot → [R]'s row.
ROBOTS = {"panda": "PR2 (panda stands in)", "ur5": "UR5"}


def _versus(arm: Arm, outcomes: list[Outcome], robot: str) -> str:
    """Fisher's test of an evolution column against the one before it, and the verdict."""
    if arm.versus is None:
        return "—"
    ref = COLUMNS[arm.versus]
    o, r = outcomes[COLUMNS.index(arm)], outcomes[arm.versus]
    return f"vs {ref.label}: {compare(o, r)}; {verdict(o, r, arm.source[robot], ref.source[robot])}"


def main(targets: int = 3000, db: Path = DB, results: Path = RESULTS) -> str:
    rows = []
    for robot, name in ROBOTS.items():
        ps = [Protocol(robot, a.solver, targets, params=a.params) for a in COLUMNS]
        outcomes = run_together(ps, db, f"R 3.3 {robot}")
        rows.append([f"{name} [R]"] + [f"{a.source[robot]:.1f} %" for a in COLUMNS])
        rows.append([f"{robot}, bioik"] + [rate_time_cell(o) for o in outcomes])
        rows.append([f"{robot}, Fisher's test"] + [_versus(a, outcomes, robot) for a in COLUMNS])
    return publish("R-3.3", "[R Table 3.3] Original and modified evolution, KDL, TRAC-IK",
        "Success rate [95 % interval] (mean time of all solves) within 5 ms at 1e-5 m / 1e-5 rad, random starts, "
        f"{targets} FK targets per cell, the columns of a robot interleaved. bioik: "
        + ", ".join(f"{a.label} → `{a.solver}`" + "".join(f" {k}={v:g}" for k, v in a.params) for a in COLUMNS)
        + ". Exact counterparts: `bio1` (the original algorithm, not [R]'s port of it), `kdl`, `trac`; stand-ins: "
        "`bio2` for [R]'s modified evolution at that stage (BioIK 2's evolution without memetics), `panda` for the PR2. "
        "Fisher's exact test (two-sided) of each modification against the column before it; verdict: its direction "
        f"against [R]'s. `python3 benchmarks/reproduce/r_table_3_3.py --targets {targets}`.",
        ["Robot"] + [a.label for a in COLUMNS], rows, results)


if __name__ == "__main__":
    print(main(**vars(arguments(__doc__, 3000))))
