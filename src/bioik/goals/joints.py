"""Goals on joint values only [R 3.8, eqs. 3.8–3.11]; secondary by default except JointVariable.

`vdata` rows (one per active variable): lower, upper, reference (the seed), displacement
weight (1/vmax)/Σ(1/vmax), centre, half range. A variable without limits (a continuous
joint, a planar or floating base) has half range +inf: it has no middle, so CenterJoints
and AvoidJointLimits leave it alone, as BioIK does.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

import numpy as np
from numba import njit

from bioik.errors import GoalError
from bioik.goals.base import AVOID_JOINT_LIMITS, N_PARAMS, Goal, finite_number
from bioik.goals.registry import PER_VARIABLE
from bioik.kinematics.frames import JIT

LOWER, UPPER, REFERENCE, DISP_WEIGHT, CENTER, HALF_RANGE = 0, 1, 2, 3, 4, 5
N_VDATA = 6

JOINT_VARIABLE, CENTER_JOINTS, MINIMAL_DISPLACEMENT = 20, 21, 23


# Residual kernels: r and Jq = ∂r/∂q (zeroed by the caller) from the parameter row p,
# the joint values q and the joint data vdata; they return the number of rows.


@njit(**JIT)
def joint_variable_residual(p, q, vdata, r, Jq):
    i = int(p[0])
    r[0] = q[i] - p[1]
    Jq[0, i] = 1.0
    return 1


@njit(**JIT)
def center_joints_residual(p, q, vdata, r, Jq):
    n = q.shape[0]
    for i in range(n):
        if vdata[i, HALF_RANGE] == np.inf:  # no limits, no middle
            r[i] = 0.0
            continue
        w = vdata[i, DISP_WEIGHT]
        r[i] = w * (q[i] - vdata[i, CENTER])
        Jq[i, i] = w
    return n


@njit(**JIT)
def avoid_joint_limits_residual(p, q, vdata, r, Jq):
    n = q.shape[0]
    for i in range(n):
        d = q[i] - vdata[i, CENTER]
        e = 2.0 * abs(d) - vdata[i, HALF_RANGE]
        if e > 0.0:
            r[i] = e
            Jq[i, i] = 2.0 if d >= 0.0 else -2.0
        else:
            r[i] = 0.0
    return n


@njit(**JIT)
def minimal_displacement_residual(p, q, vdata, r, Jq):
    n = q.shape[0]
    for i in range(n):
        w = vdata[i, DISP_WEIGHT]
        r[i] = w * (q[i] - vdata[i, REFERENCE])
        Jq[i, i] = w
    return n


@dataclass
class JointVariableGoal(Goal):
    """Drive one joint variable to `value`: c = (q_j − value)².

    Args:
        variable: the joint variable's name.
        value: its goal value.
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: met when ‖r‖ ≤ tolerance.
    """

    variable: str
    value: float
    _: KW_ONLY
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-5
    kind = JOINT_VARIABLE
    size = 1
    kernel = joint_variable_residual
    link_count = 0

    def __post_init__(self):
        super().__post_init__()
        self.value = finite_number(self.value, "value", "JointVariableGoal")

    def params(self, robot):
        p = np.zeros(N_PARAMS)
        if self.variable not in robot.variable_names:
            robot.model.variable_index(self.variable)  # unknown name → error listing close names
            raise GoalError(f"JointVariableGoal: variable {self.variable!r} is not in the active group {robot.group.name!r}")
        p[0] = robot.variable_names.index(self.variable)
        p[1] = self.value
        return p


@dataclass
class CenterJointsGoal(Goal):
    """Keep joints near the middle of their ranges: c = Σ (w_i(q_i − mid_i))² [eq. 3.9],
    w_i = (1/vmax_i)/Σ(1/vmax) as in BioIK's implementation (slow joints count more), over
    the variables with limits only (a continuous joint or a mobile base has no middle).

    Args:
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default True).
        tolerance: met when ‖r‖ ≤ tolerance.
    """

    _: KW_ONLY
    weight: float = 1.0
    secondary: bool = True
    tolerance: float = 1e-5
    kind = CENTER_JOINTS
    size = PER_VARIABLE
    kernel = center_joints_residual
    link_count = 0


@dataclass
class AvoidJointLimitsGoal(Goal):
    """Keep joints in the centre half of their ranges [eq. 3.10]:
    c = Σ max(0, |q_i − mid_i|·2 − half_range_i)², over the variables with limits only.

    Args:
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default True).
        tolerance: met when ‖r‖ ≤ tolerance.
    """

    _: KW_ONLY
    weight: float = 1.0
    secondary: bool = True
    tolerance: float = 1e-5
    kind = AVOID_JOINT_LIMITS
    size = PER_VARIABLE
    kernel = avoid_joint_limits_residual
    link_count = 0


@dataclass
class MinimalDisplacementGoal(Goal):
    """Stay near the seed, each joint weighted by its normalised 1/vmax [eq. 3.8].

    Args:
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default True).
        tolerance: met when ‖r‖ ≤ tolerance.
    """

    _: KW_ONLY
    weight: float = 1.0
    secondary: bool = True
    tolerance: float = 1e-5
    kind = MINIMAL_DISPLACEMENT
    size = PER_VARIABLE
    kernel = minimal_displacement_residual
    link_count = 0


def joint_data(robot, reference: np.ndarray) -> np.ndarray:
    """The `vdata` table for a robot and a reference (seed) configuration."""
    inv_v = 1.0 / np.maximum(robot.velocity, 1e-9)
    v = np.empty((robot.dof, 6))
    v[:, LOWER] = robot.lower
    v[:, UPPER] = robot.upper
    v[:, REFERENCE] = reference
    v[:, DISP_WEIGHT] = inv_v / inv_v.sum()
    bounded = np.isfinite(robot.lower) & np.isfinite(robot.upper)
    v[:, CENTER] = np.where(bounded, 0.5 * (robot.sample_lower + robot.sample_upper), 0.0)  # the limits where bounded
    v[:, HALF_RANGE] = np.where(bounded, 0.5 * (robot.sample_upper - robot.sample_lower), np.inf)
    return v
