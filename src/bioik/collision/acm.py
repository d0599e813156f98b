"""The allowed-collision matrix: link pairs whose self-collision is never checked.

Computed once per robot the way MoveIt's setup assistant does it, because checking every
link pair is slow and wrong (neighbouring links touch by design):

* "adjacent": links joined by a joint, also through links without collision geometry
  (a flange or tool frame between two bodies makes them neighbours);
* "always": pairs in collision in at least `always` (default 95 %) of `samples` random
  configurations — they touch by construction (a cover over a motor), checking them would
  reject everything;
* "never": pairs in collision in none of the samples — most likely they cannot reach each
  other. Sampling cannot prove it, so these pairs leave only the compiled costs (a speed
  choice); the exact check, which decides success, still tests them (`exact_checked`);
* "srdf": pairs an SRDF's `<disable_collisions>` names (`load_robot(..., srdf=...)`);
* "user": pairs given to `allowed_collisions(..., allowed=[...])`.

Every joint variable of the model is sampled uniformly within its limits (a seeded RNG, so
the result is reproducible). MoveIt samples 10000 configurations; the default here is
2000, which keeps the build to about a second for the bundled robots — a pair that
collides in fewer than ~1/2000 of configurations may be wrongly called "never" (as with
MoveIt, only less likely there). Collisions are exact (coal, on the links' collision
geometry), after a conservative cull with the sphere cover: spheres apart ⇒ links apart.
Results are cached in memory and on disk (see `bioik.collision._cache`).
"""

from __future__ import annotations

import hashlib
import itertools
import threading
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from bioik.collision import _cache
from bioik.collision.link_geometry import collision_links, geometry_digest, link_pieces
from bioik.collision.spheres import SphereModel, sphere_model
from bioik.kinematics.robot import Robot
from bioik.model.names import suggest
from bioik.model.robot_model import RobotModel

DEFAULT_SAMPLES = 2000
DEFAULT_ALWAYS = 0.95
_VERSION = 1

REASONS = ("adjacent", "always", "never", "srdf", "user")


@dataclass(frozen=True, eq=False)
class AllowedCollisions:
    """Link pairs never checked for self-collision, each with its reason (see the module).

    links: the links with collision geometry (robot link order); pairs: (a, b) → reason
    with a before b in `links`.
    """

    links: tuple[str, ...]
    pairs: dict[tuple[str, str], str]
    samples: int = 0

    def _key(self, a: str, b: str) -> tuple[str, str]:
        order = {n: i for i, n in enumerate(self.links)}
        return (a, b) if order[a] < order[b] else (b, a)

    def allowed(self, a: str, b: str) -> bool:
        """True if the pair is never checked (a link without geometry never collides)."""
        if a == b:
            return True
        if a not in self.links or b not in self.links:
            return True
        return self._key(a, b) in self.pairs

    def reason(self, a: str, b: str) -> str | None:
        """Why the pair is allowed, or None if it is checked."""
        return None if a not in self.links or b not in self.links or a == b else self.pairs.get(self._key(a, b))

    @property
    def checked(self) -> list[tuple[str, str]]:
        """Link pairs that are checked (not allowed), in link order."""
        return [(a, b) for a, b in itertools.combinations(self.links, 2) if (a, b) not in self.pairs]

    @property
    def exact_checked(self) -> list[tuple[str, str]]:
        """Link pairs the exact check tests: those checked, and those sampled as "never"
        colliding (a pair that collides in fewer configurations than were sampled is one)."""
        return [(a, b) for a, b in itertools.combinations(self.links, 2) if self.pairs.get((a, b), "never") == "never"]

    def with_allowed(self, pairs: Iterable[tuple[str, str]], reason: str = "user") -> AllowedCollisions:
        """A copy that also allows `pairs` (existing reasons are kept)."""
        out = dict(self.pairs)
        for a, b in pairs:
            for x in (a, b):
                if x not in self.links:
                    raise ValueError(f"allowed pair ({a!r}, {b!r}): {x!r} is not a link with collision geometry; {suggest(x, self.links)}")
            if a != b:
                out.setdefault(self._key(a, b), reason)
        return AllowedCollisions(self.links, out, self.samples)

    def self_pairs(self, model: SphereModel) -> np.ndarray:
        """(P, 2) int64 sphere index pairs (i < j) of `model` on link pairs that are checked."""
        idx = {n: i for i, n in enumerate(model.links)}
        checked = np.zeros((len(model.links), len(model.links)), dtype=bool)
        for a, b in self.checked:
            if a in idx and b in idx:
                checked[idx[a], idx[b]] = checked[idx[b], idx[a]] = True
        i, j = np.triu_indices(len(model), k=1)
        keep = checked[model.link_of[i], model.link_of[j]]
        return np.ascontiguousarray(np.c_[i[keep], j[keep]], dtype=np.int64).reshape(-1, 2)

    def __repr__(self) -> str:
        counts = {r: sum(v == r for v in self.pairs.values()) for r in REASONS}
        return (f"AllowedCollisions({len(self.links)} links, {len(self.checked)} pairs checked, allowed: "
                + ", ".join(f"{n} {r}" for r, n in counts.items() if n) + ")")


_memory: dict[tuple, dict] = {}
_lock = threading.Lock()


def allowed_collisions(robot: Robot | RobotModel, *, samples: int = DEFAULT_SAMPLES, seed: int = 0, always: float = DEFAULT_ALWAYS,
                       allowed: Iterable[tuple[str, str]] = ()) -> AllowedCollisions:
    """The allowed-collision matrix of `robot` (see the module docstring); a Robot's SRDF
    disabled pairs and the `allowed` pairs are added with reasons "srdf" and "user"."""
    if int(samples) != samples or samples < 1:
        raise ValueError(f"samples must be an integer ≥ 1; got {samples!r}")
    if not 0 < always <= 1:
        raise ValueError(f"always must be a fraction in (0, 1]; got {always!r}")
    model = robot.model if isinstance(robot, Robot) else robot
    key = (model_digest(model), int(samples), int(seed), float(always), _VERSION)
    with _lock:
        pairs = _memory.get(key)
    if pairs is None:
        disk_key = hashlib.sha256(repr(key).encode()).hexdigest()[:24]
        stored = _cache.load("acm", disk_key)
        if stored is not None:
            pairs = {(a, b): r for a, b, r in stored}
        else:
            pairs = _compute(model, int(samples), int(seed), float(always))
            _cache.store("acm", disk_key, [[a, b, r] for (a, b), r in pairs.items()])
        with _lock:
            _memory[key] = pairs
    out = AllowedCollisions(collision_links(model), dict(pairs), int(samples))
    srdf = getattr(robot, "srdf", None)
    if srdf is not None:
        names = set(out.links)
        out = out.with_allowed([(a, b) for a, b, _ in srdf.disabled if a in names and b in names], "srdf")
    return out.with_allowed(allowed, "user")


def model_digest(model: RobotModel) -> str:
    """Hash of what the matrix depends on: geometry and kinematics."""
    h = hashlib.sha256(geometry_digest(model).encode())
    for j in model.joints:
        h.update(f"{j.name}|{j.type}|{j.parent}|{j.child}|{j.mimic}".encode() + np.asarray(j.origin, dtype=float).tobytes())
        for m in j.motions:
            h.update(f"{m.kind}|{m.variable}|{m.multiplier}|{m.offset}".encode() + np.asarray(m.axis, dtype=float).tobytes())
    for v in model.variables:
        h.update(f"{v.name}|{v.lower}|{v.upper}".encode())
    return h.hexdigest()[:24]


def adjacent_pairs(model: RobotModel) -> set[tuple[str, str]]:
    """Pairs of links with geometry joined by a joint directly or through links without geometry."""
    names = model.link_names
    has = [bool(l.collision) for l in model.links]
    nbrs: list[set[int]] = [set() for _ in names]
    for j in model.joints:
        nbrs[j.parent].add(j.child)
        nbrs[j.child].add(j.parent)
    out = set()
    for s in range(len(names)):
        if not has[s]:
            continue
        seen, stack = {s}, list(nbrs[s])
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            if has[x]:
                a, b = sorted((s, x))
                out.add((names[a], names[b]))
            else:
                stack.extend(nbrs[x])
    return out


def _compute(model: RobotModel, samples: int, seed: int, always: float) -> dict[tuple[str, str], str]:
    from bioik.collision import _coal

    coal = _coal.coal
    links = collision_links(model)
    pairs: dict[tuple[str, str], str] = {p: "adjacent" for p in adjacent_pairs(model)}
    todo = [(a, b) for a, b in itertools.combinations(links, 2) if (a, b) not in pairs]
    if not todo:
        return pairs
    movable = [j.name for j in model.joints if j.motions and j.mimic is None]
    if movable:
        full = Robot(model, {"joints": movable})
        Q = full.random_configuration(np.random.default_rng(seed), samples)
    else:
        full, Q = Robot(model, None), None
    poses = full.fk(Q, links) if Q is not None else np.broadcast_to(_static_poses(model, links), (1, len(links), 4, 4))
    n = len(poses)
    spheres = sphere_model(model)
    per_sphere = poses[:, spheres.link_of]
    world = np.einsum("nsij,sj->nsi", per_sphere[:, :, :3, :3], spheres.centres) + per_sphere[:, :, :3, 3]
    index = {name: k for k, name in enumerate(links)}
    geoms = [[(_coal.piece_geometry(p), p.origin) for p in link_pieces(model.link(name))] for name in links]
    request, result = coal.CollisionRequest(), coal.CollisionResult()
    for a, b in todo:
        ia, ib = index[a], index[b]
        sa, sb = np.flatnonzero(spheres.link_of == ia), np.flatnonzero(spheres.link_of == ib)
        gap = np.linalg.norm(world[:, sa, None, :] - world[:, None, sb, :], axis=3) - spheres.radii[sa][:, None] - spheres.radii[sb][None]
        near = np.flatnonzero(gap.min(axis=(1, 2)) <= 0)
        hits, misses = 0, n - len(near)
        for k in near:
            if hits and misses > (1 - always) * n:
                break  # neither "never" nor "always": checked
            Ta, Tb = poses[k, ia], poses[k, ib]
            for (ga, oa), (gb, ob) in itertools.product(geoms[ia], geoms[ib]):
                result.clear()
                if coal.collide(ga, _coal.transform(Ta @ oa), gb, _coal.transform(Tb @ ob), request, result):
                    hits += 1
                    break
            else:
                misses += 1
        if hits == 0:
            pairs[(a, b)] = "never"
        elif hits >= always * n:
            pairs[(a, b)] = "always"
    return pairs


def _static_poses(model: RobotModel, links: tuple[str, ...]) -> np.ndarray:
    """Link poses of a robot without joint variables."""
    robot = Robot(model, None)
    return robot.fk(np.zeros((1, 0)), links)[0] if robot.dof == 0 else robot.fk(robot.center(), links)
