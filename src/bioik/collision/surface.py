"""Small boxes over the surface of mesh links: what the scene cost reads near contact.

A link's sphere cover (`bioik.collision.spheres`) has a few spheres per link, so on a real
mesh link it reaches centimetres past the surface, and an obstacle that far away already
blocks the search. Beneath each cover sphere of a link made of meshes this module hangs a
three-level tree, every part of it conservative:

* leaves: the link's triangles are bisected on their longest edge until no edge is longer
  than `leaf_size`, then grouped by the cubic cell (edge `leaf_size`) their centroid falls
  in; a leaf is the box around its group's vertices along their principal axes (and the
  sphere around that box), so it holds its triangles whole. Every point of the surface
  lies in a leaf. A leaf on a flat or gently curved part is a thin plate: its box reaches
  a fraction of a millimetre past the surface; its sphere (default 4 mm cells: radii of
  3.4 mm median, 5.4 mm at most on the corpus arms) serves against mesh obstacles.
* clusters and groups: the leaves of one cover sphere (each leaf goes to the sphere whose
  boundary is farthest outside it) gathered by cells 4× and 16× larger, each with the
  reach of everything below it and a box holding it.

Against a primitive obstacle (box, sphere, cylinder, capsule: convex) the field over a box
is at least its tangent plane at the box centre, d(c) − Σ|∇d·a_i|·e_i; against a mesh
obstacle's grid it is at least d(c) − reach. The scene cost skips a node whose bound keeps
the margin and charges each remaining leaf by how far its bound falls short: a zero cost
means every leaf's bound keeps the margin, which proves the whole surface does
(`bioik.goals.collision` says when a clear surface can still cost something). Links with
primitive pieces (boxes, cylinders, spheres) keep their cover spheres alone: those covers
are tight already.
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
#: Floats of a leaf row: centre in the link frame (3), reach, box axes (9), half extents (3).
LEAF_ROW = 16
_SLACK = 1e-9


@dataclass(frozen=True, eq=False)
class SurfaceTree:
    """The small spheres under a cover's spheres (see the module docstring).

    roots (S, 2) int64: per cover sphere, its first group and group count (0: no tree);
    nodes (N, NODE_ROW): groups, then clusters, each row a centre in the link frame, the
    reach of everything below it, its first child row and child count (a group's children
    are clusters, a cluster's leaves; children are contiguous) and a box around everything
    below it (axes and half extents); leaves (K, LEAF_ROW): centre, reach, box.
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


def _nodes_around(points: np.ndarray, radii: np.ndarray, starts: np.ndarray,
                  boxes: np.ndarray | None = None) -> np.ndarray:
    """Per run of rows [starts[i], starts[i+1]) of parts (centres `points`, each within
    `radii` of its centre, and optionally in a box: rows of 9 axes and 3 half extents), a
    node row holding them: centre at the box centre of their centres, reach to the
    farthest part's far side, and a box along the principal axes of their centres whose
    half extents reach every part (its own box's support along each axis, or its radius),
    children = the run."""
    lo = np.minimum.reduceat(points, starts[:-1], axis=0)
    hi = np.maximum.reduceat(points, starts[:-1], axis=0)
    c = 0.5 * (lo + hi)
    run = np.repeat(np.arange(len(starts) - 1), np.diff(starts))
    X = points - c[run]
    reach = np.maximum.reduceat(np.linalg.norm(X, axis=1) + radii, starts[:-1]) + _SLACK
    axes = np.linalg.eigh(np.add.reduceat(X[:, :, None] * X[:, None, :], starts[:-1], axis=0))[1].transpose(0, 2, 1)
    A = axes[run]
    along = np.abs(np.einsum("nj,nij->ni", X, A))
    if boxes is None:
        along += radii[:, None]
    else:  # support of each part's box along each node axis: Σ_j |a_i·b_j|·e_j
        B = boxes[:, :9].reshape(-1, 3, 3)
        along += np.einsum("nij,nj->ni", np.abs(np.einsum("nik,njk->nij", A, B)), boxes[:, 9:])
    extents = np.maximum.reduceat(along, starts[:-1], axis=0) + _SLACK
    return np.c_[c, reach, starts[:-1], np.diff(starts), axes.reshape(-1, 9), extents]


def link_tree(triangles: np.ndarray, centres: np.ndarray, radii: np.ndarray,
              leaf_size: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The tree of one link under its cover spheres (centres (s, 3), radii): node rows of
    its groups, clusters and leaves (child indices from 0 in the next array), and each
    group's cover sphere (groups come sorted by it)."""
    T = bisect(triangles, leaf_size)
    # leaves: triangles grouped by the cell of their centroid, each group in the box of its vertices
    order, starts = _groups(np.floor(T.mean(axis=1) / leaf_size).astype(np.int64))
    V = T[order].reshape(-1, 3)
    boxes = _nodes_around(V, np.zeros(len(V)), 3 * starts)
    c, r = boxes[:, :3], boxes[:, 3]
    # each leaf under the cover sphere it lies deepest in
    owner = np.argmin(np.linalg.norm(c[:, None] - centres[None], axis=2) - radii[None], axis=1)
    rows = [np.c_[c, r, boxes[:, 6:]]]
    size = leaf_size
    for _ in range(2):  # clusters, then groups: the level below sorted by (owner, cell)
        size *= GROWTH
        order, starts = _groups(np.c_[owner, np.floor(rows[-1][:, :3] / size).astype(np.int64)])
        rows[-1], owner = rows[-1][order], owner[order]
        below = rows[-1]
        rows.append(_nodes_around(below[:, :3], below[:, 3], starts, below[:, -12:]))
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
