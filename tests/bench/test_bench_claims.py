"""Claims beside verdicts (results DB format 5): each row keeps the solver's own claim of
success, the report counts false successes, an older file reads and upgrades; a missing
collision-aware peer is skipped with one line naming its extra."""

from __future__ import annotations

import sqlite3
import sys

import bioik
from bioik.bench import ResultStore, generate
from bioik.bench.report import markdown
from bioik.bench.runner import run_experiment
from bioik.bench.store import VERSION
from bioik.cli import main

N = 4


def _lying(robot, goals, **kw):
    """Claims success with an answer that misses the target by 1 mm."""
    q = robot.center()
    return bioik.Result(q=q, success=True, cost=0.0, goal_errors=None, time=0.0, callback_calls=0, restarts=0, iterations=1,
                        solver="liar")


def test_false_successes_are_counted_and_an_old_file_reads_without_claims(tmp_path):
    ur5 = bioik.load_robot("ur5")
    db = tmp_path / "r.db"
    with ResultStore(db, create=True) as store:
        run_experiment(store, ur5, "ur5", "fkik", "lm", N, 0.005, solve=_lying, targets=generate(ur5, "fkik", N, 0))
        rows = store.results(store.experiments()[0].id)
        report = markdown(store)
    assert VERSION == 5 and all(r.claimed and not r.solved for r in rows)
    assert "| 100.0 | 4 |" in report  # claimed %, false successes
    with sqlite3.connect(db) as c:  # as format 4 wrote it: no claimed column
        c.execute("ALTER TABLE results DROP COLUMN claimed")
        c.execute("UPDATE meta SET value='4' WHERE key='version'")
    with ResultStore(db) as store:
        assert all(r.claimed is None for r in store.results(1))
        assert "| — | — |" in markdown(store)
    with ResultStore(db, create=True):  # upgraded in place
        pass
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT value FROM meta WHERE key='version'").fetchone() == ("5",)
        assert "claimed" in [r[1] for r in c.execute("PRAGMA table_info(results)")]


def test_a_missing_collision_aware_peer_names_its_extra(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pydrake", None)
    db = tmp_path / "r.db"
    assert main(["bench", "run", "--robot", "ur5", "--test", "fkik", "--solver", "peer:drake", "--targets", "2", "--db", str(db)]) == 0
    assert "skipping peer:drake: package drake is not installed (pip install -e '.[peers-clutter]')" in capsys.readouterr().err
