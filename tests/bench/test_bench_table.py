"""The `table` test (bioik.bench.table): ur5 3 cm above a table with three posts."""

from __future__ import annotations

import numpy as np
import pytest

import bioik
from bioik.bench import ResultStore, generate, peers
from bioik.bench.runner import run_experiment
from bioik.bench.table import TABLE_TOP, table_scene

pytest.importorskip("coal")


@pytest.fixture(scope="module")
def ur5() -> bioik.Robot:
    return bioik.load_robot("ur5")


def test_targets_are_clear_witnessed_and_repeatable(ur5):
    t = generate(ur5, "table", 6, 4)
    again = generate(ur5, "table", 6, 4)
    np.testing.assert_array_equal(t.poses, again.poses)
    checker = bioik.CollisionChecker(ur5, table_scene())
    assert all(checker.is_free(q) for q in t.witnesses)
    np.testing.assert_allclose(ur5.fk(t.witnesses, links=[t.tip])[:, 0], t.poses)
    top = table_scene().obstacles["table"]
    assert top.pose[2, 3] + top.shape.size[2] / 2 == pytest.approx(TABLE_TOP)


def test_free_space_peers_are_refused_and_the_collision_aware_ones_take_it():
    with pytest.raises(peers.PeerSkipped, match="only peer:drake, peer:mink"):
        peers.check_test("peer:rtb", "table")
    peers.check_test("peer:drake", "table")
    peers.check_test("peer:mink", "scene:Shelf")
    with pytest.raises(peers.PeerSkipped):
        peers.check_test("peer:mink", "scene:HydrogenTank/rcm")


def test_drake_on_the_table_is_checked_with_coal(ur5, tmp_path):
    pytest.importorskip("pydrake")
    with ResultStore(tmp_path / "r.db", create=True) as store:
        s = run_experiment(store, ur5, "ur5", "table", "peer:drake", 3, 0.5, seed=1)
        rows = store.results(store.experiments()[0].id)
    checker = bioik.CollisionChecker(ur5, table_scene())
    assert s.solved >= 1 and all(checker.is_free(np.array(r.solution)) for r in rows if r.solved)
