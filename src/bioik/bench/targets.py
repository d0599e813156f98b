"""Reproducible benchmark targets: pose goals for one tip, seed states and witnesses.

Tests: `fkik` ([R 3.2]: FK of uniform random configurations; seed states independent uniform
draws), `unreachable` (the fkik poses with their position scaled ×3 from the base origin,
and pushed further along the same ray to at least 1.5× the largest tip distance seen in
WORKSPACE_SAMPLES random configurations, so targets near the base leave the workspace too),
`grid` (positions on a regular grid of ⌈∛n⌉ points per axis over the bounding box of
WORKSPACE_SAMPLES tip positions — n evenly spaced grid points when n is not a cube — with
one fixed orientation, the tip's at the centre of the joint limits, [R 4.2]; seed states
uniform random; many grid points are out of reach by design), `track` (a continuous path for
the tip, solved warm-started: a circle, then a figure eight, see `_track_targets`), `scale`
(the fkik targets; the CLI runs it on the snakes SCALE_ROBOTS), `scene:NAME` (the first n
stored targets of the EBIKE scenario NAME, `bioik.scenes`, each with its witness; only for
elise_ur10's endoscope_tip; the runner adds the scenario's obstacles), `table` (any robot
standing 3 cm above a table with three posts, ur5's cell, `bioik.bench.table`: the tip
poses of random configurations free of collision there, each its witness; seed states
uniform) and `scene:NAME/SET`
(the same targets, solved with the goals of goal set SET added, built from the scenario's
opening: see `bioik.bench.scenes`; `generic`, no goals added, is `scene:NAME`). The same (robot, test, n,
seed, tip) always gives identical targets. The tip is named or, by default, the robot's one
tip (`benchmark_tip`): a robot with several tips needs it named.

Several tips (`fkik` only; hands, two arms, a humanoid's hands and feet): each target is
one pose per tip, all from the same random configuration, solved as one query with a goal
on every tip. The tips travel as one string joined by TIP_SEPARATOR ("l_hand,r_hand") and
the poses are (n, k, 4, 4). `fkik/position` is the same targets with position goals only
(the check then ignores the rotation).

Seed modes say how a target's start configuration is chosen when it is solved (the runner
applies them): `random` (the stored independent uniform draws), `none` (seed=None: the solver
draws its own start), `fixed` (one configuration for every target, the robot's centre unless
given), `warm` (the previous target's solution; the first target uses its stored seed state).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bioik import scenes
from bioik.errors import GoalSetRefused as GoalSetRefused
from bioik.kinematics.fk import fk_pose_errors
from bioik.kinematics.robot import Robot
from bioik.model.group import moved_links
from bioik.robots import load_robot

TESTS = ("fkik", "unreachable", "grid", "track", "scale", "table", "scene")
#: The robot standing 3 cm above a table with three posts (`bioik.bench.table`).
TABLE = "table"
#: fkik's goal kinds: one pose goal per tip ("fkik"), or one position goal ("fkik/position").
FKIK_POSITION = "fkik/position"
#: Joins several tips into one tip string (a link name containing it cannot be benchmarked).
TIP_SEPARATOR = ","
#: A scene test names its scenario and, after GOAL_SET_SEPARATOR, a goal set other than
#: generic: "scene:HydrogenTank", "scene:HydrogenTank/rcm".
SCENE_PREFIX = "scene:"
GOAL_SET_SEPARATOR = "/"
#: A scene test's goal sets (`bioik.bench.scenes`): generic adds no goal; the others add
#: [E 8.5–8.9]'s goals around the scenario's opening, so they need a scenario with one.
#: Goal sets of the scene tests (see `bioik.bench.scenes`): generic and rejection run on every
#: scenario, the others are built around a scenario's opening (the tanks).
GOAL_SETS = ("generic", "rejection", "rcm", "rcm_multi", "line", "alignment", "lookat")
OPENING_GOAL_SETS = GOAL_SETS[2:]
#: Solvers the bench builds itself for scene tests (`bioik.bench.scenes`): kinematic
#: decoupling through the scenario's annotated opening, and through the passage found in the
#: scene (`bioik.PassageFinder`, a generic solver), with `lm` where there is none; and
#: `bioik.solve` with no solver named, given the target and `scene=` alone (what a user who
#: names nothing gets).
DECOUPLED, PASSAGE, DEFAULT = "decoupled", "passage", "default"
SCENE_SOLVERS = (DECOUPLED, PASSAGE, DEFAULT)
SEED_MODES = ("random", "none", "fixed", "warm")
SCALE_ROBOTS = ("snake30", "snake90", "snake180")
TRACK_RADIUS_FRACTION = 0.1
UNREACHABLE_SCALE = 3.0
UNREACHABLE_MARGIN = 1.5
WORKSPACE_SAMPLES = 2000
#: Acceptance (position m, rotation rad) per test: [R 3.2]'s 1e-5 / 1e-5, except the
#: hyper-redundant `scale` test, which [S 5.5.5] runs at 1e-3 m / 1e-2 rad.
DEFAULT_TOLERANCES = (1e-5, 1e-5)
TEST_TOLERANCES = {"scale": (1e-3, 1e-2)}


@dataclass(frozen=True)
class Targets:
    """n pose targets for a tip.

    Attributes:
        tip: the link the targets are for.
        poses: (n, 4, 4) poses in the base frame.
        seeds: (n, dof) seed states.
        witnesses: (n, dof) configurations that reach each pose exactly, or None when unknown.
    """

    tip: str
    poses: np.ndarray
    seeds: np.ndarray
    witnesses: np.ndarray | None

    def __len__(self) -> int:
        return len(self.poses)


def check_test(test: str) -> str:
    """`test` if it is a known test name (a scene test with its scenario and goal set,
    "scene:NAME" or "scene:NAME/SET"), else ValueError listing the known ones."""
    if test == "scene":
        raise ValueError(f"the scene test needs its scenario: scene:NAME (--scene NAME), NAME one of {', '.join(scenes.names())}")
    if test.startswith(SCENE_PREFIX):
        scenario = scenes.load(scenario_of(test))  # UnknownNameError listing the scenarios
        goal_set = goal_set_of(test)
        if GOAL_SET_SEPARATOR in test and goal_set not in GOAL_SETS[1:]:  # generic has one name only: scene:NAME
            raise ValueError(f"goal set {goal_set!r} of test {test!r}: a scene test names one of {', '.join(GOAL_SETS[1:])} "
                             f"(scene:NAME/SET), or none for generic (scene:NAME)")
        if goal_set in OPENING_GOAL_SETS and scenario.opening is None:
            with_one = [n for n in scenes.names() if scenes.load(n).opening is not None]
            raise ValueError(f"goal set {goal_set!r} is built around the scenario's opening; {scenario.name} has none "
                             f"(scenarios with one: {', '.join(with_one)})")
        return test
    if test not in TESTS and test != FKIK_POSITION:
        raise ValueError(f"unknown test {test!r}; known: {', '.join(TESTS[:-1])}, {FKIK_POSITION}, scene:NAME, scene:NAME/SET")
    return test


def tips_of(tip: str) -> list[str]:
    """The links of a tip string (one, or several joined by TIP_SEPARATOR)."""
    return tip.split(TIP_SEPARATOR)


def check_tips(test: str, tip: str) -> str:
    """`tip`, unless it names several links and `test` is not an fkik test (ValueError)."""
    if TIP_SEPARATOR in tip and test not in ("fkik", FKIK_POSITION):
        raise ValueError(f"several tips ({tip}) go with the fkik tests only (fkik, {FKIK_POSITION}); got {test}")
    return tip


def collision_test(test: str) -> bool:
    """Whether `test` is solved among obstacles with nothing but a pose goal: a scene test
    without a goal set, or `table` (the tests collision-aware peers run)."""
    return test == TABLE or goal_set_of(test) == "generic"


def position_only(test: str) -> bool:
    """Whether `test` poses position goals only (its check ignores the rotation)."""
    return test == FKIK_POSITION


def scene_test(scenario: str, goal_set: str = "generic") -> str:
    """The name of the scene test of `scenario` with `goal_set`: "scene:NAME" for generic,
    else "scene:NAME/SET" (not checked: see `check_test`)."""
    return SCENE_PREFIX + scenario + ("" if goal_set == "generic" else GOAL_SET_SEPARATOR + goal_set)


def scenario_of(test: str) -> str | None:
    """The scenario name of a scene test, else None."""
    if not test.startswith(SCENE_PREFIX):
        return None
    return test[len(SCENE_PREFIX):].partition(GOAL_SET_SEPARATOR)[0]


def goal_set_of(test: str) -> str | None:
    """The goal set of a scene test ("generic" when it names none), else None."""
    if not test.startswith(SCENE_PREFIX):
        return None
    _, sep, goal_set = test.partition(GOAL_SET_SEPARATOR)
    return goal_set if sep else "generic"


def tolerances(test: str) -> tuple[float, float]:
    """(position m, rotation rad) tolerances with which `test`'s answers are solved and checked."""
    return TEST_TOLERANCES.get(test, DEFAULT_TOLERANCES)


def check_seed_mode(mode: str) -> str:
    """`mode` if it is a known seed mode, else ValueError listing the known ones."""
    if mode not in SEED_MODES:
        raise ValueError(f"unknown seed mode {mode!r}; known: {', '.join(SEED_MODES)}")
    return mode


def default_seed_mode(test: str) -> str:
    """The seed mode of `test` when none is given: `warm` for `track` (a path), else `random`."""
    return "warm" if check_test(test) == "track" else "random"


def load_bench_robot(spec: str) -> Robot:
    """The robot a benchmark names: a bundled name, snakeN or a URDF path, optionally
    followed by ``[GROUP]`` to make another of its groups active (``dual_ur5[torso_both_arms]``);
    the whole string labels its results. An unknown group raises UnknownNameError naming
    the robot's groups."""
    name, bracket, group = spec.partition("[")
    if bracket and group.endswith("]") and group[:-1] and name:
        return load_robot(name, group=group[:-1])
    return load_robot(spec)


def benchmark_tip(robot: Robot, tip: str | list[str] | None = None, name: str | None = None) -> str:
    """The link whose poses a benchmark of `robot` (called `name` in errors) targets: `tip`,
    checked to be a link the active joints move, or else the robot's one tip (ValueError
    listing them when it has several). Several links (a list, or a string joined by
    TIP_SEPARATOR) are each checked and come back joined."""
    name = robot.name if name is None else name
    if isinstance(tip, str) and TIP_SEPARATOR in tip:
        tip = tips_of(tip)
    if isinstance(tip, (list, tuple)):
        if len(set(tip)) != len(tip) or not tip:
            raise ValueError(f"the tips of robot {name!r} must be distinct link names; got {', '.join(tip) or 'none'}")
        return TIP_SEPARATOR.join(benchmark_tip(robot, t, name) for t in tip) if len(tip) > 1 else benchmark_tip(robot, tip[0], name)
    if tip is None:
        if len(robot.tips) == 1:
            return robot.tips[0]
        if not robot.tips:
            raise ValueError(f"robot {name!r} has no link that its joints move; nothing to benchmark")
        raise ValueError(f"robot {name!r} has {len(robot.tips)} tips ({', '.join(robot.tips)}); "
                         "name the one to benchmark with --tip LINK")
    robot.model.link_index(tip)  # an unknown link: UnknownNameError naming the closest
    active = set(robot.group.variables)
    joints = [j for j, joint in enumerate(robot.model.joints) if any(m.variable in active for m in joint.motions)]
    if tip not in moved_links(robot.model, joints):
        raise ValueError(f"link {tip!r} of robot {name!r} does not move with its joints; expected a moving link "
                         f"such as {', '.join(robot.tips) or 'none'}")
    return tip


def _fk_targets(robot: Robot, tip: str, rng: np.random.Generator, n: int) -> Targets:
    witnesses = robot.random_configuration(rng, n).reshape(n, robot.dof)
    seeds = robot.random_configuration(rng, n).reshape(n, robot.dof)
    tips = tips_of(tip)
    poses = robot.fk(witnesses, links=tips)
    return Targets(tip, poses[:, 0] if len(tips) == 1 else poses, seeds, witnesses)


def _workspace_points(robot: Robot, tip: str, rng: np.random.Generator) -> np.ndarray:
    """Tip positions (WORKSPACE_SAMPLES, 3) of uniform random configurations."""
    return robot.fk(robot.random_configuration(rng, WORKSPACE_SAMPLES), links=[tip])[:, 0, :3, 3]


def _unreachable_targets(robot: Robot, tip: str, rng: np.random.Generator, n: int) -> Targets:
    targets = _fk_targets(robot, tip, rng, n)
    reach = float(np.linalg.norm(_workspace_points(robot, tip, rng), axis=1).max())
    poses = targets.poses.copy()
    p = poses[:, :3, 3]
    norm = np.maximum(np.linalg.norm(p, axis=1, keepdims=True), 1e-12)
    p *= np.maximum(UNREACHABLE_SCALE, UNREACHABLE_MARGIN * reach / norm)
    return Targets(targets.tip, poses, targets.seeds, None)


def _grid_targets(robot: Robot, tip: str, rng: np.random.Generator, n: int) -> Targets:
    points = _workspace_points(robot, tip, rng)
    lo, hi = points.min(axis=0), points.max(axis=0)
    k = max(1, int(np.ceil(n ** (1.0 / 3.0))))
    axes = [np.linspace(lo[i], hi[i], k) for i in range(3)]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    picked = grid[np.round(np.linspace(0, len(grid) - 1, n)).astype(int)]
    orientation = robot.link_pose((robot.lower + robot.upper) / 2.0, tip)[:3, :3]
    poses = np.tile(np.eye(4), (n, 1, 1))
    poses[:, :3, :3] = orientation
    poses[:, :3, 3] = picked
    seeds = robot.random_configuration(rng, n).reshape(n, robot.dof)
    return Targets(tip, poses, seeds, None)


def _track_frame(robot: Robot, tip: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(tip pose at the centre, in-plane unit u (inward), in-plane unit v, radius) of the track path.

    u points from the tip towards the base origin (so the path bends inward, staying reachable
    when the centre configuration is stretched out), v ⟂ u is horizontal when it can be
    (u × z, else u × x), and the radius is
    TRACK_RADIUS_FRACTION × the largest side of the bounding box of WORKSPACE_SAMPLES tip positions.
    """
    T = robot.link_pose(robot.center(), tip)
    points = _workspace_points(robot, tip, rng)
    radius = TRACK_RADIUS_FRACTION * float((points.max(axis=0) - points.min(axis=0)).max())
    p = T[:3, 3]
    u = -p / np.linalg.norm(p) if np.linalg.norm(p) > 1e-9 else np.array([-1.0, 0.0, 0.0])
    v = np.cross(u, [0.0, 0.0, 1.0])
    if np.linalg.norm(v) < 1e-6:
        v = np.cross(u, [1.0, 0.0, 0.0])
    return T, u, v / np.linalg.norm(v), radius


def _track_targets(robot: Robot, tip: str, rng: np.random.Generator, n: int) -> Targets:
    """A circle then a figure eight (lemniscate of Bernoulli), both through the tip at the centre.

    Both are centred at c = p + r·u (p the tip position at the centre configuration, u inward)
    in the plane through p spanned by (u, v): the circle c − r·u·cos t + r·v·sin t, then the
    lemniscate c + r(−u·cos t + v·sin t·cos t)/(1 + sin² t); both are at p for t = 0, so the
    path is continuous. ⌈n/2⌉ evenly spaced circle points, the rest on the lemniscate; every
    orientation is the tip's at the centre. Seed states: the centre configuration for the
    first target (where warm starting begins), independent uniform draws for the others.
    """
    T, u, v, r = _track_frame(robot, tip, rng)
    c = T[:3, 3] + r * u
    n_circle = (n + 1) // 2
    t = 2 * np.pi * np.arange(n_circle) / n_circle
    circle = c - r * np.cos(t)[:, None] * u + r * np.sin(t)[:, None] * v
    t = 2 * np.pi * np.arange(n - n_circle) / max(1, n - n_circle)
    d = 1.0 + np.sin(t) ** 2
    eight = c - (r * np.cos(t) / d)[:, None] * u + (r * np.sin(t) * np.cos(t) / d)[:, None] * v
    poses = np.tile(T, (n, 1, 1))
    poses[:, :3, 3] = np.concatenate([circle, eight])
    seeds = robot.random_configuration(rng, n).reshape(n, robot.dof)
    seeds[0] = robot.center()
    return Targets(tip, poses, seeds, None)


def _scene_targets(robot: Robot, tip: str, rng: np.random.Generator, n: int, name: str) -> Targets:
    """The first n stored targets of scenario `name` with their witnesses; seed states uniform."""
    stored = scenes.load(name).targets()
    if robot.model.name != scenes.ROBOT or tip != scenes.TIP or robot.dof != stored.witnesses.shape[1]:
        raise ValueError(f"the scene targets are poses of {scenes.ROBOT}'s {scenes.TIP} (all {stored.witnesses.shape[1]} joints); "
                         f"got robot {robot.model.name!r} ({robot.dof} joints), tip {tip!r}")
    if n > len(stored):
        raise ValueError(f"scenario {name} has {len(stored)} stored targets; asked for {n}")
    seeds = robot.random_configuration(rng, n).reshape(n, robot.dof)
    return Targets(tip, stored.poses[:n].copy(), seeds, stored.witnesses[:n].copy())


def generate(robot: Robot, test: str, n: int, seed: int, tip: str | None = None) -> Targets:
    """The `n` targets of `test`, drawn from `numpy.random.default_rng(seed)`.

    Args:
        robot: the robot.
        test: a test name (`TESTS`, or a scene test).
        n: how many targets.
        seed: the RNG seed.
        tip: the link to pose (default: the robot's one tip, see `benchmark_tip`).

    Returns:
        The `Targets`.
    """
    check_test(test)
    if n < 1:
        raise ValueError(f"the number of targets must be ≥ 1; got {n}")
    tip = check_tips(test, benchmark_tip(robot, tip))
    rng = np.random.default_rng(seed)
    if scenario_of(test):
        return _scene_targets(robot, tip, rng, n, scenario_of(test))
    if test == "grid":
        return _grid_targets(robot, tip, rng, n)
    if test == "unreachable":
        return _unreachable_targets(robot, tip, rng, n)
    if test == "track":
        return _track_targets(robot, tip, rng, n)
    if test == TABLE:
        from bioik.bench.table import table_witnesses

        witnesses = table_witnesses(robot, rng, n)
        return Targets(tip, robot.fk(witnesses, links=[tip])[:, 0], robot.random_configuration(rng, n).reshape(n, robot.dof), witnesses)
    return _fk_targets(robot, tip, rng, n)  # fkik and scale


def tip_errors(robot: Robot, tip: str, T: np.ndarray, q: np.ndarray) -> tuple[float, float]:
    """The largest (position error m, rotation angle rad) over the tips of a tip string at q,
    T their target poses (4, 4) for one tip, (k, 4, 4) for k; exact FK, in one compiled
    call (`fk_pose_errors`: the check runs inside the timed solve)."""
    tips = tips_of(tip)
    p = robot.program
    idx = np.array([robot.link_index(t) for t in tips], dtype=np.int64)
    errors = np.empty((len(tips), 2))
    fk_pose_errors(p.seg_i, p.seg_f, p.out_seg, p.out_tf, np.ascontiguousarray(q, dtype=np.float64), idx,
                   np.ascontiguousarray(T, dtype=np.float64).reshape(len(tips), 4, 4), np.empty((p.seg_i.shape[0], 7)), errors)
    dp, angle = errors.max(axis=0)
    return float(dp), float(angle)


def pose_errors(robot: Robot, tip: str, T: np.ndarray, q: np.ndarray) -> tuple[float, float]:
    """(position error m, rotation angle rad) of `tip` at `q` from the target pose `T`, exact FK."""
    return tip_errors(robot, tip, T, q)
