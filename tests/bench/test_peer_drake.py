"""peer:drake (bioik.bench.peers.drake): Drake's IK with SNOPT, in free space and among obstacles.

Skipped without drake (pip install -e '.[peers-clutter]').
"""

from __future__ import annotations

import pytest

import bioik
from bioik import scenes
from bioik.bench import ResultStore, peers
from bioik.bench.peers import export
from bioik.bench.runner import run_experiment

pytest.importorskip("pydrake")
pytest.importorskip("coal")


@pytest.fixture(scope="module")
def elise() -> bioik.Robot:
    return bioik.load_robot("elise_ur10")


def _owner(name: str) -> str:
    """The link or obstacle of a geometry named "[model::]owner_k"."""
    return name.rpartition("::")[2].rsplit("_", 1)[0]


def test_collision_filters_leave_the_pairs_bioiks_check_tests(elise):
    scene = scenes.load("Shelf").scene
    adapter = peers.load_peer("peer:drake", elise, scenes.TIP, scene=scene)
    inspector = adapter.diagram.GetSubsystemByName("scene_graph").model_inspector()
    got = {frozenset(_owner(inspector.GetName(g)) for g in pair) for pair in inspector.GetCollisionCandidates()}
    cm = export.collision_model(elise, adapter.bodies, scene)
    wanted = {frozenset(p) for p in (*cm.self_pairs, *cm.scene_pairs)}
    assert got <= wanted
    assert all("base_link" in p for p in wanted - got)  # the welded base: Drake filters it with the world, it never moves
    assert frozenset(("wrist_2_link", "endoscope_mount")) not in got  # they touch by construction
    assert frozenset(("endoscope_link_3", "shelf_back")) not in got  # the tip may touch its targets
    # what Drake leaves out is said beside its results, and nothing else is left out
    assert adapter.notes == ["links welded to the world not checked against obstacles: base_link (no joint moves them;"
                             " bioik's check tests them)"]


def test_scene_answers_are_checked_and_claims_stored(elise, tmp_path):
    with ResultStore(tmp_path / "r.db", create=True) as store:
        s = run_experiment(store, elise, "elise_ur10", "scene:Shelf", "peer:drake", 3, 0.5)
        (exp,) = store.experiments()
        rows = store.results(exp.id)
    assert s.ran == 3 and s.solved >= 1
    assert all(r.claimed is not None for r in rows)
    assert all(r.claimed for r in rows if r.solved)  # a check-accepted answer is one the peer claimed
    assert all(r.time_s < 0.5 + 0.3 for r in rows)  # each SNOPT attempt has the time left as its limit


def test_free_space_on_ur5(tmp_path):
    ur5 = bioik.load_robot("ur5")
    with ResultStore(tmp_path / "r.db", create=True) as store:
        s = run_experiment(store, ur5, "ur5", "fkik", "peer:drake", 3, 0.2, seed=3)
    assert s.solved >= 2
