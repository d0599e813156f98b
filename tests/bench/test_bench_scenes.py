"""The EBIKE scenarios as benchmark problems (bioik.bench.scenes): the tip-clearance rule,
the acceptance check, the witness search, and the stored target files."""

import numpy as np
import pytest

import bioik
from bioik import scenes
from bioik.bench import ResultStore, generate
from bioik.bench.runner import run_experiment
from bioik.bench.scenes import SceneCheck, TipClearance, make_targets, save_targets
from bioik.cli import main
from bioik.scenes import ebike

ROBOT = bioik.load_robot(scenes.ROBOT)


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("BIOIK_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "bench-scenes-cache"))


def _pointing_down(x, y, z):
    """A tool pose at (x, y, z) with its z axis pointing down (into a floor below it)."""
    T = np.diag([1.0, -1.0, -1.0, 1.0])
    T[:3, 3] = x, y, z
    return T


def test_the_tip_link_is_clear_in_the_middle_of_a_shelf_floor_not_against_its_back():
    shelf = scenes.load("Shelf")
    clear = TipClearance(ROBOT, shelf)
    floor_z = ebike.FLOOR_Z + ebike.BOARD  # the lowest compartment's floor
    back_x = ebike.SHELF_FRONT + ebike.SHELF_DEPTH
    assert clear(_pointing_down(back_x - 0.15, 0.0, floor_z))
    # 2 mm from the back panel: the 8 mm rod standing on the floor goes into it
    assert not clear(_pointing_down(back_x - 0.002, 0.0, floor_z))
    # pushed 5 mm into the floor: more than the allowed touch
    assert not clear(_pointing_down(back_x - 0.15, 0.0, floor_z - 0.005))


def test_scene_check_wants_the_pose_and_no_collision():
    shelf = scenes.load("Shelf")
    check = SceneCheck.of(ROBOT, shelf)
    q = scenes.READY
    T = ROBOT.link_pose(q, scenes.TIP)
    assert check.ok(T, q)
    off = T.copy()
    off[0, 3] += 2e-5
    assert not check.ok(off, q)
    folded = q.copy()
    folded[1] = 0.3  # the shoulder down: the arm lies in the shelf
    assert not check.ok(ROBOT.link_pose(folded, scenes.TIP), folded)


def test_witness_search_is_deterministic_and_its_witnesses_pass_the_check(tmp_path):
    a = make_targets("Shelf", 4, progress=False)
    b = make_targets("Shelf", 4, progress=False)
    assert len(a) == 4 and a.info["kept"] == 4 and a.info["tried"] == 4 + sum(a.info["dropped"].values())
    assert np.array_equal(a.poses, b.poses) and np.array_equal(a.witnesses, b.witnesses)
    check = SceneCheck.of(ROBOT, scenes.load("Shelf"))
    assert all(check.ok(T, q) for T, q in zip(a.poses, a.witnesses))
    path = save_targets(a, tmp_path / "Shelf.npz")
    with np.load(path) as f:
        assert np.array_equal(f["poses"], a.poses) and np.array_equal(f["witnesses"], a.witnesses)


def test_random_targets_are_self_collision_free_configurations():
    t = make_targets("Random", 30, progress=False)
    assert len(t) == 30 and t.info["dropped"]["self_collision"] == t.info["tried"] - 30
    assert np.allclose(ROBOT.fk(t.witnesses, [scenes.TIP])[:, 0], t.poses)
    check = SceneCheck.of(ROBOT, scenes.load("Random"))
    assert all(check.ok(T, q) for T, q in zip(t.poses, t.witnesses))


@pytest.mark.parametrize("name", scenes.names())
def test_every_stored_target_has_a_witness_that_reaches_it_collision_free(name):
    scenario = scenes.load(name)
    stored = scenario.targets()
    assert len(stored) == 1000 and stored.info["kept"] == 1000 and stored.info["scenario"] == name
    assert stored.witnesses.shape == (1000, ROBOT.dof)
    check, clear = SceneCheck.of(ROBOT, scenario), TipClearance(ROBOT, scenario)
    bad = [k for k, (T, q) in enumerate(zip(stored.poses, stored.witnesses)) if not (check.ok(T, q) and clear(T))]
    assert bad == []


def test_scene_test_targets_are_the_stored_ones_with_random_seeds():
    t = generate(ROBOT, "scene:Shelf", 7, 3)
    stored = scenes.load("Shelf").targets()
    assert t.tip == scenes.TIP and np.array_equal(t.poses, stored.poses[:7]) and np.array_equal(t.witnesses, stored.witnesses[:7])
    assert np.array_equal(t.seeds, generate(ROBOT, "scene:Shelf", 7, 3).seeds)
    assert all(ROBOT.within_limits(q) for q in t.seeds)


@pytest.mark.parametrize("test, message", [
    ("scene", "needs its scenario"),
    ("scene:Tank", "unknown scenario 'Tank'"),
])
def test_a_scene_test_names_a_known_scenario(test, message):
    with pytest.raises(ValueError, match=message):
        generate(ROBOT, test, 3, 0)


def test_scene_targets_are_for_elise_ur10_only():
    with pytest.raises(ValueError, match="poses of elise_ur10's endoscope_tip"):
        generate(bioik.load_robot("ur5"), "scene:Table", 3, 0)
    with pytest.raises(ValueError, match="has 1000 stored targets; asked for 1001"):
        generate(ROBOT, "scene:Table", 1001, 0)


@pytest.mark.parametrize("solver", ["lm", "kdl"])
def test_scene_runs_store_collision_free_answers_and_callback_calls(tmp_path, solver):
    """lm takes the collision costs, kdl only the exact check (rejection sampling): both
    store per target the time, the verdict and the callback calls, and every stored
    success passes the exact check."""
    with ResultStore(tmp_path / "r.db", create=True) as store:
        s = run_experiment(store, ROBOT, "elise_ur10", "scene:TableObjects", solver, 6, 0.5, params={"max_iterations": 20_000})
        rows = store.results(s.experiment)
    assert len(rows) == 6 and s.solved == sum(r.solved for r in rows) >= 4
    check = SceneCheck.of(ROBOT, scenes.load("TableObjects"))
    poses = scenes.load("TableObjects").targets().poses
    for r in rows:
        assert r.solved == check.ok(poses[r.target_index], np.array(r.solution))
        assert (r.callback_calls >= 1) if r.solved else True


def test_scene_runs_end_to_end_through_the_cli(tmp_path, capsys):
    db = tmp_path / "scene.db"
    argv = ["bench", "run", "--robot", "elise_ur10", "--test", "scene", "--scene", "Table", "--solver", "lm",
            "--targets", "20", "--timeout", "1.0", "--param", "max_iterations=20000", "--db", str(db)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "scene:Table" in out and "| lm (max_iterations=20000) | 20/20 |" in out
    assert main(["bench", "plot", str(db), "--out", str(tmp_path / "plots")]) == 0
    assert list((tmp_path / "plots").glob("*.png"))


@pytest.mark.parametrize("args", [
    ["--test", "scene"],
    ["--test", "fkik", "--scene", "Table"],
    ["--test", "scene", "--scene", "Tank"],
])
def test_cli_scene_mistakes_are_one_error_line(tmp_path, capsys, args):
    db = tmp_path / "r.db"
    assert main(["bench", "run", "--robot", "elise_ur10", "--targets", "3", "--db", str(db), *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bioik bench: error:")
    assert not db.exists()
