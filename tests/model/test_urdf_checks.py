"""URDF numbers are read strictly: a bad number is named with its joint or link, its
attribute, the text found and the form expected."""

import re

import numpy as np
import pytest
from urdf_samples import TREE_URDF

import bioik
from bioik.model import URDFError, parse_urdf

J1_ORIGIN = '<origin xyz="0.1 0 0.2" rpy="0.1 0.2 0.3"/>'
J1_AXIS = '<axis xyz="0.3 -0.5 0.8"/>'
J1_LIMIT = '<limit lower="-2.5" upper="2.0" velocity="2.0" effort="10"/>'
MIMIC = '<mimic joint="slide" multiplier="2.0" offset="0.1"/>'
BASE_INERTIAL = '<origin xyz="0 0 0.1"/><mass value="2.0"/>'


def refused(old: str, new: str, *parts: str) -> None:
    """Replacing `old` by `new` in TREE_URDF raises a URDFError whose message has all `parts`."""
    assert old in TREE_URDF
    with pytest.raises(URDFError) as e:
        parse_urdf(TREE_URDF.replace(old, new, 1))
    for part in parts:
        assert part in str(e.value), f"{part!r} not in {str(e.value)!r}"


@pytest.mark.parametrize("bad", ["nan 0 0.2", "0.1 inf 0.2", "0.1 0 -inf"])
def test_non_finite_joint_origin_xyz(bad):
    refused(J1_ORIGIN, f'<origin xyz="{bad}" rpy="0.1 0.2 0.3"/>', "joint 'j1'", f'xyz="{bad}"', "three finite numbers")


@pytest.mark.parametrize("bad", ["inf 0.2 0.3", "0.1 nan 0.3"])
def test_non_finite_joint_origin_rpy(bad):
    refused(J1_ORIGIN, f'<origin xyz="0.1 0 0.2" rpy="{bad}"/>', "joint 'j1'", f'rpy="{bad}"', "three finite numbers")


@pytest.mark.parametrize("bad", ["nan -0.5 0.8", "0 inf 0"])
def test_non_finite_axis(bad):
    refused(J1_AXIS, f'<axis xyz="{bad}"/>', "joint 'j1'", "<axis xyz=", f'xyz="{bad}"', "three finite numbers")


@pytest.mark.parametrize("bad", ["1 0", "1 0 0 0", "1", "", "x y z"])
def test_axis_needs_three_numbers(bad):
    refused(J1_AXIS, f'<axis xyz="{bad}"/>', "joint 'j1'", "<axis xyz=", f'xyz="{bad}"', "three finite numbers")


def test_origin_needs_three_numbers():
    refused(J1_ORIGIN, '<origin xyz="0.1 0"/>', "joint 'j1'", 'xyz="0.1 0"', "three finite numbers")


def test_zero_axis_is_refused():
    refused(J1_AXIS, '<axis xyz="0 0 0"/>', "joint 'j1'", 'xyz="0 0 0"', "non-zero vector of three numbers")


def test_tiny_and_huge_axes_are_normalised():
    for axis in ("3e-300 -5e-300 8e-300", "3e300 -5e300 8e300"):
        model = parse_urdf(TREE_URDF.replace(J1_AXIS, f'<axis xyz="{axis}"/>'))
        np.testing.assert_allclose(model.joint("j1").motions[0].axis, np.array([0.3, -0.5, 0.8]) / np.sqrt(0.98))


@pytest.mark.parametrize(("attr", "bad"), [("multiplier", "nan"), ("multiplier", "inf"), ("offset", "-inf"), ("offset", "nan")])
def test_non_finite_mimic(attr, bad):
    new = re.sub(f'{attr}="[^"]*"', f'{attr}="{bad}"', MIMIC)
    refused(MIMIC, new, "joint 'finger_joint'", '<mimic ', f'{attr}="{bad}"', "one finite number")


def test_mimic_chain_that_overflows():
    urdf = """<robot name="m"><link name="a"/><link name="b"/><link name="c"/><link name="d"/>
    <joint name="j" type="revolute"><parent link="a"/><child link="b"/><limit lower="-1" upper="1"/></joint>
    <joint name="k" type="revolute"><parent link="b"/><child link="c"/><limit lower="-1" upper="1"/><mimic joint="j" multiplier="1e200"/></joint>
    <joint name="l" type="revolute"><parent link="c"/><child link="d"/><limit lower="-1" upper="1"/><mimic joint="k" multiplier="1e200"/></joint></robot>"""
    with pytest.raises(URDFError, match="mimic chain of joint 'l' .* expected finite numbers"):
        parse_urdf(urdf)


@pytest.mark.parametrize("bad", ["nan", "inf", "-1", "heavy"])
def test_bad_mass(bad):
    expected = "a mass >= 0" if bad == "-1" else "one finite number"
    refused(BASE_INERTIAL, f'<origin xyz="0 0 0.1"/><mass value="{bad}"/>', "link 'base'", "<mass value=", f'value="{bad}"', expected)


def test_non_finite_centre_of_mass():
    refused(BASE_INERTIAL, '<origin xyz="0 0 nan"/><mass value="2.0"/>', "link 'base'", 'xyz="0 0 nan"', "three finite numbers")


@pytest.mark.parametrize("bad", ["nan", "inf", "-2"])
def test_bad_velocity(bad):
    expected = "a number >= 0" if bad == "-2" else "one finite number"
    refused(J1_LIMIT, f'<limit lower="-2.5" upper="2.0" velocity="{bad}" effort="10"/>', "joint 'j1'", f'velocity="{bad}"', expected)


@pytest.mark.parametrize(("lower", "upper", "bad"), [
    ("-1e308", "1e308", 'lower="-1e308"'), ("-inf", "2", 'lower="-inf"'), ("-1", "inf", 'upper="inf"'),
    ("nan", "1", 'lower="nan"'), ("-1", "2e6", 'upper="2e6"'), ("low", "1", 'lower="low"'),
])
def test_revolute_limits_must_be_finite_and_sane(lower, upper, bad):
    refused(J1_LIMIT, f'<limit lower="{lower}" upper="{upper}" velocity="2.0" effort="10"/>',
            "joint 'j1'", bad, "revolute joint needs finite lower <= upper", "continuous joint")


def test_prismatic_limits_must_be_finite():
    refused('<limit lower="0" upper="0.2"', '<limit lower="0" upper="1e308"', "joint 'slide'", 'upper="1e308"',
            "prismatic joint needs finite lower <= upper")


def test_lower_above_upper():
    refused(J1_LIMIT, '<limit lower="2" upper="1" velocity="2.0"/>', "joint 'j1'", "lower=2.0 upper=1.0", "expected finite lower <= upper")


def test_huge_limits_no_longer_give_infinite_answers():
    """1e308 limits used to load, and a solve answered q = [inf, inf]."""
    urdf = """<robot name="r"><link name="a"/><link name="b"/><link name="c"/>
    <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="-1e308" upper="1e308"/></joint>
    <joint name="k" type="fixed"><parent link="b"/><child link="c"/><origin xyz="1 0 0"/></joint></robot>"""
    with pytest.raises(URDFError, match="lower=\"-1e308\""):
        bioik.load_robot(urdf)


def test_continuous_joints_ignore_their_limits_and_absent_bounds_are_zero():
    cont = TREE_URDF.replace('<axis xyz="0 1 0"/></joint>', '<axis xyz="0 1 0"/><limit lower="-inf" upper="inf" velocity="3"/></joint>', 1)
    v = parse_urdf(cont).variables[1]
    assert (v.name, v.lower, v.upper, v.velocity) == ("j2", -np.inf, np.inf, 3.0)
    v = parse_urdf(TREE_URDF.replace(J1_LIMIT, '<limit velocity="2.0"/>')).variables[0]
    assert (v.lower, v.upper) == (0.0, 0.0)


@pytest.mark.parametrize(("old", "new", "parts"), [
    ('<box size="0.2 0.2 0.1"/>', '<box size="0.2 0.2"/>', ("link 'base'", "<box size=", "three finite numbers")),
    ('<sphere radius="0.04"/>', '<sphere radius="nan"/>', ("link 'l2'", "<sphere radius=", "one finite number")),
    ('<cylinder radius="0.05" length="0.3"/>', '<cylinder radius="0.05" length="-0.3"/>', ("link 'l1'", 'length="-0.3"', ">= 0")),
    ('<origin xyz="0 0 0.15"/>', '<origin xyz="0 0 0.15" rpy="0 inf 0"/>', ("link 'l1'", 'rpy="0 inf 0"')),
])
def test_collision_numbers(old, new, parts):
    refused(old, new, *parts)


def test_mesh_scale_has_one_or_three_numbers():
    mesh = '<mesh filename="part.stl" scale="0.001"/>'
    model = parse_urdf(TREE_URDF.replace('<sphere radius="0.04"/>', mesh))
    assert model.link("l2").collision[0].size == (0.001, 0.001, 0.001)
    refused('<sphere radius="0.04"/>', '<mesh filename="part.stl" scale="1 1"/>', "link 'l2'", 'scale="1 1"', "one finite number or three finite numbers")


def test_empty_geometry_is_named():
    refused('<sphere radius="0.04"/>', "", "link 'l2'", "<geometry> has no <box>, <cylinder>, <sphere> or <mesh>")


@pytest.mark.parametrize(("new", "parts"), [
    ('<visual><origin xyz="1 2"/><geometry><box size="1 1 1"/></geometry></visual>', ("link 'l3'", 'xyz="1 2"', "three finite numbers")),
    ('<visual><geometry/></visual>', ("link 'l3'", "<geometry> has no <box>")),
    ('<inertial><mass value="1"/><inertia ixx="heavy"/></inertial>', ("link 'l3'", 'ixx="heavy"', "one finite number")),
])
def test_what_yourdfpy_fails_on_is_named_also_where_bioik_does_not_use_it(new, parts):
    refused('<link name="l3"/>', f'<link name="l3">{new}</link>', *parts)
