"""The `bioik` command line: robots, info, fk, solve and warmup, with clear errors."""

import logging

import numpy as np

import bioik
from bioik.cli import main
from bioik import _compile_progress


def test_solve_prints_a_solution_that_meets_the_pose(capsys):
    robot = bioik.load_robot("ur5")
    T = robot.link_pose(robot.random_configuration(4), "tool0")
    q = bioik.kinematics.frames.quat_from_matrix(T[:3, :3])
    status = main(["solve", "ur5", "--pose", *map(str, T[:3, 3]), *map(str, q), "--timeout", "1", "--random-seed", "1"])
    out = capsys.readouterr().out
    assert status == 0 and out.startswith("success")
    values = [float(line.split()[-1]) for line in out.splitlines()[2:]]
    assert np.allclose(robot.link_pose(values, "tool0")[:3, 3], T[:3, 3], atol=1e-5)


def test_warmup_prepares_the_named_solvers(capsys, monkeypatch):
    loaded = []  # the solvers whose search among obstacles was made ready
    ready = bioik.Solver._scene_search_ready
    monkeypatch.setattr(bioik.Solver, "_scene_search_ready", lambda self, *a: loaded.append(self.family.name) or ready(self, *a))
    assert main(["warmup", "--solver", "lm", "--solver", "kdl"]) == 0
    assert loaded == ["lm"]  # kdl takes no collision goal: its pose goal stays one call, the exact check after it
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("lm ") and "ready" in out[0] and out[1].startswith("kdl ") and out[-1].startswith("2 solvers ready")
    import importlib.util
    from pathlib import Path

    from bioik import cli
    assert Path(importlib.util.cache_from_source(cli.__file__)).is_file()  # the package is byte-compiled


def test_unknown_solver_is_one_clear_line(capsys):
    assert main(["warmup", "--solver", "no_such_solver"]) == 2
    assert "unknown solver 'no_such_solver'" in capsys.readouterr().err


def test_slow_preparation_says_it_is_compiling(monkeypatch, caplog):
    monkeypatch.setattr(_compile_progress, "NOTICE_AFTER", 0.0)
    robot = bioik.load_robot("panda")
    with caplog.at_level(logging.WARNING, logger="bioik"):
        bioik.Solver(robot, "jac").solve([bioik.PositionGoal(robot.tips[0], [0.3, 0.0, 0.5])], max_iterations=1)
    assert any("compiling the jac kernels" in r.getMessage() for r in caplog.records)


def test_info_collision_lists_spheres_per_link_and_allowed_pairs(capsys):
    assert main(["info", "ur5", "--collision"]) in (0, None)
    out = capsys.readouterr().out
    assert "collision spheres: " in out and "upper_arm_link" in out
    lines = [line.split() for line in out.splitlines()]
    assert ["upper_arm_link", "forearm_link", "adjacent"] in lines
    assert ["base_link", "upper_arm_link", "never"] in lines


SCENE_TOML = """
[[obstacle]]
name = "table"
box = [1.6, 1.6, 0.04]
position = [0.0, 0.0, -0.02]

[[obstacle]]
name = "post"
box = [0.1, 0.1, 0.3]
position = [0.45, 0.2, 0.15]
"""


def test_solve_with_a_scene_file_answers_collision_free(capsys, tmp_path):
    path = tmp_path / "cell.toml"
    path.write_text(SCENE_TOML)
    robot = bioik.load_robot("ur5")
    T = robot.link_pose(np.array([0.3, -1.2, 1.4, -1.8, -1.5, 0.0]), "tool0")
    q = bioik.kinematics.frames.quat_from_matrix(T[:3, :3])
    status = main(["solve", "ur5", "--pose", *map(str, T[:3, 3]), *map(str, q), "--timeout", "1", "--random-seed", "1",
                   "--scene", str(path), "--allow", "base_link:table", "--allow", "shoulder_link:table"])
    out = capsys.readouterr().out
    assert status == 0 and out.startswith("success"), out
    assert "collision-free by the exact check (2 obstacles" in out
    values = [float(line.split()[-1]) for line in out.splitlines()[3:]]
    checker = bioik.CollisionChecker(robot, bioik.Scene.from_file(path), allowed=[("base_link", "table"), ("shoulder_link", "table")])
    assert checker.is_free(values)


def test_scene_options_refuse_bad_input(capsys, tmp_path):
    pose = ["--pose", "0.3", "0.2", "0.4", "1", "0", "0", "0"]
    assert main(["solve", "ur5", *pose, "--allow", "base_link:table"]) == 2
    assert "--allow needs --scene" in capsys.readouterr().err
    path = tmp_path / "cell.toml"
    path.write_text(SCENE_TOML)
    assert main(["solve", "ur5", *pose, "--scene", str(path), "--allow", "base_link"]) == 2
    assert "LINK:OBSTACLE" in capsys.readouterr().err
    assert main(["solve", "ur5", *pose, "--scene", str(tmp_path / "missing.toml")]) == 2
    assert "missing.toml" in capsys.readouterr().err


def test_ctrl_c_during_a_long_solve_is_one_line_and_status_130(capsys):
    import os
    import signal
    import threading
    import time

    main(["solve", "ur5", "--pose", "0.4", "0.2", "0.3", "0", "1", "0", "0"])  # kernels loaded before the clock
    capsys.readouterr()
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    t0 = time.monotonic()
    timer.start()
    status = main(["solve", "ur5", "--pose", "5", "0", "0", "0", "1", "0", "0", "--timeout", "60"])  # out of reach
    timer.join()
    assert status == 130 and time.monotonic() - t0 < 10.0
    assert capsys.readouterr().err.strip() == "bioik solve: interrupted"
