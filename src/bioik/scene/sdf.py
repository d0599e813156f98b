"""Compiled signed distances of a scene: the primitives' exact fields, grid lookups, and
`scene_distance`, the kernel collision code compiles against.

Every function here is a pure `njit` function (no allocation, no global state), so any
number of threads may call them at once. Distances are NEGATIVE INSIDE an obstacle.
Gradients are unit vectors for the primitives (the field is exact, so its gradient has
norm 1 wherever it exists; on a ridge one side is chosen). For grids the gradient is the
derivative of the trilinear interpolant — the true derivative of the returned distance,
which an optimiser needs — whose norm is 1 only up to the interpolation error.

The packed blob (`Scene.pack()`): ONE float64 1-D array; every offset in it is relative
to its first element, so it may be copied into a bigger buffer and handed over as a
contiguous slice.

    header (HEADER = 8):   count, REC, FORMAT, layout_version, total length, grid slack, 0, 0
                           (grid slack: the grids' values are lowered by it × their h,
                           `Scene.pack(lowered=True)`; 0 for the plain interpolant)
    records (count × REC), record k at HEADER + k·REC (k = the obstacle's insertion index):
        0        kind: BOX, SPHERE, CYLINDER, CAPSULE or GRID
        1..12    world→local transform, 3×4 row-major [A | b]: local = A·world + b; for a
                 GRID local is in cells, (R·world + t − origin)/h, so the lookup needs no
                 other scaling (A = R/h, b = (t − origin)/h)
        13..16   bounding sphere in world coordinates: centre (3), radius
        17..20   shape parameters: box half extents (3); sphere radius; cylinder and
                 capsule radius, half length
        21       GRID: offset of its values (relative to the blob start)
        22..24   GRID: node counts nx, ny, nz (values C-ordered, index (i·ny + j)·nz + k)
        25..27   GRID: local position of node (0, 0, 0)
        28, 29   GRID: node spacing h, 1/h
        30, 31   reserved (0)
    grid values, each grid's block at its record's offset (a grid shared by several
    obstacles is stored once)

A grid's node box reaches GRID_PADDING cells beyond its mesh on every side, so its values
on the box faces are positive, and the outside extension of `grid_sdf` is at least the
distance to the box; the bounding sphere encloses the whole node box (not just the mesh),
so that extension never drops under the sphere's lower bound and culling stays exact.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bioik.kinematics.frames import JIT
from bioik.kinematics.ops import at, fma

HEADER = 8
REC = 32
FORMAT = 2
#: Header slots.
H_COUNT, H_REC, H_FORMAT, H_LAYOUT, H_LENGTH, H_GRID_SLACK = range(6)
#: Record slots.
R_KIND, R_XFORM, R_CENTRE, R_RADIUS, R_PARAMS = 0, 1, 13, 16, 17
R_GRID_OFFSET, R_GRID_DIMS, R_GRID_ORIGIN, R_GRID_H, R_GRID_INV_H = 21, 22, 25, 28, 29
#: Obstacle kinds.
BOX, SPHERE, CYLINDER, CAPSULE, GRID = 1, 2, 3, 4, 5
#: Obstacles a mask can skip (bit k of an int64, sign bit left alone).
MASK_BITS = 63
#: Cells a grid's node box reaches beyond its mesh's bounds on every side, at least
#: (`bioik.scene.grid` builds them so); `grid_sdf` relies on it outside the box.
GRID_PADDING = 4


@njit(inline="always", **JIT)
def _sign(v):
    """±1 with +1 at 0: a side has to be chosen on a symmetry plane."""
    return 1.0 if v >= 0.0 else -1.0


@njit(inline="always", **JIT)
def box_sdf(x, y, z, hx, hy, hz):
    """Exact signed distance of the box |x| ≤ hx, |y| ≤ hy, |z| ≤ hz, and its gradient.

    Outside: the Euclidean length of the excess over the faces (the true distance to the
    nearest face, edge or corner). Inside: minus the distance to the nearest face."""
    qx, qy, qz = abs(x) - hx, abs(y) - hy, abs(z) - hz
    if qx > 0.0 or qy > 0.0 or qz > 0.0:
        ex, ey, ez = max(qx, 0.0), max(qy, 0.0), max(qz, 0.0)
        d = math.sqrt(ex * ex + ey * ey + ez * ez)
        inv = 1.0 / d
        return d, math.copysign(ex * inv, x), math.copysign(ey * inv, y), math.copysign(ez * inv, z)
    # inside (or on the surface): the nearest face is the one with the largest q
    if qx >= qy and qx >= qz:
        return qx, _sign(x), 0.0, 0.0
    if qy >= qz:
        return qy, 0.0, _sign(y), 0.0
    return qz, 0.0, 0.0, _sign(z)


@njit(inline="always", **JIT)
def sphere_sdf(x, y, z, r):
    """|p| − r; at the centre the gradient is +z (any direction is as good)."""
    n = math.sqrt(x * x + y * y + z * z)
    if n == 0.0:
        return -r, 0.0, 0.0, 1.0
    inv = 1.0 / n
    return n - r, x * inv, y * inv, z * inv


@njit(inline="always", **JIT)
def cylinder_sdf(x, y, z, r, hl):
    """Exact signed distance of the cylinder ρ ≤ r, |z| ≤ hl (ρ = √(x² + y²)): the box
    field in the (ρ, z) half plane, so the rim is a true Euclidean corner."""
    rho = math.sqrt(x * x + y * y)
    if rho > 0.0:
        ux, uy = x / rho, y / rho
    else:
        ux, uy = 1.0, 0.0  # on the axis any radial direction will do
    qr, qz = rho - r, abs(z) - hl
    sz = _sign(z)
    if qr > 0.0 or qz > 0.0:
        er, ez = max(qr, 0.0), max(qz, 0.0)
        d = math.sqrt(er * er + ez * ez)
        return d, ux * er / d, uy * er / d, sz * ez / d
    if qr >= qz:
        return qr, ux, uy, 0.0
    return qz, 0.0, 0.0, sz


@njit(inline="always", **JIT)
def capsule_sdf(x, y, z, r, hl):
    """Distance to the segment z ∈ [−hl, hl] on the z axis, minus r."""
    zc = min(max(z, -hl), hl)
    dz = z - zc
    n = math.sqrt(x * x + y * y + dz * dz)
    if n == 0.0:
        return -r, 1.0, 0.0, 0.0
    inv = 1.0 / n
    return n - r, x * inv, y * inv, dz * inv


@njit(inline="always", **JIT)
def grid_sdf(data, off, nx, ny, nz, u, v, w, h, low=0.0):
    """Trilinear interpolation of the grid at data[off:] at (u, v, w) in CELLS (node (i, j,
    k) at (i, j, k); the caller maps a point p to (p − origin)/h) and the derivative of that
    interpolant per cell (divide by h for metres). `low`: how far the node values are
    lowered (`Scene.pack(lowered=True)`); outside the box the field is lowered by as much.

    Outside the node box, p = q + e with q the clamped point: every mesh point m lies at
    least P = GRID_PADDING·h inside each face that p is beyond, so
    |p − m|² = |q − m|² + |e|² + 2e·(q − m) ≥ d(q)² + |e|² + 2P·Σ|e_a|, and the value is

        √(d(q)² + |e|² + 2P·Σ|e_a|)

    (d(q) the interpolant at q): a lower bound of the true distance up to the interpolant's
    own error at q, exact straight off a flat face at the padding's distance, continuous
    across the box faces, with its exact derivative. d(q) + |e|, the earlier extension,
    overstated the distance beside an edge by up to 9 cells (elise_ur10's forearm over the
    Barrel's rim: 71 mm against 61 mm), so spheres the costs called clear were in the mesh."""
    # clamp to the node box, remembering how far out (in cells) and along which axes; NaN
    # clamps to 0 (min/max pass it on, and int(NaN) is undefined: an index off the grid)
    cu = min(u if u > 0.0 else 0.0, nx - 1.0)
    cv = min(v if v > 0.0 else 0.0, ny - 1.0)
    cw = min(w if w > 0.0 else 0.0, nz - 1.0)
    i = min(int(cu), nx - 2)
    j = min(int(cv), ny - 2)
    k = min(int(cw), nz - 2)
    tx, ty, tz = cu - i, cv - j, cw - k
    sy, sx = nz, ny * nz
    b = off + i * sx + j * sy + k
    c000, c001 = at(data, b), at(data, b + 1)
    c010, c011 = at(data, b + sy), at(data, b + sy + 1)
    c100, c101 = at(data, b + sx), at(data, b + sx + 1)
    c110, c111 = at(data, b + sx + sy), at(data, b + sx + sy + 1)
    # interpolate along z, then y, then x; the partials follow the same tree
    e00, e01, e10, e11 = c001 - c000, c011 - c010, c101 - c100, c111 - c110
    c00, c01 = fma(tz, e00, c000), fma(tz, e01, c010)
    c10, c11 = fma(tz, e10, c100), fma(tz, e11, c110)
    f0, f1 = c01 - c00, c11 - c10
    c0, c1 = fma(ty, f0, c00), fma(ty, f1, c10)
    gu = c1 - c0
    d = fma(tx, gu, c0)
    gv = fma(tx, f1 - f0, f0)
    d0w, d1w = fma(ty, e01 - e00, e00), fma(ty, e11 - e10, e10)
    gw = fma(tx, d1w - d0w, d0w)
    eu, ev, ew = u - cu, v - cv, w - cw
    if eu != 0.0 or ev != 0.0 or ew != 0.0:
        # outside (see the docstring), in cells: D² = d² + h²·(|e|² + 2·GRID_PADDING·Σ|e_a|)
        au, av, aw = abs(eu), abs(ev), abs(ew)
        dq = d + low if d + low > 0.0 else 0.0
        pad = float(GRID_PADDING)
        hh = h * h
        D = math.sqrt(dq * dq + hh * (au * au + av * av + aw * aw + 2.0 * pad * (au + av + aw)))
        # per cell, free axes: d·∂d/∂u / D; clamped axes: h²·(|e_a| + pad)·sign(e_a) / D
        f = dq / D
        gu = hh * (au + pad) * math.copysign(1.0, eu) / D if eu != 0.0 else gu * f
        gv = hh * (av + pad) * math.copysign(1.0, ev) / D if ev != 0.0 else gv * f
        gw = hh * (aw + pad) * math.copysign(1.0, ew) / D if ew != 0.0 else gw * f
        d = D - low
    return d, gu, gv, gw


@njit(inline="always", **JIT)
def obstacle_count(data):
    """Number of obstacles in a packed scene."""
    return int(data[H_COUNT])


@njit(inline="always", **JIT)
def obstacle_sdf(data, rec, x, y, z):
    """Signed distance and world gradient of the obstacle whose record starts at rec."""
    # world → local (for a grid: → cells), A·p + b with A = the record's 3×3
    lx = fma(at(data, rec + 1), x, fma(at(data, rec + 2), y, fma(at(data, rec + 3), z, at(data, rec + 4))))
    ly = fma(at(data, rec + 5), x, fma(at(data, rec + 6), y, fma(at(data, rec + 7), z, at(data, rec + 8))))
    lz = fma(at(data, rec + 9), x, fma(at(data, rec + 10), y, fma(at(data, rec + 11), z, at(data, rec + 12))))
    kind = at(data, rec + R_KIND)
    p = rec + R_PARAMS
    if kind == GRID:  # tested first: in a mesh scene most queries that get here are grids
        g = rec + R_GRID_OFFSET
        h = at(data, rec + R_GRID_H)
        d, gx, gy, gz = grid_sdf(
            data, int(at(data, g)), int(at(data, g + 1)), int(at(data, g + 2)), int(at(data, g + 3)),
            lx, ly, lz, h, at(data, H_GRID_SLACK) * h,
        )
    elif kind == BOX:
        d, gx, gy, gz = box_sdf(lx, ly, lz, at(data, p), at(data, p + 1), at(data, p + 2))
    elif kind == SPHERE:
        d, gx, gy, gz = sphere_sdf(lx, ly, lz, at(data, p))
    elif kind == CYLINDER:
        d, gx, gy, gz = cylinder_sdf(lx, ly, lz, at(data, p), at(data, p + 1))
    else:
        d, gx, gy, gz = capsule_sdf(lx, ly, lz, at(data, p), at(data, p + 1))
    # local gradient → world: Aᵀ·g (Rᵀ·g, and for a grid Rᵀ·g/h, g being per cell)
    wx = fma(at(data, rec + 1), gx, fma(at(data, rec + 5), gy, at(data, rec + 9) * gz))
    wy = fma(at(data, rec + 2), gx, fma(at(data, rec + 6), gy, at(data, rec + 10) * gz))
    wz = fma(at(data, rec + 3), gx, fma(at(data, rec + 7), gy, at(data, rec + 11) * gz))
    return d, wx, wy, wz


@njit(inline="always", **JIT)
def scene_distance(data, x, y, z, cutoff, mask):
    """Minimum signed distance over the scene's obstacles at world point (x, y, z), and the
    world gradient of the nearest obstacle's field there.

    Obstacle k < 63 is ignored when (mask >> k) & 1. An obstacle whose bounding sphere
    proves it no nearer than the best so far (at first `cutoff`) is skipped, so the exact
    minimum comes back whenever it is < cutoff, and (cutoff, 0, 0, 0) when nothing is."""
    best, bx, by, bz = cutoff, 0.0, 0.0, 0.0
    n = int(data[H_COUNT])
    for k in range(n):
        if k < MASK_BITS and (mask >> k) & 1:
            continue
        rec = HEADER + k * REC
        cx = x - at(data, rec + R_CENTRE)
        cy = y - at(data, rec + R_CENTRE + 1)
        cz = z - at(data, rec + R_CENTRE + 2)
        # the field is ≥ |p − c| − radius (every surface point lies in the sphere), so the
        # obstacle cannot win when |p − c| ≥ best + radius (compared squared: no sqrt)
        reach = best + at(data, rec + R_RADIUS)
        if reach <= 0.0 or cx * cx + cy * cy + cz * cz >= reach * reach:
            continue
        d, gx, gy, gz = obstacle_sdf(data, rec, x, y, z)
        if d < best:
            best, bx, by, bz = d, gx, gy, gz
    return best, bx, by, bz


@njit(**JIT)
def near_obstacles(data, x, y, z, reach, mask):
    """(the minimum signed distance at (x, y, z) if < reach, else reach; `mask` with the bit
    of every obstacle k < 63 at least `reach` away added): everything within `reach` of
    the point then needs only the obstacles left unmasked."""
    best, out = reach, mask
    for k in range(int(data[H_COUNT])):
        if k < MASK_BITS and (mask >> k) & 1:
            continue
        rec = HEADER + k * REC
        cx = x - at(data, rec + R_CENTRE)
        cy = y - at(data, rec + R_CENTRE + 1)
        cz = z - at(data, rec + R_CENTRE + 2)
        far = reach + at(data, rec + R_RADIUS)
        d = reach
        if far > 0.0 and cx * cx + cy * cy + cz * cz < far * far:
            d = obstacle_sdf(data, rec, x, y, z)[0]
        if d >= reach:
            if k < MASK_BITS:
                out |= np.int64(1) << k
        elif d < best:
            best = d
    return best, out


@njit(**JIT)
def scene_distances(data, points, cutoff, mask, d, grad):
    """`scene_distance` at every row of points (N, 3), into d (N,) and grad (N, 3)."""
    for i in range(points.shape[0]):
        d[i], grad[i, 0], grad[i, 1], grad[i, 2] = scene_distance(
            data, points[i, 0], points[i, 1], points[i, 2], cutoff, mask
        )


def distances(data: np.ndarray, points: np.ndarray, cutoff: float = np.inf, mask: int = 0):
    """Python convenience: (d (N,), grad (N, 3)) of a packed scene at points (N, 3)."""
    pts = np.ascontiguousarray(np.asarray(points, dtype=np.float64).reshape(-1, 3))
    d = np.empty(len(pts))
    g = np.empty((len(pts), 3))
    scene_distances(np.ascontiguousarray(data, dtype=np.float64), pts, float(cutoff), np.int64(mask), d, g)
    return d, g
