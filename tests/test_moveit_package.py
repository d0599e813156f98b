"""A MoveIt config package loads in one call: the URDF it names, its SRDF groups and
each group's solver settings from kinematics.yaml."""

import shutil
from pathlib import Path

import pytest

import bioik
from bioik.moveit_package import MoveItConfigError, load_moveit_config

pytest.importorskip("yaml")

SRDF = """<robot name="ur5">
  <group name="manipulator"><chain base_link="base_link" tip_link="tool0"/></group>
  <group name="wrist"><joint name="wrist_1_joint"/><joint name="wrist_2_joint"/><joint name="wrist_3_joint"/></group>
  <group_state name="up" group="manipulator"><joint name="shoulder_lift_joint" value="-1.5707"/></group_state>
  <disable_collisions link1="base_link" link2="shoulder_link" reason="Adjacent"/>
</robot>"""

KINEMATICS = """manipulator:
  kinematics_solver: bio_ik/BioIKKinematicsPlugin
  kinematics_solver_timeout: 0.02
  mode: bio2_memetic
wrist:
  kinematics_solver: kdl_kinematics_plugin/KDLKinematicsPlugin
"""

ASSISTANT = """moveit_setup_assistant_config:
  URDF:
    package: ur5_description
    relative_path: urdf/ur5.urdf
  SRDF:
    relative_path: config/ur5.srdf
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """src/ur5_description (package.xml, urdf/ur5.urdf) beside src/ur5_moveit_config."""
    description = tmp_path / "src" / "ur5_description"
    (description / "urdf").mkdir(parents=True)
    (description / "package.xml").write_text("<package format='3'><name>ur5_description</name></package>")
    shutil.copy(bioik.robots.urdf_path("ur5"), description / "urdf" / "ur5.urdf")
    config = tmp_path / "src" / "ur5_moveit_config"
    (config / "config").mkdir(parents=True)
    (config / ".setup_assistant").write_text(ASSISTANT)
    (config / "config" / "ur5.srdf").write_text(SRDF)
    (config / "config" / "kinematics.yaml").write_text(KINEMATICS)
    return config


def test_a_config_package_gives_the_robot_groups_and_settings(workspace, monkeypatch):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    monkeypatch.delenv("AMENT_PREFIX_PATH", raising=False)
    cfg = bioik.load_moveit_config(workspace)
    assert cfg.urdf.name == "ur5.urdf" and cfg.srdf.name == "ur5.srdf"
    assert cfg.groups == ["manipulator", "wrist"]
    arm = cfg.robot("manipulator")
    assert arm.dof == 6 and arm.tips == ["tool0"]
    assert cfg.robot("wrist").variable_names == ["wrist_1_joint", "wrist_2_joint", "wrist_3_joint"]
    assert (cfg.settings("manipulator").solver, cfg.settings("manipulator").timeout) == ("bio2_memetic", 0.02)
    assert cfg.settings("wrist").solver == "kdl"
    seed = arm.named_configuration("up")
    result = bioik.solve(arm, [bioik.PoseGoal("tool0", arm.link_pose(seed, "tool0"))], seed=seed, max_iterations=5, random_seed=0)
    assert result.success
    with pytest.raises(bioik.UnknownNameError, match="unknown group 'manipulatr'"):
        cfg.settings("manipulatr")


def test_without_setup_assistant_the_urdf_in_config_is_used(workspace):
    (workspace / ".setup_assistant").unlink()
    shutil.copy(bioik.robots.urdf_path("ur5"), workspace / "config" / "ur5.urdf")
    assert load_moveit_config(workspace).robot("manipulator").dof == 6


def test_a_missing_description_package_is_named_with_the_fix(workspace, tmp_path):
    shutil.rmtree(tmp_path / "src" / "ur5_description")
    with pytest.raises(MoveItConfigError, match=r"package 'ur5_description', which was not found: .*package_dirs=\{'ur5_description'"):
        load_moveit_config(workspace)
    other = tmp_path / "elsewhere"
    (other / "urdf").mkdir(parents=True)
    shutil.copy(bioik.robots.urdf_path("ur5"), other / "urdf" / "ur5.urdf")
    assert load_moveit_config(workspace, package_dirs={"ur5_description": other}).robot("wrist").dof == 3


def test_a_folder_that_is_no_config_is_refused(tmp_path):
    with pytest.raises(MoveItConfigError, match="is not a folder"):
        load_moveit_config(tmp_path / "nope")
    with pytest.raises(MoveItConfigError, match="no .setup_assistant naming the URDF and no URDF or xacro"):
        load_moveit_config(tmp_path)


def test_a_xacro_needs_the_xacro_package_or_is_expanded(workspace):
    (workspace / ".setup_assistant").write_text(ASSISTANT.replace("urdf/ur5.urdf", "urdf/ur5.urdf.xacro"))
    xacro_file = workspace.parent / "ur5_description" / "urdf" / "ur5.urdf.xacro"
    xacro_file.write_text(bioik.robots.urdf_path("ur5").read_text().replace("<robot ", '<robot xmlns:xacro="http://www.ros.org/wiki/xacro" ', 1))
    try:
        import xacro  # noqa: F401
    except ImportError:
        with pytest.raises(MoveItConfigError, match=r"is a xacro file: expanding it needs the xacro package \(pip install xacro\)"):
            load_moveit_config(workspace)
    else:
        assert load_moveit_config(workspace).robot("manipulator").dof == 6
