"""[R Table 3.11]: BioIK 2's initialisation — at the initial guess or at random.

[R 3.7.6]: every individual of every island starts at the initial guess; the variant
starts them at random. Protocol of [R 3.2]: FK targets, random starts (the initial guess
is itself a random configuration), 5 ms, 1e-5 m / 1e-5 rad, on the UR5 (bioik's ur5).
bioik: `bio2_memetic` with `random_init` 0 (the full algorithm) and 1 (every individual at
a random configuration of its own).

Usage: python3 benchmarks/reproduce/r_table_3_11.py [--targets 10000] [--db …] [--results …]
"""

from __future__ import annotations

from pathlib import Path

from common import DB, RESULTS, Arm, arguments, publish_ablation

#: [R Table 3.11]: success % on the UR5.
ARMS = [
    Arm("initial guess", "bio2_memetic", (("random_init", 0),), {"ur5": 99.93}, None),
    Arm("random initialisation", "bio2_memetic", (("random_init", 1),), {"ur5": 99.97}),
]
ROBOTS = {"ur5": "UR5"}


def main(targets: int = 10000, db: Path = DB, results: Path = RESULTS) -> str:
    return publish_ablation("R-3.11", "[R Table 3.11] Initialisation", "r_table_3_11.py", ARMS, ROBOTS, targets, db, results)


if __name__ == "__main__":
    print(main(**vars(arguments(__doc__, 10000))))
