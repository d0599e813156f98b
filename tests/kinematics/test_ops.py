import numpy as np
from numba import njit

from bioik.kinematics.ops import at, fma


@njit
def _fused_and_plain(a, b, c):
    return fma(a, b, c), a * b + c


def test_fma_rounds_once():
    # (1 + 2⁻³⁰)(1 − 2⁻³⁰) − 1 = −2⁻⁶⁰ exactly; a·b rounds to 1 first, so a·b + c gives 0
    a, b = 1.0 + 2.0**-30, 1.0 - 2.0**-30
    assert _fused_and_plain(a, b, -1.0) == (-(2.0**-60), 0.0)
    assert _fused_and_plain(1.5, -2.0, 0.25) == (-2.75, -2.75)


@njit
def _read(data, i):
    return at(data, i)


def test_at_reads_the_element_at_a_non_negative_index():
    data = np.arange(7.0) * 1.5
    assert [_read(data, i) for i in range(7)] == list(data)
