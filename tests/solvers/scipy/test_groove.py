"""The RelaxedIK losses [E 3.1.6]: groove and swamp match their formulas and derivatives."""

import numpy as np
import pytest

from bioik.goals.swamp import swamp, swamp_b, swamp_derivative
from bioik.solvers.scipy.groove import POSE_GROOVE, SWAMP, groove, groove_derivative, groove_derivative_over_offset

X = np.linspace(-0.7, 0.9, 33)


def test_groove_values_by_hand():
    # pose parameters s = 0, c = 0.1, n = 1, r = 10, g = 2: −exp(−x²/0.02) + 10x²
    assert groove(0.0, **POSE_GROOVE) == pytest.approx(-1.0)
    assert groove(0.1, **POSE_GROOVE) == pytest.approx(-np.exp(-0.5) + 0.1)
    assert groove(-0.3, **POSE_GROOVE) == pytest.approx(-np.exp(-4.5) + 0.9)
    # the general formula (−1)^n exp(−(x−s)²/(2c²)) + r (x−s)^g
    s, c, r, g = 0.2, 0.35, 2.5, 4
    for n in (0, 1):
        expect = (-1.0) ** n * np.exp(-((X - s) ** 2) / (2 * c * c)) + r * (X - s) ** g
        np.testing.assert_allclose(groove(X, s=s, c=c, r=r, g=g, n=n), expect, rtol=1e-14, atol=1e-15)
    # punishing (n = 0) vs rewarding (n = 1) Gaussian
    assert groove(0.2, s=0.2, c=c, r=r, g=g, n=0) == pytest.approx(1.0)


@pytest.mark.parametrize("params", [POSE_GROOVE, dict(s=0.2, c=0.35, r=2.5, g=4, n=0), dict(s=0.0, c=2.5, r=0.035, g=4, n=1)])
def test_groove_derivative_matches_differences(params):
    h = 1e-6
    numeric = (groove(X + h, **params) - groove(X - h, **params)) / (2 * h)
    np.testing.assert_allclose(groove_derivative(X, **params), numeric, rtol=1e-6, atol=1e-6)
    off = X - params["s"]
    keep = np.abs(off) > 1e-9
    np.testing.assert_allclose(groove_derivative_over_offset(X, **params)[keep] * off[keep], groove_derivative(X, **params)[keep], rtol=1e-12, atol=1e-12)


def test_groove_slope_ratio_limit_at_centre():
    # g = 2, n = 1: groove'(x)/x → 1/c² + 2r at x = s
    c, r = POSE_GROOVE["c"], POSE_GROOVE["r"]
    assert groove_derivative_over_offset(0.0, **POSE_GROOVE) == pytest.approx(1 / c**2 + 2 * r)
    assert groove_derivative_over_offset(1e-8, **POSE_GROOVE) == pytest.approx(1 / c**2 + 2 * r, rel=1e-9)


def test_swamp_b_solves_its_equation():
    for nw in (2.0, 10.0, 20.0, 60.0):
        b = swamp_b(nw)
        assert 1 - np.exp(-1 / b**nw) == pytest.approx(0.95)


def test_swamp_values_by_hand():
    l, u = -1.5, 2.5
    x = np.linspace(-2.0, 3.0, 41)
    a1, a2, m, nw = 0.7, 1.3, 2.0, 8.0
    b = swamp_b(nw)
    xs = (2 * x - l - u) / (u - l)
    expect = (a1 + a2 * xs**m) * (1 - np.exp(-(xs**nw) / b**nw)) - 1
    np.testing.assert_allclose(swamp(x, l, u, a1=a1, a2=a2, m=m, nw=nw), expect, rtol=1e-14, atol=1e-15)
    # −1 at the centre, (a1 + a2)·0.95 − 1 at the bounds
    assert swamp(0.5, l, u, **SWAMP) == pytest.approx(-1.0)
    expect_bound = (SWAMP["a1"] + SWAMP["a2"]) * 0.95 - 1
    assert swamp(l, l, u, **SWAMP) == pytest.approx(expect_bound)
    assert swamp(u, l, u, **SWAMP) == pytest.approx(expect_bound)
    # flat inside the swamp, walls near the bounds
    assert abs(swamp(0.5 + 0.5 * 2.0, l, u, **SWAMP) + 1.0) < 1e-4  # x' = 0.5
    assert swamp(u + 0.2, l, u, **SWAMP) > swamp(u, l, u, **SWAMP) > swamp(u - 0.4, l, u, **SWAMP)


@pytest.mark.parametrize("params", [SWAMP, dict(a1=0.7, a2=1.3, m=4.0, nw=8.0)])
def test_swamp_derivative_matches_differences(params):
    l, u, h = -1.5, 2.5, 1e-6
    x = np.linspace(-2.0, 3.0, 41)
    numeric = (swamp(x + h, l, u, **params) - swamp(x - h, l, u, **params)) / (2 * h)
    np.testing.assert_allclose(swamp_derivative(x, l, u, **params), numeric, rtol=1e-5, atol=1e-5)
