"""Exact collision checks of a robot configuration with coal: against a scene and itself.

`CollisionChecker(robot, scene)(q)` is True when q is collision-free, so it serves as a
solver's solution callback. Each check: forward kinematics of the links with geometry
(compiled), then a compiled cull — every collision element (a URDF `<collision>`; a
cylinder with spheres of its radius on both ends is one capsule) has a bounding sphere,
and only element pairs whose spheres come within `margin` reach coal, nearest first, until
the first collision. Self pairs are those of link pairs the allowed-collision matrix
(`bioik.collision.acm`) does not allow, and those it only sampled as never colliding
(`AllowedCollisions.exact_checked`); robot–obstacle pairs skip the `allowed`
(link, obstacle name) pairs, such as a robot standing on a table.

The scene is duck-typed: `scene.obstacles` (name → obstacle with `.shape` and `.pose` in
the robot base frame), `scene.layout_version` (changes when obstacles are added or
removed) and `scene.pose_version` (changes when one moves). Obstacle geometry is rebuilt
on a layout change, transforms on a pose change. coal objects hold transforms, so every
thread gets its own set (`threading.local`): one checker may be used from many threads.

Meshes are surfaces to coal. A closed `Solid` obstacle also has an inside: an element
whose surface does not cross the solid's is tested for lying inside it (ray parity from
the element's centre). Penetration depths against meshes are those of the deepest of
several triangle contacts — local depths, not the distance out of the solid.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from bioik.collision import _coal
from bioik.collision._coal import coal
from bioik.collision.acm import AllowedCollisions, allowed_collisions
from bioik.collision.link_geometry import Piece, collision_links, link_pieces
from bioik.collision.spheres import _enclosing
from bioik.kinematics.fk import fk_batch
from bioik.kinematics.frames import KERNEL
from bioik.kinematics.robot import Robot

#: Contacts asked of coal per mesh pair (the deepest is kept).
MESH_CONTACTS = 8


@dataclass(frozen=True)
class Contact:
    """A close or colliding pair.

    Attributes:
        a: a link.
        b: a link (kind "self") or an obstacle name (kind "scene").
        kind: "self" or "scene".
        distance: signed (negative: penetration depth), metres.
        point_a: witness point on a, robot base frame.
        point_b: witness point on b, robot base frame.
    """

    a: str
    b: str
    kind: str
    distance: float
    point_a: np.ndarray
    point_b: np.ndarray


@dataclass(frozen=True, eq=False)
class _Element:
    link: int
    origin: np.ndarray
    geometry: Any
    centre: np.ndarray
    radius: float
    is_mesh: bool


def _elements(pieces: tuple[Piece, ...], link: int) -> list[_Element]:
    """coal elements of one link; a cylinder with end spheres of its radius becomes a capsule."""
    out, used = [], set()
    for i, p in enumerate(pieces):
        if p.kind != "cylinder":
            continue
        r, length = p.size
        ends = (p.origin[:3, :3] @ np.array([[0, 0, -length / 2], [0, 0, length / 2]]).T + p.origin[:3, 3:4]).T
        caps = []
        for e in ends:
            caps += [j for j, s in enumerate(pieces) if s.kind == "sphere" and j not in used and j not in caps
                     and abs(s.size[0] - r) <= 1e-9 * max(r, 1) and np.linalg.norm(s.origin[:3, 3] - e) <= 1e-7][:1]
        if len(caps) == 2:
            used.update(caps + [i])
            out.append(_Element(link, p.origin, coal.Capsule(r, length), p.origin[:3, 3].copy(), r + length / 2, False))
    for i, p in enumerate(pieces):
        if i in used:
            continue
        c, r = _enclosing(p.vertices())
        out.append(_Element(link, p.origin, _coal.piece_geometry(p), c, r, p.kind == "mesh"))
    return out


@njit(**KERNEL)
def _cull(poses, el_link, el_origin, el_centre, el_radius, pairs, obs_inv, obs_lo, obs_hi, obs_ok, margin,
          el_world, centres, gaps_self, gaps_obs):
    """World poses of the elements; gaps between bounding spheres of self pairs and between
    element bounding spheres and obstacles' boxes (their own frame's bounds; inf where not
    to check). Returns the number of pairs within margin."""
    G = el_link.shape[0]
    for g in range(G):
        T = poses[el_link[g]]
        O = el_origin[g]
        for i in range(3):
            for j in range(4):
                s = T[i, 3] if j == 3 else 0.0
                for k in range(3):
                    s += T[i, k] * O[k, j]
                el_world[g, i, j] = s
            c = T[i, 3]
            for k in range(3):
                c += T[i, k] * el_centre[g, k]
            centres[g, i] = c
    n = 0
    for p in range(pairs.shape[0]):
        a, b = pairs[p, 0], pairs[p, 1]
        d = np.sqrt((centres[a, 0] - centres[b, 0]) ** 2 + (centres[a, 1] - centres[b, 1]) ** 2 + (centres[a, 2] - centres[b, 2]) ** 2)
        gap = d - el_radius[a] - el_radius[b]
        gaps_self[p] = gap
        if gap < margin:
            n += 1
    for g in range(G):
        for o in range(obs_inv.shape[0]):
            if not obs_ok[g, o]:
                gaps_obs[g, o] = np.inf
                continue
            d2 = 0.0
            for i in range(3):
                x = obs_inv[o, i, 3]
                for k in range(3):
                    x += obs_inv[o, i, k] * centres[g, k]
                if x < obs_lo[o, i]:
                    d2 += (obs_lo[o, i] - x) ** 2
                elif x > obs_hi[o, i]:
                    d2 += (x - obs_hi[o, i]) ** 2
            gap = np.sqrt(d2) - el_radius[g]
            gaps_obs[g, o] = gap
            if gap < margin:
                n += 1
    return n


@njit(**KERNEL)
def _local(T, L, c, i):
    """Coordinate i of the element centre c (in its link frame, link pose L) in the frame T."""
    w = 0.0
    for j in range(3):
        w += T[j, i] * (L[j, 0] * c[0] + L[j, 1] * c[1] + L[j, 2] * c[2] + L[j, 3] - T[j, 3])
    return w


@njit(**KERNEL)
def _centre_inside(T, L, c, V, F, lo, hi) -> bool:
    """Is the element centre c (in its link frame, link pose L) inside the solid mesh
    (V, F), of local bounds lo, hi, posed at T?"""
    px, py, pz = _local(T, L, c, 0), _local(T, L, c, 1), _local(T, L, c, 2)
    if px < lo[0] or py < lo[1] or pz < lo[2] or px > hi[0] or py > hi[1] or pz > hi[2]:
        return False
    return _inside(px, py, pz, V, F)


@njit(**KERNEL)
def _inside(px, py, pz, V, F):
    """Ray parity: is the point p inside the closed triangle mesh (V, F)?"""
    dx, dy, dz = 0.5773502691896258, 0.5773492691896258, 0.5773512691896258
    hits = 0
    for f in range(F.shape[0]):
        a, b, c = F[f, 0], F[f, 1], F[f, 2]
        e1x, e1y, e1z = V[b, 0] - V[a, 0], V[b, 1] - V[a, 1], V[b, 2] - V[a, 2]
        e2x, e2y, e2z = V[c, 0] - V[a, 0], V[c, 1] - V[a, 1], V[c, 2] - V[a, 2]
        px, py, pz = dy * e2z - dz * e2y, dz * e2x - dx * e2z, dx * e2y - dy * e2x
        det = e1x * px + e1y * py + e1z * pz
        if abs(det) < 1e-15:
            continue
        inv = 1.0 / det
        tx, ty, tz = px - V[a, 0], py - V[a, 1], pz - V[a, 2]
        u = (tx * px + ty * py + tz * pz) * inv
        if u < 0.0 or u > 1.0:
            continue
        qx, qy, qz = ty * e1z - tz * e1y, tz * e1x - tx * e1z, tx * e1y - ty * e1x
        v = (dx * qx + dy * qy + dz * qz) * inv
        if v < 0.0 or u + v > 1.0:
            continue
        if (e2x * qx + e2y * qy + e2z * qz) * inv > 0.0:
            hits += 1
    return hits % 2 == 1


def _bounds(shape, mesh) -> tuple[np.ndarray, np.ndarray]:
    """Box bounds of a shape in its own frame (exact for primitives; trimesh's inscribed
    cylinders and spheres would be too small)."""
    kind = type(shape).__name__
    if kind == "Box":
        h = 0.5 * np.asarray(shape.size, dtype=float)
    elif kind == "Sphere":
        h = np.full(3, shape.radius)
    elif kind in ("Cylinder", "Capsule"):
        h = np.array([shape.radius, shape.radius, shape.length / 2 + (shape.radius if kind == "Capsule" else 0.0)])
    else:
        return mesh.bounds[0].copy(), mesh.bounds[1].copy()
    return -h, h


class _Obstacles:
    """One thread's coal objects of the scene's obstacles."""

    def __init__(self, scene, elements: list[_Element], link_names: list[str], allowed: set[tuple[str, str]]):
        obs = list(scene.obstacles.values()) if scene is not None else []
        self.layout = getattr(scene, "layout_version", None)
        self.pose = None
        self.names = [o.name for o in obs]
        self.geometry = [_coal.shape_geometry(o.shape) for o in obs]
        self.transforms = [coal.Transform3s() for _ in obs]
        self.lo, self.hi = np.zeros((len(obs), 3)), np.zeros((len(obs), 3))
        self.inv = np.zeros((len(obs), 4, 4))
        self.solid: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None] = []
        for k, o in enumerate(obs):
            m = o.shape.trimesh()
            self.lo[k], self.hi[k] = _bounds(o.shape, m)
            closed = type(o.shape).__name__ == "Solid" and m.is_watertight
            self.solid.append((np.ascontiguousarray(m.vertices, dtype=float), np.ascontiguousarray(m.faces, dtype=np.int64),
                               m.bounds[0].copy(), m.bounds[1].copy()) if closed else None)
        for solid in self.solid:  # load the inside test now, not inside the first timed check that needs it
            if solid is not None:
                _centre_inside(np.eye(4), np.eye(4), np.zeros(3), *solid)
                break
        # Solids and Surfaces are triangle meshes to coal: their depth is the deepest of several contacts
        self.is_mesh = [type(o.shape).__name__ in ("Solid", "Surface") for o in obs]
        self.ok = np.array([[(link_names[e.link], n) not in allowed for n in self.names] for e in elements], dtype=bool).reshape(len(elements), len(obs))
        self.poses = np.zeros((len(obs), 4, 4))

    def refresh(self, scene) -> None:
        version = getattr(scene, "pose_version", None)
        if scene is None or (version == self.pose and version is not None):
            return
        for k, name in enumerate(self.names):
            T = np.asarray(scene.obstacles[name].pose, dtype=float)
            self.poses[k] = T
            self.transforms[k].setTransform(np.ascontiguousarray(T[:3, :3]), np.ascontiguousarray(T[:3, 3]))
            self.inv[k] = np.linalg.inv(T)
        self.pose = version


class CollisionChecker:
    """Exact self- and scene-collision checks of a robot's configurations (see the module).

    Args:
        robot: a `Robot` (q is its active group; other joints stay frozen).
        scene: None or a scene (duck-typed, see the module).
        margin: pairs closer than this (m) count as colliding.
        acm: the allowed-collision matrix (default `allowed_collisions(robot)`).
        allowed: (link, obstacle name) pairs never checked, beside the scene's own
            (`Scene.allow_contact`).
    """

    def __init__(self, robot: Robot, scene: Any = None, margin: float = 0.0, acm: AllowedCollisions | None = None,
                 allowed: Any = ()):
        margin = float(margin)
        if not np.isfinite(margin) or margin < 0:
            raise ValueError(f"margin must be a finite distance ≥ 0 (m); got {margin!r}")
        self.robot, self.scene, self.margin = robot, scene, margin
        self.acm = allowed_collisions(robot) if acm is None else acm
        self.allowed = {(str(a), str(b)) for a, b in allowed}
        self.links = list(collision_links(robot.model))
        for a, _ in self.allowed:
            robot.model.link_index(a)
        self._program = robot.program_for(self.links)
        self._idx = np.arange(len(self.links), dtype=np.int64)
        self._elements: list[_Element] = []
        for k, name in enumerate(self.links):
            self._elements += _elements(link_pieces(robot.model.link(name)), k)
        E = self._elements
        self._el_link = np.array([e.link for e in E], dtype=np.int64)
        self._el_origin = np.array([e.origin for e in E], dtype=float).reshape(-1, 4, 4)
        self._el_centre = np.array([e.centre for e in E], dtype=float).reshape(-1, 3)
        self._el_radius = np.array([e.radius for e in E], dtype=float)
        checked = {tuple(p) for p in self.acm.exact_checked}
        self._pairs = np.array([(i, j) for i, j in itertools.combinations(range(len(E)), 2)
                                if (self.links[E[i].link], self.links[E[j].link]) in checked], dtype=np.int64).reshape(-1, 2)
        self._local = threading.local()

    # -- per-thread state ----------------------------------------------------------
    def _state(self):
        s = self._local.__dict__
        if not s:
            s["transforms"] = [coal.Transform3s() for _ in self._elements]
            s["seg"] = np.empty((max(self._program.n_segments, 1), 7))
            s["poses"] = np.empty((1, len(self.links), 4, 4))
            s["el_world"] = np.empty((len(self._elements), 4, 4))
            s["el_rot"] = np.empty((len(self._elements), 3, 3))  # el_world's parts, contiguous for coal
            s["el_pos"] = np.empty((len(self._elements), 3))
            s["centres"] = np.empty((len(self._elements), 3))
            s["gaps_self"] = np.empty(len(self._pairs))
            s["obstacles"] = None
            req = coal.CollisionRequest()
            req.security_margin = self.margin
            s["request"], s["result"] = req, coal.CollisionResult()
            creq = coal.CollisionRequest(coal.CollisionRequestFlag.CONTACT, MESH_CONTACTS)
            creq.security_margin = self.margin
            s["contact_request"] = creq
        obs = s["obstacles"]
        if obs is None or (self.scene is not None and obs.layout != getattr(self.scene, "layout_version", None)) \
                or (self.scene is not None and getattr(self.scene, "layout_version", None) is None):
            allowed = self.allowed | set(getattr(self.scene, "allowed_contacts", ()))  # the scene's own contacts
            obs = s["obstacles"] = _Obstacles(self.scene, self._elements, self.links, allowed)
            s["gaps_obs"] = np.empty((len(self._elements), len(obs.names)))
        obs.refresh(self.scene)
        return self._local

    def _prepare(self, q: Any, margin: float):
        """FK and cull for q: (state, self pair order, obstacle pair order), nearest first."""
        st = self._state()
        q = self.robot.check(q)
        p = self._program
        fk_batch(p.seg_i, p.seg_f, p.out_seg, p.out_tf, q[None], self._idx, st.seg, st.poses)
        obs = st.obstacles
        _cull(st.poses[0], self._el_link, self._el_origin, self._el_centre, self._el_radius, self._pairs, obs.inv, obs.lo, obs.hi,
              obs.ok, margin, st.el_world, st.centres, st.gaps_self, st.gaps_obs)
        np.copyto(st.el_rot, st.el_world[:, :3, :3])
        np.copyto(st.el_pos, st.el_world[:, :3, 3])
        return st

    def _set(self, st, g: int):
        st.transforms[g].setTransform(st.el_rot[g], st.el_pos[g])
        return st.transforms[g]

    # -- queries -------------------------------------------------------------------
    def is_free(self, q: Any) -> bool:
        """True if no checked pair is closer than `margin` at q.

        Args:
            q: a configuration of the robot's active group.

        Returns:
            Whether q is collision-free.
        """
        st = self._prepare(q, self.margin)
        return self._free_of_scene(st) and self._free_of_itself(st)

    __call__ = is_free

    def is_free_of_scene(self, q: Any) -> bool:
        """True if no link is closer than `margin` to an obstacle it may not touch at q (the
        robot's own pairs left out).

        Args:
            q: a configuration of the robot's active group.

        Returns:
            Whether q is clear of the scene.
        """
        return self._free_of_scene(self._prepare(q, self.margin))

    def _free_of_scene(self, st) -> bool:
        obs, req, res = st.obstacles, st.request, st.result
        E = self._elements
        go = st.gaps_obs
        if go.size:
            for flat in np.argsort(go, axis=None):
                g, o = divmod(int(flat), go.shape[1])
                if not go[g, o] < self.margin:
                    break
                res.clear()
                if coal.collide(E[g].geometry, self._set(st, g), obs.geometry[o], obs.transforms[o], req, res):
                    return False
                if obs.solid[o] is not None and self._inside_solid(st, g, o):
                    return False
        return True

    def is_free_of_itself(self, q: Any) -> bool:
        """True if no checked pair of the robot's own links is closer than `margin` at q
        (the scene left out).

        Args:
            q: a configuration of the robot's active group.

        Returns:
            Whether q is free of self-collision.
        """
        return self._free_of_itself(self._prepare(q, self.margin))

    def _free_of_itself(self, st) -> bool:
        E, req, res = self._elements, st.request, st.result
        gs = st.gaps_self
        for p in np.argsort(gs):
            if not gs[p] < self.margin:
                break
            a, b = self._pairs[p]
            res.clear()
            if coal.collide(E[a].geometry, self._set(st, a), E[b].geometry, self._set(st, b), req, res):
                return False
        return True

    def _inside_solid(self, st, g: int, o: int) -> bool:
        V, F, lo, hi = st.obstacles.solid[o]
        return _centre_inside(st.obstacles.poses[o], st.poses[0, self._el_link[g]], self._el_centre[g], V, F, lo, hi)

    def contacts(self, q: Any, n: int = 10) -> list[Contact]:
        """The (at most n) pairs in collision at q (closer than `margin`), deepest first.

        Args:
            q: a configuration of the robot's active group.
            n: the most pairs to return.

        Returns:
            A list of `Contact`.
        """
        return [c for c in self._pairs_near(q, self.margin) if c.distance < self.margin][:n]

    def fixed_contacts(self) -> list[Contact]:
        """The obstacles that links no active variable moves (the base, links behind frozen
        joints) are in, and the checked pairs of two such links in collision, deepest first:
        the same at every configuration, so no solve can clear them.

        Returns:
            A list of `Contact` (kind "scene" or "self").
        """
        fixed = set(self.links) - self.robot.moving_links
        if not fixed:
            return []
        only = np.array([self.links[e.link] in fixed for e in self._elements], dtype=bool)
        near = self._pairs_near(self.robot.center(), self.margin, only)
        return [c for c in near if c.distance < self.margin]

    def closest(self, q: Any, k: int = 1) -> list[Contact]:
        """The k closest checked pairs (link–link or link–obstacle) at q, nearest first.

        Args:
            q: a configuration of the robot's active group.
            k: how many pairs.

        Returns:
            A list of `Contact`.
        """
        return self._pairs_near(q, np.inf)[:k]

    def _pairs_near(self, q: Any, cutoff: float, only: np.ndarray | None = None) -> list[Contact]:
        """The checked pairs nearer than `cutoff` at q, nearest first; with `only` (a mask of
        elements), just those elements against the scene and each other."""
        st = self._prepare(q, self.margin)
        obs, E = st.obstacles, self._elements
        best: dict[tuple[str, str, str], Contact] = {}

        def keep(c: Contact):
            key = (c.a, c.b, c.kind)
            if key not in best or c.distance < best[key].distance:
                best[key] = c

        near = st.gaps_obs < cutoff
        if only is not None:
            near &= only[:, None]
        for g, o in zip(*np.nonzero(near)):
            c = self._signed(st, E[g].geometry, self._set(st, g), obs.geometry[o], obs.transforms[o], E[g].is_mesh or obs.is_mesh[o])
            if c is not None:
                d, pa, pb = c
                if d > 0 and obs.solid[o] is not None and self._inside_solid(st, g, o):
                    d = -d  # inside the solid: at least this far from its surface
                keep(Contact(self.links[E[g].link], obs.names[o], "scene", d, pa, pb))
        near_self = st.gaps_self < cutoff
        if only is not None:
            near_self &= only[self._pairs[:, 0]] & only[self._pairs[:, 1]]
        for p in np.flatnonzero(near_self):
            a, b = self._pairs[p]
            c = self._signed(st, E[a].geometry, self._set(st, a), E[b].geometry, self._set(st, b), E[a].is_mesh or E[b].is_mesh)
            if c is not None:
                keep(Contact(self.links[E[a].link], self.links[E[b].link], "self", *c))
        return sorted(best.values(), key=lambda c: c.distance)

    def _signed(self, st, g1, t1, g2, t2, mesh: bool):
        """(signed distance, witness on 1, witness on 2); meshes: deepest of several contacts."""
        if mesh:
            res = coal.CollisionResult()
            req = st.contact_request
            if coal.collide(g1, t1, g2, t2, req, res):
                deepest = min(res.getContacts(), key=lambda c: c.penetration_depth)
                if deepest.penetration_depth < 0:
                    return float(deepest.penetration_depth), deepest.getNearestPoint1().copy(), deepest.getNearestPoint2().copy()
        dres = coal.DistanceResult()
        d = coal.distance(g1, t1, g2, t2, coal.DistanceRequest(), dres)
        return float(d), np.array(dres.getNearestPoint1()), np.array(dres.getNearestPoint2())

    def __repr__(self) -> str:
        n = len(self.scene.obstacles) if self.scene is not None else 0
        return (f"CollisionChecker({self.robot.name!r}: {len(self._elements)} elements, {len(self._pairs)} self pairs, "
                f"{n} obstacles, margin={self.margin})")
