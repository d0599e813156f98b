"""The bundled URDF models, checked with yourdfpy against the manufacturers' published data.

The reference kinematics below are written independently of the URDF files, in plain numpy,
straight from the published tables (UR: standard DH; Franka: Craig's modified DH; KUKA iiwa 14
R820: standard DH built from the datasheet lengths 0.36 / 0.42 / 0.40 / 0.126 m).
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import numpy as np
import pytest
import yourdfpy

from bioik.robots.catalog import ROBOTS
from bioik.robots.snake import MAX_JOINTS, snake_groups, snake_urdf

URDF_DIR = Path(__file__).resolve().parents[2] / "src" / "bioik" / "robots" / "urdf"
PI = math.pi


# ----------------------------------------------------------------- reference kinematics ----
def rot_x(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])


def rot_z(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])


def trans(x, y, z):
    T = np.eye(4)
    T[:3, 3] = (x, y, z)
    return T


def standard_dh(q, d, a, alpha):
    """Standard DH: T_i = Rz(q_i) Tz(d_i) Tx(a_i) Rx(alpha_i)."""
    T = np.eye(4)
    for qi, di, ai, al in zip(q, d, a, alpha):
        T = T @ rot_z(qi) @ trans(0, 0, di) @ trans(ai, 0, 0) @ rot_x(al)
    return T


def modified_dh(q, d, a, alpha):
    """Craig's modified DH: T_i = Rx(alpha_{i-1}) Tx(a_{i-1}) Rz(q_i) Tz(d_i)."""
    T = np.eye(4)
    for qi, di, ai, al in zip(q, d, a, alpha):
        T = T @ rot_x(al) @ trans(ai, 0, 0) @ rot_z(qi) @ trans(0, 0, di)
    return T


UR_JOINTS = ["shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"]
UR_LINKS = ["base_link", "base", "shoulder_link", "upper_arm_link", "forearm_link", "wrist_1_link", "wrist_2_link",
            "wrist_3_link", "flange", "tool0"]
UR_ALPHA = [PI / 2, 0, 0, PI / 2, -PI / 2, 0]
UR_DH = {  # Universal Robots' published DH parameters (CB3)
    "ur5": dict(d=[0.089159, 0, 0, 0.10915, 0.09465, 0.0823], a=[0, -0.425, -0.39225, 0, 0, 0]),
    "ur10": dict(d=[0.1273, 0, 0, 0.163941, 0.1157, 0.0922], a=[0, -0.612, -0.5723, 0, 0, 0]),
}
PANDA_A = [0, 0, 0, 0.0825, -0.0825, 0, 0.088]
PANDA_D = [0.333, 0, 0.316, 0, 0.384, 0, 0]
PANDA_ALPHA = [0, -PI / 2, PI / 2, PI / 2, -PI / 2, PI / 2, PI / 2]
IIWA_D = [0.36, 0, 0.42, 0, 0.40, 0, 0.126]
IIWA_ALPHA = [-PI / 2, PI / 2, PI / 2, -PI / 2, -PI / 2, PI / 2, 0]


def ur_reference(name):
    return lambda q: standard_dh(q, UR_DH[name]["d"], UR_DH[name]["a"], UR_ALPHA)


# name: (base link, flange link, joint names, DH(q), fixed base transform, fixed flange transform)
ARMS = {
    # base_link is the robot foot, turned pi about z against the controller base (DH frame 0);
    # tool0 is DH frame 6.
    "ur5": ("base_link", "tool0", UR_JOINTS, ur_reference("ur5"), rot_z(PI), np.eye(4)),
    "ur10": ("base_link", "tool0", UR_JOINTS, ur_reference("ur10"), rot_z(PI), np.eye(4)),
    # Franka: frames = modified DH frames; the flange is 0.107 m along z of frame 7.
    "panda": ("panda_link0", "panda_link8", [f"panda_joint{i}" for i in range(1, 8)],
              lambda q: modified_dh(q, PANDA_D, PANDA_A, PANDA_ALPHA), np.eye(4), trans(0, 0, 0.107)),
    # KUKA: link_0 = DH frame 0, link_7 = flange = DH frame 7.
    "iiwa14": ("iiwa_link_0", "iiwa_link_7", [f"iiwa_joint_{i}" for i in range(1, 8)],
               lambda q: standard_dh(q, IIWA_D, [0] * 7, IIWA_ALPHA), np.eye(4), np.eye(4)),
}

PUBLISHED_LIMITS = {  # lower, upper [rad], velocity [rad/s], effort [N m]
    "ur5": ([-2 * PI, -2 * PI, -PI, -2 * PI, -2 * PI, -2 * PI], [2 * PI, 2 * PI, PI, 2 * PI, 2 * PI, 2 * PI],
            [PI] * 6, [150, 150, 150, 28, 28, 28]),
    "ur10": ([-2 * PI, -2 * PI, -PI, -2 * PI, -2 * PI, -2 * PI], [2 * PI, 2 * PI, PI, 2 * PI, 2 * PI, 2 * PI],
             np.radians([120, 120, 180, 180, 180, 180]), [330, 330, 150, 56, 56, 56]),
    "panda": ([-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973],
              [2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973],
              [2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61], [87, 87, 87, 87, 12, 12, 12]),
    "iiwa14": (np.radians([-170, -120, -170, -120, -170, -120, -175]), np.radians([170, 120, 170, 120, 170, 120, 175]),
               np.radians([85, 85, 100, 75, 130, 135, 135]), [320, 320, 176, 176, 110, 40, 40]),
}

FILES = ["ur5", "ur10", "panda", "iiwa14", "elise_ur10", "dual_ur5", "iiwa14_hand", "humanoid", "mobile_ur5"]


# ------------------------------------------------------------------------------ helpers ----
_CACHE: dict[str, yourdfpy.URDF] = {}


def load(name: str) -> yourdfpy.URDF:
    if name not in _CACHE:
        _CACHE[name] = yourdfpy.URDF.load(str(URDF_DIR / f"{name}.urdf"), build_scene_graph=True, load_meshes=False)
    return _CACHE[name]


def movable(urdf: yourdfpy.URDF):
    return [j for j in urdf.robot.joints if j.type != "fixed"]


def random_cfg(urdf: yourdfpy.URDF, rng: np.random.Generator) -> dict[str, float]:
    """Random values within limits for every independent (non-mimic) joint."""
    return {j.name: float(rng.uniform(j.limit.lower, j.limit.upper)) for j in movable(urdf) if j.mimic is None}


def pose(urdf: yourdfpy.URDF, cfg: dict[str, float], frame: str, base: str) -> np.ndarray:
    urdf.update_cfg(cfg)
    return urdf.get_transform(frame, base)


def rotation_error(R1: np.ndarray, R2: np.ndarray) -> float:
    """Angle [rad] of R1^T R2 (robust near zero)."""
    E = R1.T @ R2
    s = 0.5 * np.linalg.norm([E[2, 1] - E[1, 2], E[0, 2] - E[2, 0], E[1, 0] - E[0, 1]])
    return math.atan2(s, 0.5 * (np.trace(E) - 1))


def assert_same_pose(T, ref, tol=1e-6, msg=""):
    assert np.linalg.norm(T[:3, 3] - ref[:3, 3]) < tol, f"{msg}: position {T[:3, 3]} != {ref[:3, 3]}"
    assert rotation_error(T[:3, :3], ref[:3, :3]) < tol, f"{msg}: rotation differs by {rotation_error(T[:3, :3], ref[:3, :3])}"


# -------------------------------------------------------------------------------- tests ----
@pytest.mark.parametrize("name", FILES)
def test_every_urdf_parses(name):
    text = (URDF_DIR / f"{name}.urdf").read_text()
    assert text.startswith('<?xml version="1.0"?>\n<!--')  # documented header comment
    assert "<mesh" not in text
    urdf = load(name)
    assert urdf.robot.name == name
    assert len(urdf.base_link) > 0


@pytest.mark.parametrize("name", list(ARMS))
def test_flange_equals_published_kinematics(name):
    base, flange, joints, dh, B, F = ARMS[name]
    urdf = load(name)
    rng = np.random.default_rng(20240611)
    cfgs = [{j: 0.0 for j in joints}] + [random_cfg(urdf, rng) for _ in range(50)]
    for cfg in cfgs:
        full = {j.name: 0.0 for j in movable(urdf) if j.mimic is None}
        full.update(cfg)
        q = [cfg[j] for j in joints]
        assert_same_pose(pose(urdf, full, flange, base), B @ dh(q) @ F, msg=f"{name} q={np.round(q, 3)}")


@pytest.mark.parametrize("name", list(ARMS))
def test_joint_axes_turn_the_published_way(name):
    """A small positive step of joint i moves the flange like the DH model does (sign check)."""
    base, flange, joints, dh, B, F = ARMS[name]
    urdf = load(name)
    q0 = np.array([0.3, -0.4, 0.5, -1.0, 0.6, 1.0, 0.7])[: len(joints)]
    for i in range(len(joints)):
        q = q0.copy()
        q[i] += 1e-3
        cfg = dict(zip(joints, q))
        assert_same_pose(pose(urdf, cfg, flange, base), B @ dh(q) @ F, msg=f"{name} {joints[i]}")


@pytest.mark.parametrize("name", list(ARMS))
def test_arm_names(name):
    urdf = load(name)
    joints = ARMS[name][2]
    assert [j.name for j in movable(urdf) if j.mimic is None][: len(joints)] == joints
    links = set(urdf.link_map)
    expected = {
        "ur5": UR_LINKS,
        "ur10": UR_LINKS,
        "panda": [f"panda_link{i}" for i in range(9)] + ["panda_hand", "panda_leftfinger", "panda_rightfinger", "panda_hand_tcp"],
        "iiwa14": [f"iiwa_link_{i}" for i in range(8)],
    }[name]
    assert set(expected) <= links


@pytest.mark.parametrize("name", list(PUBLISHED_LIMITS))
def test_published_limits(name):
    urdf = load(name)
    joints = [urdf.joint_map[j] for j in ARMS[name][2]]
    lower, upper, velocity, effort = PUBLISHED_LIMITS[name]
    np.testing.assert_allclose([j.limit.lower for j in joints], lower, atol=1e-4)
    np.testing.assert_allclose([j.limit.upper for j in joints], upper, atol=1e-4)
    np.testing.assert_allclose([j.limit.velocity for j in joints], velocity, atol=1e-4)
    np.testing.assert_allclose([j.limit.effort for j in joints], effort, atol=1e-9)


@pytest.mark.parametrize("name", FILES)
def test_limits_are_finite_and_ordered(name):
    """Revolute and prismatic joints have finite ordered ranges; continuous joints speeds and
    efforts only; the floating base joint (root to the robot) nothing to limit."""
    urdf = load(name)
    for j in movable(urdf):
        if j.type == "floating":
            assert j.parent == urdf.base_link, j.name
            continue
        lim = j.limit
        assert lim is not None, j.name
        assert lim.velocity > 0 and lim.effort > 0, j.name
        assert np.isclose(np.linalg.norm(j.axis), 1.0), j.name
        if j.type in ("revolute", "prismatic"):
            assert math.isfinite(lim.lower) and math.isfinite(lim.upper) and lim.lower < lim.upper, j.name
        else:
            assert j.type in ("continuous", "planar") and lim.lower is None and lim.upper is None, j.name


@pytest.mark.parametrize("name", FILES)
def test_bodies_have_primitive_collision_and_inertia(name):
    urdf = load(name)
    for link in urdf.robot.links:
        if link.collisions:
            assert link.inertial is not None and link.inertial.mass > 0, link.name
        for c in link.collisions:
            g = c.geometry
            assert g.mesh is None and (g.box or g.cylinder or g.sphere), link.name
        if link.inertial is not None and link.inertial.mass > 0.01:
            assert link.collisions, f"{link.name} has mass but no collision geometry"
        if link.inertial is not None:
            I = link.inertial.inertia
            ev = np.linalg.eigvalsh(I)
            assert np.allclose(I, I.T) and ev.min() > 0, link.name
            assert ev[0] + ev[1] >= ev[2] * (1 - 1e-6), f"{link.name}: inertia violates the triangle inequality"


def test_ur_masses_are_the_published_ones():
    for name, masses in {"ur5": [3.7, 8.393, 2.275, 1.219, 1.219, 0.1879], "ur10": [7.1, 12.7, 4.27, 2.0, 2.0, 0.365]}.items():
        urdf = load(name)
        assert [urdf.link_map[link].inertial.mass for link in UR_LINKS[2:8]] == pytest.approx(masses)


def test_panda_hand_and_fingers():
    urdf = load("panda")
    j1, j2 = urdf.joint_map["panda_finger_joint1"], urdf.joint_map["panda_finger_joint2"]
    assert j1.type == j2.type == "prismatic" and j1.mimic is None
    assert j2.mimic is not None and j2.mimic.joint == "panda_finger_joint1"
    assert j2.mimic.multiplier == pytest.approx(1.0) and (j2.mimic.offset or 0.0) == pytest.approx(0.0)
    for j in (j1, j2):
        assert (j.limit.lower, j.limit.upper) == pytest.approx((0.0, 0.04))
    # the hand sits on the flange turned -45 deg about z; the TCP is 0.1034 m out along z
    assert_same_pose(pose(urdf, {"panda_finger_joint1": 0.0}, "panda_hand", "panda_link8"), rot_z(-PI / 4))
    assert_same_pose(urdf.get_transform("panda_hand_tcp", "panda_hand"), trans(0, 0, 0.1034))
    # opening by s moves each finger s outwards (the mimic joint follows)
    left0, right0 = (urdf.get_transform(f, "panda_hand")[:3, 3] for f in ("panda_leftfinger", "panda_rightfinger"))
    urdf.update_cfg({"panda_finger_joint1": 0.03})
    left, right = (urdf.get_transform(f, "panda_hand")[:3, 3] for f in ("panda_leftfinger", "panda_rightfinger"))
    np.testing.assert_allclose(left - left0, [0, 0.03, 0], atol=1e-12)
    np.testing.assert_allclose(right - right0, [0, -0.03, 0], atol=1e-12)


def test_iiwa14_hand():
    urdf = load("iiwa14_hand")
    tips = ["thumb_tip", "index_tip", "middle_tip", "ring_tip"]
    assert set(tips) <= set(urdf.link_map)
    joints = movable(urdf)
    assert len(joints) >= 20
    mimics = [j for j in joints if j.mimic is not None]
    assert mimics and all(j.mimic.joint in urdf.joint_map for j in mimics)
    # the arm is exactly the iiwa14
    rng = np.random.default_rng(7)
    arm = load("iiwa14")
    for _ in range(10):
        cfg = {j: float(rng.uniform(-1.5, 1.5)) for j in ARMS["iiwa14"][2]}
        assert_same_pose(pose(urdf, cfg, "iiwa_link_7", "iiwa_link_0"), pose(arm, cfg, "iiwa_link_7", "iiwa_link_0"))
    # a mimic joint follows its leader: DIP = 0.7 * PIP
    urdf.update_cfg({"index_pip_joint": 1.0})
    T = urdf.get_transform("index_distal", "index_middle")
    assert rotation_error(T[:3, :3], np.eye(3)) == pytest.approx(0.7, abs=1e-9)
    # fingertips lie in front of the flange, fingers a hand length long
    urdf.update_cfg({j.name: 0.0 for j in joints if j.mimic is None})
    for tip in tips:
        p = urdf.get_transform(tip, "iiwa_link_7")[:3, 3]
        assert 0.1 < p[2] < 0.3 and abs(p[0]) < 0.05, tip


def test_elise_endoscope():
    urdf = load("elise_ur10")
    ur10 = load("ur10")
    names = [j.name for j in movable(urdf)]
    assert names == UR_JOINTS + ["endoscope_roll_joint", "endoscope_bend1_joint", "endoscope_bend2_joint"]
    for j in ("endoscope_bend1_joint", "endoscope_bend2_joint"):
        assert (urdf.joint_map[j].limit.lower, urdf.joint_map[j].limit.upper) == pytest.approx((-PI / 2, PI / 2))
    rng = np.random.default_rng(11)
    for _ in range(10):
        cfg = random_cfg(urdf, rng)
        arm = {j: cfg[j] for j in UR_JOINTS}
        tool0 = pose(ur10, arm, "tool0", "base_link")
        assert_same_pose(pose(urdf, cfg, "tool0", "base_link"), tool0)
        straight = dict(cfg, endoscope_bend1_joint=0.0, endoscope_bend2_joint=0.0)
        tip = pose(urdf, straight, "endoscope_tip", "tool0")
        np.testing.assert_allclose(tip[:3, 3], [0, 0, 0.46], atol=1e-9)  # 0.06 mount + 0.30 + 0.05 + 0.05


def test_dual_ur5_arms_are_ur5s():
    urdf = load("dual_ur5")
    ur5 = load("ur5")
    assert {"world", "torso", "left_base_link", "right_base_link", "left_tool0", "right_tool0"} <= set(urdf.link_map)
    assert "torso_joint" in urdf.joint_map
    rng = np.random.default_rng(5)
    for side in ("left_", "right_"):
        for _ in range(5):
            cfg = {j: float(rng.uniform(-3, 3)) for j in UR_JOINTS}
            mine = pose(urdf, {side + j: v for j, v in cfg.items()}, side + "tool0", side + "base_link")
            assert_same_pose(mine, pose(ur5, cfg, "tool0", "base_link"))
    # mirrored mounts on the torso sides
    urdf.update_cfg({j.name: 0.0 for j in movable(urdf)})
    left, right = (urdf.get_transform(s + "base_link", "torso")[:3, 3] for s in ("left_", "right_"))
    np.testing.assert_allclose(left * [1, -1, 1], right, atol=1e-12)


def test_humanoid_proportions_and_masses():
    """The figures of the header: 1.70 m standing with the soles on the ground, 65 kg, the
    Winter segment lengths, mirrored sides, and the joints the catalog groups name."""
    urdf = load("humanoid")
    urdf.update_cfg({})
    at = {link: urdf.get_transform(link, "world")[:3, 3] for link in urdf.link_map}
    for side, s in (("left", 1), ("right", -1)):
        np.testing.assert_allclose(at[f"{side}_foot"], [0, s * 0.0812, 0], atol=1e-4)  # soles on the ground
        np.testing.assert_allclose(at[f"{side}_shoulder_pitch_link"], [0, s * 0.2202, 0.818 * 1.70], atol=1e-4)
        for a, b, length in (("hip_pitch", "knee", 0.4165), ("knee", "ankle_pitch", 0.4182),
                             ("shoulder_pitch", "elbow", 0.3162), ("elbow", "wrist_yaw", 0.2482)):
            ja, jb = (urdf.joint_map[f"{side}_{j}"] for j in (a, b))
            assert np.linalg.norm(at[jb.child] - at[ja.child]) == pytest.approx(length, abs=1e-4), (a, b)
        legs = [f"{side}_{j}" for j in ("hip_yaw", "hip_roll", "hip_pitch", "knee", "ankle_pitch", "ankle_roll")]
        arms = [f"{side}_{j}" for j in ("shoulder_pitch", "shoulder_roll", "shoulder_yaw", "elbow", "wrist_yaw", "wrist_pitch",
                                        "wrist_roll")]
        assert all(urdf.joint_map[j].type == "revolute" for j in legs + arms)
    for name, joint in urdf.joint_map.items():  # the right side mirrors the left
        if name.startswith("left_") and joint.type == "revolute":
            right = urdf.joint_map["right_" + name[5:]]
            mirrored = joint.axis[0] == 1 or np.allclose(joint.axis, [0, 0, 1])  # roll and yaw ranges flip sign
            lo, hi = (-right.limit.upper, -right.limit.lower) if mirrored else (right.limit.lower, right.limit.upper)
            assert (joint.limit.lower, joint.limit.upper) == pytest.approx((lo, hi)), name
    assert at["head"][2] + 0.130 * 1.70 == pytest.approx(1.70, abs=1e-4)  # crown at full height
    assert urdf.joint_map["pelvis_free"].type == "floating"
    assert [urdf.joint_map[j].type for j in ("left_sole", "right_sole", "left_palm", "right_palm")] == ["fixed"] * 4
    assert sum(link.inertial.mass for link in urdf.robot.links if link.inertial) == pytest.approx(65.0)
    assert len([j for j in urdf.robot.joints if j.type == "revolute"]) == 31
    # the ankles keep the published ranges: 20 deg dorsiflexion, 50 plantarflexion, 35 inversion, 15 eversion
    assert (urdf.joint_map["left_ankle_pitch"].limit.lower, urdf.joint_map["left_ankle_pitch"].limit.upper) == pytest.approx(
        np.radians([-20, 50]), abs=1e-4)
    assert (urdf.joint_map["left_ankle_roll"].limit.lower, urdf.joint_map["left_ankle_roll"].limit.upper) == pytest.approx(
        np.radians([-35, 15]), abs=1e-4)


def test_mobile_ur5_carries_the_ur5():
    urdf, ur5 = load("mobile_ur5"), load("ur5")
    base, lift = urdf.joint_map["base_planar"], urdf.joint_map["torso_lift"]
    assert base.type == "planar" and np.allclose(base.axis, [0, 0, 1]) and base.parent == "world"
    assert lift.type == "prismatic" and np.allclose(lift.axis, [0, 0, 1]) and (lift.limit.lower, lift.limit.upper) == (0, 0.5)
    assert urdf.link_map["base_link"].collisions[0].geometry.box.size == pytest.approx([0.6, 0.5, 0.3])
    assert urdf.joint_map["wrist_3_joint"].type == "continuous"
    for j in UR_JOINTS[:5]:  # the other arm joints are ur5.urdf's
        a, b = urdf.joint_map[j], ur5.joint_map[j]
        assert (a.type, a.limit.lower, a.limit.upper, a.limit.velocity, a.limit.effort) == (
            b.type, b.limit.lower, b.limit.upper, b.limit.velocity, b.limit.effort)
    rng = np.random.default_rng(13)
    for _ in range(10):
        arm, height = {j: float(rng.uniform(-PI, PI)) for j in UR_JOINTS}, float(rng.uniform(0, 0.5))
        cfg = dict(arm, torso_lift=height)
        assert_same_pose(pose(urdf, cfg, "tool0", "arm_base_link"), pose(ur5, arm, "tool0", "base_link"))
        assert_same_pose(pose(urdf, cfg, "arm_base_link", "base_link"), trans(0, 0, 0.45 + height))


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_catalog_entry(name):
    entry = ROBOTS[name]
    assert set(entry) == {"urdf", "description", "groups", "default_group"}
    assert isinstance(entry["description"], str) and entry["description"]
    assert (URDF_DIR / entry["urdf"]).is_file()
    assert entry["default_group"] in entry["groups"]
    urdf = load(Path(entry["urdf"]).stem)
    parent = {j.child: j.parent for j in urdf.robot.joints}
    for gname, group in entry["groups"].items():
        assert set(group) <= {"chains", "joints", "tips"} and group, gname
        for base, tip in group.get("chains", []):
            assert base in urdf.link_map and tip in urdf.link_map, (gname, base, tip)
            link = tip
            while link != base:  # base must be an ancestor of tip
                assert link in parent, f"{gname}: {base} is not above {tip}"
                link = parent[link]
        for j in group.get("joints", []):
            assert j in urdf.joint_map and urdf.joint_map[j].type != "fixed", (gname, j)
        for t in group.get("tips", []):
            assert t in urdf.link_map, (gname, t)


def test_catalog_covers_every_file():
    assert sorted(Path(e["urdf"]).stem for e in ROBOTS.values()) == sorted(FILES)
    assert sorted(p.stem for p in URDF_DIR.glob("*.urdf")) == sorted(FILES)


@pytest.mark.parametrize("n", [1, 2, 7, 200])
def test_snake(n):
    urdf = yourdfpy.URDF.load(io.StringIO(snake_urdf(n)), build_scene_graph=n <= 7, load_meshes=False)
    joints = movable(urdf)
    assert [j.name for j in joints] == [f"joint_{i}" for i in range(n)]
    assert all(j.type == "revolute" for j in joints)
    assert [tuple(j.axis) for j in joints[:2]] == [(0, 0, 1), (0, 1, 0)][: min(n, 2)]
    assert {"base", "tip"} <= set(urdf.link_map)
    assert snake_groups(n) == {"chain": {"chains": [["base", "tip"]]}}
    if n <= 7:
        urdf.update_cfg({j.name: 0.0 for j in joints})
        np.testing.assert_allclose(urdf.get_transform("tip", "base")[:3, 3], [1, 0, 0], atol=1e-12)


def test_snake_link_length_and_validation():
    urdf = yourdfpy.URDF.load(io.StringIO(snake_urdf(4, 0.1)), build_scene_graph=True, load_meshes=False)
    urdf.update_cfg({f"joint_{i}": 0.0 for i in range(4)})
    np.testing.assert_allclose(urdf.get_transform("tip", "base")[:3, 3], [0.4, 0, 0], atol=1e-12)
    assert "joint_3" in snake_urdf(np.int64(4))
    for bad in (0, -1, 2.5, "3", True, None):
        with pytest.raises(ValueError, match="n must be a whole number"):
            snake_urdf(bad)
    for bad in (0.0, -0.1, float("inf"), float("nan"), "0.1"):
        with pytest.raises(ValueError, match="link_length"):
            snake_urdf(3, bad)
    with pytest.raises(ValueError, match=r"n must be a whole number of joints in \[1, 100000\]"):
        snake_urdf(MAX_JOINTS + 1)
