"""Kinematic decoupling (bioik.decoupling): the tool through the tank's opening, the arm
to the tool's base, the merged answer checked exactly."""

import numpy as np
import pytest

import bioik
from bioik import scenes
from bioik.collision import CollisionChecker, sphere_model
from bioik.decoupling import OPEN, Decoupler, decoupled_solve

ROBOT = bioik.load_robot(scenes.ROBOT)
# Budgets here are attempts (max_attempts) and seeds: the timeouts are only a guard, long
# enough for a first solve that compiles the kernels.


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("BIOIK_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "decoupling-cache"))


@pytest.fixture(scope="module")
def tank():
    scenario = scenes.load("HydrogenTank")
    op = scenario.opening
    spheres = sphere_model(ROBOT, links=scenes.ENDOSCOPE_COVER)
    return scenario, Decoupler(ROBOT, scenes.TIP, "endoscope_mount", scenario.scene, (op.point, op.axis, op.diameter),
                               spheres=spheres)


def _pose_error(q, T):
    A = ROBOT.link_pose(q, scenes.TIP)
    return np.linalg.norm(A[:3, 3] - T[:3, 3]), np.linalg.norm(A[:3, :3] - T[:3, :3])


def test_tank_targets_are_reached_through_the_opening_collision_free(tank):
    scenario, dec = tank
    checker = CollisionChecker(ROBOT, scenario.scene)
    stored = scenario.targets()
    for k in range(8):
        T = stored.poses[k]
        res = dec.solve(T, timeout=3600.0, random_seed=k, max_attempts=50)
        assert res.success, k
        dp, dR = _pose_error(res.q, T)
        assert dp <= 1e-5 and dR <= 1e-4 and ROBOT.within_limits(res.q) and checker.is_free(res.q)
        # the shaft passes through the hole: its axis comes within the opening's radius of the centre
        a, b = (ROBOT.link_pose(res.q, n)[:3, 3] for n in ("endoscope_link_1", "endoscope_link_2"))
        c = np.asarray(scenario.opening.point)
        s = np.clip(np.dot(c - a, b - a) / np.dot(b - a, b - a), 0, 1)
        assert np.linalg.norm(a + s * (b - a) - c) < scenario.opening.diameter / 2


def test_a_small_tank_target_with_the_mount_just_above_the_lid_is_solved():
    """HydrogenTankSmall's target 52 puts the mount about 5 cm over the lid: its one-sphere
    cover would reach into the lid although the mount is clear, so the split link stays out
    of the distal part's collision costs and the exact check decides."""
    scenario = scenes.load("HydrogenTankSmall")
    op = scenario.opening
    dec = Decoupler(ROBOT, scenes.TIP, "endoscope_mount", scenario.scene, (op.point, op.axis, op.diameter),
                    spheres=sphere_model(ROBOT, links=scenes.ENDOSCOPE_COVER))
    assert "endoscope_mount" not in dec._spheres.links
    T = scenario.targets().poses[52]
    res = dec.solve(T, timeout=3600.0, random_seed=0, max_attempts=200)
    assert res.success and CollisionChecker(ROBOT, scenario.scene).is_free(res.q)


def test_a_seeded_solve_with_an_attempt_budget_is_reproducible(tank):
    _, dec = tank
    T = tank[0].targets().poses[20]
    a = dec.solve(T, timeout=3600.0, random_seed=3, max_attempts=20)
    b = dec.solve(T, timeout=3600.0, random_seed=3, max_attempts=20)
    assert np.array_equal(a.q, b.q) and a.success == b.success


def test_an_opening_given_per_solve_is_the_same_as_one_given_up_front(tank):
    """Decoupler(opening=None) takes each target's opening in `solve` (one a PassageFinder
    found): with the same opening and seed, the same answer as a decoupler built with it."""
    scenario, dec = tank
    op = scenario.opening
    per_solve = Decoupler(ROBOT, scenes.TIP, "endoscope_mount", scenario.scene, None,
                          spheres=sphere_model(ROBOT, links=scenes.ENDOSCOPE_COVER))
    T = scenario.targets().poses[5]
    a = dec.solve(T, timeout=3600.0, random_seed=2, max_attempts=20)
    b = per_solve.solve(T, timeout=3600.0, random_seed=2, max_attempts=20, opening=(op.point, op.axis, op.diameter))
    assert a.success and np.array_equal(a.q, b.q) and b.success
    with pytest.raises(ValueError, match="no opening: give one .* or 'open'"):
        per_solve.solve(T, timeout=1.0)


def test_a_deep_shelf_target_is_decoupled_with_no_opening():
    """Shelf target 642 lies on the back wall of the bottom compartment: random restarts
    of the whole robot find it about once in a thousand. With no opening (OPEN) the tool
    is placed clear at the target and the arm holds it; the answer is checked exactly and
    the split link is drawn back out of the compartment, towards the robot."""
    scenario = scenes.load("Shelf")
    dec = Decoupler(ROBOT, scenes.TIP, "endoscope_mount", scenario.scene, OPEN,
                    spheres=sphere_model(ROBOT, links=scenes.ENDOSCOPE_COVER))
    T = scenario.targets().poses[642]
    res = dec.solve(T, timeout=3600.0, random_seed=0, max_attempts=100)
    assert res.success and res.restarts < 99
    assert _pose_error(res.q, T)[0] <= 1e-5 and CollisionChecker(ROBOT, scenario.scene).is_free(res.q)
    mount = ROBOT.link_pose(res.q, "endoscope_mount")[:3, 3]
    assert mount[0] < T[0, 3] - 0.2  # the tool points +x into the back wall; its base is well in front
    per_solve = Decoupler(ROBOT, scenes.TIP, "endoscope_mount", scenario.scene, None,
                          spheres=sphere_model(ROBOT, links=scenes.ENDOSCOPE_COVER))
    same = per_solve.solve(T, timeout=3600.0, random_seed=0, max_attempts=100, opening="open")
    assert np.array_equal(same.q, res.q)
    with pytest.raises(ValueError, match=r"opening must be \(point, axis\[, diameter\]\) or 'open'; got 'hole'"):
        per_solve.solve(T, timeout=1.0, opening="hole")


def test_an_arm_that_failed_is_not_checked_again_for_the_same_tool_pose(monkeypatch):
    """In the barrel the arm that holds the tool often hits the rim or the pedestal, and its
    few solution branches come back from several random starts: each failed branch goes to
    the exact check once per tool pose. The answer is the one the repeated checks gave."""
    from bioik import decoupling

    scenario = scenes.load("Barrel")
    dec = Decoupler(ROBOT, scenes.TIP, "endoscope_mount", scenario.scene, OPEN,
                    spheres=sphere_model(ROBOT, links=scenes.ENDOSCOPE_COVER))
    arm = np.setdiff1d(np.arange(ROBOT.dof), dec._distal_vars)
    checked = []
    is_free = dec.checker.is_free
    dec.checker.is_free = lambda q: checked.append(q.copy()) or is_free(q)

    def run(same_arm):
        monkeypatch.setattr(decoupling, "SAME_ARM", same_arm)
        checked.clear()
        out = [dec.solve(T, timeout=3600.0, random_seed=k, max_attempts=3) for k, T in
               enumerate(scenario.targets().poses[:12])]
        repeats = sum(np.abs(q[arm] - p[arm]).max() <= 1e-6 and np.array_equal(q[dec._distal_vars], p[dec._distal_vars])
                      for i, q in enumerate(checked) for p in checked[:i])
        return out, len(checked), repeats

    once, n_once, repeats_once = run(decoupling.SAME_ARM)
    again, n_again, repeats_again = run(-1.0)  # never the same: every branch found is checked
    assert repeats_once == 0 and repeats_again > 0 and n_once < n_again
    assert any(a.success for a in once)
    for a, b in zip(once, again):
        assert a.success == b.success and (not a.success or np.array_equal(a.q, b.q))


def test_a_target_outside_reach_fails_honestly(tank):
    _, dec = tank
    T = np.eye(4)
    T[:3, 3] = (3.0, 0.0, 0.0)
    res = dec.solve(T, timeout=3600.0, random_seed=0, max_attempts=3)
    assert not res.success and ROBOT.within_limits(res.q) and res.restarts == 2


def test_the_callback_has_the_last_word(tank):
    _, dec = tank
    seen = []
    res = dec.solve(tank[0].targets().poses[0], timeout=3600.0, random_seed=0, max_attempts=4,
                    callback=lambda q: seen.append(q) or False)
    assert not res.success and 1 <= len(seen) <= res.callback_calls  # the exact check comes first


def test_decoupled_solve_takes_one_pose_goal_and_checks_its_inputs(tank):
    scenario, _ = tank
    op = scenario.opening
    T = scenario.targets().poses[1]
    res = decoupled_solve(ROBOT, [bioik.PoseGoal(scenes.TIP, T)], split_link="endoscope_mount", opening=(op.point, op.axis),
                          scene=scenario.scene, timeout=3600.0, random_seed=1, max_attempts=50,
                          spheres=sphere_model(ROBOT, links=scenes.ENDOSCOPE_COVER))
    assert res.success and _pose_error(res.q, T)[0] <= 1e-5
    with pytest.raises(ValueError, match="one PoseGoal"):
        decoupled_solve(ROBOT, [bioik.PositionGoal(scenes.TIP, T[:3, 3])], split_link="endoscope_mount",
                        opening=(op.point, op.axis), scene=scenario.scene)
    with pytest.raises(ValueError, match="two finite 3-vectors"):
        Decoupler(ROBOT, scenes.TIP, "endoscope_mount", scenario.scene, (op.point, (0, np.nan, 1)))
    with pytest.raises(ValueError, match="diameter must be a finite number"):
        Decoupler(ROBOT, scenes.TIP, "endoscope_mount", scenario.scene, (op.point, op.axis, -1.0))
    with pytest.raises(ValueError, match=r"\(point, axis\) or \(point, axis, diameter\)"):
        Decoupler(ROBOT, scenes.TIP, "endoscope_mount", scenario.scene, (op.point,))
    with pytest.raises(ValueError, match="must not be zero"):
        Decoupler(ROBOT, scenes.TIP, "endoscope_mount", scenario.scene, (op.point, (0, 0, 0)))
    with pytest.raises(TypeError, match="bioik.Scene"):
        Decoupler(ROBOT, scenes.TIP, "endoscope_mount", None, (op.point, op.axis))
    with pytest.raises(ValueError, match="not an ancestor"):
        Decoupler(ROBOT, "endoscope_mount", scenes.TIP, scenario.scene, (op.point, op.axis))
    with pytest.raises(ValueError, match="active group"):
        Decoupler(ROBOT.with_group(["shoulder_pan_joint", "shoulder_lift_joint"]), scenes.TIP, "endoscope_mount", scenario.scene,
                  (op.point, op.axis))
    with pytest.raises(ValueError, match="finite 4×4"):
        tank[1].solve(np.eye(3))


def test_threads_sharing_a_decoupler_get_the_serial_answers(tank):
    from concurrent.futures import ThreadPoolExecutor

    scenario, dec = tank
    poses = scenario.targets().poses[30:36]

    def run(k):
        return dec.solve(poses[k], timeout=3600.0, random_seed=k, max_attempts=30).q

    serial = [run(k) for k in range(len(poses))]
    with ThreadPoolExecutor(3) as pool:
        threaded = list(pool.map(run, range(len(poses))))
    assert all(np.array_equal(a, b) for a, b in zip(serial, threaded))


def test_the_tool_split_is_past_the_arms_six_joints():
    """elise_ur10's endoscope starts at endoscope_mount (the link the bench names by hand);
    a six-joint arm has no tool, nor has a seven-joint arm (its last joint is a wrist: a
    tool that passes an opening has two joints or more), nor a chain whose seventh joint
    follows the sixth with no mount between, nor a tool with a frozen joint (the
    decoupler solves every tool joint)."""
    from bioik.decoupling import tool_split

    assert tool_split(ROBOT, scenes.TIP) == "endoscope_mount"
    assert tool_split(ROBOT, "wrist_3_link") is None
    assert tool_split(bioik.load_robot("ur5"), "tool0") is None
    panda = bioik.load_robot("panda")
    assert tool_split(panda, "panda_link8") is None
    # the joints go on as one arm, with no mount between the sixth and the seventh
    assert tool_split(bioik.load_robot("mobile_ur5"), "tool0") is None
    assert tool_split(bioik.load_robot("iiwa14_hand"), "index_tip") is None
    assert tool_split(bioik.load_robot("humanoid"), "left_hand") is None
    assert tool_split(ROBOT.with_group([*ROBOT.variable_names[:7], ROBOT.variable_names[8]]), scenes.TIP) is None  # bend1 held


def test_the_tool_cover_is_the_endoscope_cover_found_alone():
    """Only the tool's links get the tight spheres; for elise_ur10 that is exactly the cover
    the EBIKE scenes name by hand (scenes.ENDOSCOPE_COVER)."""
    from bioik.decoupling import tool_cover

    auto = tool_cover(ROBOT, "endoscope_mount", scenes.TIP)
    hand = sphere_model(ROBOT, links=scenes.ENDOSCOPE_COVER)
    assert auto.per_link() == hand.per_link()
    np.testing.assert_array_equal(auto.radii, hand.radii)
    np.testing.assert_array_equal(auto.centres, hand.centres)
    assert auto.per_link()["endoscope_link_1"] > sphere_model(ROBOT).per_link()["endoscope_link_1"]
