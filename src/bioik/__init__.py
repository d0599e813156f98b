"""bioik — inverse kinematics for Python.

Robots come from URDF or the bundled models (`bioik.robots.names()`); `load_robot`
returns a `Robot` with forward kinematics and Jacobians; `solve(robot, goals)` finds
joint values that meet the goals.

What a solve does not need is imported on first use (`__getattr__`): the MoveIt plugin
API, the bundled scenarios, and the exact collision checker (which needs coal, `pip
install bioik[collision]`). So `bioik solve` on the command line starts faster, and
`bioik.CollisionChecker` works where coal is installed.
"""

from __future__ import annotations

import gc as _gc
import importlib as _importlib
from typing import TYPE_CHECKING, Any

from bioik._kernel_cache import ensure_fresh as _ensure_fresh_kernels

_ensure_fresh_kernels()

# These imports (numba's among them) make ~120,000 objects that live as long as the process:
# the cyclic collector, run as they come, would traverse them again and again to free
# nothing (≈ 60 ms of the import). It is off until they are made.
_collecting = _gc.isenabled()
_gc.disable()
try:
    from bioik import goals, robots
    from bioik.errors import (BenchError as BenchError, BioikError as BioikError, GoalError as GoalError,
                              GoalRegistryError as GoalRegistryError, GoalSetRefused as GoalSetRefused,
                              GoalTypeError as GoalTypeError, KinematicsConfigError as KinematicsConfigError,
                              MeshNotFoundError as MeshNotFoundError, MissingNetworkError as MissingNetworkError,
                              MoveItConfigError as MoveItConfigError,
                              NetworkMismatchError as NetworkMismatchError, ParameterError as ParameterError,
                              ParameterTypeError as ParameterTypeError, PeerSkipped as PeerSkipped, ReachError as ReachError,
                              SceneError as SceneError, SelfCollisionError as SelfCollisionError, SRDFError as SRDFError, UnknownNameError as UnknownNameError,
                              UnsupportedGoalsError as UnsupportedGoalsError, URDFError as URDFError)
    from bioik.goals import (AlignmentGoal as AlignmentGoal, AvoidJointLimitsGoal as AvoidJointLimitsGoal,
                             BalanceGoal as BalanceGoal, CenterJointsGoal as CenterJointsGoal, ClearanceGoal as ClearanceGoal,
                             CollisionAvoidanceGoal as CollisionAvoidanceGoal, ConeGoal as ConeGoal,
                             DirectionGoal as DirectionGoal, Goal as Goal, JointFunctionGoal as JointFunctionGoal,
                             JointVariableGoal as JointVariableGoal, LineGoal as LineGoal, LinkFunctionGoal as LinkFunctionGoal,
                             LookAtGoal as LookAtGoal, MaxDistanceGoal as MaxDistanceGoal, MinDistanceGoal as MinDistanceGoal,
                             MinimalDisplacementGoal as MinimalDisplacementGoal, ObstacleDistanceGoal as ObstacleDistanceGoal,
                             OrientationGoal as OrientationGoal, PoseGoal as PoseGoal, PositionGoal as PositionGoal,
                             RCMGoal as RCMGoal, ScanGoal as ScanGoal, SideGoal as SideGoal, TouchGoal as TouchGoal)
    from bioik.kinematics.robot import Robot
    from bioik.problem import Problem
    from bioik.solvers import BatchResult, GoalBatch, Result, Solver, solve, solve_batch
    from bioik.solvers import api as _solvers_api
    from bioik.robots import load_robot
    from bioik.scene import Scene
    from bioik.rollout import Rollout, rollout
    from bioik.track import TrackResult, track
finally:
    if _collecting:
        _gc.enable()

def _passage_routes(robot: Robot) -> Any:
    """The default solver's turn to `PassageSolver` for a tool tip among obstacles
    (`bioik.solvers.api.passage_routes`), imported on a scene solve's first use."""
    from bioik.passage_solver import PassageRoutes

    return PassageRoutes(robot)


_solvers_api.passage_routes = _passage_routes

if TYPE_CHECKING:  # what `__getattr__` imports on first use
    from bioik import scenes
    from bioik.collision.checker import CollisionChecker, Contact
    from bioik.decoupling import Decoupler, decoupled_solve
    from bioik.passage_solver import PassageSolver
    from bioik.scene.passage import Passage, PassageFinder
    from bioik.moveit import IKErrorCode, KinematicsConfig, get_position_ik, search_position_ik
    from bioik.moveit_package import MoveItConfig, load_moveit_config

__version__ = "0.1.0"

__all__ = [
    # robots and solving
    "BatchResult", "GoalBatch", "Problem", "Result", "Robot", "Solver", "load_robot", "robots", "solve", "solve_batch",
    "Rollout", "TrackResult", "rollout", "track", "Decoupler", "decoupled_solve", "Passage", "PassageFinder", "PassageSolver",
    # scenes and collisions
    "CollisionChecker", "Contact", "Scene", "scenes",
    # MoveIt
    "IKErrorCode", "KinematicsConfig", "MoveItConfig", "get_position_ik", "load_moveit_config", "search_position_ik",
    # goals
    "goals", "AlignmentGoal", "AvoidJointLimitsGoal", "BalanceGoal", "CenterJointsGoal", "ClearanceGoal",
    "CollisionAvoidanceGoal", "ConeGoal", "DirectionGoal", "Goal", "JointFunctionGoal", "JointVariableGoal", "LineGoal",
    "LinkFunctionGoal", "LookAtGoal", "MaxDistanceGoal", "MinDistanceGoal", "MinimalDisplacementGoal", "ObstacleDistanceGoal",
    "OrientationGoal", "PoseGoal", "PositionGoal", "RCMGoal", "ScanGoal", "SideGoal", "TouchGoal",
    # errors
    "BenchError", "BioikError", "GoalError", "GoalRegistryError", "GoalSetRefused", "GoalTypeError",
    "KinematicsConfigError", "MeshNotFoundError", "MoveItConfigError", "MissingNetworkError", "NetworkMismatchError", "ParameterError",
    "ParameterTypeError", "PeerSkipped", "ReachError", "SceneError", "SelfCollisionError", "SRDFError", "UnknownNameError", "UnsupportedGoalsError",
    "URDFError",
]

#: The module that defines each name imported on first use ("scenes" is that module itself).
_LAZY = {
    "scenes": "bioik.scenes",
    "CollisionChecker": "bioik.collision.checker",
    "Contact": "bioik.collision.checker",
    "Decoupler": "bioik.decoupling",
    "decoupled_solve": "bioik.decoupling",
    "Passage": "bioik.scene.passage",
    "PassageFinder": "bioik.scene.passage",
    "PassageSolver": "bioik.passage_solver",
    "IKErrorCode": "bioik.moveit",
    "KinematicsConfig": "bioik.moveit",
    "get_position_ik": "bioik.moveit",
    "search_position_ik": "bioik.moveit",
    "MoveItConfig": "bioik.moveit_package",
    "load_moveit_config": "bioik.moveit_package",
}


if not TYPE_CHECKING:  # type checkers read the imports above: a misspelt name is an error, not Any

    def __getattr__(name: str) -> Any:
        """Import a name of `_LAZY` on first use and keep it."""
        if name not in _LAZY:
            raise AttributeError(f"module 'bioik' has no attribute {name!r}")
        module = _importlib.import_module(_LAZY[name])
        value = module if name == "scenes" else getattr(module, name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    """The module's names, those imported on first use included (for completion)."""
    return sorted({*globals(), *__all__})
