"""bioik.bench seed modes, the track and scale tests, experiment files (TOML), Ctrl-C in the CLI, old DBs."""

from __future__ import annotations

import json
import re
import sqlite3

import numpy as np
import pytest

import bioik
from bioik.bench import BenchError, ResultStore, generate, runner
from bioik.bench.report import joint_steps, markdown, summarize
from bioik.bench.runner import run_experiment
from bioik.robots import load_robot
from bioik.cli import main

N = 5
TIMEOUT = 0.005


@pytest.fixture(scope="module")
def ur5() -> bioik.Robot:
    return bioik.load_robot("ur5")


class Recorder:
    """A stub `solve`: records the seed of every call on a target pose and returns a
    distinct in-limits q per call (so a warm start can be traced), or raises
    KeyboardInterrupt (a simulated Ctrl-C) at the call for `stop_at`."""

    def __init__(self, targets, stop_at: int | None = None):
        self.poses = [T for T in targets.poses]
        self.stop_at = stop_at
        self.seeds: dict[int, np.ndarray | None] = {}
        self.returned: dict[int, np.ndarray] = {}

    def __call__(self, robot, goals, seed=None, **kw):
        i = next((k for k, T in enumerate(self.poses) if np.array_equal(T, goals[0].pose)), None)
        if i is not None and i == self.stop_at:
            raise KeyboardInterrupt
        q = robot.center() + 0.01 * (1 + (i or 0))
        if i is not None:
            self.seeds[i] = None if seed is None else np.array(seed, dtype=float)
            self.returned[i] = q
        return bioik.Result(q=q, success=True, cost=0.0, goal_errors=np.zeros((1, 2)), time=0.0, iterations=1)


def _run(store, robot, solve, mode, test="fkik", **kw):
    return run_experiment(store, robot, "ur5", test, "lm", N, TIMEOUT, seed=7, solve=solve, seed_mode=mode, **kw)


def test_random_mode_uses_the_stored_seeds(ur5, tmp_path):
    targets = generate(ur5, "fkik", N, 7)
    rec = Recorder(targets)
    with ResultStore(tmp_path / "r.db", create=True) as store:
        _run(store, ur5, rec, None)  # the default for fkik
        (exp,) = store.experiments()
    assert exp.seed_mode == "random" and exp.seed_config is None
    for i in range(N):
        np.testing.assert_array_equal(rec.seeds[i], targets.seeds[i])


def test_warm_mode_seeds_each_target_with_the_previous_solution(ur5, tmp_path):
    targets = generate(ur5, "fkik", N, 7)
    rec = Recorder(targets)
    with ResultStore(tmp_path / "r.db", create=True) as store:
        _run(store, ur5, rec, "warm")
        (exp,) = store.experiments()
        rows = store.results(exp.id)
    assert exp.seed_mode == "warm"
    np.testing.assert_array_equal(rec.seeds[0], targets.seeds[0])
    for i in range(1, N):
        np.testing.assert_array_equal(rec.seeds[i], rec.returned[i - 1])
        np.testing.assert_array_equal(rec.seeds[i], rows[i - 1].solution)


def test_fixed_mode_uses_one_configuration_for_every_target(ur5, tmp_path):
    targets = generate(ur5, "fkik", N, 7)
    config = [0.1, -0.2, 0.3, -0.4, 0.5, -0.6]
    with ResultStore(tmp_path / "r.db", create=True) as store:
        centre, given = Recorder(targets), Recorder(targets)
        _run(store, ur5, centre, "fixed")
        _run(store, ur5, given, "fixed", seed_config=config)
        a, b = store.experiments()
        stored = store.targets(b.id).seeds
        with pytest.raises(ValueError, match="must have 6 values"):
            _run(store, ur5, given, "fixed", seed_config=[0.0, 0.0])
        with pytest.raises(ValueError, match="only used with seed mode 'fixed'"):
            _run(store, ur5, given, "random", seed_config=config)
    for i in range(N):
        np.testing.assert_array_equal(centre.seeds[i], ur5.center())
        np.testing.assert_array_equal(given.seeds[i], config)
    np.testing.assert_array_equal(stored, np.tile(config, (N, 1)))
    assert a.seed_config == ur5.center().tolist() and b.seed_config == config


def test_none_mode_passes_seed_none(ur5, tmp_path):
    rec = Recorder(generate(ur5, "fkik", N, 7))
    with ResultStore(tmp_path / "r.db", create=True) as store:
        s = _run(store, ur5, rec, "none")
    assert s.ran == N and rec.seeds == {i: None for i in range(N)}


def test_seed_mode_is_part_of_the_experiment_identity(ur5, tmp_path):
    targets = generate(ur5, "fkik", N, 7)
    with ResultStore(tmp_path / "r.db", create=True) as store:
        runs = [_run(store, ur5, Recorder(targets), mode) for mode in ("random", "warm", "none", "fixed", "random", "warm")]
        exps = store.experiments()
        assert [e.seed_mode for e in exps] == ["random", "warm", "none", "fixed"]
    assert [r.ran for r in runs] == [N, N, N, N, 0, 0]  # the repeats resume their own experiment: nothing left
    assert [r.experiment for r in runs[4:]] == [runs[0].experiment, runs[1].experiment]
    with pytest.raises(ValueError, match="unknown seed mode 'hot'"), ResultStore(tmp_path / "r.db", create=True) as store:
        _run(store, ur5, Recorder(targets), "hot")


def test_resumed_warm_run_continues_from_the_last_stored_solution(ur5, tmp_path):
    targets = generate(ur5, "fkik", N, 7)
    with ResultStore(tmp_path / "r.db", create=True) as store:
        first = _run(store, ur5, Recorder(targets, stop_at=3), "warm")
        (exp,) = store.experiments()
        stored = store.results(exp.id)
    assert first.interrupted and first.ran == 3 and len(stored) == 3
    rec = Recorder(targets)
    with ResultStore(tmp_path / "r.db", create=True) as store:
        second = _run(store, ur5, rec, "warm")
        assert len(store.experiments()) == 1
    assert (second.skipped, second.ran) == (3, N - 3)
    assert sorted(rec.seeds) == [3, 4]
    np.testing.assert_array_equal(rec.seeds[3], stored[2].solution)  # from the DB, not from this run
    np.testing.assert_array_equal(rec.seeds[4], rec.returned[3])


def test_track_targets_follow_a_circle_then_a_figure_eight(ur5):
    n = 24
    t = generate(ur5, "track", n, 3)
    np.testing.assert_array_equal(t.poses, generate(ur5, "track", n, 3).poses)
    T0 = ur5.link_pose(ur5.center(), t.tip)
    assert t.witnesses is None and t.poses.shape == (n, 4, 4)
    np.testing.assert_array_equal(t.seeds[0], ur5.center())
    np.testing.assert_allclose(t.poses[:, :3, :3], np.broadcast_to(T0[:3, :3], (n, 3, 3)))  # fixed orientation
    p = t.poses[:, :3, 3]
    np.testing.assert_allclose(p[0], T0[:3, 3], atol=1e-12)  # starts at the tip at the centre configuration
    np.testing.assert_allclose(p[n // 2], T0[:3, 3], atol=1e-12)  # so does the figure eight
    circle, eight = p[: n // 2], p[n // 2:]
    c = circle.mean(axis=0)  # evenly spaced points on a circle: their mean is its centre
    r = np.linalg.norm(circle - c, axis=1)
    np.testing.assert_allclose(r, r[0], rtol=1e-9)
    spread = np.ptp(ur5.fk(ur5.random_configuration(np.random.default_rng(0), 4000), links=[t.tip])[:, 0, :3, 3], axis=0).max()
    assert 0.08 * spread < r[0] < 0.12 * spread
    normal = np.linalg.svd(p - c)[2][2]
    np.testing.assert_allclose((p - c) @ normal, 0.0, atol=1e-9)  # all in one plane
    u = (c - p[0]) / r[0]
    v = np.cross(normal, u)
    x, y = (eight - c) @ u, (eight - c) @ v
    np.testing.assert_allclose((x**2 + y**2) ** 2, r[0] ** 2 * (x**2 - y**2), atol=1e-12)  # lemniscate of Bernoulli
    assert np.ptp(y) > 0.5 * r[0] and np.ptp(x) > 1.9 * r[0]  # a real figure eight, not a line


def test_track_report_shows_position_errors_and_joint_steps(ur5, tmp_path, capsys):
    db = tmp_path / "r.db"
    with ResultStore(db, create=True) as store:
        s = run_experiment(store, ur5, "ur5", "track", "lm", 6, TIMEOUT, seed=1)
        (exp,) = store.experiments()
        rows = store.results(exp.id)
        summary = summarize(store, exp)
    assert exp.seed_mode == "warm" and s.ran == 6  # track defaults to warm starts
    q = np.array([r.solution for r in rows])
    steps = np.linalg.norm(np.diff(q, axis=0), axis=1)
    np.testing.assert_allclose(joint_steps(rows), steps)
    assert summary.mean_step == pytest.approx(steps.mean()) and summary.max_step == pytest.approx(steps.max())
    assert summary.max_position_error == pytest.approx(max(r.position_error for r in rows))
    assert main(["bench", "report", str(db)]) == 0
    out = capsys.readouterr().out
    assert "| max pos err m | mean step rad | max step rad |" in out and "seeds warm" in out
    assert f"| {summary.max_position_error:.3g} | {summary.mean_step:.4g} | {summary.max_step:.4g} |" in out
    assert joint_steps([rows[0], rows[2], rows[3]]).tolist() == pytest.approx([steps[2]])  # only consecutive targets


def test_scale_runs_fkik_on_the_snakes(tmp_path, capsys):
    db = tmp_path / "r.db"
    argv = ["bench", "run", "--test", "scale", "--solver", "lm", "--targets", "1", "--timeout", "0.002", "--db", str(db)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    with ResultStore(db) as store:
        exps = store.experiments()
        assert [(e.robot, e.test) for e in exps] == [("snake30", "scale"), ("snake90", "scale"), ("snake180", "scale")]
        assert [len(store.results(e.id)[0].solution) for e in exps] == [30, 90, 180]
    assert "### snake180 (tip tip) · scale" in out
    np.testing.assert_array_equal(generate(load_robot("snake30"), "scale", 3, 2).poses, generate(load_robot("snake30"), "fkik", 3, 2).poses)
    assert main([*argv[:2], "--robot", "ur5", *argv[2:]]) == 2
    assert "drop --robot" in capsys.readouterr().err


def test_snake_names_work_as_robots_for_every_test(tmp_path, capsys):
    assert load_robot("snake12").dof == 12
    db = tmp_path / "r.db"
    assert main(["bench", "run", "--robot", "snake6", "--test", "grid", "--solver", "lm", "--targets", "2", "--timeout", "0.002",
                 "--seed-mode", "fixed", "--db", str(db)]) == 0
    assert "### snake6 (tip tip) · grid · timeout 2 ms · 2 targets · seed 0 · seeds fixed 0 0 0 0 0 0" in capsys.readouterr().out
    with pytest.raises(ValueError, match="snake needs ≥ 1 joint"):
        load_robot("snake0")


def _toml(tmp_path, text: str):
    path = tmp_path / "exp.toml"
    path.write_text(text)
    return path


def test_toml_experiment_runs_end_to_end(tmp_path, capsys):
    path = _toml(tmp_path, """
robots = ["ur5"]
tests = ["fkik", "track"]
solvers = ["lm", "kdl"]
targets = 2
timeout = 0.002
seed = 4
db = "from_file.db"

[params]
max_iterations = 50

[params.lm]
damping = 0.2
""")
    assert main(["bench", "run", str(path)]) == 0
    assert "### ur5 (tip tool0) · track" in capsys.readouterr().out
    with ResultStore(tmp_path / "from_file.db") as store:  # relative to the file's directory
        exps = store.experiments()
        assert all(len(store.results(e.id)) == 2 for e in exps)
    assert [(e.test, e.solver, e.params, e.seed_mode, e.seed, e.n_targets, e.timeout) for e in exps] == [
        ("fkik", "lm", {"max_iterations": 50, "damping": 0.2}, "random", 4, 2, 0.002),
        ("fkik", "kdl", {"max_iterations": 50}, "random", 4, 2, 0.002),
        ("track", "lm", {"max_iterations": 50, "damping": 0.2}, "warm", 4, 2, 0.002),
        ("track", "kdl", {"max_iterations": 50}, "warm", 4, 2, 0.002),
    ]
    other = tmp_path / "other.db"
    assert main(["bench", "run", str(path), "--db", str(other)]) == 0  # --db overrides the file's
    with ResultStore(other) as store:
        assert len(store.experiments()) == 4
    assert main(["bench", "run", str(path), "--targets", "3"]) == 2
    assert "only --db may be given" in capsys.readouterr().err


@pytest.mark.parametrize("text, message", [
    ("robots = [\"ur5\"\ntests = [\"fkik\"]\n", "not valid TOML"),
    ("robots = [\"ur5\"]\ntests = [\"fkik\"]\ndb = \"r.db\"\nrobot = \"panda\"\n", "unknown key 'robot'"),
    ("robots = [\"ur5\"]\ntests = [\"fkik\"]\ndb = \"r.db\"\ntargets = \"ten\"\n", "targets must be an integer"),
    ("robots = [\"ur5\"]\ntests = [\"fkik\"]\ndb = \"r.db\"\nsolvers = [\"lm\"]\n[params.kdl]\nx = 1\n", r"\[params.kdl\] is not one of"),
    ("robots = [\"ur5\"]\ntests = [\"fkik\"]\ndb = \"r.db\"\nseed_mode = \"fixed\"\nseed_config = [1, 2]\n", "must have 6 values"),
    ("robots = [\"ur5\"]\ntests = [\"fkik\"]\n", "db .* is required"),
])
def test_bad_toml_is_one_error_line_naming_the_file_and_writes_nothing(tmp_path, capsys, text, message):
    path = _toml(tmp_path, text)
    assert main(["bench", "run", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"bioik bench: error: {path}: ")
    assert re.search(message, err[0])
    assert not (tmp_path / "r.db").exists()


def test_ctrl_c_in_cli_keeps_rows_and_says_how_to_resume(tmp_path, capsys, monkeypatch):
    db = tmp_path / "r.db"
    argv = ["bench", "run", "--robot", "ur5", "--test", "fkik", "--solver", "lm", "--targets", "4", "--seed", "2", "--db", str(db)]
    real = runner.run_experiment

    def interrupted(*args, **kw):
        kw["solve"] = Recorder(kw["targets"], stop_at=2)
        return real(*args, **kw)

    monkeypatch.setattr(runner, "run_experiment", interrupted)
    assert main(argv) == 130
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and "stopped after 2/4 targets" in err[0] and "re-run the same command to resume" in err[0]
    assert captured.out == ""
    with sqlite3.connect(db) as c:
        assert [r[0] for r in c.execute("SELECT target_index FROM results ORDER BY target_index")] == [0, 1]
    monkeypatch.setattr(runner, "run_experiment", real)
    assert main(argv) == 0
    assert "| lm | 4/4 |" in capsys.readouterr().out


OLD_EXPERIMENTS = {
    1: """CREATE TABLE experiments (
    id INTEGER PRIMARY KEY,
    robot TEXT NOT NULL, test TEXT NOT NULL, solver TEXT NOT NULL, params TEXT NOT NULL,
    timeout REAL NOT NULL, n_targets INTEGER NOT NULL, seed INTEGER NOT NULL,
    created TEXT NOT NULL, environment TEXT NOT NULL,
    UNIQUE (robot, test, solver, params, timeout, n_targets, seed)
)""",
    2: """CREATE TABLE experiments (
    id INTEGER PRIMARY KEY,
    robot TEXT NOT NULL, test TEXT NOT NULL, solver TEXT NOT NULL, params TEXT NOT NULL,
    timeout REAL NOT NULL, n_targets INTEGER NOT NULL, seed INTEGER NOT NULL,
    created TEXT NOT NULL, environment TEXT NOT NULL,
    seed_mode TEXT NOT NULL DEFAULT 'random', seed_config TEXT NOT NULL DEFAULT '',
    UNIQUE (robot, test, solver, params, timeout, n_targets, seed, seed_mode, seed_config)
)""",
    3: """CREATE TABLE experiments (
    id INTEGER PRIMARY KEY,
    robot TEXT NOT NULL, test TEXT NOT NULL, solver TEXT NOT NULL, params TEXT NOT NULL,
    timeout REAL NOT NULL, n_targets INTEGER NOT NULL, seed INTEGER NOT NULL,
    created TEXT NOT NULL, environment TEXT NOT NULL,
    seed_mode TEXT NOT NULL DEFAULT 'random', seed_config TEXT NOT NULL DEFAULT '',
    robot_hash TEXT NOT NULL DEFAULT '', tip TEXT NOT NULL DEFAULT '',
    UNIQUE (robot, robot_hash, tip, test, solver, params, timeout, n_targets, seed, seed_mode, seed_config)
)""",
}


def _make_old(path, ur5, version: int) -> None:
    """A results DB as written by format version 1 (no seed-mode columns) or 2 (no robot hash or tip)."""
    with ResultStore(path, create=True) as store:
        _run(store, ur5, Recorder(generate(ur5, "fkik", N, 7)), "random")
    columns = "id, robot, test, solver, params, timeout, n_targets, seed, created, environment" + (", seed_mode, seed_config" if version == 2 else "")
    with sqlite3.connect(path) as c:
        c.execute("ALTER TABLE experiments RENAME TO e2")
        c.execute(OLD_EXPERIMENTS[version])
        c.execute(f"INSERT INTO experiments SELECT {columns} FROM e2")
        c.execute("DROP TABLE e2")
        c.execute("UPDATE meta SET value=? WHERE key='version'", (str(version),))


@pytest.mark.parametrize("version", [1, 2])
def test_old_db_is_read_as_is_and_upgraded_when_written_but_its_robots_are_not_resumed(ur5, tmp_path, capsys, version):
    db = tmp_path / "old.db"
    _make_old(db, ur5, version)
    with ResultStore(db) as store:  # read-only: readable as it is, the tip from the targets rows
        (exp,) = store.experiments()
        assert (exp.seed_mode, exp.tip, exp.robot_hash) == ("random", "tool0", "") and len(store.results(exp.id)) == N
        assert "### ur5 (tip tool0) · fkik · timeout 5 ms · 5 targets · seed 7 · seeds random" in markdown(store)
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT value FROM meta WHERE key='version'").fetchone() == (str(version),)
    argv = ["bench", "run", "--robot", "ur5", "--test", "fkik", "--solver", "lm", "--targets", str(N), "--seed", "7", "--db", str(db)]
    assert main(argv) == 2  # refused before anything is written: the file stays at its version
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "robot 'ur5' (experiment 1, fkik/lm) was stored before robot content was recorded" in err[0]
    assert err[0].endswith("its robot content is unknown and new results could mix two robots; use a new --db")
    targets = generate(ur5, "fkik", N, 7)
    with ResultStore(db, create=True) as store:  # upgraded in place
        with pytest.raises(BenchError, match="robot content is unknown"):
            _run(store, ur5, Recorder(targets), "random")
        other = run_experiment(store, ur5, "ur5-urdf", "fkik", "lm", N, TIMEOUT, seed=7, solve=Recorder(targets))
        assert [(e.robot, e.tip, e.robot_hash, e.seed_mode) for e in store.experiments()] == [
            ("ur5", "tool0", "", "random"), ("ur5-urdf", "tool0", ur5.fingerprint, "random")]
        assert len(store.results(exp.id)) == N
    assert other.ran == N
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT value FROM meta WHERE key='version'").fetchone() == ("5",)
        assert json.loads(c.execute("SELECT environment FROM experiments WHERE id=?", (exp.id,)).fetchone()[0]) == exp.environment


def test_a_version_3_db_is_upgraded_and_its_experiments_resume_without_callback(ur5, tmp_path):
    """Format 3 had no callback column: its experiments ran without one, and resume as such."""
    db = tmp_path / "v3.db"
    targets = generate(ur5, "fkik", N, 7)
    with ResultStore(db, create=True) as store:
        _run(store, ur5, Recorder(targets, stop_at=3), "random", callback=False)
    with sqlite3.connect(db) as c:
        c.execute("ALTER TABLE experiments RENAME TO e4")
        c.execute(OLD_EXPERIMENTS[3])
        c.execute("INSERT INTO experiments SELECT id, robot, test, solver, params, timeout, n_targets, seed, created, environment,"
                  " seed_mode, seed_config, robot_hash, tip FROM e4")
        c.execute("DROP TABLE e4")
        c.execute("UPDATE meta SET value='3' WHERE key='version'")
    with ResultStore(db, create=True) as store:
        resumed = _run(store, ur5, Recorder(targets), "random", callback=False)
        (exp,) = store.experiments()
    assert (resumed.skipped, resumed.ran, exp.callback) == (3, 2, False)
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT value FROM meta WHERE key='version'").fetchone() == ("5",)

