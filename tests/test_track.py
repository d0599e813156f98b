"""track(): warm-started sequences, minimal displacement, the joint-step bound, bad input."""

import numpy as np
import pytest

import bioik

BUDGET = dict(timeout=3600.0, max_iterations=2000, random_seed=3)


@pytest.fixture(scope="module")
def ur5():
    return bioik.load_robot("ur5")


@pytest.fixture(scope="module")
def circle(ur5):
    """A smooth closed joint path of 30 configurations and its tool poses."""
    t = np.linspace(0.0, 2.0 * np.pi, 30)
    q0 = np.array([0.3, -1.2, 1.5, -1.0, -1.4, 0.2])
    path = q0 + 0.25 * np.stack([np.sin(t), np.cos(t) - 1, np.sin(2 * t), 0.5 * np.sin(t), np.cos(t) - 1, 0.3 * np.sin(t)], 1)
    return path, [ur5.link_pose(q, "tool0") for q in path]


def test_tracks_a_circle_of_poses(ur5, circle):
    path, poses = circle
    res = bioik.track(ur5, poses, seed=path[0], **BUDGET)
    assert res.q.shape == (30, 6) and res.success.shape == (30,) and res.time.shape == (30,)
    assert res.success.all()
    assert res.max_joint_step < 0.3  # the path's own largest step is ~0.11 rad
    assert res.max_joint_step == pytest.approx(np.abs(np.diff(np.vstack([path[0], res.q]), axis=0)).max())
    for q, T, err in zip(res.q, poses, res.goal_errors):
        assert np.abs(ur5.link_pose(q, "tool0") - T).max() < 1e-4
        assert err.shape == (2, 2) and err[0, 0] <= 1e-5  # the pose goal and the added displacement goal


def test_minimal_displacement_keeps_redundant_motion_small(ur5, circle):
    path, poses = circle
    goals = [[bioik.PositionGoal("tool0", T[:3, 3])] for T in poses]  # 3 redundant joints
    near = bioik.track(ur5, goals, seed=path[0], solver="bio2", **BUDGET)
    free = bioik.track(ur5, goals, seed=path[0], solver="bio2", minimal_displacement=False, **BUDGET)
    assert near.success.all() and free.success.all()
    # measured over random seeds 3-5: near 0.22-0.25 rad, free 0.41-1.14 (the path's own
    # largest step is 0.11); the search stops at the first pose that meets the position
    assert near.max_joint_step < 0.25 < free.max_joint_step
    motion = lambda r: np.abs(np.diff(np.vstack([path[0], r.q]), axis=0)).sum()  # noqa: E731
    assert motion(near) < 0.6 * motion(free)


def test_max_step_rejects_a_jump_and_fails_honestly(ur5, circle):
    path, poses = circle
    far = ur5.link_pose(path[0] + np.array([1.0, 0, 0, 0, 0, 0]), "tool0")  # needs base joint +1 rad
    ok = bioik.track(ur5, [poses[0], far], seed=path[0], max_step=1.2, **BUDGET)
    assert ok.success.all() and ok.max_joint_step <= 1.2
    res = bioik.track(ur5, [poses[0], far], seed=path[0], max_step=0.3, **BUDGET)
    assert res.success.tolist() == [True, False]
    # the failed step holds the last configuration: no jump; its goal errors are measured there
    np.testing.assert_array_equal(res.q[1], res.q[0])
    assert res.max_joint_step <= 0.3
    held = ur5.link_pose(res.q[0], "tool0")
    assert res.goal_errors[1][0, 0] == pytest.approx(np.linalg.norm(held[:3, 3] - far[:3, 3]), rel=1e-9)
    # the path goes on from there
    back = bioik.track(ur5, [poses[0], far, poses[1]], seed=path[0], max_step=0.3, **BUDGET)
    assert back.success.tolist() == [True, False, True] and back.max_joint_step <= 0.3


def test_a_step_among_obstacles_that_fails_holds_a_clear_configuration(ur5, circle):
    """With a scene, a step whose target lies inside an obstacle fails and holds the last
    configuration, which the exact check finds clear; the path never enters the box."""
    from bioik.collision import CollisionChecker

    path, poses = circle
    scene = bioik.Scene()
    inside = poses[1][:3, 3]
    scene.add_box("block", (0.06, 0.06, 0.06), bioik.scene.poses.pose_from(tuple(inside)))
    checker = CollisionChecker(ur5, scene)
    assert checker.is_free(path[0])
    res = bioik.track(ur5, poses[:3], seed=path[0], scene=scene, **BUDGET)
    assert res.success.tolist()[1] is False
    np.testing.assert_array_equal(res.q[1], res.q[0])
    assert all(checker.is_free(q) for q in res.q[:2])


def test_user_callback_still_applies(ur5, circle):
    path, poses = circle
    res = bioik.track(ur5, poses[:3], seed=path[0], callback=lambda q: False, max_iterations=200, timeout=3600.0, random_seed=1)
    assert not res.success.any()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(goal_sequence=[]), "goal_sequence must be a non-empty"),
        (dict(goal_sequence=[np.eye(3)]), r"goal_sequence\[0\] must be .* 4×4 pose; got ndarray of shape \(3, 3\)"),
        (dict(goal_sequence=["tool0"]), r"goal_sequence\[0\] must be"),
        (dict(seed=[0.0, 0.0]), "seed must have 6 values"),
        (dict(max_step=0.0), "max_step must be a finite number > 0"),
        (dict(max_step=-1.0), "max_step must be"),
        (dict(timeout=0.0), "timeout must be"),
    ],
)
def test_bad_input_names_the_problem(ur5, circle, kwargs, message):
    args = dict(goal_sequence=circle[1][:2], seed=circle[0][0])
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        bioik.track(ur5, **args)
