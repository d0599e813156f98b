"""What every goal checks when it is built or edited: weight and tolerances."""

import numpy as np
import pytest

import bioik
from bioik.goals.base import MAX_WEIGHT


@pytest.mark.parametrize("weight", [-1.0, np.nan, np.inf, 1e300, MAX_WEIGHT * 1.0001])
def test_weights_outside_the_range_are_refused(weight):
    with pytest.raises(ValueError, match=r"PositionGoal: weight must be a number in \[0, 1e\+06\]"):
        bioik.PositionGoal("tool0", np.zeros(3), weight=weight)


@pytest.mark.parametrize("weight", ["abc", None, [1.0]])
def test_weights_that_are_not_numbers_are_named(weight):
    with pytest.raises(TypeError, match="weight must be a number"):
        bioik.PositionGoal("tool0", np.zeros(3), weight=weight)


def test_weights_within_the_range_are_kept():
    for w in (0.0, 1e-9, 1.0, MAX_WEIGHT):
        assert bioik.PositionGoal("tool0", np.zeros(3), weight=w).weight == w


def test_a_weight_reassigned_out_of_range_is_refused_at_the_next_use():
    goal = bioik.LineGoal("tool0", np.zeros(3), np.array([0.0, 0.0, 1.0]))
    goal.weight = 1e300
    with pytest.raises(ValueError, match="weight must be"):
        goal.refresh()


@pytest.mark.parametrize("tol", [-1e-3, np.nan, np.inf])
def test_bad_tolerances_are_refused(tol):
    with pytest.raises(ValueError, match="position_tolerance must be a finite number >= 0"):
        bioik.PoseGoal("tool0", np.eye(4), position_tolerance=tol)


def test_a_tolerance_that_is_not_a_number_is_named():
    with pytest.raises(TypeError, match="rotation_tolerance must be a finite number"):
        bioik.PoseGoal("tool0", np.eye(4), rotation_tolerance="small")
