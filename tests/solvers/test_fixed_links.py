"""Geometry that no active variable moves never blocks a search: its cover spheres cost
nothing, the exact check alone decides it, and a fixed link truly in an obstacle is refused
before solving, naming the link, the obstacle, the depth and the `allow_contact` call."""

import numpy as np
import pytest

import bioik
from bioik.goals.collision import HEAD
from bioik.goals.spheres import IMMOVABLE, SPHERE_ROW

ROBOT = bioik.load_robot("ur5")
TIP = ROBOT.tips[0]


def pose(x, y, z):
    T = np.eye(4)
    T[:3, 3] = (x, y, z)
    return T


def table_scene(top: float) -> bioik.Scene:
    """A table top 4 cm thick whose upper face is at height `top`, and three posts."""
    scene = bioik.Scene()
    scene.add_box("table", (1.4, 1.2, 0.04), pose(0, 0, top - 0.02))
    for k, (x, y) in enumerate([(0.45, 0.3), (-0.3, 0.45), (0.2, -0.5)]):
        scene.add_box(f"post{k}", (0.08, 0.08, 0.3), pose(x, y, 0.15))
    return scene


def test_moving_links_follow_the_active_joints():
    assert "base_link" not in ROBOT.moving_links
    assert {"shoulder_link", "wrist_3_link", TIP} <= ROBOT.moving_links
    dual = bioik.load_robot("dual_ur5", group="left_arm")
    moving_right = {l for l in dual.moving_links if l.startswith("right")}
    assert not moving_right  # the frozen arm's links stay where they are
    assert any(l.startswith("left") for l in dual.moving_links)


def test_a_robot_3_cm_above_its_table_solves_without_allowing_any_contact():
    """The base's cover sphere reaches below its foot into the table; the real base does not."""
    scene = table_scene(top=-0.03)
    checker = bioik.CollisionChecker(ROBOT, scene)
    rng = np.random.default_rng(7)
    solved = n = 0
    while n < 12:
        q = ROBOT.random_configuration(rng)
        if not checker.is_free(q):
            continue
        n += 1
        res = bioik.solve(ROBOT, [bioik.PoseGoal(TIP, ROBOT.link_pose(q, TIP))], seed=ROBOT.random_configuration(rng),
                          scene=scene, timeout=60.0, max_iterations=20_000, random_seed=n)
        if res.success:
            assert checker.is_free(res.q)
            solved += 1
    assert solved == 12


def test_fixed_link_spheres_and_pairs_leave_the_collision_cost():
    scene = table_scene(top=-0.03)
    goal = bioik.CollisionAvoidanceGoal(scene)
    model, order, pairs = goal._robot_data(ROBOT)
    data = goal.data(ROBOT)
    S = int(data[0])
    rows = data[HEAD:HEAD + SPHERE_ROW * S].reshape(S, SPHERE_ROW)
    base = model.links.index("base_link")
    on_base = model.link_of[order] == base
    assert on_base.any() and np.all(rows[on_base, 5] == IMMOVABLE) and np.all(rows[~on_base, 5] != IMMOVABLE)
    # a frozen arm: pairs between two fixed links are not charged, pairs with a moving one are
    dual = bioik.load_robot("dual_ur5", group="left_arm")
    g = bioik.CollisionAvoidanceGoal(None)
    m, o, p = g._robot_data(dual)
    d = g.data(dual)
    P = int(d[1])
    links = m.link_of[o]
    charged = d[HEAD + SPHERE_ROW * (int(d[0]) + int(d[4])):][:3 * P].reshape(P, 3)[:, :2].astype(int)
    names = [(m.links[links[a]], m.links[links[b]]) for a, b in charged]
    assert names and all(a in dual.moving_links or b in dual.moving_links for a, b in names)
    assert P < len(p)  # some pairs were between two fixed links


def test_a_fixed_link_inside_an_obstacle_is_refused_before_solving():
    scene = table_scene(top=0.02)  # the table top 2 cm above the foot: the base is in it
    goal = [bioik.PoseGoal(TIP, ROBOT.link_pose(ROBOT.center(), TIP))]
    with pytest.raises(bioik.SceneError, match=r"link 'base_link' of robot 'ur5' is [0-9.]+ mm into obstacle 'table'.*"
                                                r"scene.allow_contact\('table', 'base_link'\)"):
        bioik.solve(ROBOT, goal, scene=scene, max_iterations=10)
    scene.allow_contact("table", "base_link")
    scene.allow_contact("table", "shoulder_link")
    bioik.solve(ROBOT, goal, scene=scene, max_iterations=10)  # allowed: no error


def test_frozen_links_in_each_other_are_refused_before_solving():
    """The humanoid's left arm frozen through its torso while the right leg solves: every
    configuration collides, which the search alone would only show as failures."""
    humanoid = bioik.load_robot("humanoid")
    arm = humanoid.with_group("left_arm")
    checker = bioik.CollisionChecker(arm, bioik.Scene())
    rng = np.random.default_rng(0)
    q = next(q for q in (arm.random_configuration(rng) for _ in range(500))
             if any(c.b == "left_forearm" and c.a == "torso" for c in checker.contacts(q)))
    frozen = arm.full_configuration(q)
    leg = humanoid.with_group("right_leg").with_frozen({k: frozen[k] for k in frozen if k.startswith("left_")})
    T = leg.link_pose(leg.center(), leg.tips[0])
    with pytest.raises(bioik.SelfCollisionError, match=r"link 'torso' .* mm into link 'left_\w+' .*with_frozen.*disable_collisions"):
        bioik.solve(leg, [bioik.PoseGoal(leg.tips[0], T)], scene=bioik.Scene(), max_iterations=10)
    assert bioik.solve(humanoid.with_group("right_leg"), [bioik.PoseGoal(leg.tips[0], T)], scene=bioik.Scene(),
                       max_iterations=10) is not None  # frozen where they are apart: no error
