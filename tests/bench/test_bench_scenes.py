"""The EBIKE scenarios as benchmark problems (bioik.bench.scenes): the tip-clearance rule,
the acceptance check, the witness search, the stored target files, and the goal sets."""

import numpy as np
import pytest

import bioik
from bioik import scenes
from bioik.bench import ResultStore, generate
from bioik.bench.runner import run_experiment
from bioik.bench.scenes import RCM_TOLERANCE, GoalSetRefused, SceneCheck, SceneProblem, TipClearance, make_targets, save_targets
from bioik.bench.targets import GOAL_SETS, check_test, goal_set_of, scenario_of, scene_test
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
    ["--test", "scene", "--scene", "Table", "--goal-set", "rcm"],
    ["--test", "scene", "--scene", "HydrogenTank", "--goal-set", "rcm2"],
    ["--test", "fkik", "--goal-set", "rcm"],
])
def test_cli_scene_mistakes_are_one_error_line(tmp_path, capsys, args):
    db = tmp_path / "r.db"
    assert main(["bench", "run", "--robot", "elise_ur10", "--targets", "3", "--db", str(db), *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bioik bench: error:")
    assert not db.exists()


TANK = scenes.load("HydrogenTank")
SHAFT_Z = (0.0, 0.0, 1.0)  # the shaft's axis in its frame: from its base towards the tip


@pytest.mark.parametrize("goal_set, kind, fields", [
    ("rcm", bioik.RCMGoal, {"links": ("endoscope_link_1", "endoscope_link_2"), "trocar": TANK.opening.point,
                            "tolerance": RCM_TOLERANCE}),
    ("rcm_multi", bioik.RCMGoal, {"links": ("endoscope_link_1", "endoscope_link_2", "endoscope_link_3", "endoscope_tip"),
                                  "trocar": TANK.opening.point, "tolerance": RCM_TOLERANCE}),
    ("line", bioik.LineGoal, {"link": "endoscope_link_1", "point": TANK.opening.point, "direction": TANK.opening.axis}),
    ("alignment", bioik.DirectionGoal, {"link": "endoscope_link_1", "direction": TANK.opening.axis, "axis": SHAFT_Z}),
    ("lookat", bioik.LookAtGoal, {"link": "endoscope_link_1", "target": TANK.opening.point, "axis": SHAFT_Z}),
])
def test_each_goal_set_adds_its_goal_around_the_opening(goal_set, kind, fields):
    """Pose goal (added by the runner), collision goal, then the set's one goal, primary,
    weight 1, built from the tank's opening: p = (0.65, 0, −0.43) on the lid, axis −z."""
    assert TANK.opening.point == (0.65, 0.0, -0.43) and TANK.opening.axis == (0.0, 0.0, -1.0)
    problem = SceneProblem.of(ROBOT, f"scene:HydrogenTank/{goal_set}", "lm")
    collision, goal = problem.goals
    assert type(collision) is bioik.CollisionAvoidanceGoal and type(goal) is kind
    assert goal.weight == 1.0 and not goal.secondary
    for name, value in fields.items():
        got = getattr(goal, name)
        assert (got == value) if name in ("link", "links") else np.allclose(got, value), name


def test_the_generic_set_adds_only_the_collision_goal():
    (goal,) = SceneProblem.of(ROBOT, "scene:HydrogenTank", "lm").goals
    assert type(goal) is bioik.CollisionAvoidanceGoal


def test_the_rejection_set_takes_the_collision_goal_away_on_every_scenario():
    """Rejection sampling: the solver searches for the pose alone, the scene's exact check rejects."""
    for name in ("Shelf", "HydrogenTank"):
        problem = SceneProblem.of(ROBOT, f"scene:{name}/rejection", "lm")
        assert problem.goals == [] and problem.scenario.name == name
        callback, extra = problem.solve_arguments(lambda q: True)
        assert extra == {}  # no scene=: bioik.solve would add its collision goal
        witness = problem.scenario.targets().witnesses[0]
        hits = [q for q in ROBOT.random_configuration(np.random.default_rng(0), 50) if not problem.check.checker.is_free(q)]
        assert callback(witness) and hits and not any(callback(q) for q in hits)  # the exact check rejects
    generic = SceneProblem.of(ROBOT, "scene:Shelf", "lm")
    callback, extra = generic.solve_arguments(None)
    assert callback is None and extra["scene"] is generic.scenario.scene


def test_a_solver_without_the_goal_kind_is_refused_a_goal_set():
    """kdl takes pose goals only: it runs the generic test (exact check alone), not a goal set."""
    assert SceneProblem.of(ROBOT, "scene:HydrogenTank", "kdl").goals == []
    with pytest.raises(GoalSetRefused, match="solver 'kdl' does not take RCMGoal, the goals of goal set 'rcm'"):
        SceneProblem.of(ROBOT, "scene:HydrogenTank/rcm", "kdl")


def test_scene_test_names_carry_the_goal_set():
    assert scene_test("HydrogenTank") == "scene:HydrogenTank" and scene_test("HydrogenTank", "lookat") == "scene:HydrogenTank/lookat"
    for test, scenario, goal_set in [("scene:HydrogenTank", "HydrogenTank", "generic"),
                                     ("scene:HydrogenTankSmall/rcm_multi", "HydrogenTankSmall", "rcm_multi"), ("fkik", None, None)]:
        assert (scenario_of(test), goal_set_of(test)) == (scenario, goal_set)
        assert check_test(test) == test
    assert all(check_test(scene_test("HydrogenTank", g)) for g in GOAL_SETS)  # every set is a test on a tank


@pytest.mark.parametrize("test, message", [
    ("scene:Table/rcm", "goal set 'rcm' is built around the scenario's opening; Table has none "
                        r"\(scenarios with one: HydrogenTank, HydrogenTankSmall\)"),
    ("scene:Random/lookat", "Random has none"),
    ("scene:HydrogenTank/generic", "or none for generic"),
    ("scene:HydrogenTank/", "goal set '' of test"),
    ("scene:HydrogenTank/RCM", "names one of rejection, rcm, rcm_multi, line, alignment, lookat"),
])
def test_a_goal_set_needs_a_known_name_and_a_scenario_with_an_opening(test, message):
    with pytest.raises(ValueError, match=message):
        check_test(test)
    with pytest.raises(ValueError, match=message):
        generate(ROBOT, test, 3, 0)


def _met(goal_set: str, q: np.ndarray) -> bool:
    """Whether q meets the goal set's goal (to its tolerance), computed here from the link frames."""
    p, a = np.array(TANK.opening.point), np.array(TANK.opening.axis)
    frames = ROBOT.fk(q, ["endoscope_link_1", "endoscope_link_2", "endoscope_link_3", "endoscope_tip"])
    origins, z = frames[:, :3, 3], frames[0, :3, 2]

    def to_segment(a0, a1):
        s = a1 - a0
        return np.linalg.norm(p - a0 - np.clip((p - a0) @ s / (s @ s), 0.0, 1.0) * s)

    if goal_set == "rcm":
        return to_segment(origins[0], origins[1]) <= RCM_TOLERANCE
    if goal_set == "rcm_multi":
        return min(to_segment(origins[k], origins[k + 1]) for k in range(3)) <= RCM_TOLERANCE
    if goal_set == "line":
        d = origins[0] - p
        return np.linalg.norm(d - (d @ a) * a) <= 1e-5
    if goal_set == "alignment":
        return np.linalg.norm(z - a) <= 1e-5
    return np.linalg.norm((p - origins[0]) / np.linalg.norm(p - origins[0]) - z) <= 1e-5


@pytest.mark.parametrize("goal_set, least", [("rcm", 3), ("rcm_multi", 3), ("line", 0), ("alignment", 0), ("lookat", 3)])
def test_goal_set_runs_store_rows_whose_successes_pass_the_exact_check_and_meet_the_goal(tmp_path, goal_set, least):
    """A few tank targets with lm on an iteration budget and a fixed random seed: every row
    stored, every success collision-free at the pose by the exact check, and its set's goal
    met (the goals are primary: an answer is offered to the callback only once they are).
    The RCM and look-at sets solve them all; the line and the alignment, which hold the
    shaft to the tank's axis, may solve none here (this tank is as wide as it is tall)."""
    test = f"scene:HydrogenTank/{goal_set}"
    with ResultStore(tmp_path / "r.db", create=True) as store:
        s = run_experiment(store, ROBOT, "elise_ur10", test, "lm", 3, 10.0, params={"max_iterations": 3000, "random_seed": 1})
        rows = store.results(s.experiment)
        (exp,) = store.experiments()
    assert exp.test == test and len(rows) == 3 and s.solved == sum(r.solved for r in rows) >= least
    check = SceneCheck.of(ROBOT, TANK)
    for r in rows:
        q = np.array(r.solution)
        assert r.solved == check.ok(TANK.targets().poses[r.target_index], q)
        assert (r.callback_calls >= 1 and _met(goal_set, q)) if r.solved else True


def test_goal_set_runs_end_to_end_through_the_cli_and_skip_solvers_without_the_goal(tmp_path, capsys):
    db = tmp_path / "sets.db"
    argv = ["bench", "run", "--robot", "elise_ur10", "--test", "scene", "--scene", "HydrogenTank", "--goal-set", "rcm",
            "--solver", "lm", "--solver", "kdl", "--targets", "5", "--timeout", "10", "--param", "max_iterations=3000",
            "--db", str(db)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "skipping kdl on test scene:HydrogenTank/rcm: solver 'kdl' does not take RCMGoal" in captured.err
    assert "elise_ur10 (tip endoscope_tip) · scene:HydrogenTank/rcm · timeout 10000 ms · 5 targets" in captured.out
    assert "| lm (max_iterations=3000) |" in captured.out and "| kdl" not in captured.out
    with ResultStore(db) as store:
        (exp,) = store.experiments()
        assert exp.test == "scene:HydrogenTank/rcm" and len(store.results(exp.id)) == 5


def test_decoupling_runs_as_a_bench_solver_on_the_tanks_only(tmp_path):
    with ResultStore(tmp_path / "r.db", create=True) as store:
        s = run_experiment(store, ROBOT, "elise_ur10", "scene:HydrogenTankSmall", "decoupled", 5, 600.0,
                           params={"max_attempts": 50})
        rows = store.results(s.experiment)
        assert len(rows) == 5 and all(r.solved for r in rows)
        check = SceneCheck.of(ROBOT, scenes.load("HydrogenTankSmall"))
        poses = scenes.load("HydrogenTankSmall").targets().poses
        assert all(check.ok(poses[r.target_index], np.array(r.solution)) for r in rows)
        for test in ("scene:Table", "scene:HydrogenTank/rcm", "fkik"):
            with pytest.raises(ValueError, match="decoupled runs on the scene tests of scenarios with an opening"):
                run_experiment(store, ROBOT, "elise_ur10", test, "decoupled", 3, 1.0)


def test_the_passage_bench_solver_reaches_a_deep_shelf_target_collision_free():
    """Shelf target 642 (the back wall of the bottom middle compartment) takes `lm` some
    thousand restarts; the bench's passage solver (`bioik.PassageSolver` with the
    endoscope's cover) answers it, checked exactly."""
    from bioik.bench.scenes import collision_goal, passage_function

    scenario = scenes.load("Shelf")
    T = scenario.targets().poses[642]
    solve = passage_function(ROBOT, "scene:Shelf")
    res = solve(ROBOT, [bioik.PoseGoal(scenes.TIP, T), collision_goal(ROBOT, scenario)], timeout=60.0, random_seed=0,
                scene=scenario.scene)
    assert res.success and SceneCheck.of(ROBOT, scenario).ok(T, res.q)
