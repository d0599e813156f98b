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
