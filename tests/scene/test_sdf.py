"""The compiled fields: primitives against trimesh's exact distances, gradients against
finite differences, the grid lookup, and scene_distance's mask, cutoff and culling."""

import numpy as np
import pytest
import trimesh

from bioik.scene import Scene, sdf
from bioik.scene.poses import pose_from


def _points(rng, n, extent):
    """Points near the surface and far from it, inside and out."""
    return np.concatenate([rng.uniform(-extent, extent, (n, 3)), rng.uniform(-3 * extent, 3 * extent, (n // 3, 3))])


def _field(kind, params):
    f = {"box": sdf.box_sdf, "sphere": sdf.sphere_sdf, "cylinder": sdf.cylinder_sdf, "capsule": sdf.capsule_sdf}[kind]
    return lambda p: np.array([f(*q, *params) for q in p])


CASES = [
    # kind, params, reference mesh, how far the mesh is from the true surface (sagitta)
    ("box", (0.3, 0.2, 0.1), lambda: trimesh.creation.box(extents=(0.6, 0.4, 0.2)), 1e-9),
    ("sphere", (0.25,), lambda: trimesh.creation.icosphere(subdivisions=4, radius=0.25), 0.25 * 5e-3),
    ("cylinder", (0.2, 0.3), lambda: trimesh.creation.cylinder(radius=0.2, height=0.6, sections=512), 0.2 * (1 - np.cos(np.pi / 512))),
    ("capsule", (0.1, 0.2), lambda: trimesh.creation.capsule(height=0.4, radius=0.1, count=(64, 64)), 0.1 * (1 - np.cos(np.pi / 32))),
]


@pytest.mark.parametrize(("kind", "params", "mesh", "tol"), CASES, ids=[c[0] for c in CASES])
def test_primitive_matches_trimesh_signed_distance(kind, params, mesh, tol):
    rng = np.random.default_rng(1)
    p = _points(rng, 300, 0.45)
    ref = -trimesh.proximity.signed_distance(mesh(), p)  # trimesh is positive inside
    got = _field(kind, params)(p)[:, 0]
    assert np.abs(got - ref).max() <= tol + 1e-9
    assert (got < 0).any() and (got > 0).any()


@pytest.mark.parametrize(("kind", "params"), [(c[0], c[1]) for c in CASES], ids=[c[0] for c in CASES])
def test_primitive_gradient_is_unit_and_matches_finite_differences(kind, params):
    rng = np.random.default_rng(2)
    f = _field(kind, params)
    p = _points(rng, 200, 0.45)
    out = f(p)
    g = out[:, 1:]
    assert np.allclose(np.linalg.norm(g, axis=1), 1.0)
    eps = 1e-6
    fd = np.stack([(f(p + eps * e)[:, 0] - f(p - eps * e)[:, 0]) / (2 * eps) for e in np.eye(3)], axis=1)
    # away from ridges (where the nearest feature switches) the field is smooth
    smooth = np.abs(np.linalg.norm(fd, axis=1) - 1.0) < 1e-4
    assert smooth.mean() > 0.9
    assert np.allclose(g[smooth], fd[smooth], atol=1e-5)


def test_outside_distance_of_box_and_cylinder_is_euclidean_at_corners_and_rims():
    # beyond a corner, the distance is to the corner, not to the farthest face plane
    d = sdf.box_sdf(1.3, 1.2, 1.1, 1.0, 1.0, 1.0)
    assert d[0] == pytest.approx(np.sqrt(0.09 + 0.04 + 0.01))
    d = sdf.cylinder_sdf(0.0, 0.5 + 0.3, 1.0 + 0.4, 0.5, 1.0)
    assert d[0] == pytest.approx(0.5)
    assert np.allclose(d[1:], (0.0, 0.6, 0.8))
    # inside: minus the nearest face
    assert sdf.box_sdf(0.9, 0.0, 0.0, 1.0, 1.0, 1.0)[:2] == pytest.approx((-0.1, 1.0))
    assert sdf.cylinder_sdf(0.0, 0.0, -0.95, 0.5, 1.0)[0] == pytest.approx(-0.05)
    assert sdf.cylinder_sdf(0.0, 0.0, -0.95, 0.5, 1.0)[3] == -1.0


def _grid(values, origin, h):
    """The grid as a field in metres: points mapped to cells, the per-cell gradient / h."""
    data, dims = values.ravel().copy(), values.shape

    def field(p):
        out = np.array([sdf.grid_sdf(data, 0, *dims, *((np.asarray(q) - origin) / h), h) for q in p])
        out[:, 1:] /= h
        return out

    return field


def test_grid_interpolates_a_linear_field_exactly_and_its_gradient_is_the_interpolants():
    rng = np.random.default_rng(3)
    h, origin = 0.1, np.array([-0.3, -0.2, -0.4])
    idx = np.stack(np.meshgrid(*[np.arange(n) for n in (7, 5, 9)], indexing="ij"), axis=-1)
    nodes = origin + h * idx
    a = np.array([0.3, -0.5, 0.8])
    f = _grid(nodes @ a + 0.1, origin, h)
    p = origin + rng.uniform(0, 1, (200, 3)) * h * (np.array([7, 5, 9]) - 1)
    out = f(p)
    assert np.allclose(out[:, 0], p @ a + 0.1)
    assert np.allclose(out[:, 1:], a)
    # a nonlinear field: the gradient is the derivative of the interpolant (finite differences)
    g = _grid(np.sin(nodes[..., 0] * 7) * np.cos(nodes[..., 1] * 5) + nodes[..., 2] ** 2, origin, h)
    eps = 1e-7
    q = p + 1e-4  # off the cell faces, where the interpolant is not differentiable
    fd = np.stack([(g(q + eps * e)[:, 0] - g(q - eps * e)[:, 0]) / (2 * eps) for e in np.eye(3)], axis=1)
    assert np.allclose(g(q)[:, 1:], fd, atol=1e-5)


def test_a_nan_point_gives_a_nan_distance_not_a_read_off_the_grid():
    h, origin = 0.1, np.zeros(3)
    f = _grid(np.arange(4 * 5 * 6, dtype=float).reshape(4, 5, 6), origin, h)
    for p in ([np.nan, 0.1, 0.1], [0.1, np.nan, 0.1], [0.1, 0.1, np.nan]):
        assert np.isnan(f(np.array([p]))[0, 0])


def test_grid_outside_its_box_is_continuous_differentiable_and_at_least_the_distance_to_the_box():
    h, origin = 0.1, np.zeros(3)
    rng = np.random.default_rng(5)
    values = 0.5 + 0.05 * rng.standard_normal((4, 4, 4))
    f = _grid(values, origin, h)
    box_hi = 0.3
    # continuous across a face
    inside, outside = f([[box_hi - 1e-9, 0.1, 0.2], [box_hi + 1e-9, 0.1, 0.2]])[:, 0]
    assert abs(inside - outside) < 1e-8
    # beyond faces, edges and corners: the derivative is the value's, and the value is at
    # least the distance to the node box (what scene culling relies on)
    p = rng.uniform(-0.5, 0.8, (300, 3))
    out = (p < 0).any(axis=1) | (p > box_hi).any(axis=1)
    p = p[out]
    got = f(p)
    to_box = np.linalg.norm(p - np.clip(p, 0.0, box_hi), axis=1)
    assert (got[:, 0] >= to_box).all()
    eps = 1e-7
    fd = np.stack([(f(p + eps * e)[:, 0] - f(p - eps * e)[:, 0]) / (2 * eps) for e in np.eye(3)], axis=1)
    assert np.allclose(got[:, 1:], fd, atol=1e-5)


def _scene():
    s = Scene()
    s.add_box("box", (0.4, 0.3, 0.2), pose_from([0.5, 0.0, 0.0], rpy=[0.3, -0.2, 0.7]))
    s.add_sphere("ball", 0.1, pose_from([-0.4, 0.2, 0.1]))
    s.add_cylinder("post", 0.05, 0.6, pose_from([0.0, -0.5, 0.0], quaternion=[0.9, 0.3, 0.1, -0.2]))
    s.add_capsule("rod", 0.03, 0.4, pose_from([0.0, 0.4, -0.3], rpy=[1.2, 0.0, 0.4]))
    return s


def _brute(s, p, skip=()):
    """Each obstacle's field in its own frame, minimum over those not skipped."""
    out = []
    for k, o in enumerate(s.obstacles.values()):
        if k in skip:
            continue
        T = np.linalg.inv(o.pose)
        q = p @ T[:3, :3].T + T[:3, 3]
        sh = o.shape
        kind = type(sh).__name__.lower()
        params = {"box": lambda: tuple(np.array(sh.size) / 2), "sphere": lambda: (sh.radius,)}.get(kind, lambda: (sh.radius, sh.length / 2))()
        out.append(_field(kind, params)(q)[:, 0])
    return np.min(out, axis=0)


def test_scene_distance_is_the_minimum_over_posed_obstacles_with_world_gradients():
    s = _scene()
    rng = np.random.default_rng(4)
    p = rng.uniform(-0.8, 0.8, (500, 3))
    d, g = s.distance(p)
    assert np.allclose(d, _brute(s, p))
    eps = 1e-6
    fd = np.stack([(s.distance(p + eps * e)[0] - s.distance(p - eps * e)[0]) / (2 * eps) for e in np.eye(3)], axis=1)
    smooth = np.abs(np.linalg.norm(fd, axis=1) - 1.0) < 1e-4
    assert smooth.mean() > 0.9
    assert np.allclose(g[smooth], fd[smooth], atol=1e-5)


def test_mask_skips_obstacles_and_cutoff_returns_the_exact_minimum_below_it():
    s = _scene()
    blob = s.pack()
    assert sdf.obstacle_count(blob) == 4
    rng = np.random.default_rng(5)
    p = rng.uniform(-0.8, 0.8, (400, 3))
    mask = (1 << 0) | (1 << 2)
    d, _ = sdf.distances(blob, p, mask=mask)
    assert np.allclose(d, _brute(s, p, skip=(0, 2)))
    exact = _brute(s, p)
    for cutoff in (0.02, 0.1, 0.3):
        d, g = sdf.distances(blob, p, cutoff)
        below = exact < cutoff
        assert np.allclose(d[below], exact[below])
        assert np.all(d[~below] == cutoff) and np.all(g[~below] == 0.0)
    # everything masked: nothing is nearer than the cutoff
    d, g = sdf.distances(blob, p, 0.5, mask=0b1111)
    assert np.all(d == 0.5) and np.all(g == 0.0)


def test_the_kernel_reads_a_blob_copied_into_a_bigger_buffer():
    s = _scene()
    blob = s.pack()
    big = np.full(len(blob) + 100, np.nan)
    big[37 : 37 + len(blob)] = blob
    p = np.random.default_rng(6).uniform(-0.8, 0.8, (50, 3))
    assert np.array_equal(sdf.distances(big[37 : 37 + len(blob)], p)[0], s.distance(p)[0])


def test_more_than_63_obstacles_work_and_the_mask_stops_at_bit_62():
    s = Scene()
    for k in range(70):
        s.add_sphere(f"s{k}", 0.01, pose_from([0.1 * k, 0.0, 0.0]))
    blob = s.pack()
    far = np.array([[0.1 * 65, 0.0, 0.0]])
    assert sdf.distances(blob, far)[0][0] == pytest.approx(-0.01)
    assert sdf.distances(blob, far, mask=-1)[0][0] == pytest.approx(-0.01)  # k ≥ 63 cannot be masked
    assert sdf.distances(blob, np.array([[0.0, 0.0, 0.0]]), mask=1)[0][0] == pytest.approx(0.09)
