"""MoveIt-shaped IK calls: `search_position_ik`, `get_position_ik` and `KinematicsConfig`.

They mirror `kinematics::KinematicsBase::searchPositionIK` / `getPositionIK`: one pose per
tip link in, (q, error code) out, settings from a kinematics.yaml-style config, so code
written against MoveIt's kinematics plugins maps onto bioik one to one.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path
from typing import Any

import numpy as np

from bioik.goals.base import Goal
from bioik.goals.joints import AvoidJointLimitsGoal, CenterJointsGoal, MinimalDisplacementGoal
from bioik.goals.pose import PoseGoal, PositionGoal
from bioik.kinematics.robot import Robot
from bioik.moveit_config import KinematicsConfigError, select_group, translate
from bioik.solvers.api import solve
from bioik.solvers.core.params import SPECS
from bioik.solvers.registry import SOLVERS

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

#: get_position_ik: iterations of its single local `lm` attempt from the seed.
LOCAL_ITERATIONS = 100


class IKErrorCode(IntEnum):
    """Values of moveit_msgs/MoveItErrorCodes that the IK calls return.

    SUCCESS (1): q meets every pose (and the solution callback accepted it).
    NO_IK_SOLUTION (−31): none found before the timeout or iteration budget; as MoveIt's
    KDL and BioIK plugins do, running out of time is reported as this code too.
    Bad input (unknown tip, malformed pose, wrong seed length) raises ValueError instead.
    """

    SUCCESS = 1
    NO_IK_SOLUTION = -31


_KEYS = {
    "solver": (str,),
    "timeout": (int, float),
    "position_tolerance": (int, float),
    "rotation_tolerance": (int, float),
    "max_iterations": (int,),
    "random_seed": (int,),
    "parameters": (dict,),
    "position_only": (bool,),
    "rotation_scale": (int, float),
    "center_joints_weight": (int, float),
    "minimal_displacement_weight": (int, float),
    "avoid_joint_limits_weight": (int, float),
}

#: Keys that may be None (no budget, a fresh seed, the PoseGoal's own rotation scale).
_OPTIONAL = ("max_iterations", "random_seed", "rotation_scale")


def _check(values: Mapping[str, Any], source: str) -> None:
    """KinematicsConfigError naming `source` and the key for the first bad setting in `values`."""
    for key, types in _KEYS.items():
        v = values[key]
        if v is None and key in _OPTIONAL:
            continue
        if not isinstance(v, types) or (isinstance(v, bool) and bool not in types):
            expected = " or ".join(t.__name__ for t in types)
            raise KinematicsConfigError(f"{source}: key {key!r} must be {expected}; got {type(v).__name__} {v!r}")
    solver = values["solver"]
    if solver not in SOLVERS:
        raise KinematicsConfigError(f"{source}: key 'solver' must be one of {', '.join(sorted(SOLVERS))}; got {solver!r}")
    if not 0 < values["timeout"] < math.inf:
        raise KinematicsConfigError(f"{source}: key 'timeout' must be a finite number of seconds > 0; got {values['timeout']!r}")
    for key in ("position_tolerance", "rotation_tolerance"):
        if not 0 <= values[key] < math.inf:
            raise KinematicsConfigError(f"{source}: key {key!r} must be finite and >= 0; got {values[key]!r}")
    if values["max_iterations"] is not None and values["max_iterations"] < 1:
        raise KinematicsConfigError(f"{source}: key 'max_iterations' must be >= 1; got {values['max_iterations']!r}")
    if values["rotation_scale"] is not None and not 0 < values["rotation_scale"] < math.inf:
        raise KinematicsConfigError(f"{source}: key 'rotation_scale' must be a finite number > 0; got {values['rotation_scale']!r}")
    for key in ("center_joints_weight", "minimal_displacement_weight", "avoid_joint_limits_weight"):
        if not 0 <= values[key] <= 1e6:
            raise KinematicsConfigError(f"{source}: key {key!r} must be in [0, 1e6] (0: no such goal); got {values[key]!r}")
    known = SOLVERS[solver].defaults
    try:
        for name, v in values["parameters"].items():
            if name not in known:
                raise KinematicsConfigError(f"key 'parameters.{name}' is not a parameter of solver {solver!r}; known: {', '.join(known)}")
            SPECS[name].check(f"key 'parameters.{name}'", v)
        SOLVERS[solver].settings(values["parameters"])  # the relations between parameters
    except ValueError as e:
        raise KinematicsConfigError(f"{source}: {e}") from None


@dataclass
class KinematicsConfig:
    """Solver settings, as in a MoveIt kinematics.yaml group entry (`from_file` reads one;
    MoveIt's and BioIK's keys are mapped as `bioik.moveit_config` says).

    Attributes:
        solver: a name from `bioik.solvers.names()`.
        timeout: seconds per search.
        position_tolerance: position error (m) that counts as success.
        rotation_tolerance: rotation angle (rad) that counts as success.
        max_iterations: an iteration budget (None: no budget).
        random_seed: RNG seed for reproducible runs (None: a fresh seed).
        parameters: the solver's tunable parameters.
        position_only: the tips' goals are positions (BioIK's `position_only_ik`).
        rotation_scale: the tips' PoseGoal rotation scale (None: PoseGoal's default).
        center_joints_weight: > 0 adds a secondary `CenterJointsGoal` with this weight to
            every query.
        minimal_displacement_weight: > 0 adds a secondary `MinimalDisplacementGoal`.
        avoid_joint_limits_weight: > 0 adds a secondary `AvoidJointLimitsGoal`.
    """

    solver: str = "lm"
    timeout: float = 0.005
    position_tolerance: float = 1e-5
    rotation_tolerance: float = 1e-5
    max_iterations: int | None = None
    random_seed: int | None = None
    parameters: dict[str, float] = field(default_factory=dict)
    position_only: bool = False
    rotation_scale: float | None = None
    center_joints_weight: float = 0.0
    minimal_displacement_weight: float = 0.0
    avoid_joint_limits_weight: float = 0.0

    def __post_init__(self) -> None:
        _check({k: getattr(self, k) for k in _KEYS}, "KinematicsConfig")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "options", group: str | None = None) -> KinematicsConfig:
        """A config from a mapping. Errors name `source` and the key.

        Args:
            data: the field names as keys, or a MoveIt kinematics.yaml entry (MoveIt's and
                BioIK's keys), or a per-group kinematics.yaml mapping.
            source: what `data` came from, for error messages.
            group: the entry of a per-group mapping (None: its only group).

        Returns:
            The `KinematicsConfig`.
        """
        if not isinstance(data, Mapping):
            raise KinematicsConfigError(f"{source}: expected a table of settings; got {type(data).__name__}")
        entry, source = select_group(data, group, set(_KEYS), source)
        if not isinstance(entry, Mapping):
            raise KinematicsConfigError(f"{source}: expected a table of settings; got {type(entry).__name__}")
        values = translate(entry, set(_KEYS), source)
        defaults = {k: v for k, v in vars(cls()).items() if k in _KEYS}
        _check({**defaults, **values}, source)
        return cls(**values)

    @classmethod
    def from_file(cls, path: str | Path, group: str | None = None) -> KinematicsConfig:
        """Load a config from TOML (.toml) or YAML (.yaml/.yml; needs PyYAML), e.g. a MoveIt
        config package's kinematics.yaml.

        Args:
            path: the file.
            group: its entry (see `from_dict`).

        Returns:
            The `KinematicsConfig`.
        """
        path = Path(path)
        text = path.read_text()
        if path.suffix in (".yaml", ".yml"):
            try:
                import yaml
            except ImportError:
                raise KinematicsConfigError(f"{path}: reading YAML needs PyYAML (pip install pyyaml); or write the config as TOML") from None
            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as e:
                raise KinematicsConfigError(f"{path}: not valid YAML: {e}") from None
        elif path.suffix == ".toml":
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError as e:
                raise KinematicsConfigError(f"{path}: not valid TOML: {e}") from None
        else:
            raise KinematicsConfigError(f"{path}: expected a .toml, .yaml or .yml file")
        return cls.from_dict({} if data is None else data, source=str(path), group=group)


def _config(options: KinematicsConfig | Mapping[str, Any] | None) -> KinematicsConfig:
    if options is None:
        return KinematicsConfig()
    if isinstance(options, KinematicsConfig):
        return options
    return KinematicsConfig.from_dict(options)


def pose_goals(robot: Robot, poses: Mapping[str, Any] | Sequence[Any], config: KinematicsConfig | None = None) -> list[Goal]:
    """One goal per tip from {tip_link: 4×4} or a list in robot.tips order: a PoseGoal (with
    config.rotation_scale), or a PositionGoal if config.position_only."""
    if isinstance(poses, Mapping):
        unknown = sorted(set(poses) - set(robot.tips))
        missing = [t for t in robot.tips if t not in poses]
        if unknown or missing:
            raise ValueError(f"poses must have one 4×4 pose per tip link {robot.tips}; "
                             f"unknown: {unknown or 'none'}, missing: {missing or 'none'}")
        poses = [poses[t] for t in robot.tips]
    if isinstance(poses, np.ndarray) and poses.shape == (4, 4):
        poses = [poses]
    if not isinstance(poses, (Sequence, np.ndarray)) or len(poses) != len(robot.tips):
        n = len(poses) if isinstance(poses, (Sequence, np.ndarray)) else type(poses).__name__
        raise ValueError(f"poses must be {{tip_link: 4×4}} or a list of {len(robot.tips)} 4×4 poses in the order {robot.tips}; got {n}")
    config = config or KinematicsConfig()
    if config.position_only:
        return [PositionGoal(t, np.asarray(T, dtype=float)[:3, 3]) if np.shape(T) == (4, 4) else PoseGoal(t, T)
                for t, T in zip(robot.tips, poses)]
    scale = {} if config.rotation_scale is None else {"rotation_scale": config.rotation_scale}
    return [PoseGoal(t, T, **scale) for t, T in zip(robot.tips, poses)]


def query_goals(robot: Robot, poses: Any, config: KinematicsConfig, goals: Sequence[Goal], replace: bool) -> list[Goal]:
    """The goals of one query, as BioIK's plugin builds them: the tips' goals (unless
    `replace`), the config's secondary goals, then the caller's `goals`."""
    if isinstance(goals, Goal) or not isinstance(goals, Sequence):
        raise TypeError(f"goals must be a list of bioik goals; got {type(goals).__name__}")
    if replace and not goals:
        raise ValueError("replace=True needs goals: the tips' poses are replaced by them")
    out: list[Goal] = [] if replace else pose_goals(robot, poses, config)
    for cls, weight in ((CenterJointsGoal, config.center_joints_weight), (MinimalDisplacementGoal, config.minimal_displacement_weight),
                        (AvoidJointLimitsGoal, config.avoid_joint_limits_weight)):
        if weight > 0:
            out.append(cls(weight=float(weight)))
    return [*out, *goals]


def _held(robot: Robot, seed: Any, fixed_joints: Sequence[str]) -> tuple[Robot, np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """BioIK's fixed_joints: (the robot with them frozen at the seed's values, the seed of
    the other variables, and the map from its configurations back to the whole group's)."""
    q = robot.check(seed, "seed")
    names = robot.variable_names
    unknown = [j for j in fixed_joints if j not in names]
    if unknown or isinstance(fixed_joints, str):
        raise ValueError(f"fixed_joints must name variables of the group {names}; unknown: {unknown or fixed_joints!r}")
    free = np.array([i for i, n in enumerate(names) if n not in fixed_joints], dtype=int)
    if free.size == 0:
        raise ValueError("fixed_joints holds every joint of the group: nothing is left to search")
    held = robot.with_frozen({n: q[i] for i, n in enumerate(names) if n in fixed_joints}).with_group([names[i] for i in free])

    def whole(x: np.ndarray) -> np.ndarray:
        out = q.copy()
        out[free] = x
        return out

    return held, q[free], whole


def _code(success: bool) -> IKErrorCode:
    return IKErrorCode.SUCCESS if success else IKErrorCode.NO_IK_SOLUTION


def search_position_ik(
    robot: Robot,
    poses: Mapping[str, Any] | Sequence[Any],
    seed: Any,
    *,
    timeout: float | None = None,
    solution_callback: Callable[[np.ndarray], bool] | None = None,
    options: KinematicsConfig | Mapping[str, Any] | None = None,
    goals: Sequence[Goal] = (),
    replace: bool = False,
    fixed_joints: Sequence[str] = (),
) -> tuple[np.ndarray, IKErrorCode]:
    """Search (with restarts) until every tip meets its pose or the timeout passes.

    Args:
        robot: the robot.
        poses: {tip_link: 4×4} or one 4×4 per tip in robot.tips order. May be None with `replace`.
        seed: the start configuration.
        timeout: seconds (None: options.timeout).
        solution_callback: `callback(q) -> bool` may reject a solution, and the search
            goes on.
        options: a `KinematicsConfig` or a dict of its fields (or a kinematics.yaml entry).
        goals: BioIK's query goals, solved with the tips' poses.
        replace: solve `goals` instead of the tips' poses.
        fixed_joints: variable names of the group that stay at their seed values.

    Returns:
        (q within limits, `IKErrorCode`); q is the best configuration found even on failure.
    """
    config = _config(options)
    query = query_goals(robot, poses, config, goals, replace)
    target, start, callback, whole = robot, seed, solution_callback, None
    if fixed_joints:
        target, start, whole = _held(robot, seed, fixed_joints)
        if solution_callback is not None:
            def callback(x: np.ndarray) -> bool:  # the caller's callback sees the whole group
                return solution_callback(whole(x))
    res = solve(target, query, seed=start, timeout=config.timeout if timeout is None else timeout,
                solver=config.solver, callback=callback, random_seed=config.random_seed,
                max_iterations=config.max_iterations, position_tolerance=config.position_tolerance,
                rotation_tolerance=config.rotation_tolerance, **config.parameters)
    return (res.q if whole is None else whole(res.q)), _code(res.success)


def get_position_ik(
    robot: Robot,
    poses: Mapping[str, Any] | Sequence[Any],
    seed: Any,
    *,
    options: KinematicsConfig | Mapping[str, Any] | None = None,
) -> tuple[np.ndarray, IKErrorCode]:
    """Local IK: one `lm` descent of at most LOCAL_ITERATIONS steps from the seed, no
    restarts, so the answer stays in the seed's branch.

    Args:
        robot: the robot.
        poses: {tip_link: 4×4} or one 4×4 per tip in robot.tips order.
        seed: the start configuration.
        options: its tolerances (and `damping` if its solver is lm) are used; solver,
            timeout and the iteration budget are fixed by this call.

    Returns:
        (q within limits, `IKErrorCode`): NO_IK_SOLUTION if the descent fails.
    """
    config = _config(options)
    damping = config.parameters.get("damping") if config.solver == "lm" else None
    params = {"attempt_iterations": LOCAL_ITERATIONS + 1, "stall_ratio": 1e300}  # never restart
    if damping is not None:
        params["damping"] = damping
    res = solve(robot, pose_goals(robot, poses, config), seed=robot.check(seed, "seed"), timeout=3600.0, solver="lm",
                random_seed=0, max_iterations=LOCAL_ITERATIONS, position_tolerance=config.position_tolerance,
                rotation_tolerance=config.rotation_tolerance, **params)
    return res.q, _code(res.success)
