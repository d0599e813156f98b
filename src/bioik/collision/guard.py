"""The exact checks a collision-aware solve puts in front of its solution callback.

`ExactChecks(robot)` keeps one `CollisionChecker` per setting of a collision goal (scene,
margin, allowed contacts, self-collision on or off), built on first use, and refuses a
scene that a link no active variable moves is truly in, and frozen values that put two such
links into each other: every configuration would collide, and such links cost nothing in
the compiled collision cost, so the search alone would never say why it fails. coal is
imported only when the first checker is built.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from bioik.errors import SceneError, SelfCollisionError
from bioik.kinematics.robot import Robot


class ExactChecks:
    """Exact checkers (coal) of one robot by collision-goal setting; safe to share between
    threads (a checker keeps per-thread coal state itself)."""

    def __init__(self, robot: Robot):
        self.robot = robot
        self._lock = threading.Lock()
        self._checkers: dict[tuple, tuple[Any, Callable[[np.ndarray], bool]]] = {}
        #: Per checker, the scene layout and poses whose fixed links were last found clear.
        self._fixed_checked: dict[int, tuple] = {}

    def checker(self, scene: Any, margin: float, allowed: Any, self_collision: bool) -> Callable[[np.ndarray], bool]:
        """The exact checker for a collision goal's scene, margin, allowed pairs and
        self-collision setting; built once per setting. A scene that a fixed link is in is
        refused here with a `SceneError` (`check_fixed_links`)."""
        key = (id(scene), margin, allowed, self_collision)
        hit = self._checkers.get(key)
        if hit is not None and hit[0] is scene:
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
        self.check_fixed_links(scene, margin, checker)
        return checker

    def check_fixed_links(self, scene: Any, margin: float, checker: Any) -> None:
        """Refuse, once per obstacle layout and poses, a scene that a link no active variable
        moves is truly in, or two such links in each other (by the exact check): every
        configuration would collide. Such links
        cost nothing in the collision goal (`CollisionAvoidanceGoal`), so a cover sphere
        fatter than the base never blocks a search."""
        versions = None if scene is None else (scene.layout_version, scene.pose_version)
        if id(checker) in self._fixed_checked and self._fixed_checked[id(checker)] == versions:
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
