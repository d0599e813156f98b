"""MoveIt-shaped calls: search_position_ik, get_position_ik (local, no restarts), configs."""

import re

import numpy as np
import pytest

import bioik
import bioik.moveit
from bioik import IKErrorCode, KinematicsConfig

OPTIONS = dict(timeout=3600.0, max_iterations=3000, random_seed=7)


@pytest.fixture(scope="module")
def ur5():
    return bioik.load_robot("ur5")


@pytest.fixture
def results(monkeypatch):
    """Every Result the moveit module's solve() calls return, in order."""
    seen = []

    def recording_solve(*args, **kwargs):
        res = bioik.solve(*args, **kwargs)
        seen.append(res)
        return res

    monkeypatch.setattr(bioik.moveit, "solve", recording_solve)
    return seen


def test_error_codes_are_moveits():
    assert IKErrorCode.SUCCESS == 1 and IKErrorCode.NO_IK_SOLUTION == -31


def test_search_solves_an_fk_target(ur5, rng):
    T = ur5.link_pose(ur5.random_configuration(rng), "tool0")
    q, code = bioik.search_position_ik(ur5, [T], ur5.center(), options=OPTIONS)
    assert code == IKErrorCode.SUCCESS
    assert np.abs(ur5.link_pose(q, "tool0") - T).max() < 1e-4


def test_search_two_tips_from_a_dict(rng):
    dual = bioik.load_robot("dual_ur5")
    target = dual.random_configuration(rng)
    poses = {tip: dual.link_pose(target, tip) for tip in reversed(dual.tips)}
    q, code = bioik.search_position_ik(dual, poses, dual.center(), options=KinematicsConfig(**OPTIONS))
    assert code == IKErrorCode.SUCCESS
    for tip, T in poses.items():
        assert np.abs(dual.link_pose(q, tip) - T).max() < 1e-4


def test_unreachable_reports_no_solution_within_limits(ur5):
    T = np.eye(4)
    T[:3, 3] = [5.0, 0.0, 0.0]
    q, code = bioik.search_position_ik(ur5, {"tool0": T}, ur5.center(), options=dict(OPTIONS, max_iterations=500))
    assert code == IKErrorCode.NO_IK_SOLUTION
    assert ur5.within_limits(q)


def test_solution_callback_can_reject_everything(ur5, rng, results):
    T = ur5.link_pose(ur5.random_configuration(rng), "tool0")
    calls = []
    _, code = bioik.search_position_ik(ur5, [T], ur5.center(), solution_callback=lambda q: calls.append(q) or False,
                                      options=dict(OPTIONS, max_iterations=300))
    assert code == IKErrorCode.NO_IK_SOLUTION and calls and results[-1].callback_calls == len(calls)


def test_get_position_ik_is_local(ur5, results):
    rng = np.random.default_rng(5)
    q_goal, far_seed = ur5.random_configuration(rng), ur5.random_configuration(rng)  # a pair lm cannot join locally
    T = ur5.link_pose(q_goal, "tool0")
    q, code = bioik.get_position_ik(ur5, [T], q_goal + 0.05)
    assert code == IKErrorCode.SUCCESS and np.abs(q - q_goal).max() < 0.1
    q, code = bioik.get_position_ik(ur5, [T], far_seed)
    assert code == IKErrorCode.NO_IK_SOLUTION and ur5.within_limits(q)
    assert [r.restarts for r in results] == [0, 0]
    assert results[-1].iterations <= bioik.moveit.LOCAL_ITERATIONS
    _, code = bioik.search_position_ik(ur5, [T], far_seed, options=OPTIONS)  # restarts find it
    assert code == IKErrorCode.SUCCESS and results[-1].restarts > 0


@pytest.mark.parametrize(
    "poses, message",
    [
        ({"tool1": np.eye(4)}, r"unknown: \['tool1'\], missing: \['tool0'\]"),
        ([np.eye(4), np.eye(4)], "a list of 1 4×4 poses.*got 2"),
        ([np.eye(3)], "PoseGoal: pose must be a 4×4"),
    ],
)
def test_bad_poses_name_the_problem(ur5, poses, message):
    with pytest.raises(ValueError, match=message):
        bioik.search_position_ik(ur5, poses, ur5.center())


def test_seed_is_required_for_local_ik(ur5):
    with pytest.raises(ValueError, match="seed must have 6 values"):
        bioik.get_position_ik(ur5, [np.eye(4)], [0.0])


def test_config_from_toml(tmp_path):
    path = tmp_path / "kinematics.toml"
    path.write_text('solver = "bio2"\ntimeout = 0.01\nposition_tolerance = 1e-4\n[parameters]\npopulation_size = 12\n')
    config = KinematicsConfig.from_file(path)
    assert (config.solver, config.timeout, config.position_tolerance, config.rotation_tolerance) == ("bio2", 0.01, 1e-4, 1e-5)
    assert config.parameters == {"population_size": 12}


@pytest.mark.parametrize(
    "text, message",
    [
        ('solvr = "lm"\n', "unknown key 'solvr'"),
        ('solver = "lmm"\n', "key 'solver' must be one of .*lm"),
        ('timeout = "fast"\n', "key 'timeout' must be int or float; got str"),
        ("timeout = -1.0\n", "key 'timeout' must be a finite number of seconds > 0"),
        ("[parameters]\ndamping_typo = 1.0\n", r"key 'parameters.damping_typo' is not a parameter of solver 'lm'"),
        ("[parameters]\ndamping = true\n", "key 'parameters.damping' must be a finite number"),
        ("timeout = \n", "not valid TOML"),
    ],
)
def test_bad_config_file_names_file_and_key(tmp_path, text, message):
    path = tmp_path / "kinematics.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=re.escape(str(path)) + ": .*" + message):
        KinematicsConfig.from_file(path)


def test_yaml_needs_pyyaml_or_loads(tmp_path):
    path = tmp_path / "kinematics.yaml"
    path.write_text("solver: lm\ntimeout: 0.02\n")
    try:
        import yaml  # noqa: F401
    except ImportError:
        with pytest.raises(ValueError, match="PyYAML"):
            KinematicsConfig.from_file(path)
    else:
        assert KinematicsConfig.from_file(path).timeout == 0.02


def test_options_dict_errors_name_options(ur5):
    with pytest.raises(ValueError, match="options: unknown key 'timeot'"):
        bioik.search_position_ik(ur5, [np.eye(4)], ur5.center(), options={"timeot": 1.0})


PANDA_KINEMATICS_YAML = """\
panda_arm:
  kinematics_solver: bio_ik/BioIKKinematicsPlugin
  kinematics_solver_search_resolution: 0.005
  kinematics_solver_timeout: 0.005
  kinematics_solver_attempts: 3
  mode: bio2_memetic
  population_size: 4
  elite_count: 2
  threads: 1
  no_wipeout: true
  dpos: 0.0001
  drot: 0.001
  random_seed: 5
hand:
  kinematics_solver: kdl_kinematics_plugin/KDLKinematicsPlugin
  kinematics_solver_timeout: 0.01
"""


def test_moveit_kinematics_yaml_per_group(tmp_path):
    path = tmp_path / "kinematics.yaml"
    path.write_text(PANDA_KINEMATICS_YAML)
    with pytest.warns(bioik.moveit_config.KinematicsConfigWarning) as seen:
        config = KinematicsConfig.from_file(path, group="panda_arm")
    ignored = sorted(re.search(r"key '(\w+)'", str(w.message)).group(1) for w in seen)
    # the plugin reads population_size, elite_count and no_wipeout for its bio1 alone
    assert ignored == ["elite_count", "kinematics_solver_attempts", "kinematics_solver_search_resolution", "no_wipeout",
                       "population_size"]
    assert all("bio1 only" in str(w.message) for w in seen if "_count" in str(w.message) or "wipeout" in str(w.message))
    assert (config.solver, config.timeout, config.position_tolerance, config.rotation_tolerance, config.random_seed) == (
        "bio2_memetic", 0.005, 1e-4, 1e-3, 5)
    assert config.parameters == {"threads": 1}
    hand = KinematicsConfig.from_file(path, group="hand")
    assert (hand.solver, hand.timeout) == ("kdl", 0.01)
    with pytest.raises(ValueError, match=r"several groups \(panda_arm, hand\); choose one with group="):
        KinematicsConfig.from_file(path)
    with pytest.raises(ValueError, match="no group 'arm'; groups: panda_arm, hand"):
        KinematicsConfig.from_file(path, group="arm")


def test_moveit_flat_entry_and_bioik_keys(tmp_path):
    path = tmp_path / "kinematics.yaml"
    path.write_text("kinematics_solver: bio_ik/BioIKKinematicsPlugin\nkinematics_solver_timeout: 0.02\n"
                    "mode: bio1\npopulation_size: 10\nelite_count: 3\nno_wipeout: true\ndtwist: 0.0002\nposition_only_ik: true\n"
                    "center_joints_weight: 0.5\n")
    config = KinematicsConfig.from_file(path)
    assert (config.solver, config.timeout, config.position_tolerance, config.rotation_tolerance) == ("bio1", 0.02, 2e-4, 2e-4)
    assert config.parameters == {"population": 10, "elites": 3, "wipes": 0.0} and config.position_only and config.center_joints_weight == 0.5
    only_plugin = KinematicsConfig.from_dict({"kinematics_solver": "bio_ik/BioIKKinematicsPlugin"})
    assert only_plugin.solver == "bio2_memetic"  # BioIK's default mode


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"kinematics_solver": "bio_ik/BioIKKinematicsPlugin", "mode": "gd_8"}, "key 'mode': 'gd_8' is not a bioik solver"),
        ({"kinematics_solver": "my_plugin/Fancy"}, "key 'kinematics_solver': 'my_plugin/Fancy' is not a plugin"),
        ({"kinematics_solver_timeout": 0.01, "populaton_size": 4}, "unknown key 'populaton_size'; known keys: .*population_size"),
        ({"mode": "bio1", "population_size": 0}, r"parameters.population' must be an integer in \[2, 1000\]; got 0"),
        ({"mode": "bio2", "no_wipeout": "yes"}, "key 'no_wipeout' must be true or false"),
        ({"arm": {"mode": "lm"}, "typo": 1}, "unknown key 'typo'; expected group entries"),
    ],
)
def test_moveit_entry_errors_name_the_key(entry, message):
    with pytest.raises(ValueError, match=message) as e:
        KinematicsConfig.from_dict(entry)
    assert isinstance(e.value, bioik.BioikError)


def test_moveit_keys_without_meaning_warn():
    with pytest.warns(bioik.moveit_config.KinematicsConfigWarning) as seen:
        KinematicsConfig.from_dict({"mode": "lm", "threads": 4, "linear_fitness": False})
    messages = sorted(str(w.message) for w in seen)
    assert "key 'linear_fitness' has no meaning in bioik" in messages[0]
    assert "key 'threads' has no meaning for solver 'lm'" in messages[1]


def test_config_goals_are_added_to_each_query(ur5, rng, results):
    T = ur5.link_pose(ur5.random_configuration(rng), "tool0")
    config = KinematicsConfig(solver="lm", position_only=True, minimal_displacement_weight=0.5, **OPTIONS)
    q, code = bioik.search_position_ik(ur5, [T], ur5.center(), options=config)
    assert code == IKErrorCode.SUCCESS and np.allclose(ur5.link_pose(q, "tool0")[:3, 3], T[:3, 3], atol=1e-5)
    assert results[-1].goal_errors.shape == (2, 2)  # the position goal and the minimal displacement goal


def test_query_options_extra_goals_replace_and_fixed_joints(ur5, rng):
    T = ur5.link_pose(ur5.random_configuration(rng), "tool0")
    extra = bioik.JointVariableGoal("wrist_3_joint", 0.5, secondary=False)
    q, code = bioik.search_position_ik(ur5, None, ur5.center(), options=OPTIONS, goals=[bioik.PositionGoal("tool0", T[:3, 3]), extra],
                                       replace=True)
    assert code == IKErrorCode.SUCCESS and abs(q[5] - 0.5) <= 1e-5
    seed = ur5.random_configuration(rng)
    reachable = ur5.link_pose(np.r_[seed[:1], ur5.random_configuration(rng)[1:]], "tool0")
    seen = []
    q, code = bioik.search_position_ik(ur5, [reachable], seed, options=OPTIONS, fixed_joints=["shoulder_pan_joint"],
                                       solution_callback=lambda x: seen.append(x) or True)
    assert code == IKErrorCode.SUCCESS and q[0] == seed[0] and q.shape == (6,)
    assert np.allclose(ur5.link_pose(q, "tool0"), reachable, atol=1e-4) and np.array_equal(seen[-1], q)
    with pytest.raises(ValueError, match="fixed_joints must name variables of the group"):
        bioik.search_position_ik(ur5, [reachable], seed, fixed_joints=["elbow"])
    with pytest.raises(ValueError, match="replace=True needs goals"):
        bioik.search_position_ik(ur5, None, seed, replace=True)
