"""Every bundled robot: FK matches yourdfpy for every link; names, groups and limits; and the
sources `load_robot` refuses by name."""

import io

import numpy as np
import pytest
import yourdfpy

import bioik
from bioik.model import URDFError, UnknownNameError


@pytest.mark.parametrize("name", bioik.robots.names())
def test_fk_matches_yourdfpy_for_every_link(name):
    robot = bioik.load_robot(name)
    full = robot.with_group(list(robot.model.joint_names))  # every variable active
    ref = yourdfpy.URDF.load(str(bioik.robots.urdf_path(name)), load_meshes=False)
    rng = np.random.default_rng(42)
    Q = full.random_configuration(rng, 200)
    poses = full.fk(Q)
    for n in range(len(Q)):
        ref.update_cfg(full.full_configuration(Q[n]))
        for k, link in enumerate(full.link_names):
            np.testing.assert_allclose(poses[n, k], ref.get_transform(link, ref.base_link), atol=1e-9, err_msg=link)


@pytest.mark.parametrize("name", bioik.robots.names())
def test_groups_resolve_and_limits_are_sane(name):
    robot = bioik.load_robot(name)
    assert robot.group.name == bioik.robots.ROBOTS[name]["default_group"]
    for group in robot.groups:
        g = robot.with_group(group)
        assert g.dof >= 1 and g.tips
        assert np.all(g.lower < g.upper) and np.all(np.isfinite(g.lower)) and np.all(g.velocity > 0)
    assert bioik.robots.urdf_path(name).is_file()


def test_default_groups_of_the_arms():
    assert bioik.load_robot("panda").tips == ["panda_link8"]
    assert bioik.load_robot("panda").variable_names == [f"panda_joint{i}" for i in range(1, 8)]
    assert bioik.load_robot("ur5").variable_names == [
        "shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"
    ]
    assert bioik.load_robot("iiwa14").tips == ["iiwa_link_7"]
    assert bioik.load_robot("dual_ur5").tips == ["left_tool0", "right_tool0"]
    hand = bioik.load_robot("iiwa14_hand")
    assert len(hand.tips) >= 4 and len(hand.model.joints) - sum(j.type == "fixed" for j in hand.model.joints) >= 20
    assert any(j.mimic for j in hand.model.joints)


def test_panda_fingers_are_mimic_coupled_and_frozen():
    robot = bioik.load_robot("panda", group="hand")
    assert robot.variable_names == ["panda_finger_joint1"]
    left, right = robot.link_pose([0.03], "panda_leftfinger"), robot.link_pose([0.03], "panda_rightfinger")
    assert np.linalg.norm(left[:3, 3] - right[:3, 3]) == pytest.approx(0.06, abs=1e-6)


@pytest.mark.parametrize("n", [1, 30, 200])
def test_snake_chain(n):
    s = bioik.robots.snake(n)
    assert s.dof == n and s.tips == ["tip"]
    assert np.linalg.norm(s.link_pose(np.zeros(n), "tip")[:3, 3]) == pytest.approx(1.0)


@pytest.mark.parametrize("bad", [0, -3, 2.5, "10", True])
def test_snake_rejects_bad_sizes(bad):
    with pytest.raises(ValueError, match="n must be a whole number"):
        bioik.robots.snake(bad)


@pytest.mark.parametrize("source", [[b"<robot/>"], 42, None, io.StringIO("<robot/>")])
def test_load_robot_names_what_it_takes_for_other_objects(source):
    with pytest.raises(TypeError, match="cannot load a robot from a .*; expected a bundled robot name, snakeN, a URDF path"):
        bioik.load_robot(source)


def test_a_name_too_long_for_a_path_is_an_unknown_robot_or_a_missing_file():
    with pytest.raises(UnknownNameError, match="unknown robot 'xxxx"):
        bioik.load_robot("x" * 5000)
    with pytest.raises(URDFError, match="does not exist"):
        bioik.load_robot("x" * 5000 + ".urdf")


def test_a_snake_too_long_to_build_is_refused_not_built():
    with pytest.raises(ValueError, match=r"snake: n must be a whole number of joints in \[1, 100000\]; got 99999999999"):
        bioik.load_robot("snake99999999999")
    with pytest.raises(ValueError, match="n must be a whole number of joints"):
        bioik.robots.snake(10**400)
