"""[R Table 3.9]: BioIK 2 on 1, 2 and 4 islands, each island on a thread of its own.

[R 3.7.4]: the population is spread over islands that evolve independently on separate
threads; the first solution found stops them all. Protocol of [R 3.2]: FK targets, random
starts, 5 ms, 1e-5 m / 1e-5 rad. bioik: `bio2_memetic` (BioIK 2's default mode) with
`threads` 1, 2 and 4. Robots: `ur5` is [R]'s UR5; the PR2 is not bundled, `panda` stands in.
This machine has 2 cores, so 4 islands cannot all run at once as on [R]'s. [R]'s TRAC-IK
(2 threads) and KDL rows are in the section of [R Tables 4.1, 4.2] (`kdl`, `trac`).

Usage: python3 benchmarks/reproduce/r_table_3_9.py [--targets 10000] [--db …] [--results …]
"""

from __future__ import annotations

from pathlib import Path

from common import DB, RESULTS, Arm, arguments, publish_ablation

#: [R Table 3.9]: success % per bioik robot; each island count tested against the one before.
ARMS = [
    Arm("1 island (1 thread)", "bio2_memetic", (("threads", 1),), {"panda": 99.99, "ur5": 99.34}, None),
    Arm("2 islands (2 threads)", "bio2_memetic", (("threads", 2),), {"panda": 100.00, "ur5": 99.81}, 0),
    Arm("4 islands (4 threads)", "bio2_memetic", (("threads", 4),), {"panda": 100.00, "ur5": 99.93}, 1),
]
ROBOTS = {"panda": "PR2 (panda stands in)", "ur5": "UR5"}


def main(targets: int = 10000, db: Path = DB, results: Path = RESULTS) -> str:
    return publish_ablation("R-3.9", "[R Table 3.9] Islands and threads", "r_table_3_9.py", ARMS, ROBOTS, targets, db, results)


if __name__ == "__main__":
    print(main(**vars(arguments(__doc__, 10000))))
