"""The EBIKE scenarios (`bioik.scenes`) as benchmark problems: their collision setup, the
acceptance check of an answer, and the witness search that makes the stored targets.

A scenario's answer counts when it reaches the target pose (1e-5 m, 1e-5 rad) and coal's
exact check finds it collision-free under the scenario's own rules (the tip link may touch
the target objects, the base its pedestal; see `bioik.scenes`). The collision costs cover
the robot with `sphere_model(robot, links=ENDOSCOPE_COVER)`.

Goal sets (the test `scene:NAME/SET`, `bioik bench run --test scene --goal-set SET`): the
goals EBIKE added to the pose goal in the tanks [E 8.5–8.9], built from the scenario's
annotated opening (centre p on the lid, unit axis a into the tank, along its length) and
added to the pose and collision goals, each with weight 1 ([E 8.5] gave BioIK the RCM's
cost as it is; [E] names no weight for the others):

  generic    nothing added (the test `scene:NAME`)
  rejection  the collision goal taken away: the solver searches for the pose alone and
             the exact check rejects colliding answers, so the search restarts —
             rejection sampling, all MoveIt's plugins do [E 8.1]; runs on every
             scenario. For kdl and trac, which never take the collision goal, it is
             the generic test under another name
  rcm        RCMGoal((endoscope_link_1, endoscope_link_2), p): the 0.30 m shaft, ELISE's
             first and longest link, passes through p: [E 8.5]'s single-link variant, its
             best RCM form on HydrogenTankSmall at every timeout and on HydrogenTank up to
             100 ms [E Fig. 8.6, A5]
  rcm_multi  RCMGoal(ENDOSCOPE, p): the consecutive pair of the endoscope's links nearest
             p passes through it, the clamped multi-link variant [E 8.5], the better one
             on HydrogenTank at 1 s [E Fig. 8.6]. The endoscope only: the mount before it
             is 7 cm across, as wide as the larger opening
  line       LineGoal(endoscope_link_1, p, a): the shaft's base on the line through the
             opening along the tank [E 8.7]
  alignment  DirectionGoal(endoscope_link_1, a, axis z): the shaft along a [E 8.8]
  lookat     LookAtGoal(endoscope_link_1, p, axis z): the shaft pointing at the opening [E 8.9]

The goals are primary, as in [E]'s BioIK, which accepts an answer only when every goal's
cost is below 1e-10 (a residual of 1e-5, bioik's default goal tolerance), relaxed for the
RCM to 1 mm [E 8.5] (RCM_TOLERANCE): a solver offers an answer to the callback only once
the set's goal is met, so a target its constraint cannot reach stays unsolved, as [E]
reports of the single-link RCM, the line and the alignment. The benchmark's own acceptance
is unchanged (pose and exact collision check), as [E]'s is (the pose and the callback).
[E 8.6]'s collision point distance is not a set: no goal here draws a link's geometry
towards a point (`ObstacleDistanceGoal` and the collision goal only keep it away; the
distance goals read a link's origin), and for the straight shaft it would be `rcm` less a
dead zone of the shaft's and the sphere's radii.

Stored targets (`Scenario.targets()`) are made by `make_targets`: candidates are sampled on
the target surfaces with a fixed seed and taken in order; a candidate is kept when

1. the tip link, placed by the target pose and pulled back `TIP_CONTACT` along the tool
   axis, touches no obstacle (`TipClearance`): the contact the scene allows the tip is
   then only the touch of its end, and
2. a witness is found: `lm` with the collision costs and the exact check as its
   acceptance test, an iteration budget (not a time budget, so the search gives the same
   answer on any machine) and the candidate's index as its random seed.

Random has no obstacles: its candidates are uniform random configurations, kept when free
of self-collision; each is its own target's witness. Until n targets are kept; the counts of
candidates dropped at each step go into the file. The witness search is a local solver,
so a kept target is one `lm` can reach from some start: the set leans toward targets a
local search finds, the dropped count says how far.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

import numpy as np

import bioik
from bioik import scenes
from bioik.bench.progress import progress_bar
from bioik.bench.targets import DECOUPLED, DEFAULT, OPENING_GOAL_SETS, PASSAGE, TABLE, GoalSetRefused, goal_set_of, pose_errors, scenario_of
from bioik.collision import CollisionChecker, sphere_model
from bioik.collision._coal import coal, piece_geometry, shape_geometry, transform
from bioik.collision.link_geometry import link_pieces
from bioik.goals import CollisionAvoidanceGoal, DirectionGoal, Goal, LineGoal, LookAtGoal, PoseGoal, RCMGoal
from bioik.kinematics.robot import Robot

#: Acceptance of a scene answer: position (m), rotation (rad), as the other bench tests.
TOLERANCE = (1e-5, 1e-5)
#: The witness search: solver, iteration budget per candidate, and a wall-clock guard
#: far above what the budget takes (≈ 3 s on the tanks), so the budget decides.
WITNESS_SOLVER = "lm"
WITNESS_ITERATIONS = 100_000
WITNESS_GUARD_S = 300.0
#: Candidates sampled per scenario (taken in order until n are kept) and their seed.
CANDIDATES = 4000
TARGET_SEED = 2024
#: The endoscope's links, base to tip: their consecutive origins bound its straight segments.
ENDOSCOPE = ("endoscope_link_1", "endoscope_link_2", "endoscope_link_3", scenes.TIP)
#: Its shaft, the 0.30 m rod: ELISE's first link, whose z axis runs from its base to its end.
SHAFT = ENDOSCOPE[0]
#: The RCM goal is met within 1 mm of the trocar, as [E 8.5] accepted it with BioIK.
RCM_TOLERANCE = 1e-3

_GOAL_SETS = {
    "generic": lambda o: [],
    "rejection": lambda o: [],
    "rcm": lambda o: [RCMGoal(ENDOSCOPE[:2], o.point, tolerance=RCM_TOLERANCE)],
    "rcm_multi": lambda o: [RCMGoal(ENDOSCOPE, o.point, tolerance=RCM_TOLERANCE)],
    "line": lambda o: [LineGoal(SHAFT, o.point, o.axis)],
    "alignment": lambda o: [DirectionGoal(SHAFT, o.axis, axis=(0.0, 0.0, 1.0))],
    "lookat": lambda o: [LookAtGoal(SHAFT, o.point, axis=(0.0, 0.0, 1.0))],
}


#: Where kinematic decoupling (`bioik.Decoupler`) splits elise_ur10: where the endoscope starts.
SPLIT_LINK = "endoscope_mount"


def decoupled_function(robot: Robot, test: str):
    """A `bioik.solve`-shaped function that solves scene test `test` by kinematic decoupling
    through the scenario's opening (GoalSetRefused for a test without one, or with a goal
    set: decoupling has its own). The seed state is not used: every attempt starts both
    parts from random configurations. Parameters go to `Decoupler.solve` (max_attempts)."""
    from bioik.decoupling import Decoupler

    name = scenario_of(test)
    scenario = scenes.load(name) if name else None
    if scenario is None or scenario.opening is None or goal_set_of(test) != "generic":
        raise GoalSetRefused(f"{DECOUPLED} runs on the scene tests of scenarios with an opening, without a goal set "
                             f"(scene:HydrogenTank, scene:HydrogenTankSmall); got {test}")
    op = scenario.opening
    dec = Decoupler(robot, scenes.TIP, SPLIT_LINK, scenario.scene, (op.point, op.axis, op.diameter),
                    spheres=sphere_model(robot, links=scenes.ENDOSCOPE_COVER))

    def solve(robot_: Robot, goals, *, seed=None, timeout: float, solver: str = DECOUPLED, callback=None,
              position_tolerance: float = TOLERANCE[0], rotation_tolerance: float = TOLERANCE[1], scene=None, **params):
        (pose,) = [g for g in goals if isinstance(g, PoseGoal)]
        return dec.solve(pose.pose, timeout=timeout, callback=callback, position_tolerance=position_tolerance,
                         rotation_tolerance=rotation_tolerance, **params)

    return solve


#: The endoscope's radius (m): the clearance a straight corridor to a target needs.
ENDOSCOPE_RADIUS = 0.004


def passage_function(robot: Robot, test: str):
    """A `bioik.solve`-shaped function for scene test `test` (generic goal set only):
    `bioik.PassageSolver` split where the endoscope starts, with the endoscope's thin cover
    and radius — decoupling through the passage it finds in the scene (no annotation
    used), `lm` with the collision costs and decoupling with no opening, in turns. Warmed
    up on a stored target before any solve is timed."""
    from bioik.passage_solver import PassageSolver

    name = scenario_of(test)
    if name is None or goal_set_of(test) != "generic":
        raise GoalSetRefused(f"{PASSAGE} runs on the scene tests without a goal set (scene:NAME); got {test}")
    scenario = scenes.load(name)
    passage = PassageSolver(robot, scenes.TIP, SPLIT_LINK, scenario.scene, spheres=sphere_model(robot, links=scenes.ENDOSCOPE_COVER),
                            tool_radius=ENDOSCOPE_RADIUS)
    passage.warm_up(robot.link_pose(scenario.targets().witnesses[0], scenes.TIP))

    def solve(robot_: Robot, goals, *, seed=None, timeout: float, solver: str = PASSAGE, callback=None,
              position_tolerance: float = TOLERANCE[0], rotation_tolerance: float = TOLERANCE[1], random_seed=None, **kwargs):
        (pose,) = [g for g in goals if isinstance(g, PoseGoal)]
        return passage.solve(pose.pose, timeout=timeout, seed=seed, random_seed=random_seed, callback=callback,
                             position_tolerance=position_tolerance, rotation_tolerance=rotation_tolerance)

    return solve


def default_function(test: str):
    """A `bioik.solve`-shaped function for scene test `test` (generic goal set only) or
    `table`: `bioik.solve` with no solver named, given the target and `scene=` alone — no
    collision goal, cover or split link from the bench (`SceneProblem.of` adds none for it),
    so what a user who names nothing gets."""
    if test != TABLE and (scenario_of(test) is None or goal_set_of(test) != "generic"):
        raise GoalSetRefused(f"{DEFAULT} runs on the scene tests without a goal set (scene:NAME) and on table; got {test}")

    def solve(robot: Robot, goals, *, seed=None, timeout: float, solver: str = DEFAULT, callback=None,
              position_tolerance: float = TOLERANCE[0], rotation_tolerance: float = TOLERANCE[1], scene=None,
              random_seed=None, **params):
        return bioik.solve(robot, goals, seed=seed, timeout=timeout, callback=callback, position_tolerance=position_tolerance,
                           rotation_tolerance=rotation_tolerance, scene=scene, random_seed=random_seed, **params)

    return solve


def goal_set(name: str, opening: scenes.Opening | None) -> list[Goal]:
    """The goals goal set `name` adds around `opening` (see the module docstring); ValueError
    for a set other than generic without an opening."""
    if name in OPENING_GOAL_SETS and opening is None:
        raise ValueError(f"goal set {name!r} is built around a scenario's opening; this scenario has none")
    return _GOAL_SETS[name](opening)


def collision_goal(robot: Robot, scenario: scenes.Scenario) -> CollisionAvoidanceGoal:
    """The scenario's collision costs with the thin endoscope cover."""
    return CollisionAvoidanceGoal(scenario.scene, spheres=sphere_model(robot, links=scenes.ENDOSCOPE_COVER))


class TipClearance:
    """Whether the tip link, placed by a tip pose and pulled back TIP_CONTACT along the
    tool axis, is clear of every obstacle (exact, with coal). The link cannot lie wholly
    inside a solid: its end is on the target's surface, on the free side."""

    def __init__(self, robot: Robot, scenario: scenes.Scenario):
        q = robot.center()
        self._tip_in_link = np.linalg.inv(robot.link_pose(q, scenes.TIP_LINK)) @ robot.link_pose(q, scenes.TIP)
        self._pieces = [(piece_geometry(p), p.origin) for p in link_pieces(robot.model.link(scenes.TIP_LINK))]
        self._obstacles = [(shape_geometry(o.shape), transform(o.pose)) for o in scenario.scene.obstacles.values()]

    def __call__(self, T: np.ndarray) -> bool:
        back = np.array(T, dtype=float)
        back[:3, 3] -= scenes.TIP_CONTACT * back[:3, 2]
        link = back @ np.linalg.inv(self._tip_in_link)
        req = coal.CollisionRequest()
        for geometry, origin in self._pieces:
            tf = transform(link @ origin)
            for obstacle, pose in self._obstacles:
                if coal.collide(geometry, tf, obstacle, pose, req, coal.CollisionResult()):
                    return False
        return True


@dataclass
class SceneCheck:
    """The acceptance test of scene answers for one (robot, scenario): `ok(T, q)`."""

    robot: Robot
    checker: CollisionChecker

    @classmethod
    def of(cls, robot: Robot, scenario: scenes.Scenario) -> SceneCheck:
        return cls(robot, CollisionChecker(robot, scenario.scene))

    def ok(self, T: np.ndarray, q: np.ndarray) -> bool:
        """q within limits, at the pose T (TOLERANCE) and collision-free by the exact check."""
        if not self.robot.within_limits(q):
            return False
        dp, angle = pose_errors(self.robot, scenes.TIP, T, q)
        return dp <= TOLERANCE[0] and angle <= TOLERANCE[1] and self.checker.is_free(q)


@dataclass
class SceneProblem:
    """What a scene test adds to each solve: the collision goal (for solvers that take it)
    and its goal set's goals, the scene (its exact check is then every answer's first
    acceptance test, also for solvers without the collision goal: rejection sampling, as
    MoveIt's plugins do [E 8.1]), and the exact check the runner applies to the answer
    afterwards."""

    scenario: scenes.Scenario
    goals: list
    check: SceneCheck
    rejection: bool = False  # goal set rejection: the solver never sees the scene
    warm: np.ndarray | None = None  # warm-up configurations when the scenario stores no targets

    def witnesses(self) -> np.ndarray:
        """Configurations reaching clear poses, for warm-up solves: the stored witnesses (or `warm`)."""
        return self.scenario.targets().witnesses if self.warm is None else self.warm

    def solve_arguments(self, accept: Callable[[np.ndarray], bool] | None) -> tuple[Callable[[np.ndarray], bool], dict]:
        """The callback and extra keyword arguments of a solve whose own check is `accept`:
        `scene=` (the solver's collision goal, if it takes one, and the exact check in
        front of the callback), or for goal set rejection no scene and the exact check in
        front of `accept` in the callback: rejection sampling on the pose search alone."""
        if not self.rejection:
            return accept, {"scene": self.scenario.scene}
        free = self.check.checker.is_free
        return (lambda q: free(q) and (accept is None or accept(q))), {}

    @classmethod
    def of(cls, robot: Robot, test: str, solver: str) -> SceneProblem:
        """The problem of scene test `test` (or `table`, `bioik.bench.table`) for `solver`; GoalSetRefused if the solver's
        search does not take a goal of the test's goal set (without them the run would be
        the generic one under another name)."""
        from bioik.solvers.registry import SOLVERS

        kinds = SOLVERS[solver].kinds if solver in SOLVERS else None
        if solver == DEFAULT:  # the solve adds its own collision goal for scene=
            kinds = ()
        if test == TABLE:
            from bioik.bench.table import table_scene, table_witnesses

            scenario = scenes.Scenario(TABLE, table_scene(), None, "tip poses of random configurations free of collision", ())
            goal = CollisionAvoidanceGoal(scenario.scene)
            return cls(scenario, [goal] if kinds is None or goal.kind in kinds else [], SceneCheck.of(robot, scenario),
                       warm=table_witnesses(robot, np.random.default_rng(12345), 5))
        scenario = scenes.load(scenario_of(test))
        goal = collision_goal(robot, scenario)
        extra = goal_set(goal_set_of(test), scenario.opening)
        refused = sorted({type(g).__name__ for g in extra if kinds is not None and g.kind not in kinds})
        if refused:
            raise GoalSetRefused(f"solver {solver!r} does not take {', '.join(refused)}, the goals of goal set "
                                 f"{goal_set_of(test)!r}")
        rejection = goal_set_of(test) == "rejection"
        goals = [goal] if (kinds is None or goal.kind in kinds) and not rejection else []
        return cls(scenario, goals + extra, SceneCheck.of(robot, scenario), rejection)


class _Search:
    """One process's witness search for one scenario (built once per worker)."""

    def __init__(self, name: str):
        self.robot = bioik.load_robot(scenes.ROBOT)
        self.scenario = scenes.load(name)
        self.goal = collision_goal(self.robot, self.scenario)
        self.check = SceneCheck.of(self.robot, self.scenario)
        self.clear = TipClearance(self.robot, self.scenario)

    def __call__(self, item: tuple[int, np.ndarray]) -> tuple[str, np.ndarray | None]:
        """("kept", witness) or ("contact" | "witness", None): why the candidate was dropped."""
        k, T = item
        if not self.clear(T):
            return "contact", None
        res = bioik.solve(self.robot, [PoseGoal(scenes.TIP, T), self.goal], scene=self.scenario.scene, solver=WITNESS_SOLVER,
                          max_iterations=WITNESS_ITERATIONS, timeout=WITNESS_GUARD_S, random_seed=k)
        if res.success and self.check.ok(T, res.q):
            return "kept", res.q
        return "witness", None


_worker: _Search | None = None  # this process's search (one scenario per process)


def _init(name: str) -> None:
    global _worker
    _worker = _Search(name)


def _run(item: tuple[int, np.ndarray]) -> tuple[str, np.ndarray | None]:
    return _worker(item)


def make_targets(name: str, n: int = 1000, jobs: int = 1, progress: bool = True) -> scenes.TargetSet:
    """Search witnesses for scenario `name`'s candidates until n are kept (see the module)."""
    scenario = scenes.load(name)
    robot = bioik.load_robot(scenes.ROBOT)
    rng = np.random.default_rng(TARGET_SEED)
    kept: list[tuple[np.ndarray, np.ndarray]] = []
    dropped = {"self_collision": 0} if not scenario.patches else {"contact": 0, "witness": 0}
    tried = 0
    bar = progress_bar(name, n, unit="target") if progress else None

    def report():
        if bar is not None:
            bar.set_postfix_str(f"{tried} tried", refresh=False)
            bar.update(len(kept) - bar.n)

    if not scenario.patches:  # Random: a configuration free of self-collision is its own witness
        check = SceneCheck.of(robot, scenario)
        Q = robot.random_configuration(rng, CANDIDATES)
        for q, T in zip(Q, robot.fk(Q, [scenes.TIP])[:, 0]):
            if len(kept) == n:
                break
            tried += 1
            if check.checker.is_free(q):
                kept.append((T, q))
            else:
                dropped["self_collision"] += 1
        report()
    else:
        candidates = list(enumerate(scenario.sample_targets(CANDIDATES, rng)))
        pool = ProcessPoolExecutor(jobs, mp_context=get_context("spawn"), initializer=_init, initargs=(name,)) if jobs > 1 else None
        if pool is None:
            _init(name)
        try:
            while len(kept) < n and tried < len(candidates):
                batch = candidates[tried : tried + 4 * jobs]
                for (k, T), (why, q) in zip(batch, pool.map(_run, batch) if pool else map(_run, batch)):
                    if len(kept) == n:
                        break
                    tried += 1
                    if why == "kept":
                        kept.append((T, q))
                    else:
                        dropped[why] += 1
                report()
        finally:
            if pool is not None:
                pool.shutdown(cancel_futures=True)
    if bar is not None:
        bar.close()
    info = {
        "scenario": name, "robot": scenes.ROBOT, "tip": scenes.TIP, "seed": TARGET_SEED, "candidates": CANDIDATES,
        "tried": tried, "kept": len(kept), "dropped": dropped, "solver": WITNESS_SOLVER,
        "max_iterations": WITNESS_ITERATIONS, "tip_contact": scenes.TIP_CONTACT, "bioik": bioik.__version__,
    }
    poses = np.array([T for T, _ in kept]).reshape(-1, 4, 4)
    return scenes.TargetSet(poses, np.array([q for _, q in kept]).reshape(-1, robot.dof), info)


def save_targets(targets: scenes.TargetSet, path: str | os.PathLike) -> Path:
    """Write a TargetSet as the .npz `Scenario.targets()` reads."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, poses=targets.poses, witnesses=targets.witnesses, info=np.array(json.dumps(targets.info)))
    return path
