"""Goals: weighted residual costs that every solver consumes (goal types of [R 3.8], [E 8]).

Each goal class is imported here by name (aliases such as `AlignmentGoal` included), and
from here by `bioik`, so that type checkers and editors see every one; importing them
registers every goal kind (`bioik.goals.registry`). tests/goals/test_exports.py fails
when a goal module's class is missing here or in `bioik`.
"""

from bioik.goals.balance import BalanceGoal as BalanceGoal
from bioik.goals.base import Goal as Goal
from bioik.goals.clearance import ClearanceGoal as ClearanceGoal
from bioik.goals.collision import CollisionAvoidanceGoal as CollisionAvoidanceGoal
from bioik.goals.cone import ConeGoal as ConeGoal
from bioik.goals.direction import AlignmentGoal as AlignmentGoal, DirectionGoal as DirectionGoal
from bioik.goals.distance import MaxDistanceGoal as MaxDistanceGoal, MinDistanceGoal as MinDistanceGoal
from bioik.goals.functions import JointFunctionGoal as JointFunctionGoal, LinkFunctionGoal as LinkFunctionGoal
from bioik.goals.joints import (AvoidJointLimitsGoal as AvoidJointLimitsGoal, CenterJointsGoal as CenterJointsGoal,
                                JointVariableGoal as JointVariableGoal, MinimalDisplacementGoal as MinimalDisplacementGoal)
from bioik.goals.line import LineGoal as LineGoal
from bioik.goals.look_at import LookAtGoal as LookAtGoal
from bioik.goals.obstacle_distance import ObstacleDistanceGoal as ObstacleDistanceGoal
from bioik.goals.pose import OrientationGoal as OrientationGoal, PoseGoal as PoseGoal, PositionGoal as PositionGoal
from bioik.goals.rcm import RCMGoal as RCMGoal
from bioik.goals.scan import ScanGoal as ScanGoal
from bioik.goals.side import SideGoal as SideGoal
from bioik.goals.touch import TouchGoal as TouchGoal

__all__ = [
    "AlignmentGoal", "AvoidJointLimitsGoal", "BalanceGoal", "CenterJointsGoal", "ClearanceGoal", "CollisionAvoidanceGoal",
    "ConeGoal", "DirectionGoal", "Goal", "JointFunctionGoal", "JointVariableGoal", "LineGoal", "LinkFunctionGoal",
    "LookAtGoal", "MaxDistanceGoal", "MinDistanceGoal", "MinimalDisplacementGoal", "ObstacleDistanceGoal",
    "OrientationGoal", "PoseGoal", "PositionGoal", "RCMGoal", "ScanGoal", "SideGoal", "TouchGoal",
]
