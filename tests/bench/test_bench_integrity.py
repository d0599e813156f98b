"""Numbers you can trust: the tip and robot content of an experiment, and a results DB that is
complete, undamaged and ours (issue 24, points 1 and 2)."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import bioik
from bioik.bench import BenchError, ResultStore, generate
from bioik.bench.runner import run_experiment
from bioik.bench.store import ResultRow
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


def test_tune_refuses_an_edited_robot_before_its_study(tmp_path, capsys):
    pytest.importorskip("optuna")
    urdf, db = tmp_path / "arm.urdf", tmp_path / "r.db"
    urdf.write_text(UR5_URDF.read_text())
    assert main(_run_args(str(urdf), db)) == 0
    urdf.write_text(UR5_URDF.read_text().replace('xyz="0 0 0.089159"', 'xyz="0 0 0.1"', 1))
    capsys.readouterr()
    assert main(["bench", "tune", "--robot", str(urdf), "--test", "fkik", "--solver", "lm", "--trials", "1", "--targets", "3",
                 "--db", str(db)]) == 2
    assert "was run on other robot content" in _one_error_line(capsys)
    with sqlite3.connect(db) as c:  # no Optuna tables: nothing was written
        assert {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")} == {"meta", "experiments", "targets", "results"}


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
    toml.write_text('robots = ["dual_ur5"]\ntip = 3\ntests = ["fkik"]\ndb = "r.db"\n')
    assert main(["bench", "run", str(toml)]) == 2
    assert "tip must be a link name (a string) or a list of them" in _one_error_line(capsys)


def test_targets_and_runs_pose_the_named_tip():
    dual = bioik.load_robot("dual_ur5")
    t = generate(dual, "fkik", 3, 0, tip="right_tool0")
    assert t.tip == "right_tool0"
    np.testing.assert_allclose(dual.fk(t.witnesses, links=["right_tool0"])[:, 0], t.poses)
    with pytest.raises(ValueError, match="has 2 tips"):
        generate(dual, "fkik", 3, 0)


# -- the file: complete, undamaged, ours -----------------------------------------------------

def _fill(path: Path, n: int) -> None:
    """A results DB with one ur5 experiment of n targets, each with a (made-up) result row."""
    ur5 = bioik.load_robot("ur5")
    rng = np.random.default_rng(0)
    with ResultStore(path, create=True) as store:
        eid = store.experiment("ur5", "fkik", "lm", {}, 0.005, generate(ur5, "fkik", n, 0), 0, robot_hash=ur5.fingerprint)
        for i in range(n):
            store.add_result(eid, ResultRow(i, True, 1e-3, 0, 5, 0, 1e-7, 1e-7, rng.uniform(-3, 3, 6).tolist()))


def _refused(db: Path, capsys, expected: str) -> None:
    """report, plot and run all refuse `db` with one line containing `expected`, exit status 2,
    and leave it as it was."""
    for argv in (["bench", "report", str(db)], ["bench", "plot", str(db), "--out", str(db.parent / "plots")],
                 _run_args("ur5", db)):
        before = db.read_bytes()
        assert main(argv) == 2, argv
        assert expected in _one_error_line(capsys), argv
        assert db.read_bytes() == before


def test_a_damaged_page_is_refused(tmp_path, capsys):
    db = tmp_path / "r.db"
    _fill(db, 2000)
    size = db.stat().st_size
    assert size > 20 * 4096
    with open(db, "r+b") as f:  # one page in the middle overwritten, as a bad disk sector would
        f.seek((size // 4096 // 2) * 4096)
        f.write(np.random.default_rng(1).bytes(4096))
    _refused(db, capsys, f"{db}: damaged results DB (")


def test_a_damaged_row_is_refused(tmp_path, capsys):
    db = tmp_path / "r.db"
    _fill(db, 5)
    with sqlite3.connect(db) as c:  # a well-formed page, but a row no bioik wrote
        c.execute("UPDATE results SET solution='[0.1, 0.2' WHERE target_index=3")
    assert main(["bench", "report", str(db)]) == 2
    assert f"{db}: damaged results DB (Expecting" in _one_error_line(capsys)


@pytest.mark.parametrize(("fill", "sql", "expected"), [
    (0, "CREATE TABLE meta (key, value); INSERT INTO meta VALUES ('format', 'other-app');",
     "not a bioik results DB (no 'bioik-bench' format marker)"),
    (0, "CREATE TABLE meta (key, value); INSERT INTO meta VALUES ('format', 'bioik-bench'), ('version', '3');",
     "not a complete bioik results DB (format version 3 without table experiments, table targets, table results)"),
    (2, "ALTER TABLE results DROP COLUMN rotation_error;",
     "not a complete bioik results DB (format version 5 without results.rotation_error)"),
    (2, "UPDATE meta SET value='three' WHERE key='version';", "not a bioik results DB (format version 'three' is not a number)"),
])
def test_foreign_and_hand_made_dbs_are_refused(tmp_path, capsys, fill, sql, expected):
    db = tmp_path / "x.db"
    if fill:
        _fill(db, fill)
    c = sqlite3.connect(db)
    c.executescript(sql)
    c.close()
    _refused(db, capsys, f"{db}: {expected}")


def test_a_file_of_random_bytes_is_refused(tmp_path, capsys):
    db = tmp_path / "x.db"
    db.write_bytes(np.random.default_rng(2).bytes(8192))
    _refused(db, capsys, f"{db}: not a bioik results DB (file is not a database)")


def test_an_interrupted_run_leaves_every_row_in_the_db_file_alone(tmp_path):
    ur5 = bioik.load_robot("ur5")
    targets = generate(ur5, "fkik", 6, 2)

    def stop_at_4(robot, goals, **kw):
        if np.array_equal(goals[0].pose, targets.poses[4]):
            raise KeyboardInterrupt
        return bioik.solve(robot, goals, **kw)

    db = tmp_path / "r.db"
    with ResultStore(db, create=True) as store:
        s = run_experiment(store, ur5, "ur5", "fkik", "lm", 6, 0.005, seed=2, solve=stop_at_4)
        assert s.interrupted and s.ran == 4
        assert Path(f"{db}-wal").exists()  # still in write-ahead-log mode: copy the .db without it
        shutil.copy(db, tmp_path / "copy.db")
    assert _rows(tmp_path / "copy.db") == [(1, i) for i in range(4)]


KILLED_RUN = """
import os, signal, sys, time
import numpy as np
import bioik
from bioik.bench import ResultStore, runner
runner.CHECKPOINT_INTERVAL_S = 0.25
calls = 0
def slow(robot, goals, seed=None, **kw):  # 10 ms a target; SIGKILL instead of target 60
    global calls
    calls += 1
    if calls == runner.WARMUP_SOLVES + 61:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.01)
    return bioik.Result(q=robot.center(), success=True, cost=0.0, goal_errors=np.zeros((1, 2)), time=0.0, iterations=1)
with ResultStore(sys.argv[1], create=True) as store:
    runner.run_experiment(store, bioik.load_robot("ur5"), "ur5", "fkik", "lm", 100, 0.005, solve=slow)
"""


def test_a_killed_run_loses_nothing_with_its_wal_and_at_most_a_checkpoint_interval_without(tmp_path, capsys):
    db = tmp_path / "r.db"
    env = {**os.environ, "PYTHONPATH": str(Path(bioik.__file__).parents[1])}
    p = subprocess.run([sys.executable, "-c", KILLED_RUN, str(db)], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == -signal.SIGKILL, p.stderr
    shutil.copy(db, tmp_path / "copy.db")  # the .db alone
    assert 60 - 0.25 / 0.01 - 1 <= len(_rows(tmp_path / "copy.db")) <= 60  # at most 0.25 s of rows short
    assert main(["bench", "report", str(db)]) == 0  # with its -wal: every committed row
    assert "| lm | 60/100 |" in capsys.readouterr().out
