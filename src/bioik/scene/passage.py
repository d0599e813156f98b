"""Where a tool must pass to reach a point among obstacles — the opening of a tank, the front
of a shelf compartment — found from the scene's signed distance, without being told.

`PassageFinder.find(point, tool_axis)`:

1. casts rays from the point back along the tool (a cone around −tool_axis, from a
   Fibonacci lattice) and marches each through the distance field, in steps of half the
   distance where it is (at least `step`), until it leaves the scene's bounds; a ray is
   blocked where it enters an obstacle within `skip` (the tip's own length, which touches
   its target) or comes nearer than `radius` beyond it. Of the rays that get out it keeps
   the widest: the one whose smallest clearance over [skip, reach] is largest. If none gets
   out with the tool's radius, a cone four times as dense is tried with any clearance (a
   3.5 cm hole seen from 0.5 m falls between the first cone's rays); if none gets out at
   all, the same from points back along the tool (BACKOFFS), where its tip segment would
   end: a tool that must bend past a lid. A point in the open has no passage (None): one
   from which more than `enclosed` of the rays get out at all (many ways out, not one it
   must take), or whose widest ray is nowhere narrower than `narrow`;
2. a fan of rays around the widest one (FAN_HALF_ANGLE) samples the opening: where each ray
   that gets out last narrows (the last local minimum of its clearance within reach: a ray
   may graze a wall before, inside the object) lies inside it, and their mean is a point in
   the opening;
3. from there the point climbs the distance field within a plane: in the plane across the
   opening's axis the clearance peaks at the opening's radius, at its centre, while in a
   plane tilted into the object or out of it the point slides off past `narrow`. Tried: the
   plane the crossings span, the plane across the ray and PLANES more; the one with the
   highest peak below `narrow` gives the passage: its centre, the plane's normal pointing
   into the object, and twice the peak as the diameter.

Straight corridors only (from the point or a point behind it): a target reachable only
around a longer bend has no passage here.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from bioik.kinematics.frames import JIT, align_z
from bioik.scene.errors import SceneError
from bioik.scene.scene import Scene
from bioik.scene.sdf import scene_distance

#: The cone around the widest ray whose rays sample the opening's cross-section.
FAN_HALF_ANGLE, FAN_RAYS = math.radians(8.0), 200
#: How deep (m) a ray may seem to enter an obstacle within `skip` of the point (the point
#: is on a surface, and a grid's distance is off by a fraction of its cell).
SURFACE_SLACK = 1e-3
#: Rays that measure how open the point is (`enclosed`).
OPEN_RAYS = 250
#: How far back along the tool (m) the corridor is looked for when none leads straight
#: out from the point itself.
BACKOFFS = (0.05, 0.1, 0.15)
#: Gradient steps that centre the passage in the opening's plane.
CENTRING_STEPS = 60
#: Planes tried for the opening's cross-section, beside the ray's and the crossings' own.
PLANES = 24
#: Rays marched per compiled call: `find` reads the clock between two calls, so a
#: deadline is overrun by about one batch (≈ 0.1–0.3 ms on the EBIKE tanks).
BATCH = 64


@dataclass(frozen=True)
class Passage:
    """A narrow place a tool must pass.

    Attributes:
        point: its centre (base frame).
        axis: unit direction from the passage towards the point (into the object).
        diameter: twice the clearance at its centre (m).
    """

    point: np.ndarray
    axis: np.ndarray
    diameter: float


def cone_directions(axis: np.ndarray, half_angle: float, count: int) -> np.ndarray:
    """`count` unit vectors spread evenly (a Fibonacci lattice, uniform in solid angle) over
    the cone of `half_angle` radians around the unit vector `axis`."""
    k = np.arange(count) + 0.5
    z = 1.0 - (1.0 - math.cos(half_angle)) * k / count
    phi = k * math.pi * (3.0 - math.sqrt(5.0))
    s = np.sqrt(np.maximum(0.0, 1.0 - z * z))
    return np.stack([s * np.cos(phi), s * np.sin(phi), z], axis=1) @ align_z(axis).T


@njit(inline="always", **JIT)
def _exit(p, d, lo, hi):
    """How far along the ray p + t·d it leaves the box lo–hi (p inside)."""
    t = math.inf
    for a in range(3):
        if d[a] > 0.0:
            t = min(t, (hi[a] - p[a]) / d[a])
        elif d[a] < 0.0:
            t = min(t, (lo[a] - p[a]) / d[a])
    return t


@njit(inline="always", **JIT)
def _vertex(t0, d0, t1, d1, t2, d2):
    """Where the parabola through the samples (t0, d0), (t1, d1), (t2, d2) of a clearance
    has its least value, d1 the least sample: the march's steps near an opening are half its
    clearance, a centimetre and more, too coarse for the point where a ray passes it."""
    a, b = (t1 - t0) * (d1 - d2), (t1 - t2) * (d1 - d0)
    den = a - b
    if den == 0.0:
        return t1
    return min(max(t1 - 0.5 * ((t1 - t0) * a - (t1 - t2) * b) / den, t0), t2)


@njit(inline="always", **JIT)
def _march(blob, p, d3, end, skip, reach, radius, step, narrow, floor, out):
    """March the ray p + t·d3 to end (see the module). True if it gets there without entering
    an obstacle before skip and with clearance ≥ radius from skip on, and its smallest
    clearance over [skip, reach] (out[0]) stays above floor; out[1], out[2]: t and
    clearance of its last local minimum below narrow within reach (the last sample counts
    if the clearance still falls there; t < 0: none).

    The corridor from skip on is marched first: there a ray narrower than floor (the widest
    found so far) is dropped after a few samples, while the tip's own length before skip,
    which runs along the target's surface in steps of `step`, is marched only for a ray
    that got out."""
    t, least = skip, math.inf
    prev, t_prev, falling = math.inf, skip, False  # the first sample is no minimum: the clearance may just rise from the surface
    before, t_before = math.inf, skip
    out[1], out[2] = -1.0, math.inf
    while t < end:
        d = scene_distance(blob, p[0] + t * d3[0], p[1] + t * d3[1], p[2] + t * d3[2], math.inf, 0)[0]
        if d < radius:
            return False  # blocked
        if t <= reach:
            least = min(least, d)
            if least <= floor:
                return False
            if d > prev and falling and prev < narrow:
                out[1], out[2] = _vertex(t_before, before, t_prev, prev, t, d), prev
            falling = d <= prev
            before, t_before = prev, t_prev
            prev, t_prev = d, t
        elif falling and prev < narrow:  # still narrowing at reach
            out[1], out[2], falling = t_prev, prev, False
        t += max(0.5 * d, step)
    t = step
    while t < min(skip, end):  # the tip's own length: it may touch, not go through
        d = scene_distance(blob, p[0] + t * d3[0], p[1] + t * d3[1], p[2] + t * d3[2], math.inf, 0)[0]
        if d < -SURFACE_SLACK:
            return False
        t += max(0.5 * d, step)
    out[0] = least
    return True


@njit(**JIT)
def _widest_ray(blob, p, dirs, lo, hi, skip, reach, radius, step, narrow, floor, out):
    """Index of the ray that leaves the box lo–hi with at least `radius` clearance all along
    and has the largest clearance over [skip, reach], above `floor` (into out[0]); −1 if none."""
    best, best_k, o = floor, -1, np.empty(3)
    for k in range(dirs.shape[0]):
        if _march(blob, p, dirs[k], _exit(p, dirs[k], lo, hi), skip, reach, radius, step, narrow, best, o):
            best, best_k = o[0], k
    out[0] = best
    return best_k


@njit(**JIT)
def _escaping(blob, p, dirs, lo, hi, skip, step, need):
    """How many of the rays leave the box lo–hi without entering an obstacle, counted until
    `need` have: the verdict asks only whether enough get out, and in the open most do,
    each marched to the box's edge."""
    count, o = 0, np.empty(3)
    for k in range(dirs.shape[0]):
        count += _march(blob, p, dirs[k], _exit(p, dirs[k], lo, hi), skip, 0.0, 0.0, step, 0.0, -math.inf, o)
        if count >= need:
            break
    return count


@njit(**JIT)
def _crossings(blob, p, dirs, lo, hi, skip, reach, step, narrow, pts):
    """For each ray that leaves the box lo–hi without touching an obstacle, the point of its
    last constriction (into pts); how many."""
    count, o = 0, np.empty(3)
    for k in range(dirs.shape[0]):
        d3 = dirs[k]
        if _march(blob, p, d3, _exit(p, d3, lo, hi), skip, reach, 0.0, step, narrow, -math.inf, o) and o[1] >= 0.0:
            for a in range(3):
                pts[count, a] = p[a] + o[1] * d3[a]
            count += 1
    return count


@njit(**JIT)
def _centre(blob, x, n, steps):
    """Move x (in place) within the plane across the unit vector n up the distance field
    until the clearance stops growing; the clearance there."""
    d, gx, gy, gz = scene_distance(blob, x[0], x[1], x[2], math.inf, 0)
    for _ in range(steps):
        g = gx * n[0] + gy * n[1] + gz * n[2]
        ux, uy, uz = gx - g * n[0], gy - g * n[1], gz - g * n[2]
        m = math.sqrt(ux * ux + uy * uy + uz * uz)
        if m < 1e-9:
            break
        h = 0.25 * max(d, 1e-4) / m
        y0, y1, y2 = x[0] + h * ux, x[1] + h * uy, x[2] + h * uz
        e, fx, fy, fz = scene_distance(blob, y0, y1, y2, math.inf, 0)
        if e <= d:
            break
        x[0], x[1], x[2], d, gx, gy, gz = y0, y1, y2, e, fx, fy, fz
    return d


class PassageFinder:
    """The passages to points of a scene (see the module).

    The scene is packed once; after `scene.move`, `refresh` (after obstacles are added or
    removed, make a new finder).

    Args:
        scene: the obstacles.
        reach: how far from the point the passage may lie (the tool's length: beyond it the
            arm, which cannot enter, takes over).
        radius: the clearance a corridor needs all along (the tool's radius).
        skip: the first length of each ray, not charged (the tip touches its target there).
        narrow: a corridor wider than this over [skip, reach] is the open, not a passage.
        enclosed: a point from which more than this share of the rays get out (any
            clearance, OPEN_RAYS of them) is in the open: it has many ways out, not one
            it must take (EBIKE's stored targets: in the tanks ≤ 1.6 %; on the shelf 9 % in
            the median, under 2.8 % for a tenth of them; in the open-topped barrel 7–49 %).
        half_angle: the cone of ray directions around the tool's axis, backwards (radians).
        rays: rays of the first cone; the second, with any clearance, has four times as many.
        step: the shortest march step (m).
    """

    def __init__(self, scene: Scene, *, reach: float, radius: float = 0.0, skip: float = 0.05, narrow: float = 0.05,
                 enclosed: float = 0.025, half_angle: float = math.pi / 2, rays: int = 1000, step: float = 0.002):
        if not isinstance(scene, Scene):
            raise TypeError(f"PassageFinder: scene must be a bioik.Scene; got {type(scene).__name__}")
        for name, v in (("reach", reach), ("radius", radius), ("skip", skip), ("narrow", narrow), ("enclosed", enclosed),
                        ("step", step)):
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0.0):
                raise ValueError(f"PassageFinder: {name} must be a finite number ≥ 0; got {v!r}")
        if not skip < reach:
            raise ValueError(f"PassageFinder: need skip < reach; got skip={skip!r}, reach={reach!r}")
        if not (0.0 < half_angle <= math.pi and isinstance(rays, int) and rays >= 1 and step > 0.0):
            raise ValueError(f"PassageFinder: need 0 < half_angle ≤ π, an int rays ≥ 1 and step > 0; "
                             f"got {half_angle!r}, {rays!r}, {step!r}")
        self.scene = scene
        #: (the packed scene, the box the rays leave, the scene's pose_version they follow):
        #: swapped whole by `refresh`, read once per `find`.
        self._packed = (scene.pack(), self._bounds(), scene.pose_version)
        self.reach, self.radius, self.skip, self.narrow, self.step = float(reach), float(radius), float(skip), float(narrow), float(step)
        z = np.array([0.0, 0.0, 1.0])
        self._cones = [(cone_directions(z, half_angle, rays), self.radius), (cone_directions(z, half_angle, 4 * rays), 0.0)]
        self._fan = cone_directions(z, FAN_HALF_ANGLE, FAN_RAYS)
        # shuffled (a fixed order): the lattice runs from the axis outwards, so the few rays
        # that escape from a point in the open would come last; the verdict is the same
        self._open = cone_directions(z, half_angle, OPEN_RAYS)[np.random.default_rng(0).permutation(OPEN_RAYS)]
        self.enclosed = float(enclosed)
        self._cos_half = math.cos(half_angle)
        self._normals = cone_directions(z, math.pi / 2, PLANES)  # a hemisphere: n and −n are one plane

    def _bounds(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The box around the obstacles, 1 cm wider (None: no obstacle, all is open)."""
        try:
            lo, hi = self.scene.bounds()
        except SceneError:
            return None
        return lo - 0.01, hi + 0.01

    @property
    def blob(self) -> np.ndarray:
        """The packed scene (`Scene.pack`) the rays march through."""
        return self._packed[0]

    @property
    def pose_version(self) -> int:
        """The scene's `pose_version` the finder follows (`refresh` after `scene.move`)."""
        return self._packed[2]

    def refresh(self) -> None:
        """Follow the scene's `move`s since the finder was made or last refreshed: the
        obstacles' poses and the box around them, swapped in whole (a `find` in another
        thread reads the one state or the other). Obstacles added or removed need a new
        finder: a SceneError says so."""
        blob = self._packed[0].copy()
        self.scene.write_poses(blob)
        self._packed = (blob, self._bounds(), self.scene.pose_version)

    def warm_up(self) -> None:
        """Compile (or load) every ray test `find` may call, with the argument types it passes
        them, so that no later `find` compiles inside a caller's timeout: a warm-up `find`
        that stops early (its point in the open) leaves the later tests unloaded."""
        blob, box, _ = self._packed
        if box is None:
            return
        p, n, z = np.zeros(3), np.array([0.0, 0.0, 1.0]), np.zeros(1)
        dirs = np.zeros((2, 3))[:1]  # a batch: the first rows of a C-ordered array
        dirs[0] = n
        _escaping(blob, p, dirs, *box, self.skip, self.step, 1)
        _widest_ray(blob, p, dirs, *box, self.skip, self.reach, self.radius, self.step, self.narrow, self.radius, z)
        _crossings(blob, p, dirs, *box, self.skip, self.reach, self.step, self.narrow, np.empty((2, 3))[1:])
        _centre(blob, p.copy(), n, CENTRING_STEPS)

    def find(self, point, tool_axis, *, deadline: float = math.inf, known: Sequence[Passage] = ()) -> Passage | None:
        """The passage to `point` for a tool arriving along `tool_axis` (its direction at the
        tip, into the surface: the tip pose's z axis for an endoscope), or None — also when
        the search passes `deadline` (a `time.monotonic()` time), read between ray batches.

        known: passages found before in this scene (for other points). Once the point is
        found enclosed, the first of them whose centre a straight corridor from the point
        (or, failing that, from a point back along the tool: BACKOFFS) reaches — within the
        cone and `reach`, `radius` clear all along, narrower than `narrow` — is the answer,
        without the search for the widest ray: one ray instead of a thousand, for the many
        targets behind one tank's hole."""
        # own float64 C-ordered copies: a read-only, strided or float32 input would make the
        # compiled ray tests compile again for its type, inside the caller's timeout
        p = np.array(point, dtype=np.float64).reshape(3)
        axis = np.array(tool_axis, dtype=np.float64).reshape(3)
        n = float(np.linalg.norm(axis))
        if not (np.isfinite(p).all() and np.isfinite(axis).all()) or n == 0.0:
            raise ValueError(f"PassageFinder.find: point and tool_axis must be finite 3-vectors, the axis not zero; "
                             f"got {point!r}, {tool_axis!r}")
        blob, box, _ = self._packed
        if box is None:
            return None
        u = axis / n
        back = align_z(-u).T  # cone directions around z → around −u
        lo, hi = box
        open_dirs, escaping = self._open @ back, 0
        enough = math.floor(self.enclosed * len(self._open)) + 1  # more than `enclosed` of them
        for b in range(0, len(open_dirs), BATCH):
            if time.monotonic() >= deadline:
                return None
            escaping += _escaping(blob, p, open_dirs[b:b + BATCH], lo, hi, self.skip, self.step, enough - escaping)
            if escaping >= enough:
                return None  # many ways out: the open
        out = np.zeros(1)
        starts = (p, *(p - b * u for b in BACKOFFS))
        for start in starts:
            for passage in known:
                ray = passage.point - start
                length = float(np.linalg.norm(ray))
                if not self.skip < length <= self.reach or ray @ -u < self._cos_half * length:
                    continue
                ray = (ray / length).reshape(1, 3)
                if _widest_ray(blob, start, ray, lo, hi, self.skip, self.reach, self.radius, self.step, self.narrow,
                               self.radius, out) == 0 and out[0] < self.narrow:
                    return passage
        cones = [(cone @ back, radius) for cone, radius in self._cones]  # the same from every start
        # from the point, then (no straight way out: the tool must bend) from points back
        # along the tool, where its tip segment would end
        k = -1
        for start in starts:
            for dirs, radius in cones:
                best = radius
                for b in range(0, len(dirs), BATCH):
                    if time.monotonic() >= deadline:
                        return None
                    j = _widest_ray(blob, start, dirs[b:b + BATCH], lo, hi, self.skip, self.reach, radius, self.step,
                                    self.narrow, best, out)
                    best = out[0]  # the widest clearance so far: the next batch's floor
                    if j >= 0:
                        k = b + j
                if k >= 0:
                    break
            if k >= 0:
                break
        if k < 0 or out[0] >= self.narrow:
            return None
        ray = dirs[k]  # from start, out of the object
        fan = self._fan @ align_z(ray).T
        pts = np.empty((len(fan), 3))
        m = 0
        for b in range(0, len(fan), BATCH):
            if time.monotonic() >= deadline:
                return None
            m += _crossings(blob, start, fan[b:b + BATCH], lo, hi, self.skip, self.reach, self.step, self.narrow, pts[m:])
        if m == 0:
            return None
        inside = pts[:m].mean(axis=0)
        normals = [ray, *self._normals]
        if m >= 3:
            _, sv, vt = np.linalg.svd(pts[:m] - inside)
            if sv[1] > 1e-3 * max(sv[0], 1e-12):  # the crossings span a plane: its normal
                normals.insert(0, vt[2])
        best, best_d, best_n = None, 0.0, ray
        for normal in normals:
            x = inside.copy()
            d = _centre(blob, x, np.ascontiguousarray(normal), CENTRING_STEPS)
            if best_d < d < self.narrow:
                best, best_d, best_n = x, d, normal
        if best is None:
            return None
        return Passage(best, -best_n if best_n @ ray >= 0.0 else best_n, 2.0 * float(best_d))
