"""benchmarks/ebike_table.py: which runs it makes, and the tables it writes from their rates
(the runs themselves are the benchmark; here the rates are given)."""

import importlib.util
from pathlib import Path

import pytest

from bioik import scenes

_spec = importlib.util.spec_from_file_location("ebike_table", Path(__file__).parents[2] / "benchmarks" / "ebike_table.py")
ebike_table = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ebike_table)
Row = ebike_table.Row


def test_every_solver_runs_with_rejection_sampling_and_the_collision_costs_where_it_takes_them():
    shelf = ebike_table.runs("Shelf")
    assert [(s, t) for _, s, t in shelf if s == "kdl"] == [("kdl", "scene:Shelf/rejection")]  # pose goals only
    assert [(s, t) for _, s, t in shelf if s == "lm"] == [("lm", "scene:Shelf"), ("lm", "scene:Shelf/rejection")]
    assert [(s, t) for _, s, t in shelf if s == "passage"] == [("passage", "scene:Shelf")]  # generic, on every scenario
    assert not any(ebike_table.opening_run(label) for label, s, _ in shelf if s == "passage")
    assert len(shelf) == 2 * len(ebike_table.SOLVERS) - len(ebike_table.POSE_ONLY) + 1
    tank = ebike_table.runs("HydrogenTank")
    opening = [(s, t) for label, s, t in tank if ebike_table.opening_run(label)]
    assert opening == [("decoupled", "scene:HydrogenTank"), ("lm", "scene:HydrogenTank/rcm"), ("lm", "scene:HydrogenTank/lookat")]


def test_every_scenario_has_its_source_rows():
    assert set(ebike_table.E_GENERIC) == set(scenes.names())
    assert set(ebike_table.E_OPENING) == set(ebike_table.TANKS)
    # transcription spot checks: [E Table A6] KDL on HydrogenTank, [E Table A16] decoupling on the small tank
    assert ebike_table.E_GENERIC["HydrogenTank"]["KDL"] == ("A6", Row(0.1, 0.9, 18.9, 56.8, 0.0, 7.2))
    assert ebike_table.E_OPENING["HydrogenTankSmall"]["kinematic decoupling"][1][:3] == (0.0, 6.6, 54.0)


def _ours(shelf_lm: Row) -> dict:
    rates = {name: {label: Row(0.0, 0.0, 0.0, 0.0, 0.0, 0.0) for label, _, _ in ebike_table.runs(name)} for name in scenes.names()}
    rates["Shelf"]["lm + collision costs"] = shelf_lm
    return rates


def test_the_summary_puts_the_best_of_ours_beside_the_best_of_theirs_and_marks_the_best_in_each_column():
    text = ebike_table.summary_table(_ours(Row(70.0, 90.0, 99.95, 100.0, 98.0, 100.0)), 100, 1.0)
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("| Shelf |"))
    ours, theirs = lines[at:at + 2]
    assert ours == "| Shelf | bioik generic | **70.0** | **90.0** | **100.0** | **100.0** | **98.0** | **100.0** |"
    assert theirs == "| | [E] generic | 63.0 | 78.0 | 99.9 | **100.0** | 61.8 | 92.6 |"  # [E Table A2]'s best per column
    below = ebike_table.summary_table(_ours(Row(50.0, 90.0, 99.0, 100.0, 98.0, 100.0)), 100, 1.0)
    assert "| Shelf | bioik generic | 50.0 | **90.0** | 99.0 | **100.0** |" in below


def test_the_full_table_lists_every_run_and_every_source_row():
    text = ebike_table.full_table(_ours(Row(70.0, 90.0, 99.9, 100.0, 98.0, 100.0)), 100, 1.0)
    shelf = text.split("## Shelf")[1].split("## ")[0]
    assert "| lm + collision costs | **70.0** | **90.0** | **99.9** | **100.0** | **98.0** | **100.0** |" in shelf
    assert "| [E] KDL, Table A2 | 63.0 | 78.0 | **99.9** | **100.0** | 54.7 | 92.6 |" in shelf
    tank = text.split("## HydrogenTankSmall")[1]
    assert "*using the opening*" in tank and "| decoupled | 0.0 |" in tank
    assert "| [E] target seed (KDL; seeded with a solution), Table A18 | — | **26.3** | 27.6 |" in tank  # the best at 10 ms here


def test_the_readme_block_is_replaced_and_a_readme_without_one_is_refused(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{ebike_table.MARK_BEGIN}\nold\n{ebike_table.MARK_END}\nrest\n")
    ebike_table.write_readme(readme, "new table")
    assert readme.read_text() == f"intro\n{ebike_table.MARK_BEGIN}\nnew table\n{ebike_table.MARK_END}\nrest\n"
    readme.write_text("no block")
    with pytest.raises(SystemExit, match="no <!-- ebike-table begin -->"):
        ebike_table.write_readme(readme, "x")


def test_the_peers_get_their_rows_and_the_ur5_table_problem_its_own():
    ours = _ours(Row(70.0, 90.0, 99.95, 100.0, 98.0, 100.0))
    drake, mink = ebike_table.peer_label("peer:drake", 30), ebike_table.peer_label("peer:mink", 30)
    ours["Shelf"][drake] = Row(0.0, 0.0, 20.0, 80.0, 80.0, 80.0)
    ours["Shelf"][mink] = Row(3.3, 3.3, 10.0, 40.0, 40.0, 40.0)
    ours[ebike_table.TABLE_ROW] = {"lm + collision costs": Row(90.0, 95.0, 100.0, 100.0, 97.0, 100.0), drake: Row(0.0, 0.0, 50.0, 90.0, 90.0, 90.0),
                                   mink: Row(0.0, 0.0, 0.0, 30.0, 30.0, 30.0)}
    assert drake == "Drake (peer:drake, 30 targets)" and ebike_table.is_peer_row(drake) and not ebike_table.is_peer_row("lm, rejection sampling")
    lines = ebike_table.summary_table(ours, 100, 1.0, peer_targets=30).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("| Shelf |"))
    assert lines[at:at + 4] == ["| Shelf | bioik generic | **70.0** | **90.0** | **100.0** | **100.0** | **98.0** | **100.0** |",
                                "| | Drake | 0.0 | 0.0 | 20.0 | 80.0 | 80.0 | 80.0 |", "| | mink | 3.3 | 3.3 | 10.0 | 40.0 | 40.0 | 40.0 |",
                                "| | [E] generic | 63.0 | 78.0 | 99.9 | **100.0** | 61.8 | 92.6 |"]
    at = next(i for i, line in enumerate(lines) if line.startswith("| ur5 table |"))
    assert lines[at + 2] == "| | mink | 0.0 | 0.0 | 0.0 | 30.0 | 30.0 | 30.0 |" and not lines[at + 3].startswith("| | [E]")
    full = ebike_table.full_table(ours, 100, 1.0)
    assert "| Drake (peer:drake, 30 targets) | 0.0 | 0.0 | 20.0 | 80.0 | 80.0 | 80.0 |" in full.split("## Shelf")[1]
    assert "## ur5 table" in full
