"""The goal registry: every goal kind is declared by its class, dispatched by the generated
compiled dispatcher and differentiated correctly; codes are unique; and a goal defined in
this file (its class, its kind code and its kernel, nothing else) solves with lm."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from urdf_samples import TREE_URDF
from goal_helpers import assert_jacobian, residual, tree
from numba import njit
from numba.core import config

import bioik
from bioik.goals import registry
from bioik.goals.base import N_PARAMS, POSE, Goal
from bioik.goals.kernels import SIZE
from bioik.goals.pose import PoseGoal, pose_residual
from bioik.goals.registry import PER_VARIABLE, GoalRegistryError
from bioik.kinematics.frames import JIT

#: Every goal kind's code: codes are compiled into cached kernels and compared against by
#: the solvers, so they never change.
CODES = {
    "PositionGoal": 1, "OrientationGoal": 2, "PoseGoal": 3, "LookAtGoal": 4, "DirectionGoal": 5,
    "LineGoal": 6, "ConeGoal": 7, "SideGoal": 8, "MinDistanceGoal": 9, "MaxDistanceGoal": 10,
    "RCMGoal": 11, "BalanceGoal": 12, "CollisionAvoidanceGoal": 13, "ClearanceGoal": 14, "ObstacleDistanceGoal": 15,
    "TouchGoal": 16, "ScanGoal": 17, "JointVariableGoal": 20, "CenterJointsGoal": 21,
    "AvoidJointLimitsGoal": 22, "MinimalDisplacementGoal": 23, "LinkFunctionGoal": 24, "JointFunctionGoal": 25,
}


def _pose(rng) -> np.ndarray:
    robot = tree()
    return robot.link_pose(robot.random_configuration(rng), "tip_b")


#: One goal of every compiled kind (and the robot it is built on): a new goal adds its own.
def _wall() -> bioik.Scene:
    scene = bioik.Scene()
    scene.add_box("wall", (0.1, 2.0, 2.0), np.array([[1, 0, 0, 0.35], [0, 1, 0, 0], [0, 0, 1, 0.3], [0, 0, 0, 1.0]]))
    return scene


EXAMPLES = {
    "PositionGoal": (tree, lambda rng: bioik.PositionGoal("tip_a", rng.normal(size=3))),
    "OrientationGoal": (tree, lambda rng: bioik.OrientationGoal("tip_a", _pose(rng)[:3, :3])),
    "PoseGoal": (tree, lambda rng: bioik.PoseGoal("tip_b", _pose(rng), rotation_scale=0.7)),
    "LookAtGoal": (tree, lambda rng: bioik.LookAtGoal("tip_b", rng.normal(size=3) + 2.0, axis=rng.normal(size=3))),
    "DirectionGoal": (tree, lambda rng: bioik.DirectionGoal("l3", rng.normal(size=3), axis=rng.normal(size=3))),
    "LineGoal": (tree, lambda rng: bioik.LineGoal("finger", rng.normal(size=3), rng.normal(size=3))),
    "ConeGoal": (tree, lambda rng: bioik.ConeGoal("tip_a", rng.normal(size=3), 0.0, axis=rng.normal(size=3),
                                                  position=rng.normal(size=3), position_weight=0.5)),
    "SideGoal": (tree, lambda rng: bioik.SideGoal("l2", rng.normal(size=3), axis=rng.normal(size=3))),
    "MinDistanceGoal": (tree, lambda rng: bioik.MinDistanceGoal("tip_a", rng.normal(size=3), 5.0)),
    "MaxDistanceGoal": (tree, lambda rng: bioik.MaxDistanceGoal("tip_a", rng.normal(size=3) + 3.0, 0.1)),
    "RCMGoal": (tree, lambda rng: bioik.RCMGoal(("l2", "l3", "tip_a"), rng.normal(size=3))),
    "BalanceGoal": (lambda: bioik.load_robot("ur5"), lambda rng: bioik.BalanceGoal(rng.normal(size=3), gravity=rng.normal(size=3))),
    "CollisionAvoidanceGoal": (lambda: bioik.load_robot("ur5"), lambda rng: bioik.CollisionAvoidanceGoal(_wall(), margin=0.02,
                                                                                              self_collision=False)),
    "ClearanceGoal": (lambda: bioik.load_robot("ur5"), lambda rng: bioik.ClearanceGoal(_wall(), epsilon=0.05, margin=0.02)),
    "ObstacleDistanceGoal": (lambda: bioik.load_robot("ur5"), lambda rng: bioik.ObstacleDistanceGoal("forearm_link", _wall(),
                                                                                                  "wall", 0.3)),
    "TouchGoal": (tree, lambda rng: bioik.TouchGoal("l1", rng.normal(size=3), rng.normal(size=3))),
    "ScanGoal": (tree, lambda rng: bioik.ScanGoal("tip_b", rng.normal(size=3), rng.normal(size=3), standoff=0.8,
                                                  distance_band=0.5, fov_angle=1.0, normal_angle=1.0, axis=rng.normal(size=3))),
    "JointVariableGoal": (tree, lambda rng: bioik.JointVariableGoal("j3", 0.4 * rng.uniform(-1, 1))),
    "CenterJointsGoal": (tree, lambda rng: bioik.CenterJointsGoal()),
    "AvoidJointLimitsGoal": (tree, lambda rng: bioik.AvoidJointLimitsGoal()),
    "MinimalDisplacementGoal": (tree, lambda rng: bioik.MinimalDisplacementGoal()),
    "LinkFunctionGoal": (tree, lambda rng: bioik.LinkFunctionGoal("tip_b", _squared_distance_from(rng.normal(size=3)))),
    "JointFunctionGoal": (tree, lambda rng: bioik.JointFunctionGoal(np.sin)),
}


def _squared_distance_from(point: np.ndarray):
    """A link function: the squared distance of the link's origin from `point` (plus its x axis's z, a rotation term)."""
    return lambda T: float(np.sum((T[:3, 3] - point) ** 2) + T[2, 0] ** 2)


def _builtin_kinds() -> dict[int, registry.GoalKind]:
    return {k: e for k, e in registry.KINDS.items() if e.inside}


def test_codes_are_unchanged():
    assert {e.goal.__name__: k for k, e in _builtin_kinds().items()} == CODES


def test_every_exported_goal_class_is_registered():
    exported = {getattr(bioik.goals, name) for name in bioik.goals.__all__} - {Goal}
    assert exported, "bioik.goals exports no goal"
    for cls in exported:
        assert cls in registry.CLASSES, f"{cls.__name__} is exported but not registered"
        assert getattr(bioik, cls.__name__) is cls
    python = {e.goal.__name__ for e in registry.CLASSES.values() if e.kernel is None and e.inside}
    assert not python  # every goal of bioik's runs in the kernels, user functions through callbacks
    assert {e.goal for e in _builtin_kinds().values()} <= exported


def test_every_compiled_kind_has_an_example():
    assert {e.goal.__name__ for e in _builtin_kinds().values()} == set(EXAMPLES)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_kind_is_dispatched_and_differentiated(name, rng):
    """The compiled `goal_residual` reaches the goal's own kernel (rows as declared, a
    non-zero residual somewhere) and its Jacobian matches central differences."""
    make_robot, make_goal = EXAMPLES[name]
    robot = make_robot()
    goal = make_goal(rng)
    assert type(goal).__name__ == name
    entry = registry.KINDS[goal.kind]
    assert entry.goal is type(goal)
    rows = robot.dof if entry.size == PER_VARIABLE else entry.size
    problem = bioik.Problem(robot, [goal])
    assert problem.gi[0, SIZE] == rows
    active = 0
    for _ in range(10):
        q = robot.random_configuration(rng)
        r, Jr = residual(problem, q, with_jac=True)
        assert r.shape == (rows,)
        if np.linalg.norm(r) > 1e-3:  # away from the kinks of max(0, ·) goals
            assert np.abs(Jr).max() > 0.0
            assert_jacobian(robot, goal, q, atol=2e-6)
            active += 1
    assert active >= 3, f"{name}: residual zero at most sampled configurations"


# --- declarations the registry refuses ------------------------------------------------


def test_a_code_in_use_is_refused():
    with pytest.raises(GoalRegistryError, match="kind 3 is already taken by bioik.goals.pose.PoseGoal"):

        @dataclass
        class AnotherPose(Goal):
            kind = POSE
            kernel = pose_residual
            size = 7

    assert registry.KINDS[POSE].goal is PoseGoal


@pytest.mark.parametrize(("attrs", "message"), [
    ({"kind": 98}, "needs `kernel`"),
    ({"kind": 98, "kernel": lambda p, f, r, A, B: 1}, "needs `kernel`"),
    ({"kind": 98, "kernel": pose_residual, "size": 0}, "size must be"),
    ({"kind": 98, "kernel": pose_residual, "link_count": 2}, "link_count must be"),
    ({"kind": -1, "kernel": pose_residual}, "kind must be an int"),
    ({"kind": 0, "kernel": pose_residual}, "take no kernel"),
])
def test_bad_declarations_are_refused(attrs, message):
    with pytest.raises(GoalRegistryError, match=message):
        type("Bad", (Goal,), dict(attrs))
    assert 98 not in registry.KINDS


def test_a_subclass_keeps_its_parents_kind():
    class MyPose(PoseGoal):
        pass

    assert MyPose not in registry.CLASSES
    assert registry.KINDS[POSE].goal is PoseGoal


# --- a goal defined in this file -------------------------------------------------------

HEIGHT = 90


@njit(**JIT)
def height_residual(p, f, r, A, B):
    r[0] = f[2] - p[0]
    A[0, 2] = 1.0
    return 1


@dataclass
class HeightGoal(Goal):
    """Bring the origin of `link` to height z = `height` (base frame)."""

    link: str
    height: float
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-6
    kind = HEIGHT
    size = 1
    kernel = height_residual

    @property
    def links(self):
        return (self.link,)

    def params(self, robot):
        p = np.zeros(N_PARAMS)
        p[0] = self.height
        return p


def height_demo() -> dict:
    """Build, check and solve a HeightGoal (run in a process of its own, see below)."""
    robot = bioik.load_robot(TREE_URDF)
    rng = np.random.default_rng(5)
    height = float(robot.link_pose(robot.random_configuration(rng), "tip_a")[2, 3])
    goal = HeightGoal("tip_a", height)
    q = robot.random_configuration(rng)
    r = residual(bioik.Problem(robot, [goal]), q)
    assert_jacobian(robot, goal, q)
    res = bioik.solve(robot, [goal], seed=q, solver="lm", timeout=1.0)
    z = float(robot.link_pose(res.q, "tip_a")[2, 3])
    return {"residual": r.tolist(), "expected": float(robot.link_pose(q, "tip_a")[2, 3]) - height,
            "success": bool(res.success), "height": height, "z": z}


def test_a_goal_from_outside_needs_a_cache_of_its_own():
    """bioik's kernels are cached beside its sources: in such a process an outside goal is
    refused with an explanation, not silently evaluated by kernels that lack it."""
    if config.CACHE_DIR:
        pytest.skip("numba caches outside the package here: outside goals are allowed")
    with pytest.raises(GoalRegistryError, match="NUMBA_CACHE_DIR"):
        bioik.Problem(tree(), [HeightGoal("tip_a", 0.3)])


@pytest.mark.slow
def test_a_goal_defined_in_this_file_solves_with_lm(tmp_path):
    """The goal above is all it takes: run in a fresh process with a numba cache of its own,
    so that the dispatcher is generated with HEIGHT in it (and every kernel compiled anew,
    which takes a few minutes)."""
    tests = str(Path(__file__).parent)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"),
               PYTHONPATH=os.pathsep.join([tests, *sys.path]))
    script = "import json, test_goal_registry as t; print(json.dumps(t.height_demo()))"
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=1800)
    assert out.returncode == 0, out.stderr[-3000:]
    demo = json.loads(out.stdout.strip().splitlines()[-1])
    np.testing.assert_allclose(demo["residual"], [demo["expected"]], atol=1e-12)
    assert demo["success"]
    assert abs(demo["z"] - demo["height"]) <= 1e-6
