"""bioik bench tune: Optuna study in SQLite [E 5.2, 8.16], Table 8.10 space, resume, score, errors."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

optuna = pytest.importorskip("optuna")

import bioik
from bioik.bench import ResultStore
from bioik.bench.tune import TABLE_8_10, Range, default_range, parse_range, search_space, tune
from bioik.cli import main

TIMEOUT = 0.002
#: Small ranges (the Table 8.10 maxima make single steps take long): the test checks the
#: bookkeeping, not what the search finds.
SMALL = ["population_size=1:3", "child_count=0:8", "threads=1:2", "species_count=1:2",
         "memetic_evolution_gens=1:4", "memetic_opt_gens=1:4"]


def _argv(db, trials: int, *extra: str) -> list[str]:
    space = [a for s in SMALL for a in ("--space", s)]
    return ["bench", "tune", "--robot", "ur5", "--test", "fkik", "--solver", "bio2_memetic", "--trials", str(trials),
            "--targets", "5", "--timeout", str(TIMEOUT), "--db", str(db), *space, *extra]


def _study(db, name: str = "ur5-fkik-bio2_memetic"):
    return optuna.load_study(study_name=name, storage=f"sqlite:///{db}")


def test_table_8_10_space():
    space = {r.name: r for r in search_space("bio2_memetic")}
    assert list(space)[-1] == "elite_count"  # suggested after population_size, its upper bound
    assert set(space) == {name for name, _, _ in TABLE_8_10}
    assert space["population_size"] == Range("population_size", 1, 20, integer=True)
    assert space["child_count"] == Range("child_count", 0, 100, integer=True)
    assert space["elite_count"].low == 0 and space["elite_count"].high_of == "population_size"
    assert (space["threads"].low, space["threads"].high) == (1, 8)
    assert (space["species_count"].low, space["species_count"].high) == (1, 20)
    assert (space["memetic_evolution_gens"].low, space["memetic_evolution_gens"].high) == (1, 50)
    assert (space["memetic_opt_gens"].low, space["memetic_opt_gens"].high) == (1, 50)
    assert {r.name for r in search_space("bio2_lm")} == set(space)
    # a fixed population size bounds elite_count by its value; --space adds a parameter
    fixed = {r.name: r for r in search_space("bio2_memetic", [parse_range("momentum_mix=0.1:0.5")], {"population_size": 4})}
    assert "population_size" not in fixed and fixed["elite_count"].high == 4 and fixed["elite_count"].high_of is None
    assert fixed["momentum_mix"] == Range("momentum_mix", 0.1, 0.5)
    # other solvers: ranges derived from their defaults
    lm = {r.name: r for r in search_space("lm")}
    assert set(lm) == set(bioik.solvers.registry.SOLVERS["lm"].defaults)
    assert lm["attempt_iterations"] == Range("attempt_iterations", 10, 160, integer=True)
    assert lm["damping"].log and math.isclose(lm["damping"].low, 0.01) and lm["damping"].high == 1.0
    assert default_range("centering_steps", 0) == Range("centering_steps", 0, 10, integer=True)
    assert parse_range("x=1e-4:1e-2:log") == Range("x", 1e-4, 1e-2, log=True)


def test_study_runs_resumes_and_scores(tmp_path, capsys):
    db = tmp_path / "tune.db"
    assert main(_argv(db, 3)) == 0
    out = capsys.readouterr().out
    assert "defaults (trial 0)" in out and "best (trial" in out and "--param population_size=" in out
    study = _study(db)
    trials = study.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    assert len(trials) == 3
    defaults = bioik.solvers.registry.SOLVERS["bio2_memetic"].defaults
    assert trials[0].user_attrs["default"] and trials[0].params == {name: defaults[name] for name, _, _ in TABLE_8_10}

    assert main(_argv(db, 5)) == 0  # resumes up to 5 trials in all, not 3 + 5
    assert main(_argv(db, 4)) == 0  # already has them: runs nothing
    trials = _study(db).get_trials()
    assert len(trials) == 5 and all(t.state == optuna.trial.TrialState.COMPLETE for t in trials)
    assert sum(bool(t.user_attrs.get("default")) for t in trials) == 1

    # each trial's score is [E 8.16] of its per-target results, stored in the same file
    with ResultStore(db) as store:
        experiments = {e.id: e for e in store.experiments()}
        for t in trials:
            e = experiments[t.user_attrs["experiment"]]
            assert (e.robot, e.test, e.solver, e.n_targets, e.timeout) == ("ur5", "fkik", "bio2_memetic", 5, TIMEOUT)
            assert all(e.params[k] == v for k, v in t.params.items())
            rows = store.results(e.id)
            assert [r.target_index for r in rows] == list(range(5))
            expected = sum(r.time_s if r.solved else TIMEOUT for r in rows) / 5
            assert t.value == pytest.approx(expected, rel=1e-12, abs=0)
            assert t.user_attrs["solved"] == sum(r.solved for r in rows)
    assert main(["bench", "report", str(db)]) == 0  # the file is still a results DB

    # another setting cannot resume this study; another --study can
    assert main(_argv(db, 5, "--targets", "4")) == 2
    assert "give the same settings" in capsys.readouterr().err
    assert main(_argv(db, 1, "--study", "other")) == 0
    assert len(_study(db, "other").trials) == 1


def test_interrupt_keeps_finished_trials(tmp_path):
    db = tmp_path / "tune.db"
    calls = {"n": 0}

    def solve(*args, **kw):
        calls["n"] += 1
        if calls["n"] > 15:  # tune's warm-up (5), trial 0 (5 warm-up + 3 targets), then stop inside trial 1
            raise KeyboardInterrupt
        return bioik.solve(*args, **kw)

    space = [parse_range(s) for s in SMALL]
    result = tune(str(db), "ur5", "fkik", "bio2_memetic", 5, n_targets=3, timeout=TIMEOUT, ranges=space, solve=solve,
                  log=lambda line: None)
    assert result.interrupted and result.completed == 1 and result.default_number == 0
    states = [t.state for t in _study(db).get_trials()]
    assert states == [optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.FAIL]
    result = tune(str(db), "ur5", "fkik", "bio2_memetic", 2, n_targets=3, timeout=TIMEOUT, ranges=space, log=lambda line: None)
    assert not result.interrupted and result.completed == 2 and result.ran == 1


@pytest.mark.parametrize(("args", "message"), [
    (["--robot", "nosuchrobot"], "nosuchrobot"),
    (["--test", "nosuchtest"], "unknown test"),
    (["--solver", "nosuchsolver"], "unknown solver"),
    (["--trials", "0"], "trials must be ≥ 1"),
    (["--targets", "0"], "targets must be ≥ 1"),
    (["--space", "nosuchparam=1:2"], "unknown parameter 'nosuchparam'"),
    (["--space", "child_count=5:1"], "LO must be ≤ HI"),
    (["--param", "child_count=4"], "both fixed"),
])
def test_bad_input_is_one_error_line(tmp_path, capsys, args, message):
    db = tmp_path / "tune.db"
    assert main([*_argv(db, 2), *args]) == 2  # a later option wins
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not db.exists()


def test_missing_optuna_names_the_extra(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "optuna", None)
    assert main(_argv(tmp_path / "tune.db", 2)) == 2
    assert "pip install -e '.[tune]'" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["damping=1:" + "9" * 400, "damping=-" + "9" * 400 + ":1", "damping=NaN:1", "damping=1:Infinity"])
def test_a_range_end_that_is_no_finite_float_is_refused(text):
    with pytest.raises(ValueError, match="LO and HI must be numbers"):
        parse_range(text)


def test_a_scene_test_is_tuned_as_bench_run_solves_it(tmp_path):
    """scene:NAME/SET: the stored targets, the collision goal and the goal set's goals, the
    scene's exact check before the callback and on the answer — the runner's own solves."""
    from bioik import scenes
    from bioik.bench.scenes import GoalSetRefused, SceneCheck
    from bioik.goals import CollisionAvoidanceGoal, LineGoal

    db = tmp_path / "tune.db"
    seen = []

    def solve(robot, goals, **kw):
        seen.append(({type(g) for g in goals}, kw.get("scene") is not None, kw.get("callback") is not None))
        return bioik.solve(robot, goals, **kw)

    test = "scene:HydrogenTank/line"
    space = [parse_range(s) for s in SMALL]
    result = tune(str(db), "elise_ur10", test, "bio2_memetic", 2, n_targets=2, timeout=TIMEOUT, ranges=space, solve=solve,
                  log=lambda line: None)
    assert result.completed == 2 and result.study == f"elise_ur10-{test}-bio2_memetic"
    assert all(kinds >= {CollisionAvoidanceGoal, LineGoal} and scene and callback for kinds, scene, callback in seen)
    stored = scenes.load("HydrogenTank").targets()
    check = SceneCheck.of(bioik.load_robot(scenes.ROBOT), scenes.load("HydrogenTank"))
    with ResultStore(db) as store:
        for e in store.experiments():
            assert (e.robot, e.test, e.n_targets, e.timeout) == ("elise_ur10", test, 2, TIMEOUT)
            assert np.array_equal(store.targets(e.id).poses, stored.poses[:2])
            for r in store.results(e.id):
                assert r.solved == check.ok(stored.poses[r.target_index], np.array(r.solution))
    with pytest.raises(GoalSetRefused, match="does not take RCMGoal"):
        tune(str(tmp_path / "kdl.db"), "elise_ur10", "scene:HydrogenTank/rcm", "kdl", 1, n_targets=1, log=lambda line: None)
    assert not (tmp_path / "kdl.db").exists()
