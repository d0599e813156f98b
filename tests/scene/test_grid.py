"""Mesh grids: accuracy within the documented bound (interpolated, and node by node against
exact distances), signs of every node, the build's peak memory, the resolution rule, the
disk cache (hit, corrupt file), and open meshes."""

import tracemalloc

import numpy as np
import pytest
import trimesh

from bioik.scene import Cylinder, SceneError, Solid, Surface, difference, grid
from bioik.scene.grid import build_grid, cache_dir, default_resolution, grid_for
from bioik.scene.poses import pose_from

SQRT3 = np.sqrt(3.0)


def _hollow():
    """A closed hollow cylinder with a round opening through its top (a boolean solid)."""
    return difference(Cylinder(0.3, 0.6), Cylinder(0.27, 0.54), (Cylinder(0.03, 0.2), pose_from([0.12, 0.0, 0.3]))).mesh


def _nodes(g, flat):
    """Positions of the nodes with flat indices `flat`."""
    return g.origin + np.column_stack(np.unravel_index(flat, g.values.shape)) * g.spacing


def _exact_distance(mesh, points):
    """Distance from each point to the mesh by brute force over all faces: the nearest of
    the face's plane (where the foot falls inside the face) and its three edges."""
    a, b, c = (mesh.triangles[:, i][None] for i in range(3))
    n = np.cross(b - a, c - a)
    nn = np.einsum("...i,...i", n, n)
    out = []
    for q in np.array_split(points, max(1, len(points) // 200)):
        q = q[:, None]
        d2 = np.full(q.shape[:1] + a.shape[1:2], np.inf)
        for p0, p1 in ((a, b), (b, c), (c, a)):
            e = p1 - p0
            t = np.clip(np.einsum("...i,...i", q - p0, e) / np.maximum(np.einsum("...i,...i", e, e), 1e-300), 0.0, 1.0)
            d2 = np.minimum(d2, np.sum((q - p0 - t[..., None] * e) ** 2, axis=-1))
        s = np.einsum("...i,...i", q - a, n) / np.where(nn > 0, nn, 1.0)
        foot = q - s[..., None] * n
        inside = np.broadcast_to(nn > 0, s.shape).copy()
        for p0, p1 in ((a, b), (b, c), (c, a)):
            inside &= np.einsum("...i,...i", np.cross(p1 - p0, foot - p0), n) >= 0.0
        d2 = np.where(inside, np.minimum(d2, s * s * nn), d2)
        out.append(np.sqrt(d2.min(axis=1)))
    return np.concatenate(out)


def _check_bound(mesh, g, rng, n=1500):
    lo, hi = g.origin, g.origin + (np.array(g.values.shape) - 1) * g.spacing
    p = rng.uniform(lo, hi, (n, 3))
    d, _ = g.distance(p)
    ref = -trimesh.proximity.signed_distance(mesh, p)
    err = np.abs(d - ref)
    h = g.spacing
    near = np.abs(ref) < (grid.BAND - SQRT3) * h
    assert err.max() <= 1.5 * SQRT3 * h
    assert err[near].max() <= SQRT3 / 2 * h
    return d, ref


def test_torus_grid_is_within_the_documented_bound_and_signed():
    mesh = trimesh.creation.torus(major_radius=0.3, minor_radius=0.08, major_sections=48, minor_sections=24)
    g = build_grid(mesh, 0.02)
    d, ref = _check_bound(mesh, g, np.random.default_rng(0))
    assert np.all(np.sign(d[np.abs(ref) > 0.03]) == np.sign(ref[np.abs(ref) > 0.03]))


def test_lattice_aligned_box_gets_correct_signs_despite_columns_through_its_edges():
    mesh = trimesh.creation.box(extents=(0.4, 0.4, 0.4))  # vertices on grid nodes
    g = build_grid(mesh, 0.05)
    assert g.values[tuple(np.array(g.values.shape) // 2)] == pytest.approx(-0.2)
    _check_bound(mesh, g, np.random.default_rng(1), n=800)


def test_outside_the_node_box_the_grid_never_overstates_and_is_exact_straight_off_a_face():
    mesh = _hollow()
    g = build_grid(mesh, 0.02)
    h = g.spacing
    lo, hi = g.origin, g.origin + (np.array(g.values.shape) - 1) * h
    rng = np.random.default_rng(7)
    p = rng.uniform(lo - 0.3, hi + 0.3, (3000, 3))
    p = p[((p < lo) | (p > hi)).any(axis=1)]
    d, _ = g.distance(p)
    ref = _exact_distance(mesh, p)
    # a lower bound up to the interpolant's error at the clamped point (beside the rim of
    # the top face the old extension d(q) + |p − q| overstated by several cells)
    assert (d - ref).max() <= SQRT3 / 2 * h
    assert (d - ref).min() < -h  # (it does understate where the mesh lies back from the box)
    # straight above the flat top, away from the opening: exact up to the padding's excess
    # over GRID_PADDING cells (under ½ cell: the box is centred on the mesh)
    above = np.column_stack([rng.uniform(-0.2, -0.05, 50), rng.uniform(-0.1, 0.1, 50), hi[2] + rng.uniform(0.01, 0.3, 50)])
    d, grad = g.distance(above)
    assert (d <= above[:, 2] - 0.3 + 1e-9).all() and (d >= above[:, 2] - 0.3 - h / 2).all()
    assert np.allclose(grad[:, :2], 0.0, atol=1e-9) and (grad[:, 2] > 0.85).all()


def test_default_resolution_rule_and_memory():
    mesh = trimesh.creation.box(extents=(1.0, 0.5, 0.2))
    assert default_resolution(mesh) == pytest.approx(1.0 / grid.DEFAULT_CELLS)
    g = grid_for(Solid(mesh, resolution=0.05))
    assert g.spacing == 0.05 and g.values.shape == (29, 19, 13)  # extent/h + 2·4 + 1
    # the default grid of a 1 m object stays far below 64 MB
    cells = grid.DEFAULT_CELLS + 2 * grid.PADDING + 1
    assert cells**3 * 8 <= 64 * 2**20


def test_too_fine_an_explicit_resolution_is_refused():
    with pytest.raises(SceneError, match="coarser resolution"):
        build_grid(trimesh.creation.box(extents=(1.0, 1.0, 1.0)), 1e-4)


def test_open_mesh_is_refused_as_solid_and_is_unsigned_as_surface():
    sheet = trimesh.Trimesh([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], [[0, 1, 2], [1, 3, 2]])
    with pytest.raises(SceneError, match="not watertight.*solid=False"):
        Solid(sheet)
    g = grid_for(Surface(sheet, resolution=0.05))
    assert not g.signed and (g.values >= 0).all()
    d, _ = g.distance([[0.5, 0.5, 0.1], [0.5, 0.5, -0.2]])
    assert d == pytest.approx([0.1, 0.2], abs=SQRT3 / 2 * 0.05)


def test_cache_second_build_loads_and_a_corrupt_file_is_rebuilt(monkeypatch):
    solid = Solid(trimesh.creation.icosphere(subdivisions=2, radius=0.2), resolution=0.04)
    calls = []
    real = grid.build_grid
    monkeypatch.setattr(grid, "build_grid", lambda *a, **k: calls.append(1) or real(*a, **k))
    first = grid_for(solid)
    files = list(cache_dir().glob("*.npz"))
    assert len(calls) == 1 and len(files) == 1
    assert not list(cache_dir().glob("*.tmp"))  # written atomically, nothing left behind
    second = grid_for(solid)
    assert len(calls) == 1 and np.array_equal(first.values, second.values)
    for junk in (b"not a zip file", files[0].read_bytes()[:200]):
        files[0].write_bytes(junk)
        again = grid_for(solid)
        assert np.array_equal(again.values, first.values)
    assert len(calls) == 3
    assert grid_for(solid) is not None and len(calls) == 3  # the rebuilt file is good again


def test_cache_key_depends_on_mesh_and_resolution_and_cache_dir_env(monkeypatch, tmp_path):
    mesh = trimesh.creation.box(extents=(0.2, 0.2, 0.2))
    moved = mesh.copy()
    moved.apply_translation([0.01, 0, 0])
    keys = {grid.cache_key(m, h, 4, True) for m in (mesh, moved) for h in (0.01, 0.02)}
    assert len(keys) == 4
    assert grid.cache_key(mesh, 0.01, 4, True) != grid.cache_key(mesh, 0.01, 4, False)
    monkeypatch.delenv("BIOIK_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "bioik" / "sdf"


@pytest.mark.parametrize("mesh, h", [
    (_hollow(), 0.02),
    (trimesh.creation.torus(major_radius=0.3, minor_radius=0.08, major_sections=48, minor_sections=24), 0.013),
])
def test_node_values_are_exact_in_the_band_and_never_too_small_or_too_large_beyond(mesh, h):
    g = build_grid(mesh, h)
    flat = np.random.default_rng(2).choice(g.values.size, 1500, replace=False)
    exact = _exact_distance(mesh, _nodes(g, flat))
    err = np.abs(g.values.ravel()[flat]) - exact
    band = exact <= grid.BAND * h
    assert band.sum() > 100 and (~band).sum() > 800
    assert np.abs(err[band]).max() <= 1e-12
    assert err[~band].min() >= -1e-12 and err[~band].max() <= SQRT3 * h  # the proven bound
    assert err[~band].max() <= 0.3 * h  # what the neighbour sweeps achieve on these meshes


def test_every_node_of_a_boolean_solid_has_the_sign_of_contains(monkeypatch):
    mesh = _hollow()
    g = build_grid(mesh, 0.02)
    inside = mesh.contains(_nodes(g, np.arange(g.values.size))).reshape(g.values.shape)
    off = np.abs(g.values) > 1e-6  # contains() may go either way this close to the surface
    assert inside[off].any() and np.array_equal(np.signbit(g.values)[off], inside[off])
    # columns whose crossings cannot decide go to contains(), a few nodes at a time
    real = grid._negate_inside

    def half_bad(zs, starts, oz, h, values, bad):
        bad[::2] = True
        real(zs, starts, oz, h, values, bad)

    monkeypatch.setattr(grid, "_negate_inside", half_bad)
    monkeypatch.setattr(grid, "CONTAINS_CHUNK", 200)
    again = build_grid(mesh, 0.02)
    assert np.array_equal(again.values[off], g.values[off])


def test_build_peak_memory_is_the_values_and_one_triangle_index_per_node():
    mesh = _hollow()
    build_grid(mesh, 0.1)  # compiled kernels and trimesh's caches are not the build's
    tracemalloc.start()
    try:
        g = build_grid(mesh, 0.0065)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    n = g.values.size
    assert n > 900_000 and peak <= 14 * n + 2**20  # 8 B of value + 4 B of triangle id per node


def test_node_spans_beyond_the_int_range_are_clamped_not_undefined():
    """A near-vertical triangle's plane bounds a column's z by ±1e17 cells and more; converted
    to int unclamped they were undefined and the band loop ran off the grid (a segfault)."""
    assert grid._node_span(-1e300, 1e300, 0.0, 1e-3, 10) == (0, 9)
    assert grid._node_span(-1e300, -1e299, 0.0, 1e-3, 10)[1] < 0
    assert grid._node_span(1e299, 1e300, 0.0, 1e-3, 10)[0] > 9 or grid._node_span(1e299, 1e300, 0.0, 1e-3, 10)[1] < 0
    lo, hi = grid._node_span(np.nan, 1.0, 0.0, 1e-3, 10)
    assert lo > hi
    assert grid._node_span(0.0025, 0.0061, 0.0, 1e-3, 10) == (3, 6)


def test_a_hole_cut_with_near_vertical_triangles_builds():
    """The hydrogen tank of the EBIKE scenes: its 7 cm opening's wall has triangles whose
    normals are horizontal to 1e-17 (the case that crashed)."""
    hole = (Cylinder(0.035, 0.04), pose_from((0.0, 0.0, 0.155)))
    tank = difference(Cylinder(0.16, 0.32), Cylinder(0.15, 0.30), hole)
    g = build_grid(tank.mesh, default_resolution(tank.mesh))
    assert np.isfinite(g.values).all()
    d, _ = g.distance(np.array([[0.0, 0.0, 0.0], [0.155, 0.0, 0.0], [0.0, 0.0, 0.2]]))
    assert d[0] > 0.1 and d[1] < 0 and d[2] > 0.03  # in the hollow, in the wall, above the lid
