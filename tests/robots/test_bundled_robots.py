"""Every bundled robot: FK matches yourdfpy for every link; names, groups and limits; the
robots with a planar or floating base joint solve reachable targets in every group; and
the sources `load_robot` refuses by name."""

import io

import numpy as np
import pytest
import yourdfpy
from scipy.spatial.transform import Rotation

import bioik
from bioik.model import URDFError, UnknownNameError
from bioik.kinematics.robot import UNBOUNDED_SAMPLE
from bioik.model.robot_model import PRISMATIC

MULTI = ("planar", "floating")  # joints of several variables: yourdfpy leaves them at their origin


def multi_joint_motion(jtype: str, values: list[float]) -> np.ndarray:
    """The motion of a planar joint with normal z (x, y, theta) or of a floating joint
    (translation, then intrinsic x-y-z rotations), written from those definitions."""
    T = np.eye(4)
    if jtype == "planar":
        T[:2, 3] = values[:2]
        T[:3, :3] = Rotation.from_euler("z", values[2]).as_matrix()
    else:
        T[:3, 3] = values[:3]
        T[:3, :3] = Rotation.from_euler("XYZ", values[3:]).as_matrix()
    return T


def reference_poses(ref: yourdfpy.URDF, cfg: dict[str, float], links: list[str]) -> list[np.ndarray]:
    """yourdfpy's poses of `links`, with the motions of planar and floating joints put in:
    T(link) = ∏ over those joints J above it, root first, of A_J M_J A_J⁻¹, times yourdfpy's
    T(link), where A_J is yourdfpy's pose of J's child."""
    multi = [j for j in ref.robot.joints if j.type in MULTI]
    ref.update_cfg({j: v for j, v in cfg.items() if "/" not in j})
    parent_joint = {j.child: j for j in ref.robot.joints}
    conj = {}
    for j in multi:
        assert j.type == "floating" or np.allclose(j.axis, [0, 0, 1]), j.name  # the planar motion above assumes normal z
        A = ref.get_transform(j.child, ref.base_link)
        values = [v for name, v in cfg.items() if name.startswith(j.name + "/")]
        conj[j.name] = A @ multi_joint_motion(j.type, values) @ np.linalg.inv(A)
    out = []
    for link in links:
        T, above = ref.get_transform(link, ref.base_link), link
        while above in parent_joint:  # deepest joint first, so each conjugate goes on the left
            j = parent_joint[above]
            if j.name in conj:
                T = conj[j.name] @ T
            above = j.parent
        out.append(T)
    return out


@pytest.mark.parametrize("name", bioik.robots.names())
def test_fk_matches_yourdfpy_for_every_link(name):
    robot = bioik.load_robot(name)
    full = robot.with_group(list(robot.model.joint_names))  # every variable active
    ref = yourdfpy.URDF.load(str(bioik.robots.urdf_path(name)), load_meshes=False)
    rng = np.random.default_rng(42)
    Q = full.random_configuration(rng, 200)
    poses = full.fk(Q)
    for n in range(len(Q)):
        for k, T in enumerate(reference_poses(ref, full.full_configuration(Q[n]), full.link_names)):
            np.testing.assert_allclose(poses[n, k], T, atol=1e-9, err_msg=full.link_names[k])


@pytest.mark.parametrize("name", bioik.robots.names())
def test_groups_resolve_and_limits_are_sane(name):
    robot = bioik.load_robot(name)
    assert robot.group.name == bioik.robots.ROBOTS[name]["default_group"]
    for group in robot.groups:
        g = robot.with_group(group)
        assert g.dof >= 1 and g.tips
        unbounded = [robot.model.joint(robot.model.variables[v].joint).type in MULTI + ("continuous",) for v in g.group.variables]
        assert list(~np.isfinite(g.lower)) == list(~np.isfinite(g.upper)) == unbounded
        assert np.all(g.lower < g.upper) and np.all(g.velocity > 0)
        # variables without limits are sampled in ±π (angles) or ±1 m (translations)
        half = np.where(g.kinds == PRISMATIC, UNBOUNDED_SAMPLE[PRISMATIC], np.pi)
        np.testing.assert_array_equal(np.where(unbounded, -half, g.lower), g.sample_lower)
        np.testing.assert_array_equal(np.where(unbounded, half, g.upper), g.sample_upper)
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


@pytest.mark.parametrize("name,group", [(n, g) for n in ("humanoid", "mobile_ur5") for g in bioik.robots.ROBOTS[n]["groups"]])
def test_planar_and_floating_base_robots_solve_reachable_targets_in_every_group(name, group):
    """Pose goals on every tip at a random configuration's poses; seeded, on an iteration
    budget (the timeout never binds), so the count does not depend on the machine."""
    robot = bioik.load_robot(name, group=group)
    rng = np.random.default_rng(3)
    solved = 0
    for k in range(10):
        q = robot.random_configuration(rng)
        goals = [bioik.PoseGoal(tip, robot.link_pose(q, tip)) for tip in robot.tips]
        res = bioik.solve(robot, goals, solver="lm", timeout=3600.0, max_iterations=2000, random_seed=k)
        assert robot.within_limits(res.q)
        solved += res.success
    assert solved >= 9


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
