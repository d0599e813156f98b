"""Numbers you can trust: the tip and robot content of an experiment (issue 24, point 1)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

import bioik
from bioik.bench import BenchError, ResultStore, generate
from bioik.bench.runner import run_experiment
from bioik.cli import main

UR5_URDF = bioik.robots.urdf_path("ur5")


def _run_args(robot: str, db: Path, test: str = "fkik", solver: str = "lm", *extra: str) -> list[str]:
    return ["bench", "run", "--robot", robot, "--test", test, "--solver", solver, "--targets", "3", "--seed", "1", "--db", str(db), *extra]


def _rows(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as c:
        return c.execute("SELECT experiment, target_index FROM results ORDER BY experiment, target_index").fetchall()


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bioik bench: error: "), err
    return err[0]


# -- the tip and the robot's content ---------------------------------------------------------

def test_a_urdf_path_benchmarks_its_end_effector(tmp_path, capsys):
    db = tmp_path / "r.db"
    assert main(_run_args(str(UR5_URDF), db)) == 0
    out = capsys.readouterr().out
    assert f"### {UR5_URDF} (tip tool0) · fkik" in out and "| lm | 3/3 | 100.0 |" in out
    assert main(_run_args(str(UR5_URDF), db, "unreachable")) == 0
    assert "| lm | 3/3 | 0.0 |" in capsys.readouterr().out  # was 100 % when the fixed frame `base` was posed
    with ResultStore(db) as store:
        exps = store.experiments()
        assert [(e.test, e.tip, e.robot_hash) for e in exps] == [(t, "tool0", bioik.load_robot(str(UR5_URDF)).fingerprint)
                                                                  for t in ("fkik", "unreachable")]
        assert store.targets(exps[0].id).tip == "tool0"


def test_an_edited_urdf_is_refused_not_mixed(tmp_path, capsys):
    urdf, db = tmp_path / "arm.urdf", tmp_path / "r.db"
    urdf.write_text(UR5_URDF.read_text())
    assert main(_run_args(str(urdf), db)) == 0
    capsys.readouterr()
    urdf.write_text(UR5_URDF.read_text().replace('xyz="0 0 0.089159"', 'xyz="0 0 0.1"', 1))  # the shoulder's height
    for solver in ("lm", "kdl"):  # resuming, or a new experiment beside the old robot's: both refused
        assert main(_run_args(str(urdf), db, "fkik", solver)) == 2
        line = _one_error_line(capsys)
        assert f"robot '{urdf}' (experiment 1, fkik/lm) was run on other robot content" in line
        assert line.endswith("use another --db for the changed robot, or the old URDF to resume")
    assert _rows(db) == [(1, 0), (1, 1), (1, 2)]
    edited = bioik.load_robot(str(urdf))
    with ResultStore(db, create=True) as store, pytest.raises(BenchError, match="run on other robot content"):
        run_experiment(store, edited, str(urdf), "fkik", "lm", 3, 0.005, seed=1)
    assert main(_run_args(str(urdf), tmp_path / "new.db")) == 0  # another --db takes it


def test_a_robot_with_several_tips_needs_one_named(tmp_path, capsys):
    db = tmp_path / "r.db"
    assert main(_run_args("dual_ur5", db)) == 2
    assert _one_error_line(capsys).endswith(
        "robot 'dual_ur5' has 2 tips (left_tool0, right_tool0); name the one to benchmark with --tip LINK")
    assert main(_run_args("dual_ur5", db, "fkik", "lm", "--tip", "rigth_tool0")) == 2
    assert "unknown link 'rigth_tool0' in 'dual_ur5'; closest: right_tool0" in _one_error_line(capsys)
    assert main(_run_args("dual_ur5", db, "fkik", "lm", "--tip", "world")) == 2
    assert "link 'world' of robot 'dual_ur5' does not move with its joints" in _one_error_line(capsys)
    assert not db.exists()
    toml = tmp_path / "e.toml"
    toml.write_text('robots = ["dual_ur5"]\ntip = "right_tool0"\ntests = ["fkik"]\nsolvers = ["lm"]\ntargets = 3\ndb = "r.db"\n')
    assert main(["bench", "run", str(toml)]) == 0
    assert "### dual_ur5 (tip right_tool0) · fkik" in capsys.readouterr().out
    with ResultStore(db) as store:
        (exp,) = store.experiments()
        assert exp.tip == "right_tool0" and exp.robot_hash == bioik.load_robot("dual_ur5").fingerprint
    toml.write_text('robots = ["dual_ur5"]\ntip = ["right_tool0"]\ntests = ["fkik"]\ndb = "r.db"\n')
    assert main(["bench", "run", str(toml)]) == 2
    assert "tip must be a link name (a string)" in _one_error_line(capsys)


def test_targets_and_runs_pose_the_named_tip():
    dual = bioik.load_robot("dual_ur5")
    t = generate(dual, "fkik", 3, 0, tip="right_tool0")
    assert t.tip == "right_tool0"
    np.testing.assert_allclose(dual.fk(t.witnesses, links=["right_tool0"])[:, 0], t.poses)
    with pytest.raises(ValueError, match="has 2 tips"):
        generate(dual, "fkik", 3, 0)
