"""The compiled swamp rows [E 3.1.6] that goals use: w = √a1·√W and v = √a2·x'^(m/2)·√W,
whose squares sum to the numpy swamp + 1; their slopes; smooth and finite at the extremes."""

import numpy as np
import pytest

from bioik.goals.swamp import swamp, swamp_b, swamp_rows

#: [E 8.13]'s a1, a2, n with m = 2, and one more shape.
SHAPES = [(1.0, 0.1, 2.0, 8.0), (0.7, 1.3, 4.0, 20.0)]
X = np.concatenate([np.linspace(-3.0, 3.0, 61), [-0.999, -0.3, 0.05, 0.98, 1.02, 40.0]])


def rows(x, a1, a2, m, nw):
    """(w, w', v, v') at each x, as arrays."""
    b = swamp_b(nw)
    return np.array([swamp_rows(v, a1, a2, m, nw, b) for v in x]).T


@pytest.mark.parametrize("shape", SHAPES)
def test_rows_are_the_wall_and_the_polynomial(shape):
    a1, a2, m, nw = shape
    w, _, v, _ = rows(X, *shape)
    W = -np.expm1(-((X / swamp_b(nw)) ** nw))
    np.testing.assert_allclose(w, np.sqrt(a1 * W), rtol=1e-12)
    np.testing.assert_allclose(v, np.sqrt(a2 * W) * X ** (m / 2), rtol=1e-12)
    np.testing.assert_allclose(w**2 + v**2, swamp(X, -1.0, 1.0, a1=a1, a2=a2, m=m, nw=nw) + 1.0, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("shape", SHAPES)
def test_slopes_match_differences(shape):
    _, dw, _, dv = rows(X, *shape)
    h = 1e-6
    numeric = (rows(X + h, *shape) - rows(X - h, *shape)) / (2 * h)
    np.testing.assert_allclose(dw, numeric[0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(dv, numeric[2], rtol=1e-6, atol=1e-7)


def test_smooth_and_finite_at_the_extremes():
    a1, a2, m, nw = SHAPES[0]
    b = swamp_b(nw)
    assert swamp_rows(0.0, a1, a2, m, nw, b) == (0.0, 0.0, 0.0, 0.0)
    # √W ≈ (x/b)^4 near 0, slope 4·√W/x: no 0/0; w even and v odd in x, as x'^4 and x'^5
    for x in (1e-3, 1e-30, -1e-30):
        w, dw, v, dv = swamp_rows(x, a1, a2, m, nw, b)
        assert w == pytest.approx(np.sqrt(a1) * (x / b) ** 4, rel=1e-6)
        assert dw == pytest.approx(4.0 * w / x, rel=1e-6)
        assert v == pytest.approx(np.sqrt(a2 / a1) * x * w, rel=1e-12)
        assert dv == pytest.approx(5.0 * v / x, rel=1e-6)
    assert swamp_rows(1e-45, a1, a2, m, nw, b) == (0.0, 0.0, 0.0, 0.0)  # (x/b)^8 underflows: the limit
    # far out: the wall row flat at √a1, the polynomial row √a2·x, no inf·0
    for x in (30.0, 1e10, 1e40):
        assert swamp_rows(x, a1, a2, m, nw, b) == pytest.approx((np.sqrt(a1), 0.0, np.sqrt(a2) * x, np.sqrt(a2)), rel=1e-12)
