"""The exact checks a collision-aware solve puts in front of its solution callback.

`ExactChecks(robot)` keeps one `CollisionChecker` per setting of a collision goal (scene,
margin, allowed contacts, self-collision on or off), built on first use, and refuses a
scene that a link no active variable moves is truly in, and frozen values that put two such
links into each other: every configuration would collide, and such links cost nothing in
the compiled collision cost, so the search alone would never say why it fails. It also
warns (`SelfCollisionWarning`, once per checker) when none of SELF_SAMPLES random
configurations of the group is free of self-collision, naming the pair met most often: a
link the group moves held inside a frozen one (tiago's arm at its torso's lowest lift) makes
every solve fail for a reason the failures do not show. coal is imported only when the
first checker is built.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from bioik.collision.cover_proof import SCENE, SELF, CoverProof, proof_cover
from bioik.errors import SceneError, SelfCollisionError
from bioik.kinematics.robot import Robot

#: Random configurations of the group tried for self-collision when a checker is built.
SELF_SAMPLES = 64


class SelfCollisionWarning(UserWarning):
    """No random configuration of the active group is free of self-collision."""


class ExactChecks:
    """Exact checkers (coal) of one robot by collision-goal setting; safe to share between
    threads (a checker keeps per-thread coal state itself)."""

    def __init__(self, robot: Robot):
        self.robot = robot
        self._lock = threading.Lock()
        self._checkers: dict[tuple, tuple[Any, Callable[[np.ndarray], bool]]] = {}
        #: Per checker, the scene layout and poses whose fixed links were last found clear.
        self._fixed_checked: dict[int, tuple | None] = {}
        #: Per setting and scene layout: (scene, the proof-first check, the proof or None).
        self._proofs: dict[tuple, tuple[Any, Callable[[np.ndarray], bool], CoverProof | None]] = {}

    def checker(self, scene: Any, margin: float, allowed: Any, self_collision: bool,
                prove: bool = False) -> Callable[[np.ndarray], bool]:
        """The exact checker for a collision goal's scene, margin, allowed pairs and
        self-collision setting; built once per setting. A scene that a fixed link is in is
        refused here with a `SceneError` (`check_fixed_links`), and a group that collides
        with itself wherever it goes is warned about (`SelfCollisionWarning`). With `prove`,
        a `CoverProof` on the robot's fine cover (`proof_cover`) decides first and coal runs
        only on the part (scene, own links) it leaves unproven."""
        checker = self._exact(scene, margin, allowed, self_collision)
        if not prove:
            return checker
        return self._proof(scene, margin, allowed, self_collision, checker)[1]

    def proof(self, scene: Any, margin: float, allowed: Any, self_collision: bool) -> CoverProof | None:
        """The `CoverProof` of a collision goal's settings (None: the cover lacks a link the
        exact check tests), its fixed links checked as `checker` checks them."""
        return self._proof(scene, margin, allowed, self_collision, self._exact(scene, margin, allowed, self_collision))[2]

    def _proof(self, scene, margin, allowed, self_collision, checker) -> tuple[Any, Callable[[np.ndarray], bool], CoverProof | None]:
        """(scene, the proof-first check, the proof) of these settings and the scene's layout."""
        key = (id(scene), margin, allowed, self_collision, getattr(scene, "layout_version", None))
        hit = self._proofs.get(key)
        if hit is None or hit[0] is not scene:
            cover = proof_cover(self.robot)
            check, proof = checker, None
            if set(checker.links) <= set(cover.links):  # the cover proves nothing of a link it lacks
                proof = CoverProof(self.robot, cover, scene, margin, allowed, checker.acm)
                check = proof_first(proof, checker)
            hit = (scene, check, proof)
            with self._lock:
                if len(self._proofs) >= 32:
                    self._proofs.pop(next(iter(self._proofs)))
                self._proofs[key] = hit
        return hit

    def _exact(self, scene: Any, margin: float, allowed: Any, self_collision: bool) -> Any:
        """The `CollisionChecker` of these settings (built on first use), its fixed links checked."""
        key = (id(scene), margin, allowed, self_collision)
        hit = self._checkers.get(key)
        built = hit is None or hit[0] is not scene
        if not built:
            checker = hit[1]
        else:
            from bioik.collision.acm import allowed_collisions
            from bioik.collision.checker import CollisionChecker  # coal: pip install bioik[collision]

            acm = allowed_collisions(self.robot)
            if not self_collision:
                links = acm.links
                acm = acm.with_allowed([(a, b) for i, a in enumerate(links) for b in links[i + 1 :]])
            checker = CollisionChecker(self.robot, scene, margin=margin, acm=acm, allowed=allowed)
            with self._lock:
                self._checkers[key] = (scene, checker)
        self.check_fixed_links(scene, margin, checker)  # first: frozen links in each other are an error
        if built and self_collision:
            self._warn_if_always_self_colliding(checker)
        return checker

    def _warn_if_always_self_colliding(self, checker: Any) -> None:
        """Warn when none of SELF_SAMPLES random configurations (a fixed seed) is free of
        self-collision, naming the pair met most often."""
        Q = self.robot.random_configuration(np.random.default_rng(0), SELF_SAMPLES)
        if any(checker.is_free_of_itself(q) for q in Q):
            return
        met: dict[tuple[str, str], int] = {}
        for q in Q:
            for c in checker.contacts(q, n=len(checker.links) ** 2):  # every pair in contact
                if c.kind == "self":
                    met[(c.a, c.b)] = met.get((c.a, c.b), 0) + 1
        (a, b), n = max(met.items(), key=lambda item: item[1])
        warnings.warn(f"robot {self.robot.name!r}: none of {SELF_SAMPLES} random configurations of its active group is free"
                      f" of self-collision; links {a!r} and {b!r} collide in {n} of them. If a frozen joint holds one inside"
                      f" the other, freeze it elsewhere (robot.with_frozen({{...}})); if they touch by construction, list the"
                      f" pair in the SRDF: <disable_collisions link1={a!r} link2={b!r}/>", SelfCollisionWarning, stacklevel=4)

    def check_fixed_links(self, scene: Any, margin: float, checker: Any) -> None:
        """Refuse, once per obstacle layout and poses, a scene that a link no active variable
        moves is truly in, or two such links in each other (by the exact check): every
        configuration would collide. Such links cost nothing in the collision goal
        (`CollisionAvoidanceGoal`), so a cover sphere fatter than the base never blocks a
        search."""
        versions = None if scene is None else (scene.layout_version, scene.pose_version)
        if self._fixed_checked.get(id(checker), ()) == versions:  # (): never checked
            return
        hits = checker.fixed_contacts()
        if hits:
            c = hits[0]
            where = f"is {-c.distance * 1000:.1f} mm into" if c.distance < -5e-5 else "touches"
            if c.kind == "self":
                raise SelfCollisionError(
                    f"link {c.a!r} of robot {self.robot.name!r} {where} link {c.b!r} (signed distance {c.distance:.4f} m,"
                    f" margin {margin} m) where the joints outside the active group are frozen, and no active joint moves"
                    f" either: every configuration collides. Freeze them elsewhere (robot.with_frozen({{...}})), or, if the"
                    f" two touch by construction, list the pair in the SRDF: <disable_collisions link1={c.a!r} link2={c.b!r}/>")
            raise SceneError(
                f"link {c.a!r} of robot {self.robot.name!r} {where} obstacle {c.b!r} (signed distance {c.distance:.4f} m,"
                f" margin {margin} m), and no active joint moves it: every configuration collides. If it stands on"
                f" or touches it, allow the contact: scene.allow_contact({c.b!r}, {c.a!r})")
        self._fixed_checked[id(checker)] = versions


class ProofFirst:
    """`q -> bool`: the cover's proof, and the exact check of the part it leaves unproven.

    `proof` and `rest` serve a caller that runs the proof itself (compiled, in
    `bioik.solvers.core.free_tries`) and asks only about what it left unproven."""

    __slots__ = ("proof", "_unproven", "_scene_free", "_self_free", "_free")

    def __init__(self, proof: CoverProof, checker: Any):
        self.proof = proof
        self._unproven = proof.unproven
        self._scene_free, self._self_free, self._free = checker.is_free_of_scene, checker.is_free_of_itself, checker.is_free

    def __call__(self, q: np.ndarray) -> bool:
        bits = self._unproven(q)
        return True if bits == 0 else self.rest(q, bits)

    def rest(self, q: np.ndarray, bits: int) -> bool:
        """The exact check of what the proof left unproven at q (its SCENE | SELF bits, not 0)."""
        if bits == SCENE:
            return self._scene_free(q)
        if bits == SELF:
            return self._self_free(q)
        return self._free(q)


def proof_first(proof: CoverProof, checker: Any) -> ProofFirst:
    """The proof-first exact check of `proof` and coal's `checker` (`ProofFirst`)."""
    return ProofFirst(proof, checker)
