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

from bioik.goals.pose import PoseGoal
from bioik.kinematics.robot import Robot
from bioik.solvers.api import solve
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
}


def _check(values: Mapping[str, Any], source: str) -> None:
    """ValueError naming `source` and the key for the first bad setting in `values`."""
    for key, types in _KEYS.items():
        v = values[key]
        if v is None and key in ("max_iterations", "random_seed"):
            continue
        if not isinstance(v, types) or isinstance(v, bool):
            expected = " or ".join(t.__name__ for t in types)
            raise ValueError(f"{source}: key {key!r} must be {expected}; got {type(v).__name__} {v!r}")
    solver = values["solver"]
    if solver not in SOLVERS:
        raise ValueError(f"{source}: key 'solver' must be one of {', '.join(sorted(SOLVERS))}; got {solver!r}")
    if not 0 < values["timeout"] < math.inf:
        raise ValueError(f"{source}: key 'timeout' must be a finite number of seconds > 0; got {values['timeout']!r}")
    for key in ("position_tolerance", "rotation_tolerance"):
        if not 0 <= values[key] < math.inf:
            raise ValueError(f"{source}: key {key!r} must be finite and >= 0; got {values[key]!r}")
    if values["max_iterations"] is not None and values["max_iterations"] < 1:
        raise ValueError(f"{source}: key 'max_iterations' must be >= 1; got {values['max_iterations']!r}")
    known = SOLVERS[solver].defaults
    for name, v in values["parameters"].items():
        if name not in known:
            raise ValueError(f"{source}: key 'parameters.{name}' is not a parameter of solver {solver!r}; known: {', '.join(known)}")
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
            raise ValueError(f"{source}: key 'parameters.{name}' must be a finite number; got {v!r}")


@dataclass
class KinematicsConfig:
    """Solver settings, as in a MoveIt kinematics.yaml group entry.

    solver: a name from `bioik.solvers.names()`; timeout: seconds per search;
    position_tolerance (m) / rotation_tolerance (rad): success thresholds;
    max_iterations / random_seed: an iteration budget and RNG seed for reproducible runs
    (None: no budget / a fresh seed); parameters: the solver's tunable parameters.
    """

    solver: str = "lm"
    timeout: float = 0.005
    position_tolerance: float = 1e-5
    rotation_tolerance: float = 1e-5
    max_iterations: int | None = None
    random_seed: int | None = None
    parameters: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check({k: getattr(self, k) for k in _KEYS}, "KinematicsConfig")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "options") -> KinematicsConfig:
        """A config from a mapping with the field names as keys; errors name `source`."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{source}: expected a table of settings; got {type(data).__name__}")
        unknown = sorted(set(data) - set(_KEYS))
        if unknown:
            raise ValueError(f"{source}: unknown key {unknown[0]!r}; known keys: {', '.join(_KEYS)}")
        defaults = {k: v for k, v in vars(cls()).items() if k in _KEYS}
        _check({**defaults, **data}, source)
        return cls(**data)

    @classmethod
    def from_file(cls, path: str | Path) -> KinematicsConfig:
        """Load a config from TOML (.toml) or YAML (.yaml/.yml; needs PyYAML)."""
        path = Path(path)
        text = path.read_text()
        if path.suffix in (".yaml", ".yml"):
            try:
                import yaml
            except ImportError:
                raise ValueError(f"{path}: reading YAML needs PyYAML (pip install pyyaml); or write the config as TOML") from None
            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as e:
                raise ValueError(f"{path}: not valid YAML: {e}") from None
        elif path.suffix == ".toml":
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError as e:
                raise ValueError(f"{path}: not valid TOML: {e}") from None
        else:
            raise ValueError(f"{path}: expected a .toml, .yaml or .yml file")
        return cls.from_dict({} if data is None else data, source=str(path))


def _config(options: KinematicsConfig | Mapping[str, Any] | None) -> KinematicsConfig:
    if options is None:
        return KinematicsConfig()
    if isinstance(options, KinematicsConfig):
        return options
    return KinematicsConfig.from_dict(options)


def pose_goals(robot: Robot, poses: Mapping[str, Any] | Sequence[Any]) -> list[PoseGoal]:
    """One PoseGoal per tip from {tip_link: 4×4} or a list in robot.tips order."""
    if isinstance(poses, Mapping):
        unknown = sorted(set(poses) - set(robot.tips))
        missing = [t for t in robot.tips if t not in poses]
        if unknown or missing:
            raise ValueError(f"poses must have one 4×4 pose per tip link {robot.tips}; "
                             f"unknown: {unknown or 'none'}, missing: {missing or 'none'}")
        return [PoseGoal(t, poses[t]) for t in robot.tips]
    if isinstance(poses, np.ndarray) and poses.shape == (4, 4):
        poses = [poses]
    if not isinstance(poses, (Sequence, np.ndarray)) or len(poses) != len(robot.tips):
        n = len(poses) if isinstance(poses, (Sequence, np.ndarray)) else type(poses).__name__
        raise ValueError(f"poses must be {{tip_link: 4×4}} or a list of {len(robot.tips)} 4×4 poses in the order {robot.tips}; got {n}")
    return [PoseGoal(t, T) for t, T in zip(robot.tips, poses)]


def _code(success: bool) -> IKErrorCode:
    return IKErrorCode.SUCCESS if success else IKErrorCode.NO_IK_SOLUTION


def search_position_ik(
    robot: Robot,
    poses: Mapping[str, Any] | Sequence[Any],
    seed: Any,
    timeout: float | None = None,
    solution_callback: Callable[[np.ndarray], bool] | None = None,
    options: KinematicsConfig | Mapping[str, Any] | None = None,
) -> tuple[np.ndarray, IKErrorCode]:
    """Search (with restarts) until every tip meets its pose or the timeout passes.

    poses: {tip_link: 4×4} or one 4×4 per tip in robot.tips order; timeout: seconds
    (None: options.timeout); solution_callback(q) -> bool may reject a solution, and the
    search goes on; options: a `KinematicsConfig` or a dict of its fields.
    Returns (q within limits, IKErrorCode); q is the best configuration found even on failure.
    """
    config = _config(options)
    res = solve(robot, pose_goals(robot, poses), seed=seed, timeout=config.timeout if timeout is None else timeout,
                solver=config.solver, callback=solution_callback, random_seed=config.random_seed,
                max_iterations=config.max_iterations, position_tolerance=config.position_tolerance,
                rotation_tolerance=config.rotation_tolerance, **config.parameters)
    return res.q, _code(res.success)


def get_position_ik(
    robot: Robot,
    poses: Mapping[str, Any] | Sequence[Any],
    seed: Any,
    options: KinematicsConfig | Mapping[str, Any] | None = None,
) -> tuple[np.ndarray, IKErrorCode]:
    """Local IK: one `lm` descent of at most LOCAL_ITERATIONS steps from the seed, no
    restarts, so the answer stays in the seed's branch (NO_IK_SOLUTION if it fails).

    options: tolerances (and `damping` if its solver is lm) are used; solver, timeout and
    the iteration budget are fixed by this call.
    """
    config = _config(options)
    damping = config.parameters.get("damping") if config.solver == "lm" else None
    params = {"attempt_iterations": LOCAL_ITERATIONS + 1, "stall_ratio": 1e300}  # never restart
    if damping is not None:
        params["damping"] = damping
    res = solve(robot, pose_goals(robot, poses), seed=robot.check(seed, "seed"), timeout=3600.0, solver="lm",
                random_seed=0, max_iterations=LOCAL_ITERATIONS, position_tolerance=config.position_tolerance,
                rotation_tolerance=config.rotation_tolerance, **params)
    return res.q, _code(res.success)
