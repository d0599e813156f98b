"""Every reproduction in one command: runs each script of this directory with its default
target count (or --targets for all), into one database and RESULTS.md. Resumable: rows
already in the database are read, not solved again.

Usage: python3 benchmarks/reproduce/run_all.py [--targets N] [--db …] [--results …]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import e_tables_8_10_8_13
import r_table_3_3
import r_table_3_5
import r_table_3_6
import r_table_3_8
import r_table_3_9
import r_table_3_10
import r_table_3_11
import r_table_3_12
import r_table_3_13
import r_table_3_14
import r_tables_4_1_4_2
import s_section_5_4
import s_table_5_2
import s_table_5_3
from common import DB, RESULTS

#: The scripts, in the order their sections appear in RESULTS.md.
SCRIPTS = (s_table_5_2, s_table_5_3, s_section_5_4, r_table_3_5, r_table_3_6, r_table_3_13, r_tables_4_1_4_2, r_table_3_8,
           r_table_3_10, r_table_3_11, r_table_3_12, r_table_3_14, r_table_3_3, e_tables_8_10_8_13, r_table_3_9)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", type=int, help="FK targets per cell for every script (default: each script's own)")
    ap.add_argument("--db", type=Path, default=DB)
    ap.add_argument("--results", type=Path, default=RESULTS)
    args = ap.parse_args()
    for script in SCRIPTS:
        kw = {} if args.targets is None else {"targets": args.targets}
        print(script.main(db=args.db, results=args.results, **kw), end="\n\n", flush=True)


if __name__ == "__main__":
    main()
