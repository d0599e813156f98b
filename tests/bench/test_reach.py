"""Reachability studies (`bioik reach`, `bioik.bench.reach`): sampling on an object, the stored
rows and their check, resuming, the picture, bad input."""

from __future__ import annotations

import json
import re
import sqlite3

import numpy as np
import pytest

import bioik
from bioik.bench import reach
from bioik.bench.targets import pose_errors
from bioik.cli import main
from bioik.collision import CollisionChecker

BOX = """[[obstacle]]
name = "box"
box = [0.4, 0.4, 0.4]
position = [0.6, 0.0, 0.3]
"""


@pytest.fixture(scope="module")
def ur5() -> bioik.Robot:
    return bioik.load_robot("ur5")


@pytest.fixture
def box_file(tmp_path):
    path = tmp_path / "box.toml"
    path.write_text(BOX)
    return path


def _study(ur5, path, samples=12, **kw) -> reach.Study:
    values = dict(robot="ur5", robot_hash=ur5.fingerprint, tip="tool0", object=str(path), obstacles=("box",), samples=samples,
                  seed=0, solver="lm", timeout=0.05, standoff=0.01)
    return reach.Study(**{**values, **kw})


def test_tool_poses_face_the_surface_at_the_standoff(box_file):
    scene = bioik.Scene.from_file(box_file)
    poses, points, normals, owners = reach.sample(scene, ("box",), 200, 3, 0.02)
    d, _ = scene.distance(points)
    assert np.abs(d).max() < 1e-3 and owners == ["box"] * 200  # on the surface (the box's SDF is exact)
    assert np.allclose(poses[:, :3, 2], -normals)  # the tool's z axis points into the surface
    assert np.allclose(poses[:, :3, 3], points + 0.02 * normals)
    assert np.allclose(np.linalg.norm(normals, axis=1), 1.0)
    again = reach.sample(scene, ("box",), 200, 3, 0.02)[0]
    assert np.array_equal(again, poses)  # seeded


def test_the_tool_link_is_the_nearest_link_with_geometry(ur5):
    assert reach.tool_link(ur5, "tool0") == "wrist_3_link"
    assert reach.tool_link(ur5, "wrist_3_link") == "wrist_3_link"


def test_a_study_stores_checked_rows_and_resumes(ur5, box_file, tmp_path):
    scene = bioik.Scene.from_file(box_file)
    study = _study(ur5, box_file)
    store = reach.ReachStore(tmp_path / "r.db", study)
    reach.run(store, ur5, study, scene)
    cov = reach.coverage(store)
    assert cov.solved == 12 and 0 < cov.reached <= 12 and cov.per_obstacle == {"box": (cov.reached, 12)}
    poses = reach.sample(scene, ("box",), 12, 0, 0.01)[0]
    checker = CollisionChecker(ur5, scene)
    for i, q, reached in store.conn.execute("SELECT i, q, reached FROM points"):
        q = np.array(json.loads(q))
        dp, angle = pose_errors(ur5, "tool0", poses[i], q)
        assert bool(reached) == (ur5.within_limits(q) and dp <= 1e-5 and angle <= 1e-5 and checker.is_free(q))
    calls = []
    reach.run(store, ur5, study, scene, progress=lambda done, total: calls.append(done))
    assert calls == [] and reach.coverage(store).solved == 12  # nothing left to solve
    store.close()
    with pytest.raises(reach.ReachError, match="holds another study .*samples 12, not 13"):
        reach.ReachStore(tmp_path / "r.db", _study(ur5, box_file, samples=13))


def test_cli_reports_coverage_and_draws_the_picture(box_file, tmp_path, capsys):
    db = tmp_path / "reach.db"
    assert main(["reach", "ur5", "--object", str(box_file), "--samples", "10", "--solver", "lm", "--timeout", "0.05",
                 "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "reach: ur5 (tool0) on" in out and "reachable:" in out and "/10 points" in out
    png = db.with_suffix(".png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


@pytest.mark.parametrize("args, message", [
    (["--on", "table"], "--on 'table': no such obstacle in .* \\(it has box\\)"),
    (["--pose", "0", "0", "0", "1", "0", "0", "0"], "--pose places a mesh object"),
    (["--samples", "0"], "--samples must be ≥ 1"),
    (["--tip", "nope"], "nope"),
])
def test_cli_refuses_bad_input_in_one_line(box_file, tmp_path, capsys, args, message):
    db = tmp_path / "r.db"
    assert main(["reach", "ur5", "--object", str(box_file), "--db", str(db), *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(message, err[0]) and not db.exists()


def test_a_mesh_object_is_placed_by_pose(tmp_path, capsys):
    import trimesh

    mesh = tmp_path / "part.stl"
    trimesh.creation.box(extents=(0.3, 0.3, 0.3)).export(mesh)
    db = tmp_path / "m.db"
    assert main(["reach", "ur5", "--object", str(mesh), "--pose", "0.55", "0", "0.3", "1", "0", "0", "0", "--samples", "8",
                 "--solver", "lm", "--timeout", "0.05", "--db", str(db)]) == 0
    assert "part.stl" in capsys.readouterr().out
    conn = sqlite3.connect(db)
    xyz = np.array(conn.execute("SELECT x, y, z FROM points").fetchall())
    conn.close()
    assert np.allclose(xyz.min(0), (0.4, -0.15, 0.15), atol=0.06) and np.allclose(xyz.max(0), (0.7, 0.15, 0.45), atol=0.06)
