"""Signed-distance grids for meshes (`Solid`, `Surface`): built once, cached on disk.

A mesh has no closed-form distance, so its field is sampled on a regular grid of nodes
(spacing: the mesh's largest extent / 120 unless `resolution` is given, padded by 4 cells)
and interpolated trilinearly at run time (`sdf.grid_sdf`). The build is compiled loops
working in place: an exact near band around the triangles, an exact Euclidean distance
transform for the far field, and signs by ray parity along z columns (`trimesh` settles
grazing columns). Grids are cached as `.npz` under `$BIOIK_CACHE_DIR/sdf`, keyed by a
SHA-256 of the mesh and the settings, written by rename.

The construction, its error bound ((√3/2)·h near the surface) and its measured speed are
in docs/collision.md, "How the distance grids are built".
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from bioik import _cache_dir
from bioik.kinematics.frames import JIT
from bioik.scene.errors import SceneError
from bioik.scene.sdf import GRID_PADDING, grid_sdf
from bioik.scene.shapes import Solid, Surface

if TYPE_CHECKING:  # trimesh takes about a second to import: modules import it where they use it
    import trimesh

#: Bump when the build or the file layout changes: old cache files stop matching.
FORMAT_VERSION = 4
#: Default cells across the mesh's largest extent, and padding cells on every side (the
#: lookup outside the node box relies on the padding: `sdf.grid_sdf`).
DEFAULT_CELLS = 120
PADDING = GRID_PADDING
#: Half-width of the exact band, in cells.
BAND = 2.0
#: Largest grid an explicit resolution may ask for.
MAX_NODES = 2**27
#: Most nodes handed to `mesh.contains` at once (columns whose crossings cannot decide signs).
CONTAINS_CHUNK = 2**12


@dataclass(frozen=True, eq=False)
class SDFGrid:
    """Node values (nx, ny, nz) float64 C-ordered, node (0, 0, 0) at `origin`, spacing h."""

    values: np.ndarray
    origin: np.ndarray
    spacing: float
    signed: bool

    def bounding_sphere(self) -> tuple[np.ndarray, float]:
        """Centre and radius of the sphere around the whole node box (local frame)."""
        ext = (np.array(self.values.shape) - 1) * self.spacing
        return self.origin + ext / 2, float(np.linalg.norm(ext) / 2)

    def distance(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Interpolated (d (N,), gradient (N, 3)) at local points (N, 3)."""
        pts = np.ascontiguousarray(np.asarray(points, dtype=np.float64).reshape(-1, 3))
        d, g = np.empty(len(pts)), np.empty((len(pts), 3))
        nx, ny, nz = self.values.shape
        _lookup(np.ascontiguousarray(self.values).ravel(), nx, ny, nz, self.origin, self.spacing, pts, d, g)
        return d, g


@njit(**JIT)
def _lookup(values, nx, ny, nz, o, h, pts, d, g):
    ih = 1.0 / h
    for i in range(pts.shape[0]):
        u, v, w = (pts[i, 0] - o[0]) * ih, (pts[i, 1] - o[1]) * ih, (pts[i, 2] - o[2]) * ih
        d[i], gu, gv, gw = grid_sdf(values, 0, nx, ny, nz, u, v, w, h)
        g[i, 0], g[i, 1], g[i, 2] = gu * ih, gv * ih, gw * ih


def default_resolution(mesh: trimesh.Trimesh) -> float:
    """The default spacing: the largest extent of the mesh's bounds over DEFAULT_CELLS."""
    return float(np.max(mesh.extents)) / DEFAULT_CELLS


def cache_dir() -> Path:
    """Where grids are cached: $BIOIK_CACHE_DIR/sdf, $XDG_CACHE_HOME/bioik/sdf or ~/.cache/bioik/sdf."""
    return _cache_dir.cache_dir("sdf")


def cache_key(mesh: trimesh.Trimesh, spacing: float, padding: int, signed: bool) -> str:
    """SHA-256 of everything the grid depends on."""
    h = hashlib.sha256()
    h.update(f"bioik-sdf-grid:{FORMAT_VERSION}:{spacing!r}:{padding}:{bool(signed)}:".encode())
    h.update(np.ascontiguousarray(mesh.vertices, dtype="<f8").tobytes())
    h.update(b"|")
    h.update(np.ascontiguousarray(mesh.faces, dtype="<i8").tobytes())
    return h.hexdigest()


def grid_for(shape: Solid | Surface, *, cache: bool = True) -> SDFGrid:
    """The grid of a Solid (signed) or Surface (unsigned): from the disk cache when a valid
    file is there, else built (and then cached)."""
    signed = isinstance(shape, Solid)
    mesh = shape.mesh
    spacing = shape.resolution if shape.resolution is not None else default_resolution(mesh)
    if not cache:
        return build_grid(mesh, spacing, signed=signed)
    key = cache_key(mesh, spacing, PADDING, signed)
    path = cache_dir() / f"{key}.npz"
    grid = _load(path, key)
    if grid is None:
        grid = build_grid(mesh, spacing, signed=signed)
        _store(path, key, grid)
    return grid


def _load(path: Path, key: str) -> SDFGrid | None:
    """The cached grid, or None if missing, unreadable or not the one asked for."""
    try:
        with np.load(path, allow_pickle=False) as f:
            if str(f["key"]) != key or int(f["version"]) != FORMAT_VERSION:
                return None
            values, origin = f["values"], f["origin"]
            spacing, signed = float(f["spacing"]), bool(f["signed"])
    except Exception:  # noqa: BLE001 (missing, truncated, not a zip, wrong fields: rebuild)
        return None
    ok = (
        values.dtype == np.float64 and values.ndim == 3 and min(values.shape) >= 2
        and origin.shape == (3,) and spacing > 0.0 and np.isfinite(values).all() and np.isfinite(origin).all()
    )
    return SDFGrid(np.ascontiguousarray(values), origin.astype(np.float64), spacing, signed) if ok else None


def _store(path: Path, key: str, grid: SDFGrid) -> None:
    """Write atomically (`bioik._cache_dir.write_whole`); a cache that cannot be written
    only costs a rebuild next time."""
    _cache_dir.write_whole(path, lambda f: np.savez(
        f, key=np.array(key), version=np.array(FORMAT_VERSION), values=grid.values, origin=grid.origin,
        spacing=np.array(grid.spacing), signed=np.array(grid.signed)))


def build_grid(mesh: trimesh.Trimesh, spacing: float, *, signed: bool = True) -> SDFGrid:
    """Sample the (signed if `signed`) distance to the mesh on nodes `spacing` apart over
    its bounds padded by PADDING cells (see the module docstring for how)."""
    h = float(spacing)
    V = np.ascontiguousarray(mesh.vertices, dtype=np.float64)
    F = np.ascontiguousarray(mesh.faces, dtype=np.int64)
    lo, hi = V.min(axis=0), V.max(axis=0)
    dims = np.ceil((hi - lo) / h).astype(np.int64) + 2 * PADDING + 1
    if np.prod(dims.astype(float)) > MAX_NODES:
        raise SceneError(
            f"a grid of spacing {h} m over a mesh of extents {np.round(hi - lo, 4).tolist()} would need "
            f"{' × '.join(map(str, dims))} nodes (> {MAX_NODES}); use a coarser resolution"
        )
    # centred: each side's padding is between PADDING and PADDING + ½ cells
    origin = (lo + hi) / 2 - (dims - 1) * h / 2
    nx, ny, nz = (int(n) for n in dims)
    # every step works in place on these two arrays (see the module docstring)
    values = np.full((nx, ny, nz), np.inf)  # squared distances until the square root
    tri = np.full((nx, ny, nz), -1, dtype=np.int32)
    # 1. exact distances in the band
    _band(V, F, origin, h, BAND * h, values, tri)
    # 2. far field: the nearest band node's nearest triangle, then the neighbours' if nearer
    if not _far(V, F, origin, h, (BAND * h) ** 2, values, tri):
        raise SceneError(f"the mesh with {len(F)} faces is degenerate: no grid node lies near it")
    _refine(V, F, origin, h, (BAND * h) ** 2, values, tri, True)
    _refine(V, F, origin, h, (BAND * h) ** 2, values, tri, False)
    del tri
    np.sqrt(values, out=values)
    # 3. signs
    if signed:
        _sign(mesh, V, F, origin, h, values)
    return SDFGrid(values, origin, h, bool(signed))


@njit(inline="always", **JIT)
def _dot(ax, ay, az, bx, by, bz):
    return ax * bx + ay * by + az * bz


@njit(**JIT)
def point_triangle_distance2(px, py, pz, V, F, t):
    """Squared distance from p to triangle t of (V, F): the nearest point is a vertex, an
    edge point or a face point, decided by p's barycentric region."""
    a, b, c = F[t, 0], F[t, 1], F[t, 2]
    ax, ay, az = V[a, 0], V[a, 1], V[a, 2]
    abx, aby, abz = V[b, 0] - ax, V[b, 1] - ay, V[b, 2] - az
    acx, acy, acz = V[c, 0] - ax, V[c, 1] - ay, V[c, 2] - az
    apx, apy, apz = px - ax, py - ay, pz - az
    d1 = _dot(abx, aby, abz, apx, apy, apz)
    d2 = _dot(acx, acy, acz, apx, apy, apz)
    if d1 <= 0.0 and d2 <= 0.0:  # vertex a
        return _dot(apx, apy, apz, apx, apy, apz)
    bpx, bpy, bpz = px - V[b, 0], py - V[b, 1], pz - V[b, 2]
    d3 = _dot(abx, aby, abz, bpx, bpy, bpz)
    d4 = _dot(acx, acy, acz, bpx, bpy, bpz)
    if d3 >= 0.0 and d4 <= d3:  # vertex b
        return _dot(bpx, bpy, bpz, bpx, bpy, bpz)
    cpx, cpy, cpz = px - V[c, 0], py - V[c, 1], pz - V[c, 2]
    d5 = _dot(abx, aby, abz, cpx, cpy, cpz)
    d6 = _dot(acx, acy, acz, cpx, cpy, cpz)
    if d6 >= 0.0 and d5 <= d6:  # vertex c
        return _dot(cpx, cpy, cpz, cpx, cpy, cpz)
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:  # edge ab
        s = d1 / (d1 - d3)
        ex, ey, ez = apx - s * abx, apy - s * aby, apz - s * abz
        return _dot(ex, ey, ez, ex, ey, ez)
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:  # edge ac
        s = d2 / (d2 - d6)
        ex, ey, ez = apx - s * acx, apy - s * acy, apz - s * acz
        return _dot(ex, ey, ez, ex, ey, ez)
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:  # edge bc
        s = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        ex, ey, ez = bpx - s * (V[c, 0] - V[b, 0]), bpy - s * (V[c, 1] - V[b, 1]), bpz - s * (V[c, 2] - V[b, 2])
        return _dot(ex, ey, ez, ex, ey, ez)
    den = va + vb + vc
    if den <= 0.0:  # degenerate (zero-area) triangle: its edges already covered it
        return _dot(apx, apy, apz, apx, apy, apz)
    v, w = vb / den, vc / den
    ex, ey, ez = apx - v * abx - w * acx, apy - v * aby - w * acy, apz - v * abz - w * acz
    return _dot(ex, ey, ez, ex, ey, ez)


@njit(inline="always", **JIT)
def _node_span(lo, hi, o, h, n):
    """First and last node index in [0, n) whose coordinate o + i·h lies in [lo, hi]
    (first > last when none does). Clamped as floats before the conversion to int: a
    near-vertical triangle's plane bounds reach 1e17 cells and more, and a float beyond the
    int64 range converts to an undefined value, which made the node loops run off the grid."""
    a, b = np.ceil((lo - o) / h), np.floor((hi - o) / h)
    if not a <= b:  # empty, or NaN
        return 0, -1
    return int(min(max(a, 0.0), float(n))), int(max(min(b, n - 1.0), -1.0))


@njit(inline="always", **JIT)
def _norm2(V, p, x, y, z):
    """Squared distance from vertex p to (x, y, z)."""
    return _dot(V[p, 0] - x, V[p, 1] - y, V[p, 2] - z, V[p, 0] - x, V[p, 1] - y, V[p, 2] - z)


@njit(inline="always", **JIT)
def _row_extent(V, p, q, lo, hi, ylo, yhi):
    """(ylo, yhi) grown to cover the y of the points of edge V[p]V[q] whose x lies in [lo, hi]."""
    px, qx, py, qy = V[p, 0], V[q, 0], V[p, 1], V[q, 1]
    if lo <= px <= hi:
        ylo, yhi = min(ylo, py), max(yhi, py)
    if px != qx:
        slope = (qy - py) / (qx - px)
        for x in (lo, hi):
            if min(px, qx) <= x <= max(px, qx):
                y = py + (x - px) * slope
                ylo, yhi = min(ylo, y), max(yhi, y)
    return ylo, yhi


@njit(**JIT)
def _band(V, F, o, h, reach, d2, tri):
    """Each triangle writes its exact squared distance into every node within `reach` of
    it (and a few more), keeping the smallest and which triangle gave it.

    The nodes are found without sweeping the triangle's whole bounding box: for each node
    row along x, the span along y comes from the triangle's extent within reach in x, and
    in each (x, y) column only the nodes within reach of the triangle's plane and of its
    bounding sphere are tested."""
    nx, ny, nz = d2.shape
    r = reach * (1.0 + 1e-9)  # never miss a node at exactly `reach` to rounding
    for t in range(F.shape[0]):
        a, b, c = F[t, 0], F[t, 1], F[t, 2]
        ax, ay, az = V[a, 0], V[a, 1], V[a, 2]
        ex, ey, ez = V[b, 0] - ax, V[b, 1] - ay, V[b, 2] - az
        fx, fy, fz = V[c, 0] - ax, V[c, 1] - ay, V[c, 2] - az
        mx, my, mz = ey * fz - ez * fy, ez * fx - ex * fz, ex * fy - ey * fx
        mm = math.sqrt(mx * mx + my * my + mz * mz)
        if mm > 0.0:
            mx, my, mz = mx / mm, my / mm, mz / mm
        else:  # no plane: any unit vector will do, with `off` the extent along it
            mx, my, mz = 0.0, 0.0, 1.0
        # the triangle lies within `off` of the plane through a (rounding, needles)
        off = max(abs(_dot(mx, my, mz, ex, ey, ez)), abs(_dot(mx, my, mz, fx, fy, fz)))
        slab = r + off
        imz = 1.0 / mz if mz != 0.0 else 0.0
        # the triangle lies within rc of its centroid, so a node within r of it within rc + r
        cx, cy, cz = ax + (ex + fx) / 3.0, ay + (ey + fy) / 3.0, az + (ez + fz) / 3.0
        rc = math.sqrt(max(_norm2(V, a, cx, cy, cz), _norm2(V, b, cx, cy, cz), _norm2(V, c, cx, cy, cz)))
        ball2 = (rc + r) * (rc + r)
        zlo, zhi = min(az, V[b, 2], V[c, 2]) - r, max(az, V[b, 2], V[c, 2]) + r
        i0, i1 = _node_span(min(ax, V[b, 0], V[c, 0]) - r, max(ax, V[b, 0], V[c, 0]) + r, o[0], h, nx)
        for i in range(i0, i1 + 1):
            px = o[0] + i * h
            ylo, yhi = np.inf, -np.inf
            ylo, yhi = _row_extent(V, a, b, px - r, px + r, ylo, yhi)
            ylo, yhi = _row_extent(V, b, c, px - r, px + r, ylo, yhi)
            ylo, yhi = _row_extent(V, c, a, px - r, px + r, ylo, yhi)
            j0, j1 = _node_span(ylo - r, yhi + r, o[1], h, ny)
            for j in range(j0, j1 + 1):
                py = o[1] + j * h
                q = ball2 - (px - cx) * (px - cx) - (py - cy) * (py - cy)
                if q < 0.0:
                    continue
                lo, hi = max(zlo, cz - math.sqrt(q)), min(zhi, cz + math.sqrt(q))
                s0 = mx * (px - ax) + my * (py - ay)  # plane offset at z = az
                if mz != 0.0:  # the column's z within `slab` of the plane
                    z0, z1 = az - (s0 + slab) * imz, az - (s0 - slab) * imz
                    lo, hi = max(lo, min(z0, z1)), min(hi, max(z0, z1))
                elif abs(s0) > slab:
                    continue
                k0, k1 = _node_span(lo, hi, o[2], h, nz)
                for k in range(k0, k1 + 1):
                    # distance to the plane less `off`: a lower bound on the distance to the triangle
                    s = max(abs(s0 + mz * (o[2] + k * h - az)) - off, 0.0)
                    if s * s >= d2[i, j, k]:
                        continue
                    d = point_triangle_distance2(px, py, o[2] + k * h, V, F, t)
                    if d < d2[i, j, k]:
                        d2[i, j, k] = d
                        tri[i, j, k] = t


@njit(**JIT)
def _far(V, F, o, h, band2, d2, tri):
    """Nodes off the band (d2 > band2) get the squared distance to the triangle of their
    nearest band node (Euclidean, ties either way), in place; False when the band is empty.

    A separable exact distance transform: one pass per axis over every line of nodes
    (`_pass`), carrying the triangle of the minimum along; then each node off the band
    swaps its squared node distance for the exact one to that triangle."""
    n = max(d2.shape)
    f, lab = np.empty(n), np.empty(n, np.int32)  # one line's costs and triangles
    v, vf, vl, z = np.empty(n, np.int64), np.empty(n), np.empty(n, np.int32), np.empty(n)
    for axis in (2, 1, 0):
        _pass(d2, tri, band2, axis, f, lab, v, vf, vl, z)
    nx, ny, nz = d2.shape
    for i in range(nx):
        for j in range(ny):
            for k in range(nz):
                if d2[i, j, k] < 0.0:
                    if tri[i, j, k] < 0:
                        return False  # no band node anywhere
                    d2[i, j, k] = point_triangle_distance2(o[0] + i * h, o[1] + j * h, o[2] + k * h, V, F, tri[i, j, k])
    return True


@njit(**JIT)
def _pass(d2, tri, band2, axis, f, lab, v, vf, vl, z):
    """One pass of `_far` along `axis`: each node off the band takes the minimum over its
    line of (offset)² + the previous passes' squared node distance, and its triangle.
    Between passes an off-band node holds minus that squared node distance (−inf: no band
    node seen yet), so a node is in the band iff 0 ≤ d2 ≤ band2."""
    s0, s1 = (0, 1) if axis == 2 else (0, 2) if axis == 1 else (1, 2)
    for a in range(d2.shape[s0]):
        for b in range(d2.shape[s1]):  # the last index innermost: neighbouring lines share cache lines
            dl = d2[a, b, :] if axis == 2 else d2[a, :, b] if axis == 1 else d2[:, a, b]
            tl = tri[a, b, :] if axis == 2 else tri[a, :, b] if axis == 1 else tri[:, a, b]
            for x in range(dl.shape[0]):
                f[x], lab[x] = _node_cost(dl[x], band2), tl[x]
            _line(f, lab, dl.shape[0], v, vf, vl, z)
            for x in range(dl.shape[0]):
                if f[x] != 0.0:  # 0 only in the band: elsewhere (offset)² or f is ≥ 1
                    dl[x], tl[x] = -f[x], lab[x]


@njit(**JIT)
def _refine(V, F, o, h, band2, d2, tri, forward):
    """One sweep over the nodes off the band (d2 > band2), in index order or backwards:
    each takes, of the triangles of its three neighbours already swept, one nearer to it
    than its own (an exact distance: values only shrink and stay true distances). A nearer
    triangle so spreads toward higher indices forward and toward lower ones backward."""
    nx, ny, nz = d2.shape
    back = -1 if forward else 1  # the offset of the neighbours already swept
    for a in range(nx):
        i = a if forward else nx - 1 - a
        for b in range(ny):
            j = b if forward else ny - 1 - b
            for c in range(nz):
                k = c if forward else nz - 1 - c
                best = d2[i, j, k]
                if best <= band2:
                    continue
                own = tried = tri[i, j, k]
                px, py, pz = o[0] + i * h, o[1] + j * h, o[2] + k * h
                for e in range(3):
                    ii, jj, kk = i + back * (e == 0), j + back * (e == 1), k + back * (e == 2)
                    if not (0 <= ii < nx and 0 <= jj < ny and 0 <= kk < nz):
                        continue
                    t = tri[ii, jj, kk]
                    if t == own or t == tried:  # neighbours often share a triangle
                        continue
                    tried = t
                    d = point_triangle_distance2(px, py, pz, V, F, t)
                    if d < best:
                        best, own = d, t
                d2[i, j, k], tri[i, j, k] = best, own


@njit(inline="always", **JIT)
def _node_cost(d2, band2):
    """A node's squared node distance to the band so far: 0 in the band, else as stored
    by `_pass` (a squared distance above band2 is a node no pass has reached: inf)."""
    if d2 < 0.0:
        return -d2
    return 0.0 if d2 <= band2 else np.inf


@njit(**JIT)
def _line(f, lab, n, v, vf, vl, z):
    """1-D transform of f[:n] in place: f[x] ← min over q of (x − q)² + f[q], lab[x] ← that
    q's lab (−1 where every f is inf). The lower envelope of those parabolas goes
    to (v, vf, vl)[:m], parabola r lowest from z[r] on; then x walks along it."""
    m = 0
    for q in range(n):
        if f[q] == np.inf:
            continue
        s = -np.inf
        while m > 0:
            s = ((f[q] + q * q) - (vf[m - 1] + v[m - 1] * v[m - 1])) / (2.0 * (q - v[m - 1]))
            if s > z[m - 1]:  # q overtakes the last parabola right of where that one starts
                break
            m -= 1  # the last parabola is never lowest
        if m == 0:
            s = -np.inf
        v[m], vf[m], vl[m], z[m] = q, f[q], lab[q], s
        m += 1
    if m == 0:
        lab[:n] = -1
        return
    r = 0
    for x in range(n):
        while r + 1 < m and z[r + 1] <= x:
            r += 1
        f[x], lab[x] = (x - v[r]) * (x - v[r]) + vf[r], vl[r]


def _sign(mesh: trimesh.Trimesh, V: np.ndarray, F: np.ndarray, o: np.ndarray, h: float, values: np.ndarray) -> None:
    """Negate `values` at the nodes inside the mesh: by crossing parity along z columns,
    and by `mesh.contains` (in chunks of at most CONTAINS_CHUNK nodes) on bad columns."""
    nx, ny, nz = values.shape
    # the columns are shifted off the node lattice by tiny irrational fractions of h so no
    # column runs exactly through a mesh edge or vertex (meshes are often lattice aligned)
    sx, sy = h * 1.234567e-6 * math.sqrt(2.0), h * 1.234567e-6 * math.sqrt(3.0)
    counts = np.zeros((nx, ny), np.int64)
    bad = np.zeros((nx, ny), np.bool_)
    _crossings(V, F, o, h, sx, sy, counts, bad, np.empty(0), np.empty(0, np.int64), False)
    starts = np.zeros(nx * ny + 1, np.int64)
    np.cumsum(counts.ravel(), out=starts[1:])
    zs = np.empty(starts[-1])
    _crossings(V, F, o, h, sx, sy, counts, bad, zs, starts, True)
    _negate_inside(zs, starts, o[2], h, values, bad)
    del counts, starts, zs
    cols = np.argwhere(bad)
    k = np.arange(nz)
    step = max(1, CONTAINS_CHUNK // nz)
    for start in range(0, len(cols), step):
        c = cols[start : start + step]
        pts = np.empty((len(c), nz, 3))
        pts[:, :, 0] = o[0] + c[:, :1] * h
        pts[:, :, 1] = o[1] + c[:, 1:] * h
        pts[:, :, 2] = o[2] + k * h
        inside = mesh.contains(pts.reshape(-1, 3)).reshape(len(c), nz)
        vals = values[c[:, 0], c[:, 1]]
        vals[inside] *= -1.0
        values[c[:, 0], c[:, 1]] = vals


@njit(**JIT)
def _crossings(V, F, o, h, sx, sy, counts, bad, zs, starts, fill):
    """Pass 1 (fill False): count each column's crossings. Pass 2: store their z."""
    nx, ny = counts.shape
    if fill:
        counts[:, :] = 0
    for t in range(F.shape[0]):
        a, b, c = F[t, 0], F[t, 1], F[t, 2]
        ax, ay, bx, by, cx, cy = V[a, 0], V[a, 1], V[b, 0], V[b, 1], V[c, 0], V[c, 1]
        area = (bx - ax) * (cy - ay) - (cx - ax) * (by - ay)
        if area == 0.0:
            continue  # a vertical triangle: a column meets it only on its edges
        i0 = max(int(math.ceil((min(ax, bx, cx) - sx - o[0]) / h)), 0)
        i1 = min(int(math.floor((max(ax, bx, cx) - sx - o[0]) / h)), nx - 1)
        j0 = max(int(math.ceil((min(ay, by, cy) - sy - o[1]) / h)), 0)
        j1 = min(int(math.floor((max(ay, by, cy) - sy - o[1]) / h)), ny - 1)
        for i in range(i0, i1 + 1):
            px = o[0] + i * h + sx
            for j in range(j0, j1 + 1):
                py = o[1] + j * h + sy
                # barycentric weights of the column's (x, y) in the projected triangle
                wa = ((bx - px) * (cy - py) - (cx - px) * (by - py)) / area
                wb = ((cx - px) * (ay - py) - (ax - px) * (cy - py)) / area
                wc = 1.0 - wa - wb
                if wa < 0.0 or wb < 0.0 or wc < 0.0:
                    continue
                if wa == 0.0 or wb == 0.0 or wc == 0.0:
                    bad[i, j] = True  # grazes an edge: let contains() decide this column
                if fill:
                    zs[starts[i * ny + j] + counts[i, j]] = wa * V[a, 2] + wb * V[b, 2] + wc * V[c, 2]
                counts[i, j] += 1


@njit(**JIT)
def _negate_inside(zs, starts, oz, h, values, bad):
    """Negate the nodes of good columns with an odd number of crossings below them; a
    column with an odd count is marked bad."""
    nx, ny, nz = values.shape
    for i in range(nx):
        for j in range(ny):
            s, e = starts[i * ny + j], starts[i * ny + j + 1]
            if (e - s) % 2 == 1:
                bad[i, j] = True
            if bad[i, j] or e == s:
                continue
            col = np.sort(zs[s:e])
            m = 0
            for k in range(nz):
                z = oz + k * h
                while m < e - s and col[m] <= z:
                    m += 1
                if m % 2 == 1:
                    values[i, j, k] = -values[i, j, k]
