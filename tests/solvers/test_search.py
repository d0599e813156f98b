"""The general search near obstacles: a slice's best answer is polished on the other goals
and counts when the exact check finds it free (`bioik.solvers.search`)."""

import numpy as np
import pytest

import bioik
from bioik.solvers import search


def near_targets(robot, n: int, gap: float = 0.001):
    """n (configuration, scene) pairs: a box under the tip whose nearest point is `gap` from
    the robot's real geometry at the configuration (the covers reach into it)."""
    rng = np.random.default_rng(3)
    out = []
    while len(out) < n:
        q = robot.random_configuration(rng)
        T = np.eye(4)
        T[:3, 3] = robot.link_pose(q, robot.tips[0])[:3, 3] + [0.0, 0.0, -0.5]
        scene = bioik.Scene()
        scene.add_box("slab", (0.2, 0.2, 0.2), T)
        checker = bioik.CollisionChecker(robot, scene)
        if not checker.is_free(q):
            continue
        T[2, 3] += min(c.distance for c in checker.closest(q, k=50) if c.b == "slab") - gap
        scene.move("slab", T)
        if bioik.CollisionChecker(robot, scene).is_free(q):
            out.append((q, scene))
    return out


@pytest.fixture(scope="module")
def ur5():
    return bioik.load_robot("ur5")


def test_a_pose_a_millimetre_above_a_box_is_reached(ur5, monkeypatch):
    """Seeded at a witness 1 mm clear of the box, with an iteration budget: the covers alone
    settle off the pose on some targets; with the polish every one is solved and free."""
    targets = near_targets(ur5, 12)
    solved = {}
    for first in (10**9, search.FIRST_SLICE_ITERATIONS):  # a first slice past the budget: no polish
        monkeypatch.setattr(search, "FIRST_SLICE_ITERATIONS", first)
        solved[first] = 0
        for q, scene in targets:
            res = bioik.solve(ur5, [bioik.PoseGoal(ur5.tips[0], ur5.link_pose(q, ur5.tips[0]))], seed=q, scene=scene,
                              max_iterations=400, random_seed=0)
            assert not res.success or bioik.CollisionChecker(ur5, scene).is_free(res.q)
            solved[first] += res.success
    # measured: 6 of 12 without the polish, 12 of 12 with it
    assert solved[10**9] <= 9 and solved[64] == 12, solved


def test_the_polish_never_accepts_a_colliding_answer(ur5):
    """Targets whose witness is 1 mm *inside* the box: whatever is returned as a success is
    free by the exact check."""
    for q, scene in near_targets(ur5, 8, gap=-0.001):
        res = bioik.solve(ur5, [bioik.PoseGoal(ur5.tips[0], ur5.link_pose(q, ur5.tips[0]))], seed=q, scene=scene,
                          max_iterations=400, random_seed=0)
        assert not res.success or bioik.CollisionChecker(ur5, scene).is_free(res.q)

