"""A proof by the sphere cover that a configuration is collision-free, so the exact check
(coal) runs only where the cover cannot decide.

The cover is conservative (`bioik.collision.spheres`: every point of a link's geometry
lies in one of its spheres), so where every sphere keeps `margin` from every obstacle it
may not touch, and every sphere pair of a link pair the exact check tests keeps `margin`
apart, the geometry does too: the answer is clear without coal. (Every sphere keeps
PROOF_CLEARANCE more: coal counts shapes within its own tolerance as touching.) No slack is granted to
self pairs here (`bioik.collision.sphere_pairs`' slack is what makes the collision cost
not conservative), and pairs the allowed-collision matrix samples as "never" colliding
are tested too, as the exact check tests them.

Distances to primitives are exact. A mesh obstacle's grid is only an interpolant, so it is
lowered by GRID_LOWERING·h in all (h its spacing): trilinear interpolation errs by at most
√3/2·h, its nodes by a measured 0.22·h (`bioik.scene.scene.GRID_SLACK`), and the rest is
headroom. Links no active variable moves are left out: `bioik.collision.guard` checks
them exactly whenever the obstacles move.

`CoverProof.unproven(q)` is one compiled call (FK of the covered links, the spheres
against the scene, the pairs) of a few microseconds; it says which part — the scene, the
robot's own links, both or neither — the exact check still has to decide.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from numba import njit

from bioik.collision.acm import AllowedCollisions
from bioik.collision.spheres import SphereModel, sphere_model
from bioik.kinematics.fk import fk_frames
from bioik.kinematics.frames import JIT, qrot
from bioik.kinematics.robot import Robot
from bioik.scene import sdf

#: The fine cover the solvers' proof uses (`proof_cover`): 3 mm sideways, at most 40 spheres
#: a link. The cover the collision cost charges (1.5 cm) is too coarse to prove much: on
#: ur5, its forearm and wrist_2 spheres overlap in every configuration, so no answer was
#: proved free of self-collision; with this one, 376 of 390 collision-free answers in a
#: table cell were proved clear (3.5 µs a proof) and 14 went to coal.
PROOF_TOLERANCE = 0.003
PROOF_SPHERES = 40
#: How far below a mesh obstacle's grid (× its spacing h) the proof takes its distance.
GRID_LOWERING = 2.0
#: What the proof demands beyond the margin (m). coal calls two shapes in contact within
#: its GJK tolerance (1e-6 m by default): an answer whose cover kept 0.4 µm from a
#: cylinder's top, the geometry touching it there, was cleared by the proof and found
#: colliding by coal (elise_ur10 in TableObjects, one answer of several thousand). A gap
#: this small goes to coal instead.
PROOF_CLEARANCE = 1e-5
#: `CoverProof.unproven`'s bits: the scene, the robot's own link pairs.
SCENE, SELF = 1, 2


@njit(**JIT)
def unproven_at(seg_i, seg_f, out_seg, out_tf, q, link_of, centres, radii, masks, moving, bound_c, bound_r, groups, pairs,
              blob, margin, extra):
    """SCENE | SELF bits of what the cover leaves unproven at q (see the module)."""
    seg = np.empty((max(seg_i.shape[0], 1), 7))
    L = out_seg.shape[0]
    frames = np.empty((max(L, 1), 7))
    fk_frames(seg_i, seg_f, out_seg, out_tf, q, seg, frames)
    S = radii.shape[0]
    world = np.empty((S, 3))
    for s in range(S):
        f = frames[link_of[s]]
        rx, ry, rz = qrot(f[3], f[4], f[5], f[6], centres[s, 0], centres[s, 1], centres[s, 2])
        world[s, 0], world[s, 1], world[s, 2] = f[0] + rx, f[1] + ry, f[2] + rz
    out = 0
    n = int(blob[sdf.H_COUNT]) if blob.shape[0] > 0 else 0
    for s in range(S):
        if not moving[link_of[s]]:
            continue
        x, y, z = world[s, 0], world[s, 1], world[s, 2]
        reach = margin + radii[s]
        mask = masks[link_of[s]]
        for k in range(n):
            if k < sdf.MASK_BITS and (mask >> k) & 1:
                continue
            rec = sdf.HEADER + k * sdf.REC
            lower = 0.0
            if blob[rec + sdf.R_KIND] == sdf.GRID:
                lower = extra * blob[rec + sdf.R_GRID_H]
            cx, cy, cz = x - blob[rec + sdf.R_CENTRE], y - blob[rec + sdf.R_CENTRE + 1], z - blob[rec + sdf.R_CENTRE + 2]
            far = reach + lower + blob[rec + sdf.R_RADIUS]
            if cx * cx + cy * cy + cz * cz >= far * far:
                continue  # the field is ≥ |p − c| − radius: this obstacle is out of reach
            d = sdf.obstacle_sdf(blob, rec, x, y, z)[0] - lower
            if d < reach:
                out |= SCENE
                break
        if out & SCENE:
            break
    bw = np.empty((L, 3))
    for k in range(L):
        f = frames[k]
        rx, ry, rz = qrot(f[3], f[4], f[5], f[6], bound_c[k, 0], bound_c[k, 1], bound_c[k, 2])
        bw[k, 0], bw[k, 1], bw[k, 2] = f[0] + rx, f[1] + ry, f[2] + rz
    for h in range(groups.shape[0]):
        a, b = groups[h, 0], groups[h, 1]
        dx, dy, dz = bw[a, 0] - bw[b, 0], bw[a, 1] - bw[b, 1], bw[a, 2] - bw[b, 2]
        reach = margin + bound_r[a] + bound_r[b]
        if dx * dx + dy * dy + dz * dz >= reach * reach:
            continue  # the links' bounding spheres are apart
        for t in range(groups[h, 2], groups[h, 2] + groups[h, 3]):
            i, j = pairs[t, 0], pairs[t, 1]
            dx, dy, dz = world[i, 0] - world[j, 0], world[i, 1] - world[j, 1], world[i, 2] - world[j, 2]
            reach = margin + radii[i] + radii[j]
            if dx * dx + dy * dy + dz * dz < reach * reach:
                return out | SELF
    return out


@njit(**JIT)
def _unproven_rows(seg_i, seg_f, out_seg, out_tf, Q, ok, bits, first, last, link_of, centres, radii, masks, moving, bound_c,
                   bound_r, groups, pairs, blob, margin, extra):
    """bits[i] ← `unproven_at` at Q[i] for each row i in [first, last) where ok[i] (−1 elsewhere)."""
    for i in range(first, last):
        bits[i] = unproven_at(seg_i, seg_f, out_seg, out_tf, Q[i], link_of, centres, radii, masks, moving, bound_c, bound_r,
                            groups, pairs, blob, margin, extra) if ok[i] else -1


class CoverProof:
    """What a sphere cover proves about the exact check of one robot in one scene (see the
    module); safe to call from several threads at once.

    Args:
        robot: the robot (its active group moves; frozen and fixed links are left out).
        cover: a conservative `SphereModel` of the robot (the collision goal's).
        scene: the obstacles (None: none); `scene.move` is followed, a new layout is refused.
        margin: the clearance (m) the exact check demands.
        allowed: (link, obstacle) pairs that may touch, beside the scene's own.
        acm: the allowed-collision matrix of the exact check (its `exact_checked` pairs are
            proved; None: no self pairs).
    """

    def __init__(self, robot: Robot, cover: SphereModel, scene: Any = None, margin: float = 0.0, allowed: Any = (),
                 acm: AllowedCollisions | None = None):
        self.robot, self.scene, self.margin = robot, scene, float(margin)
        self._clearance = self.margin + PROOF_CLEARANCE  # what every sphere must keep
        links = list(cover.links)
        program = robot.program_for(links)
        self._fk = (program.seg_i, program.seg_f, program.out_seg, program.out_tf)
        self._link_of = np.ascontiguousarray(cover.link_of, dtype=np.int64)
        self._centres = np.ascontiguousarray(cover.centres, dtype=np.float64)
        self._radii = np.ascontiguousarray(cover.radii, dtype=np.float64)
        self._moving = np.array([name in robot.moving_links for name in links], dtype=np.bool_)
        self._bound_c, self._bound_r = _bounding(cover)
        self._groups, self._pairs = _pair_groups(cover, acm, self._moving)
        self._masks = np.zeros(len(links), dtype=np.int64)
        self._layout = None if scene is None else scene.layout_version
        blob = np.zeros(0)
        if scene is not None:
            names = scene.names
            for link, obstacle in (*allowed, *scene.allowed_contacts):
                k = names.index(obstacle) if obstacle in names else sdf.MASK_BITS
                if link in links and k < sdf.MASK_BITS:
                    self._masks[links.index(link)] |= np.int64(1) << k
            blob = scene.pack()
        self._extra = GRID_LOWERING - (float(blob[sdf.H_GRID_SLACK]) if len(blob) else 0.0)
        self._packed = blob
        #: per thread: its own copy of the packed scene and the pose_version it holds
        #: (a move rewrites only the obstacles' records, in place: no grid is copied again)
        self._local = threading.local()
        # loads (or compiles, once per machine) the kernels before any solve's clock runs
        self.unproven(robot.center())
        self.unproven_rows(robot.center()[None], np.ones(1, dtype=np.bool_), np.empty(1, dtype=np.int64), 0, 1)

    def _blob(self) -> np.ndarray:
        scene, local = self.scene, self._local
        if scene is None:
            return self._packed
        blob = getattr(local, "blob", None)
        if blob is None:
            if scene.layout_version != self._layout:
                raise ValueError("CoverProof: obstacles were added to or removed from the scene since it was built; build a new one")
            blob = local.blob = self._packed.copy()
            local.version = None
        version = scene.pose_version
        if local.version != version:
            scene.write_poses(blob)  # refuses a blob of another layout
            local.version = version
        return blob

    def unproven(self, q: np.ndarray) -> int:
        """What the cover cannot prove clear at q.

        Args:
            q: a configuration of the active group (float64 (dof,), within limits).

        Returns:
            SCENE | SELF bits: 0 when q is clear with no exact check needed, SCENE when the
            obstacles, SELF when the robot's own link pairs are left to the exact check.
        """
        return unproven_at(*self._fk, q, self._link_of, self._centres, self._radii, self._masks, self._moving, self._bound_c,
                           self._bound_r, self._groups, self._pairs, self._blob(), self._clearance, self._extra)

    def arguments(self) -> tuple:
        """`unproven_at`'s arguments but q (the FK program's four, then q's place left out),
        for a compiled caller (`bioik.solvers.core.free_tries`); the packed scene is this
        thread's, its obstacles where they are now."""
        return (*self._fk, self._link_of, self._centres, self._radii, self._masks, self._moving, self._bound_c, self._bound_r,
                self._groups, self._pairs, self._blob(), self._clearance, self._extra)

    def unproven_rows(self, Q: np.ndarray, ok: np.ndarray, bits: np.ndarray, first: int, last: int) -> None:
        """`unproven` of many configurations in one compiled call, the GIL released.

        Args:
            Q: configurations (N, dof), float64, C order.
            ok: (N,) bool: the rows to prove (the others get −1).
            bits: (N,) int64, written for the rows first … last − 1.
            first: the first row.
            last: one past the last row.
        """
        _unproven_rows(*self._fk, Q, ok, bits, first, last, self._link_of, self._centres, self._radii, self._masks, self._moving,
                       self._bound_c, self._bound_r, self._groups, self._pairs, self._blob(), self._clearance, self._extra)


def proof_cover(robot: Robot) -> SphereModel:
    """The robot's fine cover for proofs.

    Args:
        robot: the robot.

    Returns:
        Its `sphere_model` at PROOF_TOLERANCE and PROOF_SPHERES (cached like every cover).
    """
    return sphere_model(robot, tolerance=PROOF_TOLERANCE, max_spheres=PROOF_SPHERES)


def _bounding(cover: SphereModel) -> tuple[np.ndarray, np.ndarray]:
    """Per covered link, a sphere holding all its cover spheres (centre in its frame, radius)."""
    L = len(cover.links)
    c, r = np.zeros((L, 3)), np.zeros(L)
    for k in range(L):
        own = cover.link_of == k
        if own.any():
            c[k] = cover.centres[own].mean(axis=0)
            r[k] = np.max(np.linalg.norm(cover.centres[own] - c[k], axis=1) + cover.radii[own])
    return c, r


def _pair_groups(cover: SphereModel, acm: AllowedCollisions | None, moving: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(groups (G, 4): link a, link b, first pair, pair count; pairs (P, 2): sphere indices)
    for every link pair the exact check tests of which one link at least moves."""
    groups, pairs = [], []
    if acm is not None:
        slot = {name: k for k, name in enumerate(cover.links)}
        for a, b in acm.exact_checked:
            if a not in slot or b not in slot or not (moving[slot[a]] or moving[slot[b]]):
                continue
            ia, ib = np.flatnonzero(cover.link_of == slot[a]), np.flatnonzero(cover.link_of == slot[b])
            groups.append((slot[a], slot[b], len(pairs), len(ia) * len(ib)))
            pairs += [(i, j) for i in ia for j in ib]
    return np.array(groups, dtype=np.int64).reshape(-1, 4), np.array(pairs, dtype=np.int64).reshape(-1, 2)
