"""[R Table 3.12]: BioIK 2 with and without its particle-swarm term.

[R 3.7.8]: every individual keeps a momentum; each offspring adds it scaled by an integer
0–2 (removed, kept or doubled) before the mutation. Protocol of [R 3.2]: FK targets,
random starts, 5 ms, 1e-5 m / 1e-5 rad, on the UR5 (bioik's ur5). bioik: `bio2_memetic`
with `momentum_mix` 0.3 (the full algorithm) and 0, which keeps every momentum at zero:
no switch of its own is needed.

Usage: python3 benchmarks/reproduce/r_table_3_12.py [--targets 10000] [--db …] [--results …]
"""

from __future__ import annotations

from pathlib import Path

from common import DB, RESULTS, Arm, arguments, publish_ablation

#: [R Table 3.12]: success % on the UR5.
ARMS = [
    Arm("with particle swarm", "bio2_memetic", (("momentum_mix", 0.3),), {"ur5": 99.93}, None),
    Arm("without particle swarm", "bio2_memetic", (("momentum_mix", 0.0),), {"ur5": 91.24}),
]
ROBOTS = {"ur5": "UR5"}


def main(targets: int = 10000, db: Path = DB, results: Path = RESULTS) -> str:
    return publish_ablation("R-3.12", "[R Table 3.12] Particle swarm", "r_table_3_12.py", ARMS, ROBOTS, targets, db, results)


if __name__ == "__main__":
    print(main(**vars(arguments(__doc__, 10000))))
