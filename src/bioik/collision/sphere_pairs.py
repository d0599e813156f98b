"""Sphere pairs for the self-collision cost, each with the overlap its links tolerate.

A conservative cover reaches beyond the geometry, most near the joints: on `ur5` the last
forearm sphere and the wrist_2 sphere overlap by up to 3 cm in every configuration,
although the two links never touch. Charged as penetration, such overlaps would forbid
most of the workspace. So each sphere pair (i, j) of a link pair the allowed-collision
matrix checks gets a *slack*: the deepest overlap r_i + r_j − ‖c_i − c_j‖ seen in the
random configurations of `samples` where the two links' exact geometry (coal) is apart.
The compiled cost charges only overlap beyond the slack. That is no longer conservative
— a pair may touch while its spheres overlap less than the slack — which is why
`bioik.solve` with a scene checks every answer exactly before it counts.

Computed once per robot, sphere cover and matrix (about a second) and cached in memory and
on disk like the matrix itself.
"""

from __future__ import annotations

import hashlib
import itertools
import threading
from dataclasses import dataclass

import numpy as np

from bioik.collision import _cache
from bioik.collision.acm import DEFAULT_SAMPLES, AllowedCollisions, collision_links, model_digest
from bioik.collision.link_geometry import link_pieces
from bioik.collision.spheres import SphereModel
from bioik.kinematics.robot import Robot
from bioik.model.robot_model import RobotModel

_VERSION = 1


@dataclass(frozen=True, eq=False)
class SpherePairs:
    """index (P, 2) int64: sphere index pairs (i < j) of a `SphereModel` on checked link
    pairs; slack (P,): the overlap (m) each pair may have before it costs anything."""

    index: np.ndarray
    slack: np.ndarray

    def __len__(self) -> int:
        return len(self.slack)


_memory: dict[tuple, SpherePairs] = {}
_lock = threading.Lock()


def sphere_pairs(robot: Robot | RobotModel, spheres: SphereModel, acm: AllowedCollisions, *,
                 samples: int = DEFAULT_SAMPLES, seed: int = 0) -> SpherePairs:
    """The self-collision sphere pairs of `spheres` that `acm` checks, with their slack
    (see the module docstring), from `samples` random configurations drawn with `seed`."""
    if int(samples) != samples or samples < 1:
        raise ValueError(f"samples must be an integer ≥ 1; got {samples!r}")
    model = robot.model if isinstance(robot, Robot) else robot
    index = acm.self_pairs(spheres)
    h = hashlib.sha256(f"{model_digest(model)}|{int(samples)}|{int(seed)}|{_VERSION}".encode())
    for a in (spheres.link_of, spheres.centres, spheres.radii, index):
        h.update(np.ascontiguousarray(a).tobytes())
    h.update(repr((spheres.links, acm.checked)).encode())
    key = h.hexdigest()[:24]
    with _lock:
        hit = _memory.get(key)
    if hit is not None:
        return hit
    stored = _cache.load("sphere-pairs", key)
    slack = np.asarray(stored, dtype=float) if stored is not None and len(stored) == len(index) else None
    if slack is None:
        slack = _slack(model, spheres, index, int(samples), int(seed))
        _cache.store("sphere-pairs", key, slack.tolist())
    out = SpherePairs(index, slack)
    for a in (out.index, out.slack):
        a.setflags(write=False)
    with _lock:
        _memory[key] = out
    return out


def _slack(model: RobotModel, spheres: SphereModel, index: np.ndarray, samples: int, seed: int) -> np.ndarray:
    """Per pair, the deepest sphere overlap over the sampled configurations in which the
    two links' geometry does not collide (0 if it never overlaps there)."""
    slack = np.zeros(len(index))
    if not len(index):
        return slack
    from bioik.collision import _coal

    coal = _coal.coal
    movable = [j.name for j in model.joints if j.motions and j.mimic is None]
    if not movable:
        return slack
    links = collision_links(model)
    full = Robot(model, {"joints": movable})
    poses = full.fk(full.random_configuration(np.random.default_rng(seed), samples), spheres.links)
    per_sphere = poses[:, spheres.link_of]
    world = np.einsum("nsij,sj->nsi", per_sphere[:, :, :3, :3], spheres.centres) + per_sphere[:, :, :3, 3]
    i, j = index[:, 0], index[:, 1]
    overlap = spheres.radii[i] + spheres.radii[j] - np.linalg.norm(world[:, i] - world[:, j], axis=2)  # (N, P)
    geoms = {name: [(_coal.piece_geometry(p), p.origin) for p in link_pieces(model.link(name))] for name in links}
    request, result = coal.CollisionRequest(), coal.CollisionResult()
    la, lb = spheres.link_of[i], spheres.link_of[j]
    for a, b in sorted(set(zip(la.tolist(), lb.tolist()))):
        cols = np.flatnonzero((la == a) & (lb == b))
        for k in np.flatnonzero(overlap[:, cols].max(axis=1) > 0.0):
            if not np.any(overlap[k, cols] > slack[cols]):
                continue  # nothing deeper than what is already allowed
            Ta, Tb = poses[k, a], poses[k, b]
            apart = True
            for (ga, oa), (gb, ob) in itertools.product(geoms[spheres.links[a]], geoms[spheres.links[b]]):
                result.clear()
                if coal.collide(ga, _coal.transform(Ta @ oa), gb, _coal.transform(Tb @ ob), request, result):
                    apart = False
                    break
            if apart:
                slack[cols] = np.maximum(slack[cols], overlap[k, cols])
    return slack
