"""bioik.bench: reproducible targets, SQLite store, self-checking runner, resume, report, plot, CLI."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

import bioik
from bioik.bench import BenchError, ResultStore, generate
from bioik.bench.report import summarize
from bioik.bench.runner import run_experiment
from bioik.cli import main

N = 5
TIMEOUT = 0.005


@pytest.fixture(scope="module")
def ur5() -> bioik.Robot:
    return bioik.load_robot("ur5")


def _run(store: ResultStore, robot: bioik.Robot, solver: str = "lm", **kw):
    return run_experiment(store, robot, "ur5", "fkik", solver, N, TIMEOUT, seed=7, **kw)


def _db_rows(path) -> list[tuple]:
    with sqlite3.connect(path) as c:
        return c.execute("SELECT experiment, target_index, solved, time_s, callback_calls FROM results ORDER BY experiment, target_index").fetchall()


@pytest.mark.parametrize("test", ["fkik", "unreachable", "grid"])
def test_same_seed_gives_identical_targets(ur5, test):
    a, b, c = generate(ur5, test, 8, 3), generate(ur5, test, 8, 3), generate(ur5, test, 8, 4)
    np.testing.assert_array_equal(a.poses, b.poses)
    np.testing.assert_array_equal(a.seeds, b.seeds)
    assert not np.array_equal(a.poses, c.poses)
    assert a.poses.shape == (8, 4, 4) and a.seeds.shape == (8, ur5.dof)
    assert all(ur5.within_limits(s) for s in a.seeds)


def test_target_kinds(ur5):
    fk = generate(ur5, "fkik", 6, 1)
    np.testing.assert_allclose(ur5.fk(fk.witnesses, links=[fk.tip])[:, 0], fk.poses)
    far = generate(ur5, "unreachable", 6, 1)
    p, p_far = fk.poses[:, :3, 3], far.poses[:, :3, 3]
    scale = np.linalg.norm(p_far, axis=1) / np.linalg.norm(p, axis=1)
    assert np.all(scale >= 3.0 - 1e-12)
    np.testing.assert_allclose(p_far, scale[:, None] * p)  # pushed out along the ray from the base
    reach = np.linalg.norm(ur5.fk(ur5.random_configuration(np.random.default_rng(0), 5000), links=[fk.tip])[:, 0, :3, 3], axis=1).max()
    assert np.all(np.linalg.norm(p_far, axis=1) > 1.4 * reach)
    np.testing.assert_array_equal(far.poses[:, :3, :3], fk.poses[:, :3, :3])
    assert far.witnesses is None
    grid = generate(ur5, "grid", 27, 1)
    np.testing.assert_allclose(grid.poses[:, :3, :3], np.broadcast_to(grid.poses[0, :3, :3], (27, 3, 3)))
    assert all(len(np.unique(grid.poses[:, i, 3].round(12))) == 3 for i in range(3))  # a 3×3×3 grid
    with pytest.raises(ValueError, match="unknown test"):
        generate(ur5, "nope", 3, 0)


def test_end_to_end_report_matches_db_and_plot_is_written(ur5, tmp_path, capsys):
    db = tmp_path / "r.db"
    with ResultStore(db, create=True) as store:
        s = _run(store, ur5)
        assert (s.ran, s.skipped, s.interrupted) == (N, 0, False)
        assert s.solved == N  # lm solves every ur5 FK/IK target well within 5 ms
        (exp,) = store.experiments()
        assert exp.environment["numpy"] == np.__version__ and exp.n_targets == N
        summary = summarize(store, exp)
    rows = _db_rows(db)
    assert [r[1] for r in rows] == list(range(N))
    times_ms = np.array([r[3] for r in rows]) * 1e3
    solved = np.array([r[2] for r in rows], dtype=bool)
    calls = np.array([r[4] for r in rows])
    assert np.all(calls[solved] >= 1)  # the benchmark's check was asked about every solved answer
    assert summary.success == pytest.approx(100.0 * solved.mean())
    assert summary.mean_ms == pytest.approx(times_ms.mean()) and summary.median_ms == pytest.approx(np.median(times_ms))
    assert set(summary.within_ms) == {5}  # only thresholds up to the 5 ms timeout
    for k, v in summary.within_calls.items():
        assert v == pytest.approx(100.0 * np.mean(solved & (calls <= k)))

    assert main(["bench", "report", str(db)]) == 0
    out = capsys.readouterr().out
    assert f"| lm | {N}/{N} | {summary.success:.1f} |" in out and f"{summary.median_ms:.3f}" in out

    assert main(["bench", "plot", str(db), "--out", str(tmp_path / "plots")]) == 0
    pngs = list((tmp_path / "plots").glob("*.png"))
    assert len(pngs) == 1 and pngs[0].stat().st_size > 1000
    assert pngs[0].with_suffix(".svg").stat().st_size > 1000


def test_callback_calls_are_counted_and_a_run_without_callback_is_another_experiment(ur5, tmp_path, capsys):
    db = tmp_path / "r.db"
    with ResultStore(db, create=True) as store:
        _run(store, ur5)
        _run(store, ur5, callback=False)
        with_cb, without = store.experiments()
        assert (with_cb.callback, without.callback) == (True, False)
        assert [r.callback_calls for r in store.results(with_cb.id) if r.solved] == [1] * N  # lm's first answer passes
        assert {r.callback_calls for r in store.results(without.id)} == {0}
        assert summarize(store, without).within_calls is None
        assert summarize(store, with_cb).within_calls[1] == pytest.approx(100.0)

    def rejecting(robot, goals, callback=None, **kw):
        """lm behind a callback that rejects the first two answers: rejection sampling."""
        seen = []
        return bioik.solve(robot, goals, callback=lambda q: seen.append(1) is None and len(seen) > 2 and callback(q), **kw)

    with ResultStore(tmp_path / "r2.db", create=True) as store:
        _run(store, ur5, solve=rejecting)
        (exp,) = store.experiments()
        rows = store.results(exp.id)
        assert all(r.callback_calls == 3 for r in rows if r.solved) and any(r.solved for r in rows)
        assert summarize(store, exp).within_calls[2] == 0.0
    assert main(["bench", "report", str(db)]) == 0
    out = capsys.readouterr().out
    assert "| — | — |" in out and "solution-callback calls" in out


def test_interrupted_run_resumes_without_duplicates_or_gaps(ur5, tmp_path):
    db = tmp_path / "r.db"
    stop_at = generate(ur5, "fkik", N, 7).poses[2]

    with ResultStore(db, create=True) as store:
        first = _run(store, ur5, solve=_stop_on(stop_at))
    assert first.interrupted and first.ran == 2
    assert [r[1] for r in _db_rows(db)] == [0, 1]
    with ResultStore(db, create=True) as store:
        second = _run(store, ur5)
        third = _run(store, ur5)
        assert len(store.experiments()) == 1
    assert (second.skipped, second.ran, second.interrupted) == (2, N - 2, False)
    assert (third.skipped, third.ran) == (N, 0)
    assert [r[1] for r in _db_rows(db)] == list(range(N))


def _stop_on(pose: np.ndarray):
    """A solve that raises KeyboardInterrupt (a simulated Ctrl-C) when asked for `pose`."""

    def solve(robot, goals, **kw):
        if np.array_equal(goals[0].pose, pose):
            raise KeyboardInterrupt
        return bioik.solve(robot, goals, **kw)

    return solve


def test_wrong_answer_claiming_success_counts_as_failure(ur5, tmp_path):
    def lying_solve(robot, goals, seed=None, **kw):
        q = np.asarray(seed, dtype=float)
        return bioik.Result(q=q, success=True, cost=0.0, goal_errors=np.zeros((1, 2)), time=0.0, iterations=1)

    with ResultStore(tmp_path / "r.db", create=True) as store:
        s = _run(store, ur5, solver="lm", solve=lying_solve)
        (exp,) = store.experiments()
        rows = store.results(exp.id)
    assert s.solved == 0 and len(rows) == N
    assert not any(r.solved for r in rows) and all(r.position_error > 1e-5 for r in rows)


def test_store_rejects_foreign_and_unwritable_files(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    with pytest.raises(BenchError, match="not a bioik results DB"):
        ResultStore(text, create=True)
    assert text.read_text() == "hello\n"
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as c:
        c.execute("CREATE TABLE t (x)")
    with pytest.raises(BenchError, match="not a bioik results DB"):
        ResultStore(other, create=True)
    with pytest.raises(BenchError, match="no such results DB"):
        ResultStore(tmp_path / "missing.db")
    with pytest.raises(BenchError, match="cannot open"):
        ResultStore(tmp_path / "no" / "dir" / "r.db", create=True)
    with pytest.raises(BenchError, match="cannot be created"):
        ResultStore.check_writable(tmp_path / "no" / "dir" / "r.db")
    with pytest.raises(BenchError, match="not a bioik results DB"):
        ResultStore.check_writable(text)
    ResultStore.check_writable(tmp_path / "new.db")
    assert not (tmp_path / "new.db").exists()


@pytest.mark.parametrize("args", [
    ["--robot", "nope", "--test", "fkik"],
    ["--robot", "ur5", "--test", "nope"],
    ["--robot", "ur5", "--test", "fkik", "--solver", "nope"],
    ["--robot", "ur5", "--test", "fkik", "--solver", "lm", "--param", "nope=1"],
    ["--robot", "ur5", "--test", "fkik", "--db", "/nonexistent-dir/r.db"],
])
def test_cli_bad_input_is_one_error_line_and_writes_nothing(tmp_path, capsys, args):
    db = tmp_path / "r.db"
    assert main(["bench", "run", "--targets", "3", "--db", str(db), *args]) == 2  # a later --db wins
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bioik bench: error:")
    assert not db.exists()


def test_cli_report_on_foreign_file_fails_cleanly(tmp_path, capsys):
    text = tmp_path / "x.db"
    text.write_text("not sqlite")
    assert main(["bench", "report", str(text)]) == 2
    assert "not a bioik results DB" in capsys.readouterr().err


def test_report_opens_read_only_and_empty_file_is_not_a_db(ur5, tmp_path):
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    with pytest.raises(BenchError, match="not a bioik results DB"):
        ResultStore(empty)
    assert empty.stat().st_size == 0
    with ResultStore(tmp_path / "r.db", create=True) as store:
        _run(store, ur5)
    with ResultStore(tmp_path / "r.db") as store, pytest.raises(sqlite3.OperationalError, match="readonly"):
        store.conn.execute("DELETE FROM results")


def test_cli_run_writes_db_and_refuses_a_foreign_file(tmp_path, capsys):
    db = tmp_path / "r.db"
    argv = ["bench", "run", "--robot", "ur5", "--test", "fkik", "--solver", "lm", "--targets", "3", "--seed", "1", "--db"]
    assert main([*argv, str(db)]) == 0
    assert "| lm | 3/3 |" in capsys.readouterr().out
    assert main([*argv, str(db)]) == 0  # the same experiment again: nothing new to solve
    assert [r[1] for r in _db_rows(db)] == [0, 1, 2]
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    assert main([*argv, str(text)]) == 2
    assert "not a bioik results DB" in capsys.readouterr().err and text.read_text() == "hello\n"


def test_scale_test_solves_and_checks_at_its_looser_tolerance(tmp_path):
    """`scale` runs at [S 5.5.5]'s 1e-3 m / 1e-2 rad: the solver is asked for that and the
    runner accepts exactly the answers within it."""
    snake = bioik.robots.snake(30)
    asked = []

    def spy(robot, goals, **kw):
        if "position_tolerance" in kw:  # the timed solves (the warm-up only compiles)
            asked.append((kw["position_tolerance"], kw["rotation_tolerance"]))
        return bioik.solve(robot, goals, **kw)

    with ResultStore(tmp_path / "s.db", create=True) as store:
        s = run_experiment(store, snake, "snake30", "scale", "lm", 4, 1.0, seed=2, solve=spy)
        rows = store.results(s.experiment)
    assert asked == [(1e-3, 1e-2)] * 4 and s.solved == 4
    assert all(r.solved and r.position_error <= 1e-3 and r.rotation_error <= 1e-2 for r in rows)
    assert max(r.position_error for r in rows) > 1e-5  # looser than fkik's 1e-5: the loose tolerance was used


def test_free_space_benchmark_runs_without_a_collision_library(tmp_path):
    """The README's first benchmark needs no coal: with its import blocked, a `fkik` run
    writes its rows and the exact-check modules stay unimported."""
    import subprocess
    import sys

    script = f"""
import sys
sys.modules['coal'] = None  # import coal now raises ImportError, as where it is not installed
from bioik.cli import main
code = main(['bench', 'run', '--robot', 'ur5', '--test', 'fkik', '--solver', 'lm', '--targets', '3',
             '--db', {str(tmp_path / 'free.db')!r}])
assert code == 0, code
loaded = sorted(m for m in sys.modules if m.startswith(('bioik.collision.checker', 'bioik.collision._coal', 'bioik.bench.scenes')))
assert not loaded, loaded
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "| lm | 3/3 |" in out.stdout
