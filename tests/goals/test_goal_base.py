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


@pytest.mark.parametrize("field", ["weight", "tolerance"])
def test_an_int_past_the_float_range_is_refused_as_out_of_range(field):
    with pytest.raises(ValueError, match=f"LineGoal: {field} must be a"):
        bioik.LineGoal("tool0", np.zeros(3), np.array([0.0, 0.0, 1.0]), **{field: 10**400})
    with pytest.raises(ValueError, match="position must be 3 numbers"):
        bioik.PositionGoal("tool0", [10**400, 0, 0])
    with pytest.raises(ValueError, match="CollisionAvoidanceGoal: margin must be finite"):
        bioik.CollisionAvoidanceGoal(margin=10**400)


@pytest.mark.parametrize("secondary", [np.array([True, False]), "no", None, 1])
def test_secondary_must_be_true_or_false(secondary):
    with pytest.raises(TypeError, match="CenterJointsGoal: secondary must be True or False"):
        bioik.CenterJointsGoal(secondary=secondary)
    assert bioik.CenterJointsGoal(secondary=np.bool_(False)).is_secondary is False


@pytest.mark.parametrize("make", [lambda: bioik.PositionGoal(["tool0"], np.zeros(3)),
                                  lambda: bioik.LookAtGoal(np.array(["tool0"]), np.ones(3)),
                                  lambda: bioik.JointVariableGoal(5, 0.0)])
def test_link_and_variable_names_must_be_strings(make):
    with pytest.raises(TypeError, match=r"(link|variable) must be a (link|variable) name \(a str\)"):
        make()


def test_weights_and_tolerances_are_kept_as_the_floats_they_were_checked_as():
    goal = bioik.LineGoal("tool0", np.zeros(3), np.array([0.0, 0.0, 1.0]), weight="2", tolerance=np.float32(0.5))
    assert type(goal.weight) is float and goal.weight == 2.0
    assert type(goal.tolerance) is float and goal.tolerance == 0.5
    goal.weight = "1"  # reassigned: the problem compares weights as numbers
    goal.refresh()
    assert type(goal.weight) is float and goal.weight == 1.0
