"""Distributed runs on dask (`--scheduler`, `bioik.bench.distributed`): a LocalCluster of two
worker processes gives exactly the rows of the local path (same seeds, an iteration budget),
resumes what is missing, loses no target when a worker is killed mid-chunk; reach and tune
run there too; option errors and a missing dask are one line."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed")

import bioik
from bioik.bench import ResultStore, reach
from bioik.bench.distributed import DaskPool
from bioik.bench.runner import run_experiment
from bioik.cli import main

from dask_helpers import KILL_SEED, MARKER, solve_or_die

N = 24
SEED = 3
PARAMS = {"max_iterations": 300}
TIMEOUT = 5.0  # far above what 300 iterations take: the budget ends each search, not the clock


@pytest.fixture(scope="module")
def ur5() -> bioik.Robot:
    return bioik.load_robot("ur5")


@pytest.fixture(scope="module")
def marker(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("kill") / "killed"


@pytest.fixture(scope="module")
def pool(marker):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(MARKER, str(marker))  # before the workers start: they inherit it
        with DaskPool("local", workers=2, chunk_size=4) as p:
            yield p


def _rows(db) -> list[tuple]:
    """Every result row but its time."""
    with sqlite3.connect(db) as c:
        return c.execute("SELECT experiment, target_index, solved, callback_calls, iterations, restarts, position_error,"
                         " rotation_error, solution FROM results ORDER BY experiment, target_index").fetchall()


def _run(db, robot, test: str = "fkik", **kw):
    with ResultStore(db, create=True) as store:
        return run_experiment(store, robot, "ur5", test, "lm", N, TIMEOUT, seed=SEED, params=PARAMS, **kw)


@pytest.fixture(scope="module")
def local(ur5, tmp_path_factory) -> dict[str, list[tuple]]:
    """The local path's rows of each test."""
    out = {}
    for test in ("fkik", "track"):
        db = tmp_path_factory.mktemp("local") / "r.db"
        _run(db, ur5, test)
        out[test] = _rows(db)
    return out


@pytest.mark.parametrize("test", ["fkik", "track"])  # track: warm starts, so one chunk
def test_a_cluster_gives_exactly_the_local_rows(pool, ur5, local, tmp_path, test):
    summary = _run(tmp_path / "r.db", ur5, test, pool=pool)
    assert (summary.ran, summary.skipped, summary.interrupted) == (N, 0, False)
    rows = _rows(tmp_path / "r.db")
    assert len(rows) == N and rows == local[test]
    assert 0 < sum(r[2] for r in rows) <= N and len({r[4] for r in rows}) > 1  # real solves, not one repeated answer


def test_a_cluster_run_resumes_an_interrupted_one(pool, ur5, local, tmp_path):
    db = tmp_path / "r.db"
    calls = []

    def stop_at_7(robot, goals, **kw):  # target 7's solve is the 13th call (5 warm-up solves first)
        calls.append(1)
        if len(calls) == 13:
            raise KeyboardInterrupt
        return bioik.solve(robot, goals, **kw)

    assert _run(db, ur5, solve=stop_at_7).interrupted
    assert len(_rows(db)) == 7
    summary = _run(db, ur5, pool=pool)
    assert (summary.skipped, summary.ran) == (7, N - 7)
    assert _rows(db) == local["fkik"]


def test_a_killed_worker_loses_no_target(pool, ur5, local, marker, tmp_path):
    before = set(pool.client.nthreads())
    summary = _run(tmp_path / "r.db", ur5, solve=solve_or_die, pool=pool)
    assert marker.exists()  # a worker died in the middle of the chunk of target KILL_SEED - SEED
    assert KILL_SEED - SEED not in (0, N - 1) and summary.ran == N
    rows = _rows(tmp_path / "r.db")
    assert [r[1] for r in rows] == list(range(N))  # each target once
    assert rows == local["fkik"]
    pool.client.wait_for_workers(2, timeout=60)  # the nanny started a new one
    assert set(pool.client.nthreads()) != before


def test_reach_on_a_cluster_stores_every_point_once(pool, ur5, tmp_path):
    box = tmp_path / "box.toml"
    box.write_text('[[obstacle]]\nname = "box"\nbox = [0.4, 0.4, 0.4]\nposition = [0.6, 0.0, 0.3]\n')
    scene = bioik.Scene.from_file(box)
    study = reach.Study("ur5", ur5.fingerprint, "tool0", str(box), ("box",), 10, 0, "lm", 0.05, 0.01)
    store = reach.ReachStore(tmp_path / "reach.db", study)
    seen = []
    try:
        reach.run(store, ur5, study, scene, lambda done, total: seen.append((done, total)), pool=pool)
        rows = store.rows()
    finally:
        store.close()
    assert [r[0] for r in rows] == list(range(10)) and seen[-1] == (10, 10)
    poses = reach.sample(scene, ("box",), 10, 0, 0.01)[1]
    np.testing.assert_allclose([r[2:5] for r in rows], poses)  # each row is its point


def test_tune_on_a_cluster_with_its_study_in_another_database(pool, tmp_path):
    from bioik.bench.tune import tune

    optuna = pytest.importorskip("optuna")
    db, study_db = tmp_path / "tune.db", tmp_path / "study.db"
    lines = []
    kw = dict(n_targets=4, timeout=0.01, pool=pool, storage=f"sqlite:///{study_db}", log=lines.append)
    result = tune(str(db), "ur5", "fkik", "lm", 3, **kw)
    assert (result.completed, result.ran, result.default_number) == (3, 3, 0) and not result.interrupted
    assert sum(line.startswith("trial ") for line in lines) == 3
    again = tune(str(db), "ur5", "fkik", "lm", 4, **kw)  # resumes: one more
    assert (again.completed, again.ran) == (4, 1)
    trials = optuna.load_study(study_name="ur5-fkik-lm", storage=f"sqlite:///{study_db}").get_trials()
    assert [t.state for t in trials] == [optuna.trial.TrialState.COMPLETE] * 4
    with ResultStore(db) as store:  # each trial's rows, written by this process
        for t in trials:
            assert len(store.results(t.user_attrs["experiment"])) == 4


def test_the_cli_on_a_local_cluster_gives_the_rows_of_the_local_cli(tmp_path, capsys):
    argv = ["bench", "run", "--robot", "ur5", "--test", "fkik", "--solver", "lm", "--targets", "12", "--seed", "5",
            "--max-iterations", "300", "--timeout", "5"]
    assert main([*argv, "--db", str(tmp_path / "a.db")]) == 0
    assert main([*argv, "--db", str(tmp_path / "b.db"), "--scheduler", "local", "--workers", "2", "--chunk-size", "5"]) == 0
    assert "| lm (max_iterations=300) | 12/12 |" in capsys.readouterr().out
    assert _rows(tmp_path / "a.db") == _rows(tmp_path / "b.db") and len(_rows(tmp_path / "a.db")) == 12


@pytest.mark.parametrize(("extra", "message"), [
    (["--workers", "2"], "--workers needs --scheduler"),
    (["--scheduler", "local", "--chunk-size", "0"], "--chunk-size must be ≥ 1"),
    (["--scheduler", "tcp://127.0.0.1:1", "--workers", "2"], "--workers sets the size of --scheduler local"),
    (["--max-iterations", "0"], "--max-iterations must be ≥ 1"),
])
def test_bad_cluster_options_are_one_line_and_write_nothing(tmp_path, capsys, extra, message):
    db = tmp_path / "r.db"
    assert main(["bench", "run", "--robot", "ur5", "--test", "fkik", "--solver", "lm", "--db", str(db), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not db.exists()


def test_without_dask_the_error_names_the_extra(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed raises ImportError
    box = tmp_path / "box.toml"
    box.write_text('[[obstacle]]\nname = "box"\nbox = [0.4, 0.4, 0.4]\nposition = [0.6, 0.0, 0.3]\n')
    assert main(["reach", "ur5", "--object", str(box), "--samples", "2", "--db", str(tmp_path / "r.db"),
                 "--scheduler", "local"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install 'bioik[dist]'" in err[0]
    assert not (tmp_path / "r.db").exists()


def test_a_complete_experiment_sends_nothing(pool, ur5, tmp_path, monkeypatch):
    db = tmp_path / "r.db"
    _run(db, ur5, pool=pool)
    monkeypatch.setattr(pool.client, "submit", lambda *a, **kw: pytest.fail("a task for a complete experiment"))
    summary = _run(db, ur5, pool=pool)
    assert (summary.skipped, summary.ran) == (N, 0)
