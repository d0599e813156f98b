"""Peer adapters (bioik.bench.peers): other IK libraries through the benchmark's runner and check.

The end-to-end runs need the peer packages (`pip install -e ".[peers]"`) and skip without them;
the chain-URDF, wrong-answer and missing-package tests run everywhere.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import bioik
from bioik.bench import ResultStore, peers
from bioik.bench.runner import run_experiment
from bioik.bench.targets import pose_errors
from bioik.cli import main

N = 5


@pytest.fixture(scope="module")
def ur5() -> bioik.Robot:
    return bioik.load_robot("ur5")


@pytest.mark.parametrize("peer", list(peers.PEERS))
def test_peer_end_to_end_solves_and_answers_are_checked(peer, ur5, tmp_path):
    pytest.importorskip(peers.PEERS[peer].module)
    with ResultStore(tmp_path / "r.db", create=True) as store:
        s = run_experiment(store, ur5, "ur5", "fkik", f"peer:{peer}", N, 0.1, seed=3)
        (exp,) = store.experiments()
        rows = store.results(exp.id)
    assert exp.solver == f"peer:{peer}" and exp.params == {}
    assert s.ran == N and len(rows) == N and s.solved > 0
    tip = ur5.tips[0]
    poses = bioik.bench.generate(ur5, "fkik", N, 3).poses
    for r in rows:  # every stored verdict is bioik's own check of the stored answer
        dp, angle = pose_errors(ur5, tip, poses[r.target_index], np.array(r.solution))
        ok = ur5.within_limits(np.array(r.solution)) and dp <= 1e-5 and angle <= 1e-5
        assert r.solved == ok and r.position_error == pytest.approx(dp)


def test_chain_urdf_keeps_the_kinematics_and_freezes_inactive_joints():
    robot = bioik.load_robot("dual_ur5", group="left_arm").with_frozen({"torso_joint": 0.3})
    text, movable = peers.chain_urdf(robot, "left_tool0")
    assert movable == [j for j in robot.variable_names]  # the left arm's joints, in chain order
    assert "right_" not in text and "<visual" not in text and "<collision" not in text
    chain = bioik.Robot(bioik.model.urdf.parse_urdf(text))
    assert chain.variable_names == movable
    Q = robot.random_configuration(np.random.default_rng(0), 4)
    np.testing.assert_allclose(chain.fk(Q, links=["left_tool0"]), robot.fk(Q, links=["left_tool0"]), atol=1e-12)


class _LyingAdapter(peers.PeerAdapter):
    """A 'peer' that claims success with its start configuration (bioik's FK for the model check)."""

    key, package, module = "liar", "liar", "json"

    def _build(self, text, path):
        pass

    def _fk(self, x):
        q = self.robot.center()
        q[self.index] = x
        return self.robot.link_pose(q, self.tip)

    def _run(self, T, x0, deadline):
        self.iterations = 1
        return x0


def test_wrong_answer_claiming_success_counts_as_failure(ur5, tmp_path):
    adapter = _LyingAdapter(ur5, ur5.tips[0])
    solve = peers.solve_function(adapter)
    pose = ur5.link_pose(ur5.center(), ur5.tips[0])
    assert solve(ur5, [bioik.PoseGoal(ur5.tips[0], pose)], seed=ur5.lower * 0.5, timeout=0.005).success  # it claims success
    with pytest.raises(ValueError, match="takes no solver parameters"):
        solve(ur5, [bioik.PoseGoal(ur5.tips[0], pose)], timeout=0.005, damping=0.1)
    with ResultStore(tmp_path / "r.db", create=True) as store:
        s = run_experiment(store, ur5, "ur5", "fkik", "peer:liar", N, 0.005, seed=3, solve=solve)
        rows = store.results(store.experiments()[0].id)
    assert s.solved == 0 and len(rows) == N and not any(r.solved for r in rows)
    assert all(r.position_error > 1e-5 or r.rotation_error > 1e-5 for r in rows)


def test_missing_package_is_skipped_and_the_run_completes(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "klampt", None)  # `import klampt` now fails
    db = tmp_path / "r.db"
    assert main(["bench", "run", "--robot", "ur5", "--test", "fkik", "--solver", "lm", "--solver", "peer:klampt",
                 "--targets", "3", "--db", str(db)]) == 0
    captured = capsys.readouterr()
    assert "skipping peer:klampt: package klampt is not installed (pip install -e '.[peers]')" in captured.err
    assert "| lm | 3/3 |" in captured.out and "peer:klampt" not in captured.out
    with ResultStore(db) as store:
        assert [e.solver for e in store.experiments()] == ["lm"]
    with ResultStore(tmp_path / "other.db", create=True) as store, pytest.raises(peers.PeerSkipped, match="package klampt is not installed"):
        run_experiment(store, bioik.load_robot("ur5"), "ur5", "fkik", "peer:klampt", 2, 0.005)


def test_peer_names_params_and_tests_are_checked(tmp_path, capsys):
    db = str(tmp_path / "r.db")
    assert main(["bench", "run", "--robot", "ur5", "--test", "fkik", "--solver", "peer:nope", "--db", db]) == 2
    assert "unknown peer 'peer:nope'; known: peer:rtb, peer:klampt, peer:ikpy, peer:pinocchio, peer:drake, peer:mink" in capsys.readouterr().err
    assert main(["bench", "run", "--robot", "ur5", "--test", "fkik", "--solver", "peer:ikpy", "--param", "damping=1", "--db", db]) == 2
    assert "take none" in capsys.readouterr().err
    with pytest.raises(peers.PeerSkipped, match="skipping peer:ikpy on test track: peers run only pose goals on one tip"):
        peers.check_test("peer:ikpy", "track")
    assert not (tmp_path / "r.db").exists()
