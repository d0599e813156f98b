"""[R Table 3.10]: BioIK 2 with and without wipeouts.

[R 3.7.5]: two species per island; only the less fit one can be wiped out (re-initialised
from a random genome), when it did not improve during a step or at random with low
probability. Protocol of [R 3.2]: FK targets, random starts, 5 ms, 1e-5 m / 1e-5 rad, on
the UR5 (bioik's ur5). bioik: `bio2_memetic` with `wipeouts` 1 (the full algorithm) and 0.

Usage: python3 benchmarks/reproduce/r_table_3_10.py [--targets 10000] [--db …] [--results …]
"""

from __future__ import annotations

from pathlib import Path

from common import DB, RESULTS, Arm, arguments, publish_ablation

#: [R Table 3.10]: success % on the UR5.
ARMS = [
    Arm("with wipeouts", "bio2_memetic", (("wipeouts", 1),), {"ur5": 99.93}, None),
    Arm("without wipeouts", "bio2_memetic", (("wipeouts", 0),), {"ur5": 96.42}),
]
ROBOTS = {"ur5": "UR5"}


def main(targets: int = 10000, db: Path = DB, results: Path = RESULTS) -> str:
    return publish_ablation("R-3.10", "[R Table 3.10] Wipeouts", "r_table_3_10.py", ARMS, ROBOTS, targets, db, results)


if __name__ == "__main__":
    print(main(**vars(arguments(__doc__, 10000))))
