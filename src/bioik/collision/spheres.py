"""A conservative sphere cover of each link: what compiled collision costs evaluate.

Exact mesh checks are too slow to run inside a solver's cost function; spheres are not
(a sphere pair is one distance). The cover is *conservative*: every point of a link's
collision geometry (surface and inside) lies in at least one of its spheres, so "spheres
apart" implies "geometry apart". The price is overshoot: spheres reach beyond the geometry.

How each collision element is covered (all elements of a link together, then spheres
inside another sphere are dropped and, above `max_spheres`, the pair whose enclosing
sphere is smallest is merged until the count fits):

* sphere: itself;
* cylinder with a sphere of its radius on one or both ends (URDF's way to write a
  capsule): spheres along the capsule's segment, the end ones inset so they hold the caps;
* cylinder, box: n equal slabs along the axis (a box's longest edge), each slab in the
  sphere through its corners: radius √(ρ² + h²) for cross-section radius ρ (a box's
  cross-section half-diagonal) and slab half-height h;
* mesh: n equal slabs along the principal axis of its vertices; each slab's sphere
  contains every vertex in the slab and every point where an edge crosses a slab plane —
  the corners of all triangle pieces clipped to the slab — hence the whole surface in it
  and, for a closed mesh, the inside too (a point inside lies between two surface points
  of the same cross-section).

`tolerance` (metres) bounds the *sideways* overshoot of each sphere: its radius minus the
cross-section radius of what it covers (capsule/cylinder radius, box half-diagonal, the
mesh slab's largest distance from the axis). n is the smallest count meeting it. Along the
axis a flat element (a short wide cylinder) is overshot by more: spheres cannot be flat.
The default (1.5 cm, at most 10 per link) gives 43 spheres for elise_ur10 (1–5 on the short
links, 9 on the upper arm, forearm and endoscope shaft), 25 for ur5, 41 for panda. It was
chosen on `benchmarks/collision.py`'s table-and-boxes problem for ur5 (1000 targets 5 cm
and more above the table): with 2 cm and 8 per link, 5 targets had no pose the fatter
cover could reach; with the default, 1. Where a link needs more than `max_spheres` the
merged spheres overshoot by more than `tolerance`.

Links made only of meshes also get the small spheres of `bioik.collision.surface` beneath
their cover spheres (`SphereModel.surface`), which the scene costs read near contact.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from bioik.collision import _cache
from bioik.collision.link_geometry import Piece, geometry_digest, link_pieces, warn_open_meshes
from bioik.collision.surface import DEFAULT_LEAF_SIZE, LEAF_ROW, NODE_ROW, SurfaceTree, empty_tree, link_triangles, surface_tree
from bioik.kinematics.robot import Robot
from bioik.model.names import suggest
from bioik.model.robot_model import RobotModel

#: Default sideways overshoot bound (m) and sphere budget per link.
DEFAULT_TOLERANCE = 0.015
DEFAULT_MAX_SPHERES = 10
_VERSION = 4
_SLACK = 1e-9  # radii are rounded up by this (floating point)


@dataclass(frozen=True, eq=False)
class SphereModel:
    """Spheres covering each link with collision geometry, in the link frames.

    links: the covered links (robot link order); link_of (S,) int64: index into `links`
    of each sphere; centres (S, 3) in that link's frame; radii (S,); surface: the small
    spheres over mesh links beneath them (`bioik.collision.surface`; None: none).
    """

    links: tuple[str, ...]
    link_of: np.ndarray
    centres: np.ndarray
    radii: np.ndarray
    surface: SurfaceTree | None = None

    def __len__(self) -> int:
        return len(self.radii)

    def per_link(self) -> dict[str, int]:
        """Number of spheres of each covered link."""
        counts = np.bincount(self.link_of, minlength=len(self.links))
        return dict(zip(self.links, counts.tolist()))

    def world(self, poses: np.ndarray) -> np.ndarray:
        """Sphere centres in the base frame, given the 4×4 poses of `links` (L, 4, 4) → (S, 3)."""
        T = np.asarray(poses)[self.link_of]
        return np.einsum("sij,sj->si", T[:, :3, :3], self.centres) + T[:, :3, 3]


_memory: dict[tuple, SphereModel] = {}
_lock = threading.Lock()


def sphere_model(robot: Robot | RobotModel, *, tolerance: float = DEFAULT_TOLERANCE,
                 max_spheres: int = DEFAULT_MAX_SPHERES, links: Mapping[str, tuple[float, int]] | None = None,
                 leaf_size: float = DEFAULT_LEAF_SIZE) -> SphereModel:
    """The conservative sphere cover of every link with collision geometry (see the module
    docstring for the method and the meaning of `tolerance` and `max_spheres`), with the
    small spheres over the surface of links made of meshes beneath it
    (`bioik.collision.surface`; `leaf_size` m, the cell of a leaf).

    links: per-link (tolerance, max_spheres) that replace the defaults for those links —
    a thin tool that must pass a narrow opening needs small spheres, e.g. elise_ur10's
    4 mm endoscope: `links={"endoscope_link_1": (0.003, 40)}`.
    Cached in memory and on disk by geometry content and parameters.
    """
    tolerance, max_spheres = _settings(tolerance, max_spheres, "")
    if isinstance(leaf_size, bool) or not isinstance(leaf_size, (int, float, np.floating, np.integer)) \
            or not np.isfinite(leaf_size) or leaf_size <= 0:
        raise ValueError(f"leaf_size must be a finite number > 0 (metres); got {leaf_size!r}")
    leaf_size = float(leaf_size)
    model = robot.model if isinstance(robot, Robot) else robot
    names = [link.name for link in model.links if link.collision]
    own = {}
    for name, pair in sorted((links or {}).items()):
        if name not in names:
            raise ValueError(f"links: {name!r} is not a link with collision geometry; {suggest(str(name), names)}")
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise ValueError(f"links[{name!r}] must be (tolerance, max_spheres); got {pair!r}")
        own[name] = _settings(pair[0], pair[1], f"links[{name!r}]: ")
    key = (geometry_digest(model), tolerance, max_spheres, tuple(own.items()), leaf_size, _VERSION)
    with _lock:
        hit = _memory.get(key)
    if hit is not None:
        return hit
    extra = "" if not own else "-" + hashlib.sha256(repr(key[3]).encode()).hexdigest()[:12]
    disk_key = f"{key[0]}-{tolerance:.6g}-{max_spheres}{extra}-{leaf_size:.6g}-v{_VERSION}"
    stored = _cache.load_arrays("spheres", disk_key)
    if (stored is not None and set(stored) == {"links", "link_of", "centres", "radii", "roots", "nodes", "leaves"}
            and stored["nodes"].shape[1:] == (NODE_ROW,) and stored["leaves"].shape[1:] == (LEAF_ROW,)):
        out = SphereModel(tuple(str(x) for x in stored["links"]), stored["link_of"].astype(np.int64).reshape(-1),
                          stored["centres"].astype(float).reshape(-1, 3), stored["radii"].astype(float).reshape(-1),
                          SurfaceTree(stored["roots"].astype(np.int64).reshape(-1, 2), stored["nodes"].astype(float),
                                      stored["leaves"].astype(float)))
    else:
        out = _build(model, tolerance, max_spheres, own, leaf_size)
        _cache.store_arrays("spheres", disk_key, {"links": np.array(out.links, dtype=str), "link_of": out.link_of,
                                                  "centres": out.centres, "radii": out.radii,
                                                  "roots": out.surface.roots, "nodes": out.surface.nodes,
                                                  "leaves": out.surface.leaves})
    for a in (out.link_of, out.centres, out.radii, out.surface.roots, out.surface.nodes, out.surface.leaves):
        a.setflags(write=False)
    with _lock:
        _memory[key] = out
    return out


def _settings(tolerance, max_spheres, where: str) -> tuple[float, int]:
    """A checked (tolerance, max_spheres) pair."""
    try:
        tolerance = float(tolerance)
    except (TypeError, ValueError):
        raise ValueError(f"{where}tolerance must be a number (metres); got {tolerance!r}") from None
    if not np.isfinite(tolerance) or tolerance <= 0:
        raise ValueError(f"{where}tolerance must be a finite number > 0 (metres); got {tolerance!r}")
    if isinstance(max_spheres, bool) or not isinstance(max_spheres, (int, np.integer)) or max_spheres < 1:
        raise ValueError(f"{where}max_spheres must be an integer ≥ 1; got {max_spheres!r}")
    return tolerance, int(max_spheres)


def _build(model: RobotModel, tolerance: float, max_spheres: int, own: dict[str, tuple[float, int]],
           leaf_size: float) -> SphereModel:
    links, link_of, centres, radii = [], [], [], []
    pieces = {link.name: link_pieces(link) for link in model.links if link.collision}
    warn_open_meshes(model, pieces)
    triangles = {}
    for link in model.links:
        if not link.collision:
            continue
        c, r = link_cover(pieces[link.name], *own.get(link.name, (tolerance, max_spheres)))
        tri = link_triangles(pieces[link.name])
        if tri is not None and len(tri):
            triangles[len(links)] = tri
        link_of += [len(links)] * len(r)
        links.append(link.name)
        centres.append(c)
        radii.append(r)
    link_of = np.asarray(link_of, dtype=np.int64)
    centres = np.concatenate(centres) if centres else np.zeros((0, 3))
    radii = np.concatenate(radii) if radii else np.zeros(0)
    tree = surface_tree(link_of, centres, radii, triangles, leaf_size) if triangles else empty_tree(len(radii))
    return SphereModel(tuple(links), link_of, centres, radii, tree)


def link_cover(pieces: tuple[Piece, ...], tolerance: float, max_spheres: int) -> tuple[np.ndarray, np.ndarray]:
    """Spheres (centres (n, 3), radii (n,)) in the link frame covering all `pieces`."""
    C, R = [], []
    used = set()
    for i, p in enumerate(pieces):  # capsules first: a cylinder with end spheres of its radius
        if p.kind != "cylinder":
            continue
        r, length = p.size
        ends = p.origin[:3, :3] @ np.array([[0, 0, -length / 2], [0, 0, length / 2]]).T + p.origin[:3, 3:4]
        caps = [j for j, s in enumerate(pieces) if s.kind == "sphere" and j not in used and abs(s.size[0] - r) <= 1e-9 * max(r, 1)
                and np.min(np.linalg.norm(ends.T - s.origin[:3, 3], axis=1)) <= 1e-7]
        if caps:
            used.update(caps)
            used.add(i)
            c, rad = _along_axis(lambda n: _capsule(r, length, n), r, tolerance, max_spheres)
            C.append(_to_link(p.origin, c))
            R.append(rad)
    for i, p in enumerate(pieces):
        if i in used:
            continue
        if p.kind == "sphere":
            C.append(p.origin[:3, 3][None])
            R.append(np.array([p.size[0]]))
        elif p.kind == "cylinder":
            r, length = p.size
            c, rad = _along_axis(lambda n: _slabs(r, length, n), r, tolerance, max_spheres)
            C.append(_to_link(p.origin, c))
            R.append(rad)
        elif p.kind == "box":
            order = np.argsort(p.size)[::-1]
            rho = 0.5 * float(np.hypot(p.size[order[1]], p.size[order[2]]))
            c, rad = _along_axis(lambda n: _slabs(rho, p.size[order[0]], n), rho, tolerance, max_spheres)
            axis = np.eye(3)[order[0]]
            C.append(_to_link(p.origin, c[:, 2:3] * axis))
            R.append(rad)
        else:
            c, rad = _mesh_cover(p.mesh.vertices @ p.origin[:3, :3].T + p.origin[:3, 3], np.asarray(p.mesh.faces), tolerance, max_spheres)
            C.append(c)
            R.append(rad)
    centres, radii = np.concatenate(C), np.concatenate(R) + _SLACK
    return _reduce(centres, radii, max_spheres)


def _to_link(origin: np.ndarray, c: np.ndarray) -> np.ndarray:
    return c @ origin[:3, :3].T + origin[:3, 3]


def _along_axis(cover, rho: float, tolerance: float, max_spheres: int) -> tuple[np.ndarray, np.ndarray]:
    """The cover with the fewest spheres (≤ max_spheres) whose radius exceeds rho by ≤ tolerance."""
    for n in range(1, max_spheres + 1):
        z, R = cover(n)
        if R - rho <= tolerance:
            break
    return np.c_[np.zeros((len(z), 2)), z], np.full(len(z), R)


def _slabs(rho: float, length: float, n: int) -> tuple[np.ndarray, float]:
    """n spheres through the corners of n equal slabs of a prism of cross-section radius rho."""
    h = length / (2 * n)
    return -length / 2 + h * (2 * np.arange(n) + 1), float(np.hypot(rho, h))


def _capsule(r: float, length: float, n: int) -> tuple[np.ndarray, float]:
    """n equal spheres along a capsule's segment (±length/2, radius r) that contain it."""
    half = length / 2
    if n == 1:
        return np.zeros(1), r + half
    # end centres at ±a: caps need R ≥ r + half − a, the gaps R² ≥ r² + (a/(n−1))²
    lo, hi = 0.0, half
    for _ in range(60):
        a = 0.5 * (lo + hi)
        if r + half - a > np.hypot(r, a / (n - 1)):
            lo = a
        else:
            hi = a
    a = hi
    return np.linspace(-a, a, n), max(r + half - a, float(np.hypot(r, a / (n - 1))))


def _mesh_cover(V: np.ndarray, F: np.ndarray, tolerance: float, max_spheres: int) -> tuple[np.ndarray, np.ndarray]:
    """Slab spheres of a mesh along its principal axis (see the module docstring)."""
    mean = V.mean(axis=0)
    axis = np.linalg.svd(V - mean, full_matrices=False)[2][0]
    p = (V - mean) @ axis
    E = np.unique(np.sort(np.r_[F[:, [0, 1]], F[:, [1, 2]], F[:, [2, 0]]], axis=1), axis=0)
    lo, hi = float(p.min()), float(p.max())
    best = None
    for n in range(1, max_spheres + 1):
        cuts = np.linspace(lo, hi, n + 1)
        C, R, over = [], [], 0.0
        for k in range(n):
            pts = _slab_points(V, E, p, cuts[k], cuts[k + 1])
            c, r = _enclosing(pts)
            d = pts - c
            side = np.sqrt(np.maximum(np.einsum("ij,ij->i", d, d) - (d @ axis) ** 2, 0.0)).max()
            over = max(over, r - side)
            C.append(c)
            R.append(r)
        best = (np.array(C), np.array(R))
        if over <= tolerance:
            break
    return best


def _slab_points(V: np.ndarray, E: np.ndarray, p: np.ndarray, t0: float, t1: float) -> np.ndarray:
    """Vertices with t0 ≤ p ≤ t1 and the points where edges cross p = t0 or p = t1."""
    out = [V[(p >= t0) & (p <= t1)]]
    a, b = p[E[:, 0]], p[E[:, 1]]
    for t in (t0, t1):
        x = (a - t) * (b - t) < 0
        w = ((t - a[x]) / (b[x] - a[x]))[:, None]
        out.append(V[E[x, 0]] + w * (V[E[x, 1]] - V[E[x, 0]]))
    return np.concatenate(out)


def _enclosing(P: np.ndarray) -> tuple[np.ndarray, float]:
    """A small sphere containing all points P (Bădoiu–Clarkson steps from the box centre);
    the radius is the exact largest distance from the chosen centre, so it always contains them."""
    c = 0.5 * (P.min(axis=0) + P.max(axis=0))
    best = (c.copy(), float(np.linalg.norm(P - c, axis=1).max()))
    for i in range(1, 80):
        d = np.linalg.norm(P - c, axis=1)
        far = int(np.argmax(d))
        if d[far] < best[1]:
            best = (c.copy(), float(d[far]))
        c = c + (P[far] - c) / (i + 1)
    d = float(np.linalg.norm(P - c, axis=1).max())
    return (c, d) if d < best[1] else best


def _reduce(C: np.ndarray, R: np.ndarray, max_spheres: int) -> tuple[np.ndarray, np.ndarray]:
    """Drop spheres inside another; then merge the pair with the smallest enclosing sphere
    until at most max_spheres remain (still a cover: the merged sphere holds both)."""
    keep = []
    for i in np.argsort(-R, kind="stable"):
        if not any(np.linalg.norm(C[i] - C[j]) + R[i] <= R[j] for j in keep):
            keep.append(i)
    keep.sort()
    C, R = [C[i] for i in keep], [float(R[i]) for i in keep]
    while len(R) > max_spheres:
        best = None
        for i in range(len(R)):
            for j in range(i + 1, len(R)):
                c, r = _merge(C[i], R[i], C[j], R[j])
                if best is None or r < best[0]:
                    best = (r, c, i, j)
        r, c, i, j = best
        C[i], R[i] = c, r
        del C[j], R[j]
    return np.array(C).reshape(-1, 3), np.array(R)


def _merge(c1: np.ndarray, r1: float, c2: np.ndarray, r2: float) -> tuple[np.ndarray, float]:
    """The smallest sphere containing two spheres."""
    d = float(np.linalg.norm(c2 - c1))
    if d + r2 <= r1:
        return c1, r1
    if d + r1 <= r2:
        return c2, r2
    r = 0.5 * (d + r1 + r2)
    return c1 + (c2 - c1) * ((r - r1) / d), r + _SLACK
