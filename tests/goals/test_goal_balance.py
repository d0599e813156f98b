"""BalanceGoal: r = (I − ĝĝᵀ)(com − target) over every link with mass."""

import numpy as np
import pytest
from urdf_samples import TREE_URDF
from goal_helpers import assert_acceptance, assert_jacobian, cost, goal_residual_of, random_unit

import bioik
from bioik import BalanceGoal, PositionGoal, Problem

#: A branching robot with masses (and off-origin centres of mass) on several links,
#: including a massless link in the middle and a mass behind a fixed joint.
MASSES_URDF = """<?xml version="1.0"?>
<robot name="masses">
  <link name="base"><inertial><origin xyz="0 0 0.05"/><mass value="3.0"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="upper"><inertial><origin xyz="0.02 -0.01 0.2" rpy="0.3 0 0"/><mass value="1.5"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="elbow"/>
  <link name="lower"><inertial><origin xyz="0.15 0.03 0"/><mass value="0.8"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="hand"><inertial><origin xyz="0.0 0.02 0.04"/><mass value="0.4"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="side"><inertial><origin xyz="0.1 0 0"/><mass value="0.6"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/><limit lower="-3" upper="3" velocity="1" effort="1"/></joint>
  <joint name="pitch" type="revolute"><parent link="upper"/><child link="elbow"/>
    <origin xyz="0 0 0.4" rpy="0.2 0 0"/><axis xyz="0 1 0"/><limit lower="-2" upper="2" velocity="1" effort="1"/></joint>
  <joint name="roll" type="continuous"><parent link="elbow"/><child link="lower"/>
    <origin xyz="0.05 0 0"/><axis xyz="1 0 0.3"/></joint>
  <joint name="wrist" type="fixed"><parent link="lower"/><child link="hand"/><origin xyz="0.3 0 0" rpy="0 0.4 0"/></joint>
  <joint name="slide" type="prismatic"><parent link="upper"/><child link="side"/>
    <origin xyz="0 0.1 0.1"/><axis xyz="0 1 0"/><limit lower="0" upper="0.3" velocity="1" effort="1"/></joint>
</robot>
"""


@pytest.fixture(scope="module")
def robot():
    return bioik.load_robot(MASSES_URDF)


def centre_of_mass(robot, q):
    num, total = np.zeros(3), 0.0
    for link in robot.model.links:
        if link.mass > 0:
            T = robot.link_pose(q, link.name)
            num += link.mass * (T[:3, :3] @ link.com + T[:3, 3])
            total += link.mass
    return num / total


def test_reads_every_link_with_mass(robot):
    assert BalanceGoal().links_for(robot) == ("base", "upper", "lower", "hand", "side")
    problem = Problem(robot, [BalanceGoal()])
    assert problem.links == ["base", "upper", "lower", "hand", "side"]
    assert problem.gf.shape == (1, 6 + 4 * 5)


def test_zero_when_the_com_is_over_the_target(robot, rng):
    q = robot.random_configuration(rng)
    g = random_unit(rng)
    goal = BalanceGoal(target=centre_of_mass(robot, q) + 0.8 * g, gravity=3 * g)
    assert cost(robot, goal, q) < 1e-28
    assert cost(robot, goal, robot.random_configuration(rng)) > 1e-8


def test_residual_matches_definition(robot, rng):
    for _ in range(5):
        q = robot.random_configuration(rng)
        target, gravity = rng.normal(size=3), rng.normal(size=3)
        g = gravity / np.linalg.norm(gravity)
        expected = (np.eye(3) - np.outer(g, g)) @ (centre_of_mass(robot, q) - target)
        np.testing.assert_allclose(goal_residual_of(robot, BalanceGoal(target, gravity=gravity), q), expected, atol=1e-12)
    default = goal_residual_of(robot, BalanceGoal(), q)
    np.testing.assert_allclose(default, [*centre_of_mass(robot, q)[:2], 0.0], atol=1e-12)


def test_jacobian_matches_finite_differences(robot, rng):
    for _ in range(4):
        assert_jacobian(robot, BalanceGoal(rng.normal(size=3), gravity=rng.normal(size=3)), robot.random_configuration(rng))


def test_acceptance(robot, rng):
    q = robot.random_configuration(rng)
    com = centre_of_mass(robot, q)
    for eps in (0.0, 5e-6, 2e-5, 0.1):
        assert_acceptance(robot, BalanceGoal(target=com + [eps, 0.0, 0.3]), q)


def test_next_to_other_goals(robot, rng):
    """Balance's wide parameter row and its links coexist with other goals in one problem."""
    q = robot.random_configuration(rng)
    goals = [
        PositionGoal("hand", rng.normal(size=3)),
        BalanceGoal(rng.normal(size=3), weight=2.0),
        PositionGoal("side", rng.normal(size=3)),
    ]
    singles = [Problem(robot, [g]).cost(q)[0] for g in goals]
    assert Problem(robot, goals).cost(q)[0] == pytest.approx(sum(singles))


def test_bad_input():
    with pytest.raises(ValueError, match="BalanceGoal: gravity"):
        BalanceGoal(gravity=(0, 0, 0))
    with pytest.raises(ValueError, match="BalanceGoal: target"):
        BalanceGoal(target=(np.nan, 0, 0))
    massless = bioik.load_robot(TREE_URDF.replace('<mass value="2.0"/>', '<mass value="0.0"/>'))
    with pytest.raises(ValueError, match="BalanceGoal: robot 'tree' has no link with mass"):
        Problem(massless, [BalanceGoal()])
