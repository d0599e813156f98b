"""The allowed-collision matrix: adjacency, always/never from seeded samples, SRDF pairs,
sphere pairs to check, caching."""

import itertools

import numpy as np
import pytest

import bioik
from bioik.collision import acm
from bioik.collision.acm import adjacent_pairs, allowed_collisions
from bioik.collision.spheres import sphere_model

SRDF = """<robot name="ur5">
  <disable_collisions link1="base_link" link2="forearm_link" reason="Never"/>
  <disable_collisions link1="tool0" link2="base_link" reason="Never"/>
</robot>"""


def test_links_joined_by_a_joint_are_adjacent_also_through_links_without_geometry():
    robot = bioik.load_robot("elise_ur10")
    adj = adjacent_pairs(robot.model)
    assert ("upper_arm_link", "forearm_link") in adj
    # wrist_3_link → flange → tool0 → endoscope_mount: flange and tool0 have no geometry
    assert ("wrist_3_link", "endoscope_mount") in adj
    assert ("base_link", "shoulder_link") in adj  # through "base"? no: base_link–shoulder_link is a joint
    assert ("shoulder_link", "forearm_link") not in adj
    a = allowed_collisions(robot)
    assert all(a.reason(x, y) == "adjacent" for x, y in adj)


def test_reasons_for_ur5():
    a = allowed_collisions(bioik.load_robot("ur5"))
    assert a.reason("upper_arm_link", "forearm_link") == "adjacent"
    # the base cannot reach the upper arm over the shoulder; the forearm can fold onto the base
    assert a.reason("base_link", "upper_arm_link") == "never"
    assert not a.allowed("base_link", "forearm_link") and a.reason("base_link", "forearm_link") is None
    assert ("base_link", "forearm_link") in a.checked
    assert set(a.pairs.values()) <= set(acm.REASONS)
    assert len(a.checked) + len(a.pairs) == 7 * 6 // 2


def test_pairs_always_in_collision_are_found():
    # the shoulders turn inside the torso's box: in contact in every configuration
    a = allowed_collisions(bioik.load_robot("dual_ur5"), samples=300)
    assert a.reason("torso", "left_shoulder_link") == a.reason("torso", "right_shoulder_link") == "always"
    assert a.reason("torso", "left_base_link") == "adjacent"  # through the geometry-less world link


def test_seeded_and_reproducible():
    robot = bioik.load_robot("panda")
    first = allowed_collisions(robot, samples=500, seed=3)
    acm._memory.clear()
    assert allowed_collisions(robot, samples=500, seed=3).pairs == first.pairs


def test_cached_on_disk(monkeypatch):
    robot = bioik.load_robot("iiwa14")
    first = allowed_collisions(robot, samples=321)
    acm._memory.clear()
    monkeypatch.setattr(acm, "_compute", lambda *a: pytest.fail("recomputed although cached on disk"))
    assert allowed_collisions(robot, samples=321).pairs == first.pairs


def test_self_pairs_are_the_spheres_of_checked_link_pairs():
    robot = bioik.load_robot("ur5")
    model, a = sphere_model(robot), allowed_collisions(robot)
    P = a.self_pairs(model)
    assert P.dtype == np.int64 and P.shape[1] == 2 and np.all(P[:, 0] < P[:, 1])
    got = {tuple(sorted((model.links[model.link_of[i]], model.links[model.link_of[j]]))) for i, j in P}
    order = {n: k for k, n in enumerate(model.links)}
    want = {tuple(sorted(p, key=order.get)) for p in a.checked}
    assert {tuple(sorted(p, key=order.get)) for p in got} == want
    n = model.per_link()
    assert len(P) == sum(n[x] * n[y] for x, y in a.checked)


def test_srdf_pairs_join_with_their_reason_and_user_pairs_too():
    robot = bioik.load_robot("ur5", srdf=SRDF)
    a = allowed_collisions(robot, allowed=[("shoulder_link", "wrist_3_link")])
    assert a.reason("base_link", "forearm_link") == "srdf"
    assert a.reason("wrist_3_link", "shoulder_link") == "user"
    assert a.allowed("tool0", "base_link")  # no geometry: nothing to check
    with pytest.raises(ValueError, match="'nope' is not a link with collision geometry"):
        allowed_collisions(robot, allowed=[("nope", "base_link")])


@pytest.mark.parametrize("kw", [{"samples": 0}, {"always": 0}, {"always": 1.5}])
def test_bad_parameters_are_named(kw):
    with pytest.raises(ValueError, match=next(iter(kw))):
        allowed_collisions(bioik.load_robot("ur5"), **kw)


def test_pairs_sampled_as_never_colliding_are_still_checked_exactly():
    """elise_ur10's base_link–endoscope_link_3 met in none of 2000 samples, yet they do meet:
    the compiled cost may skip such a pair, the exact check that decides success may not."""
    from bioik.collision import CollisionChecker
    from bioik.collision.acm import AllowedCollisions, allowed_collisions

    robot = bioik.load_robot("elise_ur10")
    acm = allowed_collisions(robot)
    pair = ("base_link", "endoscope_link_3")
    assert acm.reason(*pair) == "never" and pair not in acm.checked and pair in acm.exact_checked
    only_pair = CollisionChecker(robot, acm=AllowedCollisions(acm.links, {p: "user" for p in itertools.combinations(acm.links, 2) if p != pair}))
    sampled_only = CollisionChecker(robot, acm=AllowedCollisions(acm.links, {**acm.pairs, **{p: "user" for p, r in acm.pairs.items() if r == "never"}}))
    rng = np.random.default_rng(5)
    for _ in range(100_000):
        q = robot.random_configuration(rng)
        if not only_pair.is_free(q) and sampled_only.is_free(q):
            break
    else:
        pytest.fail("no configuration where only the 'never' pair collides")
    assert not CollisionChecker(robot).is_free(q)
