"""bioik — inverse kinematics for Python.

Robots come from URDF or the bundled models (`bioik.robots.names()`); `load_robot`
returns a `Robot` with forward kinematics and Jacobians; `solve(robot, goals)` finds
joint values that meet the goals.
"""

from bioik._kernel_cache import ensure_fresh as _ensure_fresh_kernels

_ensure_fresh_kernels()

from bioik import goals, robots  # noqa: E402
from bioik.goals import *  # noqa: E402, F403 — every goal class at the top level
from bioik.goals import __all__ as _goal_names  # noqa: E402
from bioik.errors import BioikError  # noqa: E402
from bioik.kinematics.robot import Robot  # noqa: E402
from bioik.model import URDFError, UnknownNameError  # noqa: E402
from bioik.problem import Problem  # noqa: E402
from bioik.moveit import IKErrorCode, KinematicsConfig, get_position_ik, search_position_ik  # noqa: E402
from bioik.solvers import Result, Solver, UnsupportedGoalsError, solve  # noqa: E402
from bioik.robots import load_robot  # noqa: E402
from bioik.scene import Scene, SceneError  # noqa: E402
from bioik import scenes  # noqa: E402 — the bundled benchmark scenarios
from bioik.rollout import Rollout, rollout  # noqa: E402
from bioik.track import TrackResult, track  # noqa: E402

__version__ = "0.1.0"

__all__ = ["BioikError", "CollisionChecker", "Problem", "Scene", "SceneError", "Result", "Robot", "Solver", "URDFError", "UnknownNameError", "UnsupportedGoalsError", "goals", "load_robot", "robots", "scenes", "solve", "track", "TrackResult", "rollout", "Rollout",
           "IKErrorCode", "KinematicsConfig", "get_position_ik", "search_position_ik", *_goal_names]


def __getattr__(name: str):
    # the exact collision checker needs coal (pip install bioik[collision]): imported on first use
    if name in ("CollisionChecker", "Contact"):
        from bioik.collision import checker

        return getattr(checker, name)
    raise AttributeError(f"module 'bioik' has no attribute {name!r}")
