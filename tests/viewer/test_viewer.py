"""The viewer without a browser: a handle update solves and updates the shown state; the
visual geometry comes from the URDF (and from the disk cache the second time, never stale);
`bioik view` refuses bad input with one line."""

import sys

import numpy as np
import pytest

import bioik
from bioik.cli import main
from bioik.viewer import geometry
from bioik.viewer.geometry import robot_parts

NO_VISER = "the viewer needs viser (pip install 'bioik[viz]')"


@pytest.fixture(scope="module")
def panda_viewer():
    pytest.importorskip("viser", reason=NO_VISER)
    from bioik.viewer import Viewer

    with Viewer(bioik.load_robot("panda"), port=0) as viewer:
        yield viewer


def test_moving_a_handle_solves_and_shows_the_answer(panda_viewer):
    viewer = panda_viewer
    robot = viewer.robot
    (name,) = viewer.goals
    assert name == "pose panda_link8"
    q0 = viewer.q
    T = robot.link_pose(q0, "panda_link8")
    T[:3, 3] += (0.05, -0.04, -0.06)
    res = viewer.set_goal_pose(name, T)
    assert res.success and viewer.result is res
    assert not np.allclose(viewer.q, q0)
    assert np.allclose(viewer.slider_values(), viewer.q, atol=1e-12)
    assert np.allclose(robot.link_pose(viewer.q, "panda_link8"), T, atol=1e-4)
    assert np.abs(viewer.q - q0).max() < 0.5  # warm-started, minimal displacement: no jump


def test_collision_spheres_are_built_when_first_shown(panda_viewer):
    viewer = panda_viewer
    viewer._show_spheres(False)
    assert viewer._sphere_nodes is None  # hidden: nothing built
    viewer._show_spheres(True)
    nodes = viewer._sphere_nodes
    assert len(nodes) >= 8 and all(n.visible for n in nodes)
    viewer._show_spheres(False)
    assert viewer._sphere_nodes is nodes and not any(n.visible for n in nodes)


def test_added_goals_follow_their_types(panda_viewer):
    viewer = panda_viewer
    robot = viewer.robot
    viewer.remove_goal("pose panda_link8")
    position, look = viewer.add_goal("position", "panda_link8"), viewer.add_goal("look-at", "panda_link8")
    try:
        T = viewer.goals[position].pose
        T[:3, 3] += (0.0, 0.03, 0.0)
        target = viewer.goals[look].pose
        target[:3, 3] += (0.05, 0.0, 0.0)
        viewer.set_goal_pose(position, T)
        res = viewer.set_goal_pose(look, target)
        assert res.success
        tip = robot.link_pose(viewer.q, "panda_link8")
        assert np.allclose(tip[:3, 3], T[:3, 3], atol=1e-4)
        ray = target[:3, 3] - tip[:3, 3]
        assert np.allclose(tip[:3, 2], ray / np.linalg.norm(ray), atol=1e-4)  # the z axis looks at the target
    finally:
        viewer.remove_goal(position)
        viewer.remove_goal(look)
        viewer.add_goal("pose", "panda_link8")
    assert list(viewer.goals) == ["pose panda_link8"]


def test_joint_values_set_from_python_move_the_pose_handles(panda_viewer):
    viewer = panda_viewer
    q = viewer.robot.center()
    viewer.set_q(q)
    assert np.allclose(viewer.slider_values(), q)
    assert np.allclose(viewer.goals["pose panda_link8"].pose, viewer.robot.link_pose(q, "panda_link8"))


def test_bad_input_names_what_was_expected(panda_viewer):
    with pytest.raises(KeyError, match="no goal 'pose nowhere'"):
        panda_viewer.set_goal_pose("pose nowhere", np.eye(4))
    with pytest.raises(ValueError, match="4×4 transform"):
        panda_viewer.set_goal_pose("pose panda_link8", np.ones((4, 4)))
    with pytest.raises(ValueError, match="goal type 'grasp'"):
        panda_viewer.add_goal("grasp", "panda_link8")
    with pytest.raises(ValueError, match="link 'hand'"):
        panda_viewer.add_goal("pose", "hand")


def test_bundled_robots_are_drawn_from_their_visual_geometry():
    parts, source = robot_parts(bioik.load_robot("dual_ur5"))
    assert source == "visual"
    colors = {p.color for p in parts}
    assert (115, 153, 204) in colors  # ur_blue, rgba 0.45 0.6 0.8
    assert all(len(p.faces) > 0 and p.faces.max() < len(p.vertices) for p in parts)


def _no_reading(*args, **kwargs):
    pytest.fail("the visuals were read although they were cached")


def _copy_of_ur5(folder):
    path = folder / "ur5.urdf"  # ur5's visuals are primitives: the copy needs no mesh files
    path.write_text(bioik.robots.urdf_path("ur5").read_text())
    return path


def test_drawn_parts_come_back_from_the_cache_and_never_stale(tmp_path, monkeypatch):
    monkeypatch.setenv("BIOIK_CACHE_DIR", str(tmp_path / "cache"))
    path = _copy_of_ur5(tmp_path)
    first, _ = robot_parts(bioik.load_robot(str(path)))
    monkeypatch.setattr(geometry, "_visual_parts", _no_reading)
    again, source = robot_parts(bioik.load_robot(str(path)))
    assert source == "visual" and [(p.link, p.color) for p in again] == [(p.link, p.color) for p in first]
    assert all(np.array_equal(a.vertices, b.vertices) and np.array_equal(a.faces, b.faces) for a, b in zip(again, first))
    monkeypatch.undo()
    monkeypatch.setenv("BIOIK_CACHE_DIR", str(tmp_path / "cache"))
    path.write_text(path.read_text().replace('rgba="0.45 0.6 0.8 1"', 'rgba="1 0 0 1"', 1))
    changed, _ = robot_parts(bioik.load_robot(str(path)))
    assert (255, 0, 0) in {p.color for p in changed}


def test_a_robot_without_a_urdf_file_is_drawn_from_its_collision_geometry():
    text = bioik.robots.urdf_path("ur5").read_text()
    parts, source = robot_parts(bioik.load_robot(text))
    assert source == "collision" and parts


def test_view_refuses_a_bad_robot_name(capsys):
    assert main(["view", "pandaa", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bioik view: error:") and "unknown robot 'pandaa'" in err


def test_view_refuses_a_bad_scene(capsys):
    assert main(["view", "elise_ur10", "--scene", "NoSuchTank", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "--scene 'NoSuchTank' is neither a bundled scene" in err and "HydrogenTank" in err


def test_view_refuses_a_bad_solver(capsys):
    pytest.importorskip("viser", reason=NO_VISER)
    assert main(["view", "ur5", "--solver", "no_such_solver", "--port", "0"]) == 2
    assert "unknown solver 'no_such_solver'" in capsys.readouterr().err


def test_view_arguments_are_checked_by_the_parser(capsys):
    with pytest.raises(SystemExit):
        main(["view", "ur5", "--port", "eighty"])
    assert "invalid int value: 'eighty'" in capsys.readouterr().err


def test_view_without_viser_names_the_extra(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "viser", None)  # import viser now raises ImportError
    assert main(["view", "ur5", "--port", "0"]) == 2
    assert "pip install 'bioik[viz]'" in capsys.readouterr().err


def test_the_viewer_example_runs():
    pytest.importorskip("viser", reason=NO_VISER)
    import os
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root / "src"), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, str(root / "examples" / "viewer.py"), "--no-block", "--port", "0"],
                         capture_output=True, text=True, timeout=600, env=env)
    assert out.returncode == 0, out.stderr
    assert "bioik viewer: http://127.0.0.1:" in out.stdout and "solved in" in out.stdout
