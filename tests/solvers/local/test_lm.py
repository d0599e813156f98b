"""lm with secondary goals: they must never keep the primary goals from being met [R 3.7.3],
and they still pull the answer their way. Seeded, iteration budgets only (no clock)."""

import numpy as np
import pytest

import bioik

NO_CLOCK = 3600.0


@pytest.fixture(scope="module")
def humanoid_reach():
    """The balance demo's reach: both soles fixed, left hand by the side, the right hand
    from the chest to 0.75 m in front and down to 0.8 m, in 10 steps."""
    robot = bioik.load_robot("humanoid", group="floating_whole_body")
    stand = robot.clip(np.zeros(robot.dof))
    fixed = [bioik.PoseGoal(f, robot.link_pose(stand, f)) for f in ("left_foot", "right_foot")]
    fixed.append(bioik.PositionGoal("left_hand", robot.link_pose(stand, "left_hand")[:3, 3]))
    steps = [[*fixed, bioik.PositionGoal("right_hand", p)] for p in np.linspace([0.25, -0.25, 1.1], [0.75, -0.25, 0.8], 10)]
    return robot, stand, steps


@pytest.mark.parametrize("solver", ["lm", "bio2_lm"])
def test_minimal_displacement_keeps_every_reach_step_solved_and_cuts_the_motion(humanoid_reach, solver):
    robot, stand, steps = humanoid_reach
    motion = {}
    for md in (False, True):
        res = bioik.track(robot, steps, stand, timeout=NO_CLOCK, solver=solver, minimal_displacement=md,
                          random_seed=0, max_iterations=3000)
        assert res.success.all(), f"minimal_displacement={md}: steps {np.flatnonzero(~res.success)} unsolved"
        motion[md] = np.abs(np.diff(np.vstack([stand, res.q]), axis=0)).sum(axis=1)
    # the secondary goal still acts: less motion in all, and on the first, long reach from the stand
    # (lm's damped steps are short already; bio2_lm's evolution without it wanders off, 60 rad in all)
    assert motion[True].sum() < motion[False].sum() and motion[True][0] < 0.8 * motion[False][0]


def test_a_secondary_head_orientation_leaves_the_reach_solved_and_the_head_nearer_upright(humanoid_reach):
    robot, stand, steps = humanoid_reach
    upright = robot.link_pose(stand, "head")[:3, :3]
    tilt = {}
    for extra in ([], [bioik.OrientationGoal("head", upright, secondary=True)]):
        res = bioik.track(robot, [[*s, *extra] for s in steps], stand, timeout=NO_CLOCK, solver="lm",
                          minimal_displacement=False, random_seed=0, max_iterations=3000)
        assert res.success.all(), f"{extra}: steps {np.flatnonzero(~res.success)} unsolved"
        R = [robot.link_pose(q, "head")[:3, :3] @ upright.T for q in res.q]
        tilt[bool(extra)] = np.mean([np.arccos(np.clip((np.trace(r) - 1) / 2, -1, 1)) for r in R])
    assert tilt[True] < 0.5 * tilt[False]


@pytest.mark.parametrize("solver", ["lm", "bio2_lm"])
def test_centre_joints_does_not_stop_a_three_fingertip_pinch(solver):
    """hand_fingertips.py's pinch: solved from the same seeds with and without the goal."""
    robot = bioik.load_robot("iiwa14_hand")
    centre, radius = np.array([0.55, 0.0, 0.35]), 0.03
    goals = [bioik.PositionGoal("thumb_tip", centre + [0.0, radius, 0.0]),
             bioik.PositionGoal("index_tip", centre + [0.0, -radius * np.cos(0.4), radius * np.sin(0.4)]),
             bioik.PositionGoal("middle_tip", centre + [0.0, -radius * np.cos(0.4), -radius * np.sin(0.4)])]
    for random_seed in range(5):
        for extra in ([], [bioik.CenterJointsGoal(weight=0.1)]):
            res = bioik.solve(robot, goals + extra, seed=robot.center(), solver=solver, timeout=NO_CLOCK,
                              random_seed=random_seed, max_iterations=2000)
            assert res.success, f"seed {random_seed}, {extra}: errors {[e for e, _ in res.goal_errors]}"
