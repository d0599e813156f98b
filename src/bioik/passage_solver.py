"""Tool-tip poses among obstacles with nothing annotated: searches that fail on different
targets take turns.

`PassageSolver(robot, tip, split_link, scene).solve(T, timeout=…)` first asks a
`bioik.PassageFinder` for the target's passage (the opening a straight tool must pass to
reach it: a tank's hole; None for a target in the open), then runs its searches in turns,
each round's turns twice as long as the last, until one answers or the timeout ends:

- where a passage is found: kinematic decoupling through it (`bioik.Decoupler`), then
  decoupling with no opening (`bioik.decoupling.OPEN`: what the finder takes for a
  passage where a ray out of a shelf compartment grazes a board is no opening the tool
  must take), then the whole robot with the collision costs (`lm`, the pose and a
  `CollisionAvoidanceGoal`), each first for `first_slice`;
- elsewhere: the whole robot first for OPEN_WHOLE × `first_slice`, then decoupling with
  no opening for OPEN_DECOUPLED × `first_slice`.

The searches fail on different targets, so they take turns; docs/collision.md ("How
PassageSolver takes turns") says why, with the measurements. `bioik.solve(robot, [pose],
scene=scene)` with no solver named comes here when the tip is past a tool
(`PassageRoutes`): the tool found and covered by `bioik.decoupling.tool_split` and
`tool_cover`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from bioik.collision.spheres import SphereModel, sphere_model
from bioik.decoupling import OPEN, Decoupler, tool_cover, tool_split
from bioik.goals import CollisionAvoidanceGoal, PoseGoal
from bioik.kinematics.robot import Robot
from bioik.scene import Scene
from bioik.scene.passage import Passage, PassageFinder
from bioik.solvers.api import Result, check_timeout, solve
from bioik.solvers.core.params import TIMEOUT

#: The first time slice (s): `lm` answers most targets in the open within a millisecond,
#: decoupling through a tank's hole within two. Measured on EBIKE's stored targets (400 per
#: scene) within 5 and 10 ms: turns of 2 ms in this order solved HydrogenTankSmall 91 and
#: 97.5 %, the Shelf 95 and 97.8 %; turns of 4 ms with the whole robot second 92 and 94 %,
#: 93.5 and 97 %.
FIRST_SLICE = 0.002
#: In the open (no passage found) the whole robot's turn is OPEN_WHOLE × the first slice
#: and decoupling's OPEN_DECOUPLED × it: the whole robot answers most targets there within
#: 0.75 ms, and a fresh decoupling run given 4 ms answers more of the rest than turns of 2 ms
#: that each start afresh. Measured on EBIKE's stored targets (1000 per scene, one run of each
#: search per target, schedules replayed on those times) within 5 ms: Barrel 90.6 → 94.3 %,
#: the Shelf 95.5 → 95.6 %; within 10 ms both 98.6 % or more.
OPEN_WHOLE = 0.375
OPEN_DECOUPLED = 2.0
#: Passages a PassageSolver keeps for later targets (`PassageFinder.find(known=)`): those
#: decoupling went through.
KNOWN_PASSAGES = 8
#: The whole robot's iteration budget in `warm_up`: enough to load its search, bounded on
#: a pose no collision-free configuration reaches.
WARM_UP_ITERATIONS = 200


class PassageSolver:
    """Tool-tip poses among obstacles: decoupling through the passage found in the scene, the
    whole robot with collision costs, and decoupling with no opening, in turns (see the
    module).

    Prepared once (the decoupler, the finder, the collision goal); then `solve(T)` per
    target. Safe to share between threads.

    Args:
        robot: the robot.
        tip: the tool's tip link, whose pose is the target.
        split_link: the first link of the tool (where `Decoupler` splits the robot); None:
            `bioik.decoupling.tool_split(robot, tip)`, the link past the arm's first six
            joints (a ValueError unless two or more follow them).
        scene: the obstacles.
        spheres: the robot's sphere cover for every collision goal (None: the decoupled
            parts get `bioik.decoupling.tool_cover`, the tool's links covered tightly, and
            the whole robot the default `sphere_model`, which solves faster in the open).
        tool_radius: the clearance a corridor to a target needs (`PassageFinder`'s radius, m).
        first_slice: the first round's turn length (s); in the open the whole robot's turn
            is OPEN_WHOLE and decoupling's OPEN_DECOUPLED times it.
        solver: the solver of the whole robot and of both decoupled parts.
    """

    def __init__(self, robot: Robot, tip: str, split_link: str | None, scene: Scene, *, spheres: SphereModel | None = None,
                 tool_radius: float = 0.0, first_slice: float = FIRST_SLICE, solver: str = "lm"):
        self.robot, self.tip, self.scene, self.solver = robot, tip, scene, solver
        self.first_slice = TIMEOUT.check("first_slice", first_slice)
        if split_link is None:
            split_link = tool_split(robot, tip)
            if split_link is None:
                raise ValueError(f"PassageSolver: the chain to {tip!r} has fewer than two active joints past its first six: no tool to split off "
                                 "(name split_link, the first link of the tool)")
        tool = tool_cover(robot, split_link, tip) if spheres is None else spheres
        self.decoupler = Decoupler(robot, tip, split_link, scene, None, spheres=tool, solver=solver)
        self.finder = PassageFinder(scene, reach=self.decoupler.reach, radius=tool_radius)
        self.collision = CollisionAvoidanceGoal(scene, spheres=sphere_model(robot) if spheres is None else spheres)
        #: The passages decoupling went through, the latest first (`PassageFinder.find(known=)`).
        self._known: list[Passage] = []
        self._finder_ready = False  # `finder.warm_up` has run (`solve` runs it once, before its clock)
        self._lock = threading.Lock()

    def warm_up(self, T: np.ndarray) -> None:
        """Solve once with every search (compiling or loading their kernels, preparing their
        problems), so that no timed solve pays for it.

        Args:
            T: a tip pose the robot reaches (a stored target, the FK of a configuration).
        """
        T = np.asarray(T, dtype=float)
        self.finder.warm_up()
        self._finder_ready = True
        self.finder.find(*_ray(T))
        self.decoupler.solve(T, timeout=5.0, random_seed=0, max_attempts=3, opening=(T[:3, 3] - 0.1 * T[:3, 2], T[:3, 2], 0.05))
        self.decoupler.solve(T, timeout=5.0, random_seed=0, max_attempts=3, opening=OPEN)
        self._whole(T, None, 5.0, 0, None, 1e-5, 1e-5, max_iterations=WARM_UP_ITERATIONS)

    def solve(self, T: np.ndarray, *, timeout: float = 0.1, seed: Any = None, random_seed: int | None = None,
              callback: Callable[[np.ndarray], bool] | None = None, position_tolerance: float = 1e-5,
              rotation_tolerance: float = 1e-5) -> Result:
        """Joint values that put the tip at pose T, collision-free (see the module).

        Args:
            T: the tip's target pose (4×4, base frame).
            timeout: seconds for the whole solve.
            seed: the whole robot's first start (None: random); later turns start afresh.
            random_seed: RNG seed of the searches' seeds.
            callback: `callback(q) -> bool`, asked last about every answer.
            position_tolerance: the tip's position error (m) that counts as met.
            rotation_tolerance: the tip's rotation angle (rad) that counts as met.

        Returns:
            The `Result` of the turn that answered (or of the last one), its callback_calls,
            restarts and iterations summed over all turns, and `time` the whole call's
            (the passage search included).
        """
        start = time.perf_counter()
        if not self._finder_ready:  # the ray tests compiled (or loaded) before the clock starts, not in `find`
            self.finder.warm_up()
            self._finder_ready = True
        deadline = time.monotonic() + check_timeout(timeout)
        T = np.asarray(T, dtype=float)
        if T.shape != (4, 4) or not np.isfinite(T).all():
            raise ValueError(f"PassageSolver.solve: the target must be a finite 4×4 pose; got shape {T.shape}")
        if self.finder.pose_version != self.scene.pose_version:
            self._follow()
        found = self.finder.find(*_ray(T), deadline=deadline, known=self._known)
        if time.monotonic() >= deadline:  # the passage search used the whole timeout: no turn starts
            q = self.robot.center()
            err = self.decoupler.tip_error(q, T)
            return Result(q, False, err[0] ** 2 + err[1] ** 2, np.array([err]), time.perf_counter() - start, solver="passage")
        rng = np.random.default_rng(random_seed)
        tolerances = (position_tolerance, rotation_tolerance)

        def decoupled(opening: Any) -> Callable[[float], Result]:
            return lambda piece: self.decoupler.solve(T, timeout=_slice(piece, deadline), random_seed=int(rng.integers(2**31)),
                                                      callback=callback, position_tolerance=tolerances[0],
                                                      rotation_tolerance=tolerances[1], opening=opening)

        def whole(piece: float) -> Result:
            nonlocal seed
            res = self._whole(T, seed, _slice(piece, deadline), int(rng.integers(2**31)), callback, *tolerances)
            seed = None  # later turns start afresh
            return res

        first = self.first_slice
        if found is None:
            turns = ((whole, first * OPEN_WHOLE), (decoupled(OPEN), first * OPEN_DECOUPLED))
        else:
            turns = ((decoupled((found.point, found.axis, found.diameter)), first), (decoupled(OPEN), first), (whole, first))
        calls = restarts = iterations = 0
        k, scale = 0, 1.0  # scale: 2 ** round (inf, not an OverflowError, after a thousand rounds of instant failures)
        while True:
            search, piece = turns[k % len(turns)]
            res = search(piece * scale)
            if res.success and found is not None and k % len(turns) == 0:
                self._keep(found)
            if res.success or time.monotonic() >= deadline:
                break
            calls, restarts, iterations = calls + res.callback_calls, restarts + res.restarts + 1, iterations + res.iterations
            k += 1
            scale *= 2.0 if k % len(turns) == 0 else 1.0
        res.callback_calls += calls
        res.restarts += restarts
        res.iterations += iterations
        res.time = time.perf_counter() - start
        return res

    def _follow(self) -> None:
        """After `scene.move`: the finder follows the obstacles, and the passages known so far
        are dropped (an opening may have moved with them). The decoupler, the exact check and
        the collision goal read the poses themselves."""
        with self._lock:
            if self.finder.pose_version != self.scene.pose_version:
                self.finder.refresh()
                self._known = []

    def _keep(self, passage: Passage) -> None:
        """Put a passage that decoupling went through first among those the finder tries for
        the next targets: one found from a target near the opening's rim can sit off its
        centre, and a corridor through it would then be offered to every target behind it."""
        with self._lock:
            self._known = [passage, *(k for k in self._known if k is not passage)][:KNOWN_PASSAGES]

    def _whole(self, T, seed, timeout, random_seed, callback, position_tolerance, rotation_tolerance,
               max_iterations=None) -> Result:
        """The whole robot's search: the pose and the collision costs, checked exactly."""
        return solve(self.robot, [PoseGoal(self.tip, T), self.collision], seed=seed, timeout=timeout, solver=self.solver,
                     callback=callback, random_seed=random_seed, max_iterations=max_iterations,
                     position_tolerance=position_tolerance, rotation_tolerance=rotation_tolerance, scene=self.scene)


class PassageRoutes:
    """The default solver's turn to `PassageSolver` (`bioik.Solver` with no solver named):
    with a scene and one pose goal of a tip past a tool (`bioik.decoupling.tool_split`),
    a solve without an iteration budget goes to a PassageSolver of that scene and tip, split
    and covered as it chooses; nothing to annotate. One per Solver, safe to share between
    threads; the PassageSolvers are built (and warmed up, outside any timeout) on first use
    and kept per scene layout (obstacles added or removed: a new one; moved: the same one
    follows them)."""

    #: PassageSolvers kept (per scene layout and tip); the oldest goes first.
    KEEP = 8

    def __init__(self, robot: Robot):
        self.robot = robot
        self._lock = threading.Lock()
        self._splits: dict[str, str | None] = {}
        self._solvers: dict[tuple, tuple[Scene, PassageSolver]] = {}

    def route(self, goals: Any, scene: Scene) -> tuple[PoseGoal, PassageSolver] | None:
        """The pose goal and the PassageSolver that solve these goals among scene's
        obstacles, or None if they are not one primary pose goal of a tip past a tool."""
        if not (isinstance(goals, (list, tuple)) and len(goals) == 1 and type(goals[0]) is PoseGoal
                and not goals[0].is_secondary and isinstance(scene, Scene)):
            return None
        goal = goals[0]
        tip = goal.link
        if tip not in self._splits:
            self._splits[tip] = tool_split(self.robot, tip)
        if self._splits[tip] is None:
            return None
        key = (id(scene), scene.layout_version, tip)  # a PassageSolver follows scene.move itself
        hit = self._solvers.get(key)
        if hit is not None and hit[0] is scene:
            return goal, hit[1]
        with self._lock:
            hit = self._solvers.get(key)
            if hit is None or hit[0] is not scene:
                passage = PassageSolver(self.robot, tip, self._splits[tip], scene)
                passage.warm_up(goal.pose)
                if len(self._solvers) >= self.KEEP:
                    self._solvers.pop(next(iter(self._solvers)))
                hit = self._solvers[key] = (scene, passage)
        return goal, hit[1]


def _ray(T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The tip's position and approach axis as fresh contiguous vectors: the finder's kernels
    are compiled for those (a view of a read-only or strided pose would compile anew)."""
    return np.array(T[:3, 3], dtype=float), np.array(T[:3, 2], dtype=float)


def _slice(piece: float, deadline: float) -> float:
    """A turn of `piece` seconds, cut at the deadline (never ≤ 0: a solve needs a timeout)."""
    return max(min(piece, deadline - time.monotonic()), 1e-6)


__all__ = ["PassageRoutes", "PassageSolver"]
