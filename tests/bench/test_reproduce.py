"""benchmarks/reproduce: resumable runs, the success check, the sections of RESULTS.md and
the transcribed source figures (the full runs are the benchmark)."""

import importlib
import sqlite3
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parents[2] / "benchmarks" / "reproduce"
sys.path.insert(0, str(HERE))
common = importlib.import_module("common")
s_table_5_2 = importlib.import_module("s_table_5_2")
r_table_3_5 = importlib.import_module("r_table_3_5")
r_table_3_6 = importlib.import_module("r_table_3_6")
s_section_5_4 = importlib.import_module("s_section_5_4")
r_table_3_13 = importlib.import_module("r_table_3_13")
r_tables_4_1_4_2 = importlib.import_module("r_tables_4_1_4_2")
run_all = importlib.import_module("run_all")


def test_a_run_stores_one_row_per_target_and_resumes(tmp_path):
    db = tmp_path / "r.db"
    p = common.Protocol("ur5", "lm", 6, max_iterations=200)
    first = common.run(p, db)
    assert first.success.shape == (6,) and first.success.all()  # lm solves these within 200 iterations
    assert np.all(first.position_error <= 1e-5) and np.all(first.rotation_error <= 1e-5)
    with sqlite3.connect(db) as con:
        con.execute("DELETE FROM rows WHERE target >= 4")  # an interrupted run
    again = common.run(p, db)
    assert np.array_equal(again.success, first.success) and np.array_equal(again.time[:4], first.time[:4])
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM rows").fetchone()[0] == 6


def test_success_is_checked_at_the_protocols_tolerance(tmp_path):
    """An iteration budget of 1 leaves most targets unsolved: they count as failures, with their errors."""
    o = common.run(common.Protocol("ur5", "lm", 8, max_iterations=1, position_tolerance=1e-5), tmp_path / "r.db")
    assert o.rate < 0.5
    assert np.all(o.success == ((o.position_error <= 1e-5) & (o.rotation_error <= 1e-5)))


def test_the_protocol_names_its_start():
    with pytest.raises(ValueError, match="unknown start 'seedless'"):
        common.run(common.Protocol("ur5", "lm", 1, start="seedless"), Path(":memory:"))


def test_sections_are_replaced_in_place(tmp_path):
    md = tmp_path / "RESULTS.md"
    common.write_section("A", "first A", md)
    common.write_section("B", "only B", md)
    common.write_section("A", "second A", md)
    text = md.read_text()
    assert "second A" in text and "first A" not in text and text.index("second A") < text.index("only B")


def test_interval_and_comparison():
    def outcome(k, n):
        return common.Outcome(np.arange(n) < k, np.zeros(n), np.zeros(n, int), np.zeros(n), np.zeros(n))

    lo, hi = outcome(90, 100).interval()
    assert lo == pytest.approx(0.8256, abs=1e-3) and hi == pytest.approx(0.9448, abs=1e-3)  # Wilson
    assert common.compare(outcome(50, 100), outcome(90, 100)).startswith("worse")
    assert common.compare(outcome(95, 100), outcome(60, 100)).startswith("better")
    assert common.compare(outcome(88, 100), outcome(90, 100)).startswith("no significant")


def test_source_figures_as_transcribed():
    assert s_table_5_2.SOURCE["ur5"][3] == (100.0, 53.33) and s_table_5_2.SOURCE["iiwa14"][1] == (37.71, 3.37)
    assert r_table_3_5.SOURCE["ur5"][1][2] == 83.8 and dict(r_table_3_5.COLUMNS)["GD C 4"] == "gd_c_4"
    assert r_table_3_6.SOURCE["BFGS"] == ("optlib_bfgs", 92.5, 13.9)
    assert [switch for _, switch, _ in s_section_5_4.VARIANTS] == [None, "random_weights", "adoption", "exploitation", "wipes"]
    assert r_table_3_13.SOURCE["BioIK 2, no memetics"] == ("bio2", {"ur5": 99.75, "iiwa14": 99.71, "panda": 99.98})
    assert r_tables_4_1_4_2.SOURCE["BioIK 1"][1]["ur5"] == (51.20, 4.12)
    assert len(run_all.SCRIPTS) == len({m.__name__ for m in run_all.SCRIPTS}) == 7
