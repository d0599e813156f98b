"""Position, orientation, pose [R eqs. 3.4–3.6] and joint goals [R eqs. 3.8–3.11]."""

import numpy as np
import pytest
from goal_helpers import assert_acceptance, assert_jacobian, cost, goal_residual_of, random_unit, tree

import bioik
from bioik import (
    AvoidJointLimitsGoal,
    CenterJointsGoal,
    JointVariableGoal,
    MinimalDisplacementGoal,
    OrientationGoal,
    PoseGoal,
    PositionGoal,
    Problem,
)
from bioik.kinematics.frames import quat_from_matrix, rotation_about


def moved(T, dp=(0.0, 0.0, 0.0), angle=0.0, axis=(0.0, 0.0, 1.0)):
    """T translated by dp and rotated by angle about axis (base frame)."""
    out = T.copy()
    out[:3, 3] += dp
    out[:3, :3] = rotation_about(np.asarray(axis) / np.linalg.norm(axis), angle) @ T[:3, :3]
    return out


def rotation_angle(R):
    w, *v = quat_from_matrix(R)
    return 2 * np.arctan2(np.linalg.norm(v), w)


def test_zero_where_satisfied(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    T = robot.link_pose(q, "tip_a")
    flipped = -quat_from_matrix(T[:3, :3])  # the same orientation
    goals = (PositionGoal("tip_a", T[:3, 3]), OrientationGoal("tip_a", T[:3, :3]), OrientationGoal("tip_a", flipped), PoseGoal("tip_a", T))
    for goal in goals:
        assert cost(robot, goal, q) < 1e-28
        assert cost(robot, goal, robot.random_configuration(rng)) > 1e-6


def test_residuals_match_definitions(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    T = robot.link_pose(q, "tip_b")
    G = moved(T, rng.normal(size=3), 2.5, rng.normal(size=3))
    qe, qg = quat_from_matrix(T[:3, :3]), quat_from_matrix(G[:3, :3])
    rot2 = min(np.sum((qg - qe) ** 2), np.sum((qg + qe) ** 2))  # [R eq. 3.5]
    assert cost(robot, PositionGoal("tip_b", G[:3, 3]), q) == pytest.approx(np.sum((T[:3, 3] - G[:3, 3]) ** 2))
    assert cost(robot, OrientationGoal("tip_b", G[:3, :3], weight=2.0), q) == pytest.approx(4 * rot2)
    goal = PoseGoal("tip_b", G, rotation_scale=0.3)
    assert cost(robot, goal, q) == pytest.approx(np.sum((T[:3, 3] - G[:3, 3]) ** 2) + 0.09 * rot2)  # [R eq. 3.6]


def test_jacobians_match_finite_differences(rng):
    robot = tree()
    for link in ("tip_a", "tip_b", "slider"):
        q = robot.random_configuration(rng)
        G = moved(robot.link_pose(robot.random_configuration(rng), link))
        for goal in (PositionGoal(link, G[:3, 3]), OrientationGoal(link, G[:3, :3]), PoseGoal(link, G, rotation_scale=0.7)):
            assert_jacobian(robot, goal, q)
    q = robot.random_configuration(rng)
    for goal in (JointVariableGoal("j3", 0.4), CenterJointsGoal(), AvoidJointLimitsGoal(), MinimalDisplacementGoal()):
        assert_jacobian(robot, goal, q)


def test_pose_acceptance_is_position_error_and_angle(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    T = robot.link_pose(q, "tip_a")
    u = random_unit(rng)
    cases = [  # (goal pose, met at the default 1e-5 tolerances)
        (T, True),
        (moved(T, 5e-6 * u), True),
        (moved(T, 2e-5 * u), False),
        (moved(T, angle=5e-6, axis=u), True),
        (moved(T, angle=2e-5, axis=u), False),
    ]
    for G, met in cases:
        for goal in (PoseGoal("tip_a", G), PositionGoal("tip_a", G[:3, 3]), OrientationGoal("tip_a", G[:3, :3])):
            ok, errors, _, _ = Problem(robot, [goal]).accept(q)
            dp = np.linalg.norm(G[:3, 3] - T[:3, 3]) if not isinstance(goal, OrientationGoal) else 0.0
            angle = rotation_angle(G[:3, :3].T @ T[:3, :3]) if not isinstance(goal, PositionGoal) else 0.0
            assert errors[0] == pytest.approx([dp, angle], abs=1e-9)
            assert ok == (dp <= 1e-5 and angle <= 1e-5)
            if isinstance(goal, PoseGoal):
                assert ok == met
    loose = PoseGoal("tip_a", moved(T, 2e-5 * u), position_tolerance=3e-5, rotation_tolerance=1e-5)
    assert Problem(robot, [loose]).accept(q)[0]


def test_joint_goals(rng):
    robot = tree()
    q = robot.center()
    assert cost(robot, CenterJointsGoal(secondary=False), q) == 0.0
    assert cost(robot, AvoidJointLimitsGoal(secondary=False), q) == 0.0
    assert cost(robot, JointVariableGoal("slide", q[3]), q) == 0.0
    q2 = robot.random_configuration(rng)
    bounded = np.isfinite(robot.lower) & np.isfinite(robot.upper)  # j2 is continuous: no middle
    mid = np.where(bounded, 0.5 * (robot.sample_lower + robot.sample_upper), 0.0)
    half = np.where(bounded, 0.5 * (robot.sample_upper - robot.sample_lower), 0.0)
    w = (1 / robot.velocity) / np.sum(1 / robot.velocity)  # BioIK's weights
    np.testing.assert_allclose(goal_residual_of(robot, CenterJointsGoal(), q2), np.where(bounded, w * (q2 - mid), 0.0))
    expected = np.where(bounded, np.maximum(0.0, 2 * np.abs(q2 - mid) - half), 0.0)  # [R eq. 3.10]
    np.testing.assert_allclose(goal_residual_of(robot, AvoidJointLimitsGoal(), q2), expected)
    np.testing.assert_allclose(goal_residual_of(robot, JointVariableGoal("j1", 0.3), q2), [q2[0] - 0.3])
    problem = Problem(robot, [MinimalDisplacementGoal()])
    problem.update(problem.goals, reference=q)
    assert problem.cost(q) == (0.0, 0.0)
    assert problem.cost(q2)[1] == pytest.approx(np.sum((w * (q2 - q)) ** 2))


def test_joint_goals_leave_variables_without_limits_alone(rng):
    """A planar base and a continuous wrist have no middle: CenterJoints and
    AvoidJointLimits cost nothing on them, wherever they are; the bounded joints count
    as before."""
    robot = bioik.load_robot("mobile_ur5")
    bounded = np.isfinite(robot.lower) & np.isfinite(robot.upper)
    assert not bounded.all() and bounded.any()
    q = robot.random_configuration(rng)
    far = q.copy()
    far[~bounded] += 40.0  # the base 40 m away, the wrist turned many times
    w = (1 / robot.velocity) / np.sum(1 / robot.velocity)
    mid = 0.5 * (robot.sample_lower + robot.sample_upper)
    for x in (q, far):
        centre = goal_residual_of(robot, CenterJointsGoal(), x)
        np.testing.assert_allclose(centre[bounded], (w * (x - mid))[bounded])
        assert np.all(centre[~bounded] == 0.0)
        avoid = goal_residual_of(robot, AvoidJointLimitsGoal(), x)
        assert np.all(avoid[~bounded] == 0.0)
    assert cost(robot, CenterJointsGoal(), far) == pytest.approx(cost(robot, CenterJointsGoal(), q), rel=1e-12)


@pytest.mark.parametrize("solver", ["lm", "nullspace", "bio2_lm"])
def test_a_mobile_base_stays_where_the_primary_goal_puts_it(solver):
    """mobile_ur5 seeded 3 m from the origin, a pose within the arm's reach from there:
    with CenterJoints and AvoidJointLimits as secondary goals the base stays near its seed
    (they used to pull it towards x = y = 0, the middle of its sampling box)."""
    robot = bioik.load_robot("mobile_ur5")
    seed = robot.center()
    seed[:3] = (3.0, -2.0, 0.7)
    target_q = seed.copy()
    target_q[4:9] += (0.4, -0.3, 0.5, 0.2, -0.4)
    T = robot.link_pose(target_q, "tool0")
    goals = [bioik.PoseGoal("tool0", T), bioik.CenterJointsGoal(), bioik.AvoidJointLimitsGoal()]
    res = bioik.solve(robot, goals, seed, solver=solver, timeout=5.0, max_iterations=2000, random_seed=4)
    assert res.success
    assert np.linalg.norm(res.q[:2] - seed[:2]) < 0.5, res.q[:3]


def test_joint_goal_acceptance(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    for value in (q[2], q[2] + 5e-6, q[2] + 2e-5, 0.0):
        assert_acceptance(robot, JointVariableGoal("j3", value), q)
    ok, errors, primary, secondary = Problem(robot, [CenterJointsGoal(), AvoidJointLimitsGoal()]).accept(q)
    assert ok and primary == 0.0 and secondary > 0.0  # secondary goals never block success
    assert_acceptance(robot, CenterJointsGoal(secondary=False), q)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: PositionGoal("tip_a", (0, np.nan, 0)), "PositionGoal: position contains NaN"),
        (lambda: PositionGoal("tip_a", (0, 0)), "PositionGoal: position must be 3 numbers"),
        (lambda: PoseGoal("tip_a", np.full((4, 4), np.nan)), "PoseGoal: pose contains NaN"),
        (lambda: PoseGoal("tip_a", np.diag([1.0, 2.0, 1.0, 1.0])), "PoseGoal: pose's rotation part is not orthonormal"),
        (lambda: PoseGoal("tip_a", np.diag([1.0, 1.0, -1.0, 1.0])), "PoseGoal: pose's rotation part is not orthonormal"),
        (lambda: PoseGoal("tip_a", np.eye(4) + np.eye(4, k=-3)), "PoseGoal: pose's last row"),
        (lambda: PoseGoal("tip_a", np.eye(3)), "PoseGoal: pose must be a 4×4"),
        (lambda: PoseGoal("tip_a", np.eye(4), rotation_scale=0.0), "PoseGoal: rotation_scale"),
        (lambda: PoseGoal("tip_a", np.eye(4), position_tolerance=np.nan), "PoseGoal: position_tolerance"),
        (lambda: OrientationGoal("tip_a", (1.0, 0.1, 0.0, 0.0)), "OrientationGoal: quaternion must have unit norm"),
        (lambda: OrientationGoal("tip_a", 2 * np.eye(3)), "OrientationGoal: rotation matrix is not orthonormal"),
        (lambda: OrientationGoal("tip_a", (1.0, np.nan, 0.0, 0.0)), "OrientationGoal: rotation"),
        (lambda: JointVariableGoal("j1", np.nan), "JointVariableGoal: value must be finite"),
        (lambda: JointVariableGoal("j1", "abc"), "JointVariableGoal: value must be a number; got 'abc'"),
        (lambda: CenterJointsGoal(weight=-1.0), "CenterJointsGoal: weight"),
    ],
)
def test_bad_input(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_a_goal_keeps_its_own_validated_copy_and_sees_reassigned_fields():
    """Goals convert their inputs once, when built: the caller's array may change later
    without effect, editing the goal's arrays in place is an error, and a reassigned field
    is validated and used (never a stale or unchecked value)."""
    T = np.eye(4)
    g = PoseGoal("tool0", T)
    T[0, 3] = 5.0
    assert g.params(None)[0] == 0.0 and g.pose[0, 3] == 0.0
    with pytest.raises(ValueError, match="read-only"):
        g.pose[0, 3] = 1.0
    T2 = np.eye(4)
    T2[:3, 3] = [0.1, 0.2, 0.3]
    g.pose = T2
    np.testing.assert_allclose(g.params(None)[:3], [0.1, 0.2, 0.3])
    g.pose = np.full((4, 4), np.nan)
    with pytest.raises(ValueError, match="PoseGoal"):
        g.params(None)
    p = PositionGoal("tool0", [0.1, 0.2, 0.3])
    p.position = [0.4, 0.5, 0.6]
    np.testing.assert_allclose(p.params(None)[:3], [0.4, 0.5, 0.6])
    p.position = [np.nan, 0.0, 0.0]
    with pytest.raises(ValueError, match="PositionGoal: position contains NaN"):
        p.params(None)
    o = OrientationGoal("tool0", [1.0, 0.0, 0.0, 0.0])
    o.rotation = rotation_about([0.0, 0.0, 1.0], 0.5)
    np.testing.assert_allclose(o.params(None)[3:7], quat_from_matrix(rotation_about([0.0, 0.0, 1.0], 0.5)))


def test_pose_in_any_array_form_gives_the_same_goal(rng):
    """PoseGoal copies the common float64 input on a fast path and converts the rest: every
    form gives the same C-ordered float64 pose and parameter row."""
    T = np.eye(4)
    axis = rng.normal(size=3)
    T[:3, :3] = rotation_about(axis / np.linalg.norm(axis), 0.7)
    T[:3, 3] = [0.1, -0.2, 0.3]
    reference = PoseGoal("tool0", T, rotation_scale=2)
    forms = [T.astype(">f8"), np.asfortranarray(T), T.tolist(), np.stack([T, T], axis=-1)[..., 0]]
    for form in forms:
        g = PoseGoal("tool0", form, rotation_scale=2)
        assert g.pose.dtype == np.float64 and g.pose.flags.c_contiguous
        np.testing.assert_array_equal(g.params(None), reference.params(None))
    assert reference.params(None)[7] == 2.0 and not reference.params(None)[8:].any()


@pytest.mark.parametrize("kwargs, message", [
    ({"weight": np.array([1.0, 1.0])}, "PoseGoal: weight must be a number"),
    ({"secondary": np.array([True, False])}, "PoseGoal: secondary must be True or False"),
    ({"link": ["tip_a"]}, r"PoseGoal: link must be a link name \(a str\)"),
])
def test_a_pose_goal_checks_what_is_not_its_defaults(kwargs, message):
    with pytest.raises(TypeError, match=message):
        PoseGoal(**{"link": "tip_a", "pose": np.eye(4), **kwargs})


@pytest.mark.parametrize("make, message", [
    (lambda: PoseGoal("tip_a", object()), "PoseGoal: pose must be a 4×4 homogeneous matrix; got <object"),
    (lambda: PoseGoal("tip_a", ""), "PoseGoal: pose must be a 4×4"),
    (lambda: PoseGoal("tip_a", np.eye(4), rotation_scale=10**400), "PoseGoal: rotation_scale must be a finite number > 0"),
    (lambda: OrientationGoal("tip_a", [object()] * 4), "OrientationGoal: rotation must be a 3×3 matrix or a quaternion"),
    (lambda: OrientationGoal("tip_a", [10**400, 0, 0, 0]), "OrientationGoal: rotation must be a 3×3 matrix or a quaternion"),
])
def test_targets_that_are_not_numbers_are_named(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize("make", [lambda: PositionGoal("tip_a", np.zeros(3)), lambda: OrientationGoal("tip_a", np.eye(3)),
                                  lambda: PoseGoal("tip_a", np.eye(4))])
@pytest.mark.parametrize("field, value, error", [("weight", [], TypeError), ("link", ["tip_a"], TypeError),
                                                 ("secondary", np.ones(2), TypeError)])
def test_every_reassigned_field_of_a_pose_type_goal_is_checked_again(make, field, value, error):
    goal = make()
    setattr(goal, field, value)
    with pytest.raises(error, match=f"{type(goal).__name__}: {field} must be"):
        goal.refresh()
    with pytest.raises(error, match=f"{field} must be"):
        goal.params(None)
