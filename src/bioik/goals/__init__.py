"""Goals: weighted residual costs that every solver consumes (goal types of [R 3.8], [E 8])."""

from bioik.goals.balance import BalanceGoal
from bioik.goals.base import Goal
from bioik.goals.cone import ConeGoal
from bioik.goals.direction import AlignmentGoal, DirectionGoal
from bioik.goals.distance import MaxDistanceGoal, MinDistanceGoal
from bioik.goals.functions import JointFunctionGoal, LinkFunctionGoal
from bioik.goals.joints import AvoidJointLimitsGoal, CenterJointsGoal, JointVariableGoal, MinimalDisplacementGoal
from bioik.goals.line import LineGoal
from bioik.goals.look_at import LookAtGoal
from bioik.goals.pose import OrientationGoal, PoseGoal, PositionGoal
from bioik.goals.rcm import RCMGoal
from bioik.goals.side import SideGoal

__all__ = [
    "AlignmentGoal",
    "AvoidJointLimitsGoal",
    "BalanceGoal",
    "CenterJointsGoal",
    "ConeGoal",
    "DirectionGoal",
    "Goal",
    "JointFunctionGoal",
    "JointVariableGoal",
    "LineGoal",
    "LinkFunctionGoal",
    "LookAtGoal",
    "MaxDistanceGoal",
    "MinDistanceGoal",
    "MinimalDisplacementGoal",
    "OrientationGoal",
    "PoseGoal",
    "PositionGoal",
    "RCMGoal",
    "SideGoal",
]
