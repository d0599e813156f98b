"""[R Table 3.14]: rotational distance measures of BioIK 2's fitness.

[R 3.8]: the square quaternion distance min(‖Q_G − Q_E‖², ‖Q_G + Q_E‖²) of the
(unnormalised, extrapolated) quaternion, against the norm and dot product
1 − |Q_G·Q_E| after normalising, and the square angle. Protocol of [R 3.2]: FK targets,
random starts, 5 ms, 1e-5 m / 1e-5 rad, on the UR5 and the iiwa (bioik's ur5, iiwa14).
bioik: `bio2_memetic` with `rotation_distance` 0, 1, 2 — the fitness on the extrapolated
model (evolution and line searches); the acceptance test is the same for all.

Usage: python3 benchmarks/reproduce/r_table_3_14.py [--targets 10000] [--db …] [--results …]
"""

from __future__ import annotations

from pathlib import Path

from common import DB, RESULTS, Arm, arguments, publish_ablation

#: [R Table 3.14]: success % on the UR5 and the iiwa.
ARMS = [
    Arm("square quaternion distance", "bio2_memetic", (("rotation_distance", 0),), {"ur5": 99.93, "iiwa14": 99.93}, None),
    Arm("norm and dot product", "bio2_memetic", (("rotation_distance", 1),), {"ur5": 99.83, "iiwa14": 99.73}),
    Arm("square angle", "bio2_memetic", (("rotation_distance", 2),), {"ur5": 97.08, "iiwa14": 98.77}),
]
ROBOTS = {"ur5": "UR5", "iiwa14": "iiwa"}


def main(targets: int = 10000, db: Path = DB, results: Path = RESULTS) -> str:
    return publish_ablation("R-3.14", "[R Table 3.14] Rotational distance measures", "r_table_3_14.py", ARMS, ROBOTS, targets,
                            db, results)


if __name__ == "__main__":
    print(main(**vars(arguments(__doc__, 10000))))
