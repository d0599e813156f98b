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

A pair with one link the robot's group cannot move (the base, or a link behind frozen
joints: talos's right gripper while its right leg solves) meets its partner only in the
poses the group reaches, with the frozen joints where they are: a hanging arm beside the
thigh is a pose random whole-robot samples almost never show. Its slack is sampled in
the group's own configurations (frozen values held), so it describes the problem solved.

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
    (see the module docstring), from `samples` random configurations drawn with `seed`:
    of the whole robot, or of `robot`'s group for a pair with one link it cannot move."""
    if int(samples) != samples or samples < 1:
        raise ValueError(f"samples must be an integer ≥ 1; got {samples!r}")
    model = robot.model if isinstance(robot, Robot) else robot
    index = acm.self_pairs(spheres)
    anchored = _anchored(robot, spheres, index)
    h = hashlib.sha256(f"{model_digest(model)}|{int(samples)}|{int(seed)}|{_VERSION}".encode())
    for a in (spheres.link_of, spheres.centres, spheres.radii, index):
        h.update(np.ascontiguousarray(a).tobytes())
    h.update(repr((spheres.links, acm.checked)).encode())
    if anchored.any():  # their slack depends on the group and where the rest is frozen
        h.update(repr(robot.group.variables).encode())
        h.update(np.ascontiguousarray(robot.frozen).tobytes())
    key = h.hexdigest()[:24]
    with _lock:
        hit = _memory.get(key)
    if hit is not None:
        return hit
    stored = _cache.load("sphere-pairs", key)
    slack = np.asarray(stored, dtype=float) if stored is not None and len(stored) == len(index) else None
    if slack is None:
        slack = np.zeros(len(index))
        rng = np.random.default_rng(int(seed))
        movable = [j.name for j in model.joints if j.motions and j.mimic is None]
        if movable and not anchored.all():
            full = Robot(model, {"joints": movable})
            free = ~anchored
            slack[free] = _slack(model, spheres, index[free], full, full.random_configuration(rng, int(samples)))
        if anchored.any():
            slack[anchored] = _slack(model, spheres, index[anchored], robot, robot.random_configuration(rng, int(samples)))
        _cache.store("sphere-pairs", key, slack.tolist())
    out = SpherePairs(index, slack)
    for a in (out.index, out.slack):
        a.setflags(write=False)
    with _lock:
        _memory[key] = out
    return out


def _anchored(robot: Robot | RobotModel, spheres: SphereModel, index: np.ndarray) -> np.ndarray:
    """Per pair, does exactly one of its two links stay still while `robot`'s group moves?"""
    if not isinstance(robot, Robot) or not len(index):
        return np.zeros(len(index), dtype=bool)
    still = np.array([name not in robot.moving_links for name in spheres.links], dtype=bool)
    a, b = still[spheres.link_of[index[:, 0]]], still[spheres.link_of[index[:, 1]]]
    return a != b


def _slack(model: RobotModel, spheres: SphereModel, index: np.ndarray, robot: Robot, Q: np.ndarray) -> np.ndarray:
    """Per pair, the deepest sphere overlap over `robot`'s configurations `Q` in which the
    two links' geometry does not collide (0 if it never overlaps there)."""
    slack = np.zeros(len(index))
    if not len(index):
        return slack
    from bioik.collision import _coal

    coal = _coal.coal
    links = collision_links(model)
    poses = robot.fk(Q, spheres.links)
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
