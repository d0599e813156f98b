"""Tool-tip poses among obstacles with nothing annotated (bioik.passage_solver): the turns'
order and lengths, the counts summed over them, answers checked exactly, bad input."""

import numpy as np
import pytest

import bioik
from bioik import scenes
from bioik.collision import CollisionChecker, sphere_model
from bioik.decoupling import Decoupler
from bioik.passage_solver import FIRST_SLICE, OPEN_DECOUPLED, OPEN_WHOLE, PassageSolver
from bioik.scene.passage import Passage, PassageFinder
from bioik.solvers.api import Result

ROBOT = bioik.load_robot(scenes.ROBOT)


@pytest.fixture(scope="module")
def shelf():
    scenario = scenes.load("Shelf")
    return scenario, PassageSolver(ROBOT, scenes.TIP, "endoscope_mount", scenario.scene,
                                   spheres=sphere_model(ROBOT, links=scenes.ENDOSCOPE_COVER), tool_radius=0.004)


def _answering_on(calls, name, succeed_at):
    """A stand-in search that records (name, timeout) and answers on its `succeed_at`-th call
    (never for 0)."""

    def search(*args, timeout, opening=None, **kwargs):
        label = name if opening is None else f"{name}:{'open' if opening == 'open' else 'passage'}"
        calls.append((label, timeout))
        ok = sum(1 for c, _ in calls if c == label) == succeed_at
        return Result(np.zeros(ROBOT.dof), ok, 0.0, np.zeros((1, 2)), 0.0, callback_calls=1, restarts=2, iterations=10)

    return search


@pytest.mark.parametrize("found, expected", [
    (False, ["lm", "decoupled:open", "lm", "decoupled:open", "lm"]),
    (True, ["decoupled:passage", "decoupled:open", "lm", "decoupled:passage", "decoupled:open", "lm"]),
])
def test_the_searches_take_turns_in_doubling_slices(shelf, monkeypatch, found, expected):
    """Where the finder sees a passage: decoupling through it, decoupling with no opening,
    the whole robot; elsewhere the whole robot and decoupling with no opening; each round's
    slices twice the last. The searches are stand-ins here (the whole robot answers on its
    third or second turn, decoupling never), so the schedule is checked alone."""
    _, solver = shelf
    calls = []
    monkeypatch.setattr(Decoupler, "solve", _answering_on(calls, "decoupled", 0))
    monkeypatch.setattr("bioik.passage_solver.solve", _answering_on(calls, "lm", 2 if found else 3))
    passage = Passage(np.zeros(3), np.array([1.0, 0.0, 0.0]), 0.05) if found else None
    monkeypatch.setattr(PassageFinder, "find", lambda self, p, u, deadline, known: passage)
    res = solver.solve(np.eye(4), timeout=60.0, random_seed=0)
    assert res.success and [c for c, _ in calls] == expected
    per_round = 3 if found else 2
    first = [1.0, 1.0, 1.0] if found else [OPEN_WHOLE, OPEN_DECOUPLED]  # × FIRST_SLICE: in the open, lm's turns are shorter
    assert [t / FIRST_SLICE for _, t in calls] == pytest.approx([first[k % per_round] * 2.0 ** (k // per_round)
                                                                 for k in range(len(calls))])
    # counts summed over the turns; each failed turn's attempts are its restarts + 1
    assert res.callback_calls == len(calls) and res.iterations == 10 * len(calls)
    assert res.restarts == 2 + 3 * (len(calls) - 1)


def test_the_last_turn_is_cut_at_the_timeout(shelf, monkeypatch):
    _, solver = shelf
    calls = []
    monkeypatch.setattr(Decoupler, "solve", _answering_on(calls, "decoupled", 0))
    monkeypatch.setattr("bioik.passage_solver.solve", _answering_on(calls, "lm", 0))
    monkeypatch.setattr(PassageFinder, "find", lambda self, p, u, deadline, known: None)
    res = solver.solve(np.eye(4), timeout=0.05, random_seed=0)
    assert not res.success and calls and all(0.0 < t <= 0.05 for _, t in calls)


def test_the_reported_time_is_the_whole_call(shelf, monkeypatch):
    """The passage search and every turn count: the turns here report 0 s, the finder takes 50 ms."""
    import time

    _, solver = shelf
    calls = []
    monkeypatch.setattr(Decoupler, "solve", _answering_on(calls, "decoupled", 0))
    monkeypatch.setattr("bioik.passage_solver.solve", _answering_on(calls, "lm", 1))
    monkeypatch.setattr(PassageFinder, "find", lambda self, p, u, deadline, known: time.sleep(0.05))
    res = solver.solve(np.eye(4), timeout=1.0, random_seed=0)
    assert res.success and res.time >= 0.05


def test_a_passage_search_that_takes_the_whole_timeout_starts_no_turn(shelf, monkeypatch):
    """The finder gets the solve's deadline; when it comes back past it, the solve returns
    at once, unsolved, from the centre (a turn started then would overrun the timeout)."""
    import time

    _, solver = shelf
    calls, deadlines = [], []
    monkeypatch.setattr(Decoupler, "solve", _answering_on(calls, "decoupled", 1))
    monkeypatch.setattr("bioik.passage_solver.solve", _answering_on(calls, "lm", 1))

    def slow(self, p, u, deadline, known):
        deadlines.append(deadline)
        time.sleep(max(deadline - time.monotonic(), 0.0) + 0.001)

    monkeypatch.setattr(PassageFinder, "find", slow)
    t0 = time.monotonic()
    res = solver.solve(np.eye(4), timeout=0.02, random_seed=0)
    assert deadlines[0] == pytest.approx(t0 + 0.02, abs=0.005)
    assert not calls and not res.success and res.solver == "passage" and res.time >= 0.02
    np.testing.assert_array_equal(res.q, ROBOT.center())


def test_a_deep_shelf_target_is_reached_collision_free(shelf):
    """Shelf target 642 (the back wall of the bottom middle compartment) takes the whole
    robot's search some thousand random restarts; the turns answer it, checked exactly."""
    scenario, solver = shelf
    T = scenario.targets().poses[642]
    res = solver.solve(T, timeout=60.0, random_seed=0)
    A = ROBOT.link_pose(res.q, scenes.TIP)
    assert res.success and np.linalg.norm(A[:3, 3] - T[:3, 3]) <= 1e-5 and ROBOT.within_limits(res.q)
    assert CollisionChecker(ROBOT, scenario.scene).is_free(res.q)


def test_a_tank_target_is_reached_through_the_hole_it_finds():
    """The finder sees the 3.5 cm hole, so decoupling through it takes the first turn (here a
    long one: what answers is that turn, whatever the machine's load)."""
    scenario = scenes.load("HydrogenTankSmall")
    solver = PassageSolver(ROBOT, scenes.TIP, "endoscope_mount", scenario.scene,
                           spheres=sphere_model(ROBOT, links=scenes.ENDOSCOPE_COVER), tool_radius=0.004, first_slice=30.0)
    checker = CollisionChecker(ROBOT, scenario.scene)
    for k in range(3):
        T = scenario.targets().poses[k]
        res = solver.solve(T, timeout=60.0, random_seed=k)
        assert res.success and checker.is_free(res.q) and res.solver.startswith("decoupled")


def test_bad_input_is_named(shelf):
    scenario, solver = shelf
    with pytest.raises(ValueError, match="finite 4×4 pose"):
        solver.solve(np.full((4, 4), np.nan))
    with pytest.raises(ValueError, match="timeout"):
        solver.solve(np.eye(4), timeout=0.0)
    with pytest.raises(ValueError, match="first_slice"):
        PassageSolver(ROBOT, scenes.TIP, "endoscope_mount", scenario.scene, first_slice=-1.0)
    with pytest.raises(ValueError, match="not an ancestor"):
        PassageSolver(ROBOT, "endoscope_mount", scenes.TIP, scenario.scene)


def test_threads_sharing_a_solver_get_checked_answers(shelf):
    """One PassageSolver on four threads at once: each answer is at its own target and
    collision-free (each thread's decoupler scene is its own; the searches share nothing)."""
    from concurrent.futures import ThreadPoolExecutor

    scenario, solver = shelf
    poses = scenario.targets().poses[[642, 166, 822, 509]]  # deep ones: decoupling takes turns too
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda k: solver.solve(poses[k], timeout=60.0, random_seed=k), range(4)))
    checker = CollisionChecker(ROBOT, scenario.scene)
    for T, res in zip(poses, results, strict=True):
        A = ROBOT.link_pose(res.q, scenes.TIP)
        assert res.success and np.linalg.norm(A[:3, 3] - T[:3, 3]) <= 1e-5 and checker.is_free(res.q)


def test_the_default_solver_hands_a_tool_tip_to_a_passage_solver(monkeypatch):
    """No solver named, a scene, one pose goal of a tip past a tool: the solve goes to a
    PassageSolver of that scene, split and covered alone (built once per scene layout; after
    the scene moves, the same one follows it); an iteration budget, a named solver, a second goal or a tip with
    no tool take the general search. The answers are checked exactly."""
    from bioik.goals import PoseGoal, PositionGoal

    scenario = scenes.load("HydrogenTankSmall")
    scene, poses = scenario.scene, scenario.targets().poses
    used = []
    real = PassageSolver.solve
    monkeypatch.setattr(PassageSolver, "solve", lambda self, T, **kw: used.append(self) or real(self, T, **kw))
    solver = bioik.Solver(ROBOT)
    checker = CollisionChecker(ROBOT, scene)
    for k in range(2):
        res = solver.solve([PoseGoal(scenes.TIP, poses[k])], scene=scene, timeout=1.0, random_seed=k)
        assert res.success and checker.is_free(res.q) and ROBOT.within_limits(res.q)
    assert len(used) == 2 and used[0] is used[1] and used[0].decoupler.split_link == "endoscope_mount"
    res = bioik.solve(ROBOT, [PoseGoal(scenes.TIP, poses[2])], scene=scene, timeout=1.0, random_seed=2)
    assert res.success and checker.is_free(res.q) and len(used) == 3
    name = next(iter(scene.obstacles))
    scene.move(name, scene.obstacles[name].pose)
    assert used[0].finder.pose_version != scene.pose_version
    res = solver.solve([PoseGoal(scenes.TIP, poses[3])], scene=scene, timeout=1.0, random_seed=3)
    assert len(used) == 4 and used[3] is used[0] and used[0].finder.pose_version == scene.pose_version
    assert res.success and checker.is_free(res.q)
    far = np.eye(4)
    far[:3, 3] = 5.0  # out of reach
    scene.add_box("extra", (0.01, 0.01, 0.01), far)
    solver.solve([PoseGoal(scenes.TIP, poses[3])], scene=scene, timeout=1.0, random_seed=3)
    assert len(used) == 5 and used[4] is not used[0]
    # the general search
    solver.solve([PoseGoal(scenes.TIP, poses[0])], scene=scene, max_iterations=20, random_seed=0)
    bioik.solve(ROBOT, [PoseGoal(scenes.TIP, poses[0])], scene=scene, solver="lm", max_iterations=20, random_seed=0)
    solver.solve([PoseGoal(scenes.TIP, poses[0]), PositionGoal("wrist_3_link", poses[0][:3, 3], secondary=True)],
                 scene=scene, max_iterations=20, timeout=0.01, random_seed=0)
    solver.solve([PoseGoal("wrist_3_link", ROBOT.link_pose(scenes.READY, "wrist_3_link"))], scene=scene, timeout=0.01)
    assert len(used) == 5


def test_default_solves_on_threads_get_checked_answers():
    """Four threads solving tank targets with the default solver at once share one
    PassageSolver; each answer is at its own target and collision-free."""
    from concurrent.futures import ThreadPoolExecutor

    from bioik.goals import PoseGoal

    scenario = scenes.load("HydrogenTank")
    poses = scenario.targets().poses[:8]
    solver = bioik.Solver(ROBOT)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda k: solver.solve([PoseGoal(scenes.TIP, poses[k])], scene=scenario.scene,
                                                        timeout=2.0, random_seed=k), range(8)))
    checker = CollisionChecker(ROBOT, scenario.scene)
    for T, res in zip(poses, results, strict=True):
        A = ROBOT.link_pose(res.q, scenes.TIP)
        assert res.success and np.linalg.norm(A[:3, 3] - T[:3, 3]) <= 1e-5 and checker.is_free(res.q)


@pytest.mark.parametrize("decoupling_answers", [True, False])
def test_a_passage_is_kept_for_later_targets_only_once_decoupling_went_through_it(shelf, monkeypatch, decoupling_answers):
    """The finder is offered the passages decoupling went through; a passage the whole
    robot's turn answered beside is not kept (it may sit off the opening's centre)."""
    _, solver = shelf
    monkeypatch.setattr(solver, "_known", [])
    calls, offered = [], []
    monkeypatch.setattr(Decoupler, "solve", _answering_on(calls, "decoupled", 1 if decoupling_answers else 0))
    monkeypatch.setattr("bioik.passage_solver.solve", _answering_on(calls, "lm", 1))
    passage = Passage(np.zeros(3), np.array([1.0, 0.0, 0.0]), 0.05)
    monkeypatch.setattr(PassageFinder, "find", lambda self, p, u, deadline, known: offered.append(list(known)) or passage)
    for _ in range(2):
        calls.clear()  # each solve's turns answer as the first did
        assert solver.solve(np.eye(4), timeout=60.0, random_seed=0).success
    assert offered[0] == [] and [k is passage for k in offered[1]] == ([True] if decoupling_answers else [])
