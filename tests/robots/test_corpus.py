"""Robots nobody here wrote: example-robot-data's descriptions load with their meshes and
SRDFs (no mesh folder given), FK agrees with yourdfpy, the sphere cover holds every mesh
vertex, and collision-aware solves reach witness targets with no false success.
`benchmarks/corpus.py` measures the same at scale (rates within 100 ms, load and cover times)."""

import importlib.util
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import bioik

_spec = importlib.util.spec_from_file_location("corpus", Path(__file__).parents[2] / "benchmarks" / "corpus.py")
corpus = importlib.util.module_from_spec(_spec)
sys.modules["corpus"] = corpus  # its dataclasses look their module up
_spec.loader.exec_module(corpus)

ROOT = corpus.robots_folder()
pytestmark = pytest.mark.skipif(ROOT is None, reason="example-robot-data is not installed (pip install example-robot-data)")
pytest.importorskip("coal")
ENTRIES = {e.name: e for e in corpus.CORPUS}


@pytest.mark.parametrize("name", list(ENTRIES))
def test_loads_with_its_srdf_fk_matches_yourdfpy_and_the_cover_holds_every_vertex(name):
    from bioik.collision.spheres import sphere_model

    entry = ENTRIES[name]
    robot = corpus.load(entry, ROOT)
    assert robot.dof > 0 and robot.tips
    meshes = [g for link in robot.model.links for g in link.collision if g.kind == "mesh"]
    assert meshes and all(g.path is not None for g in meshes)  # package:// found with no argument
    assert corpus.fk_error(robot, ROOT / entry.urdf, np.random.default_rng(1), n=3) < 1e-9
    outside, _, _, triangles = corpus.cover_stats(robot, sphere_model(robot))
    assert triangles > 0 and outside == 0


def test_srdf_groups_and_end_effectors_give_the_tips_a_moveit_user_expects():
    panda = corpus.load(ENTRIES["panda"], ROOT)
    assert list(panda.groups) == ["arm", "hand", "arm_and_hand"]
    assert panda.with_group("arm").tips == ["panda_hand_tcp"] and panda.with_group("arm").dof == 7
    assert panda.with_group("arm").named_configuration("default")[3] == pytest.approx(-2.35619)
    talos = corpus.load(ENTRIES["talos"], ROOT)
    assert talos.tips[:2] == ["right_sole_link", "left_sole_link"]  # end effectors, not the IMU and camera frames
    assert set(talos.tips) >= {"wrist_right_ft_tool_link", "wrist_left_ft_tool_link"}
    with pytest.raises(bioik.model.srdf.SRDFError, match="half_sitting.*unknown joint 'root_joint'"):
        talos.named_configuration("half_sitting")


@pytest.mark.parametrize("name", ["panda", "ur5", "kinova", "talos", "solo12", "tiago", "xarm7"])
def test_collision_aware_solves_reach_witness_targets_without_false_success(name):
    robot = corpus.load(ENTRIES[name], ROOT)
    rng = np.random.default_rng(3)
    group = corpus.solve_groups(robot)[0]
    arm = robot if group is None else robot.with_group(group)
    scene = corpus.scene_for(arm, arm.tips, rng)
    targets = corpus.witness_targets(arm, bioik.CollisionChecker(arm, scene), arm.tips, 8, rng, tries=2000)
    assert len(targets) == 8
    solved, _, false = corpus.solve_rate(arm, scene, targets, timeout=60.0, rng=rng, max_iterations=3000)
    assert false == 0 and solved == 8


def test_a_group_whose_every_configuration_collides_with_itself_is_named():
    """tiago's arm with the torso at its lowest lift: arm_1_link sits inside the torso column
    in every arm configuration; the first solve warns, naming the pair and the remedies."""
    from bioik.collision.guard import SelfCollisionWarning

    tiago = corpus.load(ENTRIES["tiago"], ROOT)
    low = tiago.with_frozen({"torso_lift_joint": 0.0})
    T = low.link_pose(low.center(), low.tips[0])
    with pytest.warns(SelfCollisionWarning, match=r"'arm_1_link' and 'torso_fixed_column_link' collide in \d+ of them.*with_frozen"):
        res = bioik.solve(low, [bioik.PoseGoal(low.tips[0], T)], scene=bioik.Scene(), max_iterations=50, random_seed=0)
    assert not res.success
    with warnings.catch_warnings():
        warnings.simplefilter("error", SelfCollisionWarning)  # at mid-lift (the corpus entry) most are free
        bioik.solve(tiago, [bioik.PoseGoal(tiago.tips[0], T)], scene=bioik.Scene(), max_iterations=50, random_seed=0)
