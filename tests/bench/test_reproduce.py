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
r_table_3_3 = importlib.import_module("r_table_3_3")
e_tables = importlib.import_module("e_tables_8_10_8_13")
ablations = {n: importlib.import_module(f"r_table_3_{n}") for n in (8, 9, 10, 11, 12, 14)}
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


def test_searches_racing_on_threads_solve_what_one_of_them_solves(tmp_path):
    """threads=4: four searches per target, the first from the start, the others random; a
    target is solved when one of them solves it (an iteration budget, not the clock)."""
    one = common.run(common.Protocol("ur5", "jac", 40, timeout=1.0, max_iterations=12), tmp_path / "r.db")
    four = common.run(common.Protocol("ur5", "jac", 40, timeout=1.0, max_iterations=12, threads=4), tmp_path / "r.db")
    assert four.rate > one.rate > 0.0
    assert np.all(four.success == ((four.position_error <= 1e-5) & (four.rotation_error <= 1e-5)))
    # one thread is the default and stays out of the key: rows stored before threads existed are found
    assert "threads" not in common.Protocol("ur5", "jac").key() and '"threads": 4' in common.Protocol("ur5", "jac", threads=4).key()


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
    figures = {n: [(a.params, a.source) for a in m.ARMS] for n, m in ablations.items()}
    assert figures[8] == [((("per_gene_mutation", 0),), {"ur5": 99.93}), ((("per_gene_mutation", 0),), {"ur5": 99.86}),
                          ((("per_gene_mutation", 1),), {"ur5": 35.85}), ((("per_gene_mutation", 1),), {"ur5": None})]
    assert [a.solver for a in ablations[8].ARMS] == ["bio2_memetic", "bio2", "bio2", "bio2_memetic"]
    assert figures[9] == [((("threads", 1),), {"panda": 99.99, "ur5": 99.34}), ((("threads", 2),), {"panda": 100.0, "ur5": 99.81}),
                          ((("threads", 4),), {"panda": 100.0, "ur5": 99.93})]
    assert [a.versus for a in ablations[9].ARMS] == [None, 0, 1]
    assert figures[10] == [((("wipeouts", 1),), {"ur5": 99.93}), ((("wipeouts", 0),), {"ur5": 96.42})]
    assert figures[11] == [((("random_init", 0),), {"ur5": 99.93}), ((("random_init", 1),), {"ur5": 99.97})]
    assert figures[12] == [((("momentum_mix", 0.3),), {"ur5": 99.93}), ((("momentum_mix", 0.0),), {"ur5": 91.24})]
    assert figures[14] == [((("rotation_distance", 0),), {"ur5": 99.93, "iiwa14": 99.93}),
                           ((("rotation_distance", 1),), {"ur5": 99.83, "iiwa14": 99.73}),
                           ((("rotation_distance", 2),), {"ur5": 97.08, "iiwa14": 98.77})]
    columns = {a.label: (a.solver, a.params, a.source, a.versus) for a in r_table_3_3.COLUMNS}
    assert columns["Original"] == ("bio1", (), {"panda": 51.5, "ur5": 24.1}, None)
    assert columns["Modified, 1 thread"] == ("bio2", (("threads", 1),), {"panda": 57.0, "ur5": 43.2}, 0)
    assert columns["Modified, 4 threads"] == ("bio2", (("threads", 4),), {"panda": 77.4, "ur5": 53.4}, 1)
    assert columns["KDL"][:3] == ("kdl", (), {"panda": 50.6, "ur5": 41.8})
    assert columns["TRAC-IK"][:3] == ("trac", (), {"panda": 99.9, "ur5": 99.7})
    studies = e_tables.SOURCE
    assert [s.test for s in studies.values()] == ["scene:Random/rejection", "scene:TableObjects/rejection", "scene:HydrogenTank/line",
                                                  "scene:HydrogenTank/rejection"]
    random, objects, tank, extra = studies.values()
    assert all(len(s.rows) == 11 and all(len(r) == 8 for r in s.rows) for s in (random, objects, tank))
    assert (extra.rows, extra.importance) == ([], ())  # not in [E]
    assert random.rows[0] == (0.269, 25, 1, 1, 21, 1, 2, 6) and random.rows[-1] == (0.541, 16, 1, 8, 8, 2, 2, 4)
    assert random.rows[1] == (0.272, 28, 1, 0, 19, 1, 2, 6)  # evolution gens 0, below Table 8.10's range, as printed
    assert objects.rows[0] == (4.98, 2, 1, 3, 15, 3, 2, 7) and objects.rows[-1][0] == 6.17
    assert tank.rows[4] == (54.2, 68, 10, 5, 29, 6, 2, 5) and tank.rows[-1][0] == 71.9
    assert tank.importance == ("child_count", "species_count", "memetic_evolution_gens")
    assert len(run_all.SCRIPTS) == len({m.__name__ for m in run_all.SCRIPTS}) == 15


def test_ablation_arms_run_interleaved_and_test_against_their_reference(tmp_path):
    """`ablation_table` runs every arm on the same targets and tests each against its
    reference; the verdict compares directions."""
    arms = [common.Arm("full", "lm", (), {"ur5": 99.0}, None),
            common.Arm("one step", "lm", (("attempt_iterations", 1),), {"ur5": 10.0})]
    header, rows = common.ablation_table(arms, {"ur5": "UR5"}, 6, tmp_path / "r.db", "test")
    assert header == ["Variant", "bioik", "tested against", "UR5 [R]", "ur5, 5 ms", "vs reference, 5 ms",
                      f"ur5, {common.STEPS} steps", f"vs reference, {common.STEPS} steps"]
    assert rows[0][2:4] == ["—", "99.00 %"] and rows[0][5] == rows[0][7] == "—"
    assert rows[1][:4] == ["one step", "`lm` attempt_iterations=1", "full", "10.00 %"] and "[R]: -89.00 points" in rows[1][7]
    with sqlite3.connect(tmp_path / "r.db") as con:  # 2 arms × 2 budgets × 6 targets
        assert con.execute("SELECT COUNT(*) FROM rows").fetchone()[0] == 24

    def outcome(k, n):
        return common.Outcome(np.arange(n) < k, np.zeros(n), np.zeros(n, int), np.zeros(n), np.zeros(n))

    assert common.verdict(outcome(50, 100), outcome(90, 100), 80.0, 99.0) == "same direction as [R]: -19.00 points"
    assert common.verdict(outcome(99, 100), outcome(60, 100), 80.0, 99.0) == "opposite direction to [R]: -19.00 points"
    assert common.verdict(outcome(89, 100), outcome(90, 100), 80.0, 99.0) == "[R]: -19.00 points"
