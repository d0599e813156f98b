"""Kinematic decoupling [E 8.10]: solve a tool that enters a narrow opening in two steps.

The robot is split at `split_link` into a distal part (the tool, from the split link to
the tip) and a proximal part (the arm that holds it). Each attempt solves the distal part
alone, seen from the target (its chain inverted by `bioik.model.invert.invert_chain`):
through the opening as a remote centre of motion, clear of the obstacles, its split link
drawn along the tool's way out; then the proximal part for the pose the split link must
take; then accepts the merged configuration only if the tip reaches the target and coal's
exact check finds the whole robot collision-free. `opening=OPEN` decouples a target with
no opening to pass (deep in a shelf) the same way without the centre of motion.

The design and its measurements are in docs/collision.md, "How decoupling works".
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from bioik.collision.checker import CollisionChecker
from bioik.collision.spheres import SphereModel, sphere_model
from bioik.goals import CollisionAvoidanceGoal, PoseGoal, PositionGoal, RCMGoal
from bioik.kinematics.robot import Robot
from bioik.model.invert import invert_chain, rigid_inverse
from bioik.scene import Scene
from bioik.solvers.api import Result, check_timeout, solve

#: Iteration budgets of one attempt's distal and proximal solves.
DISTAL_ITERATIONS = 200
PROXIMAL_ITERATIONS = 200
#: Proximal solves per distal answer (the arm's other solution branches).
PROXIMAL_TRIES = 8
#: Arm answers (the proximal joints, rad or m) this close to one that already failed the
#: tip or exact test for the same tool pose are the same answer found again (the arm's
#: few solution branches, reached from several random starts): not tested again.
SAME_ARM = 1e-6
#: The opening of a target in the open (`Decoupler.solve(T, opening=OPEN)`): none to pass.
OPEN = "open"
#: The arm's joints: six can put the link that holds a tool in any pose of their workspace.
ARM_JOINTS = 6
#: The fewest joints of a tool that passes an opening: a remote centre of motion is two
#: conditions (a seven-joint arm's last joint is a wrist, not a tool).
TOOL_JOINTS = 2
#: The tool's own sphere cover (tolerance m, most spheres per link; `sphere_model`'s
#: per-link settings): a tool that must pass an opening a few centimetres wide needs
#: spheres a few millimetres past its surface, where the default cover reaches 1.5 cm
#: (elise_ur10's 8 mm endoscope: 3 mm and 40, as `bioik.scenes.ENDOSCOPE_COVER`).
TOOL_TOLERANCE, TOOL_MAX_SPHERES = 0.003, 40


def tool_split(robot: Robot, tip: str) -> str | None:
    """Where to split `robot` for decoupling towards `tip` when nobody names a link: the link
    that carries the joints past the first ARM_JOINTS of the chain from the root to `tip`,
    i.e. the tool that a six-joint arm holds (elise_ur10: endoscope_mount, before the
    endoscope's three joints).

    Returns:
        The split link, or None where there is no tool to split off: fewer than TOOL_JOINTS
        active variables past the first ARM_JOINTS (a seven-joint arm); no fixed joint
        (a mount, a flange) between the sixth and the seventh, so the joints go on as one
        arm (a mobile base's arm, a humanoid's torso and arm, a hand on an arm); or a
        joint past them not active (frozen), which the decoupler cannot solve.
    """
    model = robot.model
    active = set(robot.group.variables)
    seen: list[int] = []
    split = None
    for j in model.chain(model.links[model.root].name, tip):
        variables = [m.variable for m in model.joints[j].motions]
        if not all(v in active for v in variables):
            if split is not None:
                return None  # a frozen joint in the tool
            continue
        new = [v for v in variables if v not in seen]
        if new and len(seen) == ARM_JOINTS and split is None:
            mount = model.joints[j].parent
            if model.joints[model.parent_joint[mount]].motions:
                return None  # the seventh joint follows the sixth directly: more arm, not a mounted tool
            split = model.links[mount].name
        seen.extend(new)
    return split if len(seen) >= ARM_JOINTS + TOOL_JOINTS else None


def tool_cover(robot: Robot, split_link: str, tip: str) -> SphereModel:
    """The robot's sphere cover with the tool's links (those between `split_link` and `tip`
    that have collision geometry) covered tightly (TOOL_TOLERANCE, TOOL_MAX_SPHERES), the
    others by the default (`sphere_model`)."""
    model = robot.model
    tool = {model.links[model.joints[j].child].name for j in model.chain(split_link, tip)}
    return sphere_model(robot, links={name: (TOOL_TOLERANCE, TOOL_MAX_SPHERES) for name in sorted(tool)
                                      if model.link(name).collision})


def _opening(opening: tuple[Any, ...] | str) -> tuple[np.ndarray, np.ndarray, float] | str:
    """(point, unit axis, RCM tolerance) of an opening (point, axis[, diameter]), or OPEN."""
    if isinstance(opening, str):
        if opening != OPEN:
            raise ValueError(f"Decoupler: opening must be (point, axis[, diameter]) or {OPEN!r}; got {opening!r}")
        return OPEN
    parts = tuple(opening)
    if len(parts) not in (2, 3):
        raise ValueError(f"Decoupler: opening must be (point, axis) or (point, axis, diameter); got {opening!r}")
    point, axis = (np.asarray(v, dtype=float).reshape(-1) for v in parts[:2])
    if point.shape != (3,) or axis.shape != (3,) or not (np.isfinite(point).all() and np.isfinite(axis).all()):
        raise ValueError(f"Decoupler: the opening's point and axis must be two finite 3-vectors; got {opening!r}")
    if np.linalg.norm(axis) < 1e-12:
        raise ValueError("Decoupler: the opening's axis must not be zero")
    diameter = float(parts[2]) if len(parts) == 3 else 0.0
    if not (math.isfinite(diameter) and diameter >= 0.0):
        raise ValueError(f"Decoupler: the opening's diameter must be a finite number ≥ 0; got {parts[2]!r}")
    return point, axis / np.linalg.norm(axis), max(diameter / 2.0, 1e-5)


def _restrict(spheres: SphereModel, links: Sequence[str]) -> SphereModel:
    """The spheres of `links` only (a cover of the whole robot, for the distal part)."""
    keep = [k for k, name in enumerate(spheres.links) if name in links]
    rows = np.isin(spheres.link_of, keep)
    renumber = {old: new for new, old in enumerate(keep)}
    link_of = np.array([renumber[int(i)] for i in spheres.link_of[rows]], dtype=np.int64)
    return SphereModel(tuple(spheres.links[k] for k in keep), link_of, spheres.centres[rows].copy(), spheres.radii[rows].copy())


class Decoupler:
    """Decoupled solving of a robot split at `split_link`, for targets of `tip` among
    obstacles, through an opening.

    Prepared once (the inverted distal model, its scene, the exact checker); then `solve(T)`
    per target. Safe to share between threads: each thread poses its own copy of the
    distal scene.

    Args:
        robot: the robot.
        tip: the tool's tip link, whose pose is the target.
        split_link: the first link of the tool (the distal part).
        scene: the obstacles.
        opening: (point, axis into the object[, diameter]) in the base frame (a
            `bioik.scenes.Opening` will do); OPEN ("open"): targets in the open, no
            opening to pass (see `solve`); None: each `solve` is given its own.
        spheres: the robot's sphere cover for the collision goals (default: `sphere_model`).
        solver: the solver of both parts.

    Attributes:
        reach: the distal part's length (m), along its links: how far from the target the
            opening may lie (`bioik.PassageFinder(scene, reach=decoupler.reach)`).
    """

    def __init__(self, robot: Robot, tip: str, split_link: str, scene: Scene, opening: tuple[Any, ...] | str | None, *,
                 spheres: SphereModel | None = None, solver: str = "lm"):
        if not isinstance(scene, Scene):
            raise TypeError(f"Decoupler: scene must be a bioik.Scene; got {type(scene).__name__}")
        self.robot, self.tip, self.split_link, self.scene, self.solver = robot, tip, split_link, scene, solver
        self.opening = None if opening is None else _opening(opening)
        self.distal = Robot(invert_chain(robot.model, split_link, tip))
        missing = [n for n in self.distal.variable_names if n not in robot.variable_names]
        if missing:
            raise ValueError(f"Decoupler: the distal joints {missing} are not in the robot's active group")
        self._distal_vars = np.array([robot.variable_names.index(n) for n in self.distal.variable_names])
        self._arm_vars = np.setdiff1d(np.arange(robot.dof), self._distal_vars)
        links = [name for name in self.distal.link_names if not name.endswith("__inverted")]
        self._rcm_links = links[::-1]  # from the split link to the tip … any order of consecutive links
        q0 = robot.center()
        T_split, T_tip = robot.link_pose(q0, split_link), robot.link_pose(q0, tip)
        chain = [robot.link_pose(q0, name)[:3, 3] for name in links]
        self.reach = float(sum(np.linalg.norm(b - a) for a, b in zip(chain, chain[1:]))) or float(
            np.linalg.norm(T_tip[:3, 3] - T_split[:3, 3]))
        cover = sphere_model(robot) if spheres is None else spheres
        self._links, self._spheres = links, _restrict(cover, [name for name in links if name != split_link])
        self._local = threading.local()  # each thread's distal scene, re-posed per target
        self.checker = CollisionChecker(robot, scene)

    def _distal_collision(self, T_inv: np.ndarray) -> CollisionAvoidanceGoal:
        """This thread's collision goal of the distal part, its scene posed in the target's
        frame T_inv (a copy of the scene with the contacts it allows the distal links)."""
        local = self._local.__dict__
        if not local:
            own = Scene()
            for o in self.scene:
                own.add(o.name, o.shape, o.pose)
            for link, obstacle in self.scene.allowed_contacts:
                if link in self._links:
                    own.allow_contact(obstacle, link)
            local["scene"] = own
            local["goal"] = CollisionAvoidanceGoal(own, spheres=self._spheres, self_collision=False)
        for o in self.scene:
            local["scene"].move(o.name, T_inv @ o.pose)
        return local["goal"]

    def solve(self, T: np.ndarray, *, timeout: float = 0.1, random_seed: int | None = None, max_attempts: int | None = None,
              position_tolerance: float = 1e-5, rotation_tolerance: float = 1e-5,
              callback: Callable[[np.ndarray], bool] | None = None, opening: tuple[Any, ...] | str | None = None) -> Result:
        """Decoupled solve for the tip pose T; see the module for the steps.

        Args:
            T: the tip's target pose (4×4, base frame).
            timeout: seconds for the whole solve.
            random_seed: RNG seed for a reproducible run.
            max_attempts: the most attempts (None: until the timeout).
            position_tolerance: the tip's position error (m) that counts as met.
            rotation_tolerance: the tip's rotation angle (rad) that counts as met.
            callback: `callback(q) -> bool`, asked last about every merged configuration.
            opening: this target's opening, (point, axis into the object[, diameter]) in
                the base frame, instead of the decoupler's (one a `PassageFinder` found);
                OPEN for a target with none to pass (deep in a shelf compartment, say):
                the distal part then only keeps clear of the obstacles, its split link
                drawn towards the point one distal length straight back along the tool
                axis, and each attempt starts it from a random configuration.

        Returns:
            A `Result` like `bioik.solve`'s: goal_errors (1, 2) = the tip's (position, angle)
            error; callback_calls counts the merged configurations offered to the acceptance
            test (tip pose, exact collision check, then the callback), restarts the attempts
            after the first.
        """
        t0 = time.monotonic()
        timeout = check_timeout(timeout)
        T = np.asarray(T, dtype=float)
        if T.shape != (4, 4) or not np.isfinite(T).all():
            raise ValueError(f"decoupled solve: the target must be a finite 4×4 pose; got shape {T.shape}")
        deadline = t0 + timeout
        rng = np.random.default_rng(random_seed)
        T_inv = rigid_inverse(T)
        collision = self._distal_collision(T_inv)
        given = self.opening if opening is None else _opening(opening)
        if given is None:
            raise ValueError(f"decoupled solve: no opening: give one to the Decoupler or to solve(opening=...), or {OPEN!r}")
        if given is OPEN:  # the tool's straight extension back from the tip, in the target's frame
            distal_goals = [collision, PositionGoal(self.split_link, (0.0, 0.0, -self.reach), secondary=True)]
        else:
            point, axis, rcm_tolerance = given
            trocar = T_inv[:3, :3] @ point + T_inv[:3, 3]
            out = T_inv[:3, :3] @ (point - self.reach * axis) + T_inv[:3, 3]
            distal_goals = [RCMGoal(self._rcm_links, trocar, tolerance=rcm_tolerance), collision,
                            PositionGoal(self.split_link, out, secondary=True)]
        best_q, best_err, checked, attempts, iterations = None, (math.inf, math.inf), 0, 0, 0
        while time.monotonic() < deadline and (max_attempts is None or attempts < max_attempts):
            attempts += 1
            left = deadline - time.monotonic()
            if left <= 0:
                break
            seed = int(rng.integers(2**31))
            start = None
            if given is not OPEN:  # first through the hole with no obstacles (cheap), then clear of them from there
                g = solve(self.distal, distal_goals[::2], solver=self.solver, timeout=left, max_iterations=DISTAL_ITERATIONS,
                          random_seed=seed)
                start, iterations = g.q, iterations + g.iterations
                if time.monotonic() >= deadline:  # no time left for the search among the obstacles
                    break
            d = solve(self.distal, distal_goals, solver=self.solver, seed=start, timeout=max(deadline - time.monotonic(), 1e-6),
                      max_iterations=DISTAL_ITERATIONS, random_seed=seed)
            iterations += d.iterations
            if not d.success:
                continue
            split_pose = T @ self.distal.link_pose(d.q, self.split_link)
            failed = []  # the arms that failed the tip or exact test for this tool pose: one found again fails again
            for _ in range(PROXIMAL_TRIES):
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                p = solve(self.robot, [PoseGoal(self.split_link, split_pose)], solver=self.solver, timeout=left,
                          max_iterations=PROXIMAL_ITERATIONS, random_seed=int(rng.integers(2**31)))
                iterations += p.iterations
                arm = p.q[self._arm_vars]
                if not p.success or any(np.max(np.abs(arm - f)) <= SAME_ARM for f in failed):
                    continue
                q = p.q.copy()
                q[self._distal_vars] = d.q
                err = self.tip_error(q, T)
                checked += 1
                ok = err[0] <= position_tolerance and err[1] <= rotation_tolerance and self.robot.within_limits(q)
                if ok and self.checker.is_free(q):
                    if callback is None or bool(callback(q.copy())):
                        return self._result(q, True, err, t0, checked, attempts, iterations)
                else:
                    failed.append(arm)
                if best_q is None or sum(err) < sum(best_err):
                    best_q, best_err = q, err
        if best_q is None:
            best_q = self.robot.center()
            best_err = self.tip_error(best_q, T)
        return self._result(best_q, False, best_err, t0, checked, attempts, iterations)

    def tip_error(self, q: np.ndarray, T: np.ndarray) -> tuple[float, float]:
        """How far the tip is from a target pose.

        Args:
            q: a configuration of the whole robot.
            T: the tip's target pose (4×4, base frame).

        Returns:
            (position error m, rotation angle rad) of the tip at q.
        """
        A = self.robot.link_pose(q, self.tip)
        R = A[:3, :3].T @ T[:3, :3]
        angle = math.acos(min(1.0, max(-1.0, (float(np.trace(R)) - 1.0) / 2.0)))
        return float(np.linalg.norm(A[:3, 3] - T[:3, 3])), angle

    def _result(self, q, success, err, t0, checked, attempts, iterations) -> Result:
        errors = np.array([err], dtype=float)
        return Result(q, success, 0.0 if success else float(err[0] ** 2 + err[1] ** 2), errors, time.monotonic() - t0,
                      callback_calls=checked, restarts=max(attempts - 1, 0), iterations=iterations, solver=f"decoupled:{self.solver}")


def decoupled_solve(robot: Robot, goals: Sequence[Any], *, split_link: str, opening: tuple[Any, ...] | str, scene: Scene,
                    timeout: float = 0.1, random_seed: int | None = None, spheres: SphereModel | None = None,
                    solver: str = "lm", **kwargs: Any) -> Result:
    """Solve one tool-tip pose by kinematic decoupling (see the module).

    One call prepares a `Decoupler`; hold one for many targets.

    Args:
        robot: the robot.
        goals: one `PoseGoal` of the tool tip.
        split_link: the first link of the tool.
        opening: (point, axis into the object[, diameter]) in the base frame, or OPEN.
        scene: the obstacles.
        timeout: seconds for the whole solve.
        random_seed: RNG seed for a reproducible run.
        spheres: the robot's sphere cover (default: `sphere_model`).
        solver: the solver of both parts.
        **kwargs: passed to `Decoupler.solve`.

    Returns:
        The `Result` of `Decoupler.solve`.
    """
    poses = [g for g in goals if isinstance(g, PoseGoal)]
    if len(poses) != 1 or len(goals) != 1:
        raise ValueError(f"decoupled_solve takes one PoseGoal (the tool tip's target); got {[type(g).__name__ for g in goals]}")
    g = poses[0]
    return Decoupler(robot, g.link, split_link, scene, opening, spheres=spheres, solver=solver).solve(
        g.pose, timeout=timeout, random_seed=random_seed, **kwargs)


__all__ = ["OPEN", "Decoupler", "decoupled_solve", "tool_cover", "tool_split"]
