"""peer:mink (bioik.bench.peers.mink): mink's differential IK on a MuJoCo model, in free space
and among obstacles. Skipped without mink (pip install -e '.[peers-clutter]')."""

from __future__ import annotations

import numpy as np
import pytest

import bioik
from bioik import scenes
from bioik.bench import ResultStore, peers
from bioik.bench.runner import run_experiment

pytest.importorskip("mink")
pytest.importorskip("coal")


def test_the_mujoco_model_has_the_exported_scene_and_its_fk_is_bioiks():
    elise = bioik.load_robot("elise_ur10")
    adapter = peers.load_peer("peer:mink", elise, scenes.TIP, scene=scenes.load("HydrogenTankSmall").scene)
    names = [adapter.model.geom(k).name for k in range(adapter.model.ngeom)]
    assert sum(n.startswith("tank_") for n in names) > 10  # the tank's convex pieces
    assert {"pedestal_0", "floor_0", "endoscope_link_1_0"} <= set(names)
    pairs = {frozenset((names[a].rsplit("_", 1)[0], names[b].rsplit("_", 1)[0])) for a, b in adapter.pairs}
    assert frozenset(("wrist_2_link", "endoscope_mount")) not in pairs and frozenset(("endoscope_link_3", "tank")) not in pairs
    assert frozenset(("endoscope_link_2", "tank")) in pairs
    assert any("mink leaves out" in n for n in adapter.notes)
    q = elise.random_configuration(np.random.default_rng(0))
    np.testing.assert_allclose(adapter._fk(q[adapter.index]), elise.link_pose(q, scenes.TIP), atol=1e-9)


def test_free_space_on_ur5_and_claims_stored(tmp_path):
    ur5 = bioik.load_robot("ur5")
    with ResultStore(tmp_path / "r.db", create=True) as store:
        s = run_experiment(store, ur5, "ur5", "fkik", "peer:mink", 3, 0.3, seed=3)
        rows = store.results(store.experiments()[0].id)
    assert s.solved >= 2 and all(r.claimed is not None for r in rows)
    assert all(r.claimed for r in rows if r.solved)
