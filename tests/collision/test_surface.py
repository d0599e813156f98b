"""The surface tree under the cover of mesh links: every surface point lies in a leaf, every
node holds what is below it, and the collision cost that reads it is conservative yet lets
a mesh link come as close to an obstacle as its leaves allow."""

import numpy as np
import pytest
import trimesh

import bioik
from bioik.collision.link_geometry import link_pieces
from bioik.collision.spheres import sphere_model
from bioik.collision.surface import LEAF_ROW, NODE_ROW, bisect, link_triangles

from collision_helpers import mesh_robot


def _leaf_chains(tree, s):
    """(group, cluster, leaf) row indices of every leaf under cover sphere s."""
    N = tree.nodes
    first, count = tree.roots[s]
    for g in range(first, first + count):
        for c in range(int(N[g, 4]), int(N[g, 4] + N[g, 5])):
            for leaf in range(int(N[c, 4]), int(N[c, 4] + N[c, 5])):
                yield g, c, leaf


@pytest.fixture(scope="module")
def meshbot(tmp_path_factory):
    return mesh_robot(tmp_path_factory.mktemp("meshbot"))


def test_bisection_keeps_the_surface_and_bounds_every_edge():
    rng = np.random.default_rng(0)
    T = rng.normal(size=(20, 3, 3)) * [0.3, 0.01, 0.1]  # long slivers among them
    B = bisect(T, 0.01)
    edges = np.linalg.norm(B - np.roll(B, 1, axis=1), axis=2)
    assert edges.max() <= 0.01
    area = lambda X: 0.5 * np.linalg.norm(np.cross(X[:, 1] - X[:, 0], X[:, 2] - X[:, 0]), axis=1).sum()  # noqa: E731
    assert area(B) == pytest.approx(area(T), rel=1e-9)


def test_every_surface_point_is_in_a_leaf_and_every_node_holds_its_children(meshbot):
    model = sphere_model(meshbot)
    tree = model.surface
    k = model.links.index("arm")
    arm_spheres = np.flatnonzero(model.link_of == k)
    base_spheres = np.flatnonzero(model.link_of == model.links.index("base"))
    assert (tree.roots[base_spheres, 1] == 0).all()  # a box link keeps its cover alone
    assert (tree.roots[arm_spheres, 1] > 0).all()
    N, Lv = tree.nodes, tree.leaves
    leaves = []
    for s in arm_spheres:
        for g, c, leaf in _leaf_chains(tree, s):
            assert np.linalg.norm(Lv[leaf, :3] - N[c, :3]) + Lv[leaf, 3] <= N[c, 3]
            assert np.linalg.norm(N[c, :3] - N[g, :3]) + N[c, 3] <= N[g, 3]
            B, f = Lv[leaf, 4:13].reshape(3, 3), Lv[leaf, 13:16]
            corners = Lv[leaf, :3] + np.array([[i, j, k] for i in (-1, 1) for j in (-1, 1) for k in (-1, 1)]) * f @ B
            for node in (c, g):  # each node's box holds the leaf's box
                axes, e = N[node, 6:15].reshape(3, 3), N[node, 15:18]
                assert np.all(np.abs((corners - N[node, :3]) @ axes.T) <= e + 1e-12)
            leaves.append(leaf)
    assert sorted(leaves) == list(range(len(Lv)))  # each leaf under exactly one sphere
    tri = link_triangles(link_pieces(meshbot.model.link("arm")))
    surface = trimesh.Trimesh(tri.reshape(-1, 3), np.arange(len(tri) * 3).reshape(-1, 3))
    pts = np.r_[trimesh.sample.sample_surface(surface, 20000, seed=1)[0], tri.reshape(-1, 3)]
    C, R = Lv[:, :3], Lv[:, 3]
    worst = np.full(len(pts), np.inf)
    for i in range(0, len(C), 2000):
        worst = np.minimum(worst, (np.linalg.norm(pts[:, None] - C[None, i : i + 2000], axis=2) - R[None, i : i + 2000]).min(axis=1))
    assert worst.max() <= 1e-12
    # and in a leaf's box: the bound the costs use against primitives
    in_box = np.zeros(len(pts), dtype=bool)
    for c, r, axes, e in zip(C, R, Lv[:, 4:13].reshape(-1, 3, 3), Lv[:, 13:16]):
        near = ~in_box & (np.linalg.norm(pts - c, axis=1) <= r + 1e-12)
        in_box[near] = np.all(np.abs((pts[near] - c) @ axes.T) <= e + 1e-12, axis=1)
    assert in_box.all()
    assert 0.0015 < np.median(R) < 0.004 and R.max() < 0.0056  # 4 mm cells


def test_leaf_size_sets_the_leaves_and_is_checked(meshbot):
    fine, coarse = sphere_model(meshbot, leaf_size=0.003), sphere_model(meshbot, leaf_size=0.008)
    assert len(fine.surface.leaves) > len(coarse.surface.leaves)
    assert fine.surface.leaves[:, 3].max() < coarse.surface.leaves[:, 3].max()
    for bad in (0, -1.0, float("nan"), "4mm", True):
        with pytest.raises(ValueError, match="leaf_size"):
            sphere_model(meshbot, leaf_size=bad)
    assert fine.surface.nodes.shape[1] == NODE_ROW and fine.surface.leaves.shape[1] == LEAF_ROW


def _wall_scene(x):
    scene = bioik.Scene()
    T = np.eye(4)
    T[:3, 3] = (x + 0.05, 0.0, 0.35)  # above the base box, where only the arm can reach
    scene.add_box("wall", (0.1, 1.0, 0.5), T)
    return scene


def test_the_cost_is_conservative_and_lets_the_mesh_come_within_a_leaf(meshbot):
    """The arm turns about z towards a wall: the compiled cost is met at no angle where the
    mesh (coal) touches the wall, and it is met at every angle where the mesh keeps more
    than the largest leaf radius — where the cover spheres alone are centimetres short."""
    model = sphere_model(meshbot)
    tree_reach = model.surface.leaves[:, 3].max()
    angles = np.linspace(-3.0, 3.0, 241)
    met_any_tight = False
    for x in (0.06, 0.075, 0.09):
        scene = _wall_scene(x)
        goal = bioik.CollisionAvoidanceGoal(scene, self_collision=False)
        problem = bioik.Problem(meshbot, [goal])
        checker = bioik.CollisionChecker(meshbot, scene)
        cover_only = bioik.Problem(meshbot, [bioik.CollisionAvoidanceGoal(
            scene, self_collision=False, spheres=bioik.collision.SphereModel(model.links, model.link_of, model.centres, model.radii))])
        for a in angles:
            q = np.array([a])
            gap = min(c.distance for c in checker.closest(q, 10) if c.kind == "scene")
            met = problem.accept(q)[0]
            if met:
                assert gap >= 0.0, f"met at {a} with the mesh {-gap:.4f} m in the wall"
            if gap > tree_reach + 1e-6:
                assert met, f"not met at {a} with {gap:.4f} m of clearance"
                if not cover_only.accept(q)[0]:
                    met_any_tight = True
    assert met_any_tight  # somewhere the leaves let through what the cover blocks


def test_a_solve_reaches_a_pose_the_cover_alone_cannot(meshbot):
    """A target whose witness is a few millimetres from a wall: the cover spheres overlap the
    wall there, the leaves do not, so `solve` with the scene reaches it, checked exactly."""
    model = sphere_model(meshbot)
    scene = _wall_scene(0.075)
    checker = bioik.CollisionChecker(meshbot, scene)
    cover_only = bioik.Problem(meshbot, [bioik.CollisionAvoidanceGoal(
        scene, self_collision=False, spheres=bioik.collision.SphereModel(model.links, model.link_of, model.centres, model.radii))])
    for a in np.linspace(-3.0, 3.0, 601):
        q = np.array([a])
        gap = min(c.distance for c in checker.closest(q, 10) if c.kind == "scene")
        if 0.006 < gap < 0.02 and not cover_only.accept(q)[0]:
            break
    else:
        pytest.fail("no angle where the cover blocks a clear mesh")
    T = meshbot.link_pose(q, "tip")
    res = bioik.solve(meshbot, [bioik.PoseGoal("tip", T)], seed=np.array([0.0]), scene=scene, solver="lm",
                      max_iterations=2000, random_seed=3)
    assert res.success and checker.is_free(res.q)
    assert np.abs(meshbot.link_pose(res.q, "tip") - T).max() < 1e-3


def test_a_cover_cached_in_another_layout_is_built_again(meshbot, tmp_path, monkeypatch):
    """A cache file whose arrays do not have this version's columns (an older layout) is
    not read as if they had: the cover is built anew."""
    from bioik.collision import spheres

    monkeypatch.setenv("BIOIK_CACHE_DIR", str(tmp_path))
    spheres._memory.clear()
    built = sphere_model(meshbot)
    (path,) = (tmp_path / "collision").glob("spheres-*.npz")
    with np.load(path) as f:
        arrays = {name: f[name] for name in f.files}
    arrays["leaves"] = arrays["leaves"][:, :4]  # as a layout with sphere leaves wrote it
    np.savez(path, **arrays)
    spheres._memory.clear()
    again = sphere_model(meshbot)
    assert again.surface.leaves.shape == built.surface.leaves.shape
    np.testing.assert_array_equal(again.surface.leaves, built.surface.leaves)
    spheres._memory.clear()
