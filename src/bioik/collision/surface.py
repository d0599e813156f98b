"""Small spheres over the surface of mesh links: what the scene cost reads near contact.

A link's sphere cover (`bioik.collision.spheres`) has a few spheres per link, so on a real
mesh link it reaches centimetres past the surface, and an obstacle that far away already
blocks the search. Beneath each cover sphere of a link made of meshes this module hangs a
three-level tree of much smaller spheres, every one of them conservative:

* leaves: the link's triangles are bisected on their longest edge until no edge is longer
  than `leaf_size`, then grouped by the cubic cell (edge `leaf_size`) their centroid falls
  in; a leaf is the sphere around its group's vertices (centre: their box's centre, radius:
  the farthest vertex), so it holds its triangles whole. Every point of the surface lies in
  a leaf. With the default 4 mm cells the radii on the corpus arms (panda, ur10) have a
  median of 3.4 mm and a maximum of 5.4 mm: that is how far the costs can overstate contact.
* clusters and groups: the leaves of one cover sphere (each leaf goes to the sphere whose
  boundary is farthest outside it) gathered by cells 4× and 16× larger; a node's reach is
  the largest distance from its centre to the far side of anything below it.

The scene cost skips a node whose centre is at least margin + reach from every obstacle
(then so is everything below it) and charges each remaining leaf as a sphere: the cost is
zero exactly when every leaf keeps the margin, which proves the whole surface does. Links
with primitive pieces (boxes, cylinders, spheres) keep their cover spheres alone: those
covers are tight already.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bioik.collision.link_geometry import Piece

#: Default edge (m) of a leaf's cell (see the module docstring for the radii it gives).
DEFAULT_LEAF_SIZE = 0.004
#: Cell growth from one level to the next (leaves → clusters → groups).
GROWTH = 4
#: Floats of a node row (a group or a cluster): centre in the link frame (3), reach, first
#: child, child count, three box axes (unit, rows of a 3×3) and the box's half extents (3).
NODE_ROW = 18
#: Floats of a leaf row: centre in the link frame (3), radius.
LEAF_ROW = 4
_SLACK = 1e-9


@dataclass(frozen=True, eq=False)
class SurfaceTree:
    """The small spheres under a cover's spheres (see the module docstring).

    roots (S, 2) int64: per cover sphere, its first group and group count (0: no tree);
    nodes (N, NODE_ROW): groups, then clusters, each row a centre in the link frame, the
    reach of everything below it, its first child row and child count (a group's children
    are clusters, a cluster's leaves; children are contiguous) and a box around everything
    below it (axes and half extents); leaves (K, LEAF_ROW): centre and radius.
    """

    roots: np.ndarray
    nodes: np.ndarray
    leaves: np.ndarray


def empty_tree(spheres: int) -> SurfaceTree:
    return SurfaceTree(np.zeros((spheres, 2), dtype=np.int64), np.zeros((0, NODE_ROW)), np.zeros((0, LEAF_ROW)))


def link_triangles(pieces: tuple[Piece, ...]) -> np.ndarray | None:
    """All triangles (n, 3, 3) of a link made only of meshes, in the link frame (None
    if any piece is a primitive)."""
    if not pieces or any(p.kind != "mesh" for p in pieces):
        return None
    out = []
    for p in pieces:
        V = np.asarray(p.mesh.vertices, dtype=float) @ p.origin[:3, :3].T + p.origin[:3, 3]
        out.append(V[np.asarray(p.mesh.faces, dtype=np.int64)])
    return np.concatenate(out) if out else None


def bisect(T: np.ndarray, longest: float) -> np.ndarray:
    """Triangles (n, 3, 3) split in two at the middle of their longest edge until no edge
    is longer than `longest`: the same surface, in pieces no wider than that."""
    done = []
    while len(T):
        e = np.stack([np.linalg.norm(T[:, 1] - T[:, 2], axis=1), np.linalg.norm(T[:, 2] - T[:, 0], axis=1),
                      np.linalg.norm(T[:, 0] - T[:, 1], axis=1)], axis=1)
        big = e.max(axis=1) > longest
        done.append(T[~big])
        T, e = T[big], e[big]
        k = np.argmax(e, axis=1)  # vertex k faces the longest edge (between k+1 and k+2)
        n = np.arange(len(T))
        a, b, c = T[n, k], T[n, (k + 1) % 3], T[n, (k + 2) % 3]
        m = 0.5 * (b + c)
        T = np.concatenate([np.stack([a, b, m], axis=1), np.stack([a, m, c], axis=1)])
    return np.concatenate(done) if done else np.zeros((0, 3, 3))


def _groups(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(order, starts): rows sorted so equal keys (rows of an int array) are contiguous,
    and where each run starts (with the total appended)."""
    order = np.lexsort(keys.T[::-1])
    k = keys[order]
    new = np.r_[True, np.any(k[1:] != k[:-1], axis=1)]
    starts = np.r_[np.flatnonzero(new), len(k)]
    return order, starts


def _nodes_around(points: np.ndarray, radii: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per run of rows [starts[i], starts[i+1]) of spheres (points, radii), a node row
    holding them: centre at their centres' box centre, reach to the farthest far side, and
    a box along the principal axes of their centres whose half extents reach every sphere
    (|a·(p − c)| + the largest radius), children = the run."""
    lo = np.minimum.reduceat(points, starts[:-1], axis=0)
    hi = np.maximum.reduceat(points, starts[:-1], axis=0)
    c = 0.5 * (lo + hi)
    run = np.repeat(np.arange(len(starts) - 1), np.diff(starts))
    X = points - c[run]
    reach = np.maximum.reduceat(np.linalg.norm(X, axis=1) + radii, starts[:-1]) + _SLACK
    axes = np.linalg.eigh(np.add.reduceat(X[:, :, None] * X[:, None, :], starts[:-1], axis=0))[1].transpose(0, 2, 1)
    along = np.abs(np.einsum("nj,nij->ni", X, axes[run]))
    extents = np.maximum.reduceat(along, starts[:-1], axis=0) + np.maximum.reduceat(radii, starts[:-1])[:, None] + _SLACK
    return np.c_[c, reach, starts[:-1], np.diff(starts), axes.reshape(-1, 9), extents]


def link_tree(triangles: np.ndarray, centres: np.ndarray, radii: np.ndarray,
              leaf_size: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The tree of one link under its cover spheres (centres (s, 3), radii): node rows of
    its groups, clusters and leaves (child indices from 0 in the next array), and each
    group's cover sphere (groups come sorted by it)."""
    T = bisect(triangles, leaf_size)
    # leaves: triangles grouped by the cell of their centroid
    order, starts = _groups(np.floor(T.mean(axis=1) / leaf_size).astype(np.int64))
    V = T[order].reshape(-1, 3)
    lo = np.minimum.reduceat(V, 3 * starts[:-1], axis=0)
    hi = np.maximum.reduceat(V, 3 * starts[:-1], axis=0)
    c = 0.5 * (lo + hi)
    run = np.repeat(np.arange(len(starts) - 1), 3 * np.diff(starts))
    r = np.maximum.reduceat(np.linalg.norm(V - c[run], axis=1), 3 * starts[:-1]) + _SLACK
    # each leaf under the cover sphere it lies deepest in
    owner = np.argmin(np.linalg.norm(c[:, None] - centres[None], axis=2) - radii[None], axis=1)
    rows = [np.c_[c, r]]
    size = leaf_size
    for _ in range(2):  # clusters, then groups: the level below sorted by (owner, cell)
        size *= GROWTH
        order, starts = _groups(np.c_[owner, np.floor(rows[-1][:, :3] / size).astype(np.int64)])
        rows[-1], owner = rows[-1][order], owner[order]
        rows.append(_nodes_around(rows[-1][:, :3], rows[-1][:, 3], starts))
        owner = owner[starts[:-1]]
    leaves, clusters, groups = rows
    return groups, clusters, leaves, owner


def surface_tree(link_of: np.ndarray, centres: np.ndarray, radii: np.ndarray,
                 triangles: dict[int, np.ndarray], leaf_size: float) -> SurfaceTree:
    """The tree of every link index in `triangles` (its mesh triangles in the link frame)
    under the cover (link_of, centres, radii); other links' spheres get none. Nodes: all
    groups, then all clusters."""
    roots = np.zeros((len(radii), 2), dtype=np.int64)
    parts = []
    for k, tri in triangles.items():
        mine = np.flatnonzero(link_of == k)
        parts.append((mine, *link_tree(tri, centres[mine], radii[mine], leaf_size)))
    g_at, l_at = 0, 0
    c_at = sum(len(p[1]) for p in parts)
    for mine, groups, clusters, leaves, owner in parts:
        groups[:, 4] += c_at
        clusters[:, 4] += l_at
        counts = np.bincount(owner, minlength=len(mine))
        roots[mine] = np.c_[g_at + np.cumsum(counts) - counts, counts]
        g_at, c_at, l_at = g_at + len(groups), c_at + len(clusters), l_at + len(leaves)
    if not parts:
        return empty_tree(len(radii))
    return SurfaceTree(roots, np.concatenate([p[i] for i in (1, 2) for p in parts]), np.concatenate([p[3] for p in parts]))
