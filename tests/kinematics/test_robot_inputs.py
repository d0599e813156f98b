"""What a Robot is given is checked and named when bad: frozen joint values (finite numbers
within their joint's limits), groups, configurations, counts and generators."""

import numpy as np
import pytest
from urdf_samples import TREE_URDF

import bioik
from bioik.model import UnknownNameError
from bioik.model.group import moved_links


@pytest.fixture(scope="module")
def tree():
    return bioik.load_robot(TREE_URDF)


@pytest.mark.parametrize(("value", "expected"), [
    (np.nan, "joint 'j3' is nan; expected a finite number within its limits [-1.5, 1.5]"),
    (np.inf, "joint 'j3' is inf; expected a finite number within its limits [-1.5, 1.5]"),
    (-np.inf, "joint 'j3' is -inf; expected a finite number within its limits"),
    (1.6, "joint 'j3' is 1.6; expected a finite number within its limits [-1.5, 1.5]"),
    (10**400, "joint 'j3' is inf; expected a finite number within its limits [-1.5, 1.5]"),
    ("left", "joint 'j3' is 'left'; expected a number"),
    (None, "joint 'j3' is None; expected a number"),
])
def test_bad_frozen_values_are_named(tree, value, expected):
    with pytest.raises(ValueError, match="frozen value of " + expected.replace("[", r"\[").replace("]", r"\]")):
        bioik.load_robot(TREE_URDF, group=["j1"], frozen={"j3": value})
    with pytest.raises(ValueError, match="frozen value of joint 'j3'"):
        tree.with_group(["j1"]).with_frozen({"j3": value})


def test_continuous_joints_may_be_frozen_anywhere_finite(tree):
    robot = tree.with_group(["j1"]).with_frozen({"j2": 40.0})
    assert robot.frozen[tree.model.variable_index("j2")] == 40.0
    with pytest.raises(ValueError, match="frozen value of joint 'j2' is inf; expected a finite number"):
        tree.with_group(["j1"]).with_frozen({"j2": np.inf})


def test_frozen_limits_are_inclusive(tree):
    robot = bioik.load_robot(TREE_URDF, group=["j1"], frozen={"j3": 1.5, "slide": 0.0})
    assert robot.frozen[tree.model.variable_index("j3")] == 1.5


def test_frozen_array_is_checked_against_the_limits(tree):
    full = np.zeros(4)
    full[tree.model.variable_index("slide")] = 0.5
    with pytest.raises(ValueError, match=r"frozen value of joint 'slide' is 0.5; expected .* within its limits \[0.0, 0.2\]"):
        bioik.Robot(tree.model, ["j1"], frozen=full)


def test_unknown_frozen_joint_is_named(tree):
    with pytest.raises(UnknownNameError, match="unknown joint variable 'j9'.*closest: j[123]"):
        bioik.load_robot(TREE_URDF, group=["j1"], frozen={"j9": 0.0})
    with pytest.raises(ValueError, match="unknown joint variable 'finger_joint'"):  # a mimic joint has no value of its own
        tree.with_frozen({"finger_joint": 0.0})


def test_a_joint_listed_twice_in_a_group_is_refused(tree):
    with pytest.raises(ValueError, match="group of robot 'tree' lists joint 'j1' twice; expected each joint once"):
        tree.with_group(["j1", "j3", "j1"])
    with pytest.raises(ValueError, match="lists joint 'j2' twice"):
        tree.with_group({"joints": ["j2", "j2"], "tips": ["tip_a"]})


def test_a_chain_listed_twice_is_refused_but_chains_may_share_joints(tree):
    with pytest.raises(ValueError, match=r"lists chain \['base', 'tip_a'\] twice; expected each chain once"):
        tree.with_group([("base", "tip_a"), ("base", "tip_a")])
    both = tree.with_group([("base", "tip_a"), ("base", "tip_b")])
    assert both.variable_names == ["j1", "j2", "j3", "slide"] and both.tips == ["tip_a", "tip_b"]


@pytest.mark.parametrize("group, match", [
    ({"joints": 5}, "group key 'joints' must be a list of joint names; got 5"),
    ({"joints": ["j1"], "tips": "tip_a"}, "group key 'tips' must be a list of link names"),
    ({"chains": [5]}, r"group chain 5 must be a \[base, tip\] pair"),
    (10**400, "cannot read group"),
    ([[5]], "cannot read group"),
    (np.array(1.0), "cannot read group"),
])
def test_a_group_of_the_wrong_form_is_named(tree, group, match):
    with pytest.raises(ValueError, match=match):
        tree.with_group(group)


def test_the_links_a_group_moves_are_found_in_one_walk():
    """Each link is entered once, whatever the number of joints above it (a walk per joint
    made loading a 5,000-link chain take 15 s, and 20,000 links 4 minutes)."""
    model = bioik.robots.snake(300).model
    entered = []

    class Counting(list):
        def __getitem__(self, link):
            entered.append(link)
            return super().__getitem__(link)

    model.child_joints = Counting(model.child_joints)
    assert len(moved_links(model, list(range(len(model.joints))))) == len(model.link_names) - 1
    assert len(entered) == len(model.link_names) - 1


@pytest.mark.parametrize("rng, n, match", [
    (None, -1, "n must be None .one configuration. or a whole number >= 0; got -1"),
    (None, 1.5, "n must be None"),
    (None, "2", "n must be None"),
    (1.5, None, "rng must be a numpy Generator, a seed .a whole number >= 0. or None; got 1.5"),
    (-1, None, "rng must be"),
    ("x", 3, "rng must be"),
])
def test_random_configuration_names_a_bad_count_or_generator(tree, rng, n, match):
    with pytest.raises(ValueError, match=match):
        tree.random_configuration(rng, n)


def test_with_frozen_takes_a_dict(tree):
    with pytest.raises(TypeError, match="with_frozen takes a dict of joint values by variable name; got list"):
        tree.with_group(["j1"]).with_frozen([0.0])


@pytest.mark.parametrize("call", [
    lambda r: r.link_pose([10**400, 0, 0, 0], "tip_a"),
    lambda r: r.jacobian(np.zeros(4), "tip_a", [10**400, 0, 0]),
    lambda r: r.fk([[0, 0, 0, 10**400]]),
    lambda r: r.fk(...),
    lambda r: r.extrapolate(np.zeros(4), ..., ["tip_a"]),
    lambda r: r.extrapolate(np.zeros(4), np.zeros((2, 3)), ["tip_a"]),
])
def test_configurations_that_are_not_finite_numbers_of_the_right_shape_are_named(tree, call):
    with pytest.raises(ValueError, match=r"(configurations|configuration|point) (must|contain)"):
        call(tree)


@pytest.mark.parametrize("links", [None, "tip_a", 5, 10**400])
def test_extrapolate_and_fk_take_a_list_of_links(tree, links):
    with pytest.raises(TypeError, match="links must be a list of link names"):
        tree.extrapolate(np.zeros(4), np.zeros((2, 4)), links)
    if links is not None:  # fk: None is every link
        with pytest.raises(TypeError, match="links must be a list of link names"):
            tree.fk(np.zeros(4), links)


@pytest.mark.parametrize("link", [np.zeros((2, 2)), ["tip_a"], {"tip_a"}])
def test_a_link_that_is_not_a_name_is_an_unknown_link(tree, link):
    with pytest.raises(UnknownNameError, match="unknown link"):
        tree.link_index(link)
    with pytest.raises(UnknownNameError, match="unknown link"):
        tree.jacobian(np.zeros(4), link)
