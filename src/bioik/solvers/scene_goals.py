"""The `scene=` argument of a solve: the collision goal it adds to the goals (unless one for
that scene is there) and the exact checks (`bioik.collision.guard`) it puts in front of the
solution callback, so that an answer the sphere costs pass but the exact geometry does not
is rejected and the search goes on (rejection sampling [E 8.1])."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from bioik.collision.guard import ExactChecks, ProofFirst
from bioik.goals.base import Goal
from bioik.goals.collision import CollisionAvoidanceGoal
from bioik.problem import Problem
from bioik.scene import Scene
from bioik.solvers.registry import Family
from bioik.solvers.result import check_goals


class CollisionFree:
    """The solution callback of a solve with collision goals: `checks` (each goal's exact
    check) in turn, then the user's callback `user` (None: none)."""

    __slots__ = ("checks", "user")

    def __init__(self, checks: list[Callable[[np.ndarray], bool]], user: Callable[[np.ndarray], Any] | None):
        self.checks, self.user = checks, user

    def __call__(self, q: np.ndarray) -> Any:
        for check in self.checks:
            if not check(q):
                return False
        return True if self.user is None else self.user(q)


def compiled_check(problem: Problem, callback: Any) -> ProofFirst | None:
    """The exact check a compiled caller runs itself (the cover's proof, compiled) and asks
    coal about only where the proof leaves it open (`bioik.solvers.core.free_tries`,
    `bioik.solvers.core.scene_search`): there is one exact-checked collision goal, its
    cover proves, and no goal calls Python. None: the checks run from Python."""
    if type(callback) is not CollisionFree or len(callback.checks) != 1:
        return None
    check = callback.checks[0]
    if type(check) is not ProofFirst or problem.python_goals or problem.function_goals:
        return None
    return check


class SceneGoals:
    """`Solver`'s handling of scenes and collision goals (a mixin: `Solver` holds the
    attributes named here)."""

    family: Family
    _exact: ExactChecks
    _scene_goals: dict[int, CollisionAvoidanceGoal]

    def _collision_free(self, goals: Sequence[Goal], scene: Scene | None, callback):
        """The goals with a collision goal for `scene` (unless one is there), and the
        callback with the exact check of every primary collision goal in front of it: an
        answer the spheres pass but the exact geometry does not is rejected, and the search
        goes on (rejection sampling [E 8.1])."""
        check_goals(goals)
        goals = list(goals)
        checks = [self._checker(g) for g in goals if type(g) is CollisionAvoidanceGoal and not g.is_secondary]
        if scene is not None:
            if not isinstance(scene, Scene):
                raise TypeError(f"scene must be a bioik.Scene; got {type(scene).__name__}")
            if not any(isinstance(g, CollisionAvoidanceGoal) and g.scene is scene for g in goals):
                goal = self._scene_goals.get(id(scene))
                if goal is None or goal.scene is not scene:
                    goal = self._scene_goals[id(scene)] = CollisionAvoidanceGoal(scene)
                kinds = self.family.kinds
                if kinds is None or goal.kind in kinds:
                    goals.append(goal)
                # a solver without the goal (kdl, trac …) cannot steer clear: it only has the exact
                # check, i.e. rejection sampling as MoveIt does it [E 8.1]
                checks.append(self._checker(goal))

        return goals, CollisionFree(checks, callback)

    @staticmethod
    def _polish_goals(goals: Sequence[Goal]) -> tuple[list[Goal], list[tuple[int, float]]] | None:
        """The goals without the exact-checked (primary) collision goals, which a search near
        an obstacle polishes its answer on (`bioik.solvers.search`), and each left-out goal's
        index and ε (its residual times ε is the covers' penetration depth); None if no goal
        is left out or none is left."""
        checked = [(k, g.epsilon) for k, g in enumerate(goals) if type(g) is CollisionAvoidanceGoal and not g.is_secondary]
        left_out = {k for k, _ in checked}
        rest = [g for k, g in enumerate(goals) if k not in left_out]
        return (rest, checked) if rest and checked else None

    def _checker(self, goal: CollisionAvoidanceGoal) -> Callable[[np.ndarray], bool]:
        """The exact check for a collision goal's settings: a fine sphere cover's proof first,
        coal where the cover cannot decide (`bioik.collision.cover_proof`); a scene that a fixed link is in is refused with
        a `SceneError` (`bioik.collision.guard`)."""
        return self._exact.checker(goal.scene, goal.margin, goal.allowed, goal.self_collision, prove=True)
