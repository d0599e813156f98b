"""The fkik test on several tips (one pose per tip from the same configuration, one query with a
goal on every tip) and with position goals (`fkik/position`)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import bioik
from bioik.bench import ResultStore, generate
from bioik.bench.report import summarize
from bioik.bench.runner import check, run_experiment, target_goals
from bioik.bench.targets import FKIK_POSITION, benchmark_tip, check_test, load_bench_robot, tips_of
from bioik.cli import main

TIPS = ["left_tool0", "right_tool0"]


@pytest.fixture(scope="module")
def dual() -> bioik.Robot:
    return bioik.load_robot("dual_ur5")


def test_several_tips_pose_every_tip_from_one_configuration(dual):
    tip = benchmark_tip(dual, TIPS)
    assert tip == "left_tool0,right_tool0" and tips_of(tip) == TIPS
    targets = generate(dual, "fkik", 4, 0, tip)
    assert targets.tip == tip and targets.poses.shape == (4, 2, 4, 4)
    for q, poses in zip(targets.witnesses, targets.poses, strict=True):
        assert np.allclose(poses[0], dual.link_pose(q, "left_tool0")) and np.allclose(poses[1], dual.link_pose(q, "right_tool0"))
    assert np.array_equal(generate(dual, FKIK_POSITION, 4, 0, tip).poses, targets.poses)  # the same targets, other goals
    single = generate(dual, "fkik", 4, 0, "left_tool0")
    assert single.poses.shape == (4, 4, 4)


def test_the_check_takes_the_worst_tip_and_position_goals_ignore_the_rotation(dual):
    targets = generate(dual, "fkik", 1, 0, benchmark_tip(dual, TIPS))
    T, q = targets.poses[0], targets.witnesses[0]
    assert check(dual, targets.tip, T, q)[0]
    moved = T.copy()
    moved[1, :3, 3] += (0.0, 0.0, 1e-3)  # the second tip 1 mm off
    ok, dp, _ = check(dual, targets.tip, moved, q)
    assert not ok and dp == pytest.approx(1e-3)
    turned = T.copy()
    turned[1, :3, :3] = turned[1, :3, :3] @ np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]])  # the second tip turned 90°
    assert not check(dual, targets.tip, turned, q)[0]
    assert check(dual, targets.tip, turned, q, test=FKIK_POSITION)[0]
    goals = target_goals(targets.tip, T, FKIK_POSITION)
    assert [type(g) for g in goals] == [bioik.PositionGoal] * 2 and [g.link for g in goals] == TIPS


def test_a_run_on_two_tips_stores_solved_rows_and_resumes_from_the_stored_targets(dual, tmp_path):
    tip = benchmark_tip(dual, TIPS)
    with ResultStore(tmp_path / "r.db", create=True) as store:
        run = run_experiment(store, dual, "dual_ur5", "fkik", "lm", 6, 0.05, 0, tip=tip)
        assert run.ran == 6 and run.solved >= 5
        (exp,) = store.experiments()
        assert exp.tip == tip and store.targets(exp.id).poses.shape == (6, 2, 4, 4)
        again = run_experiment(store, dual, "dual_ur5", "fkik", "lm", 6, 0.05, 0, tip=tip)
        assert again.ran == 0 and again.skipped == 6
        assert summarize(store, exp).success == pytest.approx(100.0 * run.solved / 6)


def test_cli_runs_several_tips_and_position_goals(tmp_path, capsys):
    db = tmp_path / "r.db"
    args = ["bench", "run", "--robot", "dual_ur5", "--tip", TIPS[0], "--tip", TIPS[1], "--test", "fkik", "--solver", "lm",
            "--targets", "3", "--timeout", "0.05", "--db", str(db)]
    assert main(args) == 0 and main([*args, "--goals", "position"]) == 0
    out = capsys.readouterr().out
    assert "dual_ur5 (tip left_tool0,right_tool0) · fkik ·" in out and "· fkik/position ·" in out
    assert check_test(FKIK_POSITION) == FKIK_POSITION


@pytest.mark.parametrize("args, message", [
    (["--tip", TIPS[0], "--tip", TIPS[1], "--test", "grid"], "several tips .* go with the fkik tests only"),
    (["--tip", TIPS[0], "--tip", TIPS[0], "--test", "fkik"], "must be distinct link names"),
    (["--tip", TIPS[0], "--test", "grid", "--goals", "position"], "--goals goes with --test fkik"),
])
def test_cli_refuses_several_tips_off_fkik_and_goals_off_fkik(tmp_path, capsys, args, message):
    db = tmp_path / "r.db"
    assert main(["bench", "run", "--robot", "dual_ur5", "--solver", "lm", "--targets", "3", "--db", str(db), *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(message, err[0]) and not db.exists()


def test_a_robot_name_with_a_group_runs_that_group_and_labels_its_rows(tmp_path, capsys):
    assert load_bench_robot("dual_ur5[torso_both_arms]").dof == 13 and load_bench_robot("dual_ur5").dof == 12
    with pytest.raises(bioik.UnknownNameError, match="unknown group 'torso' of robot 'dual_ur5'.*torso_both_arms"):
        load_bench_robot("dual_ur5[torso]")
    db = tmp_path / "r.db"
    args = ["bench", "run", "--tip", TIPS[0], "--tip", TIPS[1], "--test", "fkik", "--solver", "lm", "--targets", "3",
            "--timeout", "0.05", "--db", str(db)]
    assert main([*args, "--robot", "dual_ur5[torso_both_arms]"]) == 0 and main([*args, "--robot", "dual_ur5"]) == 0
    assert "dual_ur5[torso_both_arms] (tip left_tool0,right_tool0) · fkik ·" in capsys.readouterr().out
    with ResultStore(db) as store:
        assert sorted(e.robot for e in store.experiments()) == ["dual_ur5", "dual_ur5[torso_both_arms]"]
    assert main([*args, "--robot", "dual_ur5[nope]"]) == 2
    assert "unknown group 'nope'" in capsys.readouterr().err
