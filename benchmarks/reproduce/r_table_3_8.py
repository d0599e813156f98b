"""[R Table 3.8]: BioIK 2's random mutation size — per individual or per gene.

[R 3.7.2]: BioIK 2 draws the mutation scale 2^(k−23) once per offspring individual and
uses it for all its genes; drawn per gene, simultaneous similarly scaled moves of several
joints become unlikely. [R] measures per-gene draws without memetics only. Protocol of
[R 3.2]: FK targets, random starts, 5 ms, 1e-5 m / 1e-5 rad, on the UR5 (bioik's ur5).
bioik: `bio2_memetic` (with memetics) and `bio2` (without), `per_gene_mutation` 0 / 1;
the per-gene row with memetics is not in [R].

Usage: python3 benchmarks/reproduce/r_table_3_8.py [--targets 10000] [--db …] [--results …]
"""

from __future__ import annotations

from pathlib import Path

from common import DB, RESULTS, Arm, arguments, publish_ablation

#: [R Table 3.8]: the rows (success % on the UR5), each tested against the row `versus`.
ARMS = [
    Arm("memetics, per individual", "bio2_memetic", (("per_gene_mutation", 0),), {"ur5": 99.93}, None),
    Arm("no memetics, per individual", "bio2", (("per_gene_mutation", 0),), {"ur5": 99.86}, 0),
    Arm("no memetics, per gene", "bio2", (("per_gene_mutation", 1),), {"ur5": 35.85}, 1),
    Arm("memetics, per gene (not in [R])", "bio2_memetic", (("per_gene_mutation", 1),), {"ur5": None}, 0),
]
ROBOTS = {"ur5": "UR5"}


def main(targets: int = 10000, db: Path = DB, results: Path = RESULTS) -> str:
    return publish_ablation("R-3.8", "[R Table 3.8] Random mutation size per individual or per gene", "r_table_3_8.py", ARMS,
                            ROBOTS, targets, db, results)


if __name__ == "__main__":
    print(main(**vars(arguments(__doc__, 10000))))
